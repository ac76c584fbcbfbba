package dev.floe.interop;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ReplacePartitions;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.Term;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Apache Iceberg Java as a reference peer for floe's interop tests.
 *
 * <pre>
 * IcebergPeer COMMAND --catalog hadoop|jdbc|rest --warehouse W [--uri jdbc:sqlite:PATH|http://HOST:PORT]
 *                     [--name default] [--prop.KEY VALUE ...] --table NS.T [options]
 *
 *   --prop.KEY VALUE  a catalog property of the jdbc and rest catalogs (e.g. --prop.io-impl,
 *                     --prop.s3.endpoint for tables on S3; S3FileIO must be on the classpath)
 *
 *   create            stdin {"schema": ICEBERG_SCHEMA_JSON, "partition": ["bucket(16, id)", ...],
 *                            "properties": {...}}
 *   append            stdin rows (JSON Lines, floe's conventions) [--rows-per-file N]
 *   overwrite         stdin rows; --filter FILTER (overwrite by row filter) or --dynamic
 *                     (replace the partitions the new rows fall in)
 *   delete            --filter FILTER (metadata delete of whole files)
 *   row-delta         stdin {"add": [rows], "position_delete_filter": FILTER,
 *                            "equality_fields": ["id"], "equality_deletes": [full rows],
 *                            "equality_delete_full_rows": false}
 *                     (in a format-version 3 table the position deletes are deletion vectors,
 *                     each merged with its data file's previous one, which the delta removes)
 *   evolve-schema     stdin [{"op": "add", "name": "c", "type": "long", "parent": "s",
 *                             "default": V (v3: the initial-default, floe's JSON conventions)},
 *                            {"op": "rename", "name": "a", "to": "b"}, {"op": "drop", "name": "x"},
 *                            {"op": "widen", "name": "i", "type": "long"},
 *                            {"op": "optional", "name": "y"}]
 *   evolve-partition  stdin [{"op": "add", "field": "bucket(8, id)"},
 *                            {"op": "remove", "field": "day(ts)"}]
 *   expire            --older-than-ms MILLIS [--retain-last N]
 *   scan              [--snapshot ID] [--columns a,b] [--filter FILTER] [--schema-file F]
 *                     rows as JSON Lines (and the read schema as Iceberg JSON into F)
 *   schema            [--snapshot ID]   the schema as Iceberg JSON
 *   snapshots         JSON array of the snapshots (id, parent, sequence number, summary)
 *   location          the current metadata file's location
 *   script            stdin [{"cmd": "append", "args": {"table": "ns.t"}, "stdin": "..."}, ...]:
 *                     runs the steps in one JVM (the command line's options are the defaults
 *                     of every step) and prints a JSON array of their standard outputs; stops
 *                     at the first failing step
 * </pre>
 *
 * <p>FILTER is JSON: ["and", F, F], ["or", F, F], ["not", F], ["=", col, v] (also "!=", "<",
 * "<=", ">", ">="), ["in", col, [v, ...]], ["is_null", col], ["not_null", col], ["true"]. Values
 * are in floe's JSON conventions and converted by Iceberg to the column's type. A comparison
 * or IN with a null value is false (SQL), also where the peer evaluates rows itself.
 *
 * <p>Rows follow floe's JSON conventions (docs/json-rows.md): decimals as strings, dates and
 * times as ISO text with six fraction digits, timestamptz with "+00:00", binary and fixed as
 * base64, uuid as text, maps as [{"key": k, "value": v}].
 *
 * <p>Exit code 0 on success; 2 for a usage error; 1 with the Java exception on stderr otherwise.
 */
public final class IcebergPeer {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS");
  private static final Pattern TRANSFORM =
      Pattern.compile("^\\s*(\\w+)\\s*(?:\\(\\s*(?:(\\d+)\\s*,\\s*)?(\\w+)\\s*\\))?\\s*$");

  private final Map<String, String> opts = new HashMap<>();
  private final List<String> flags = new ArrayList<>();

  private IcebergPeer(String[] args, int from) {
    for (int i = from; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new UsageError("unexpected argument: " + a);
      }
      String key = a.substring(2);
      if (key.equals("dynamic") || key.equals("full-rows")) {
        flags.add(key);
      } else {
        if (i + 1 >= args.length) {
          throw new UsageError("missing value for " + a);
        }
        opts.put(key, args[++i]);
      }
    }
  }

  public static void main(String[] args) {
    if (args.length < 1) {
      System.err.println("usage: IcebergPeer COMMAND --catalog hadoop|jdbc --warehouse W ...");
      System.exit(2);
    }
    try {
      IcebergPeer peer = new IcebergPeer(args, 1);
      peer.run(args[0]);
      System.out.flush();
      System.exit(0);
    } catch (UsageError e) {
      System.err.println("usage error: " + e.getMessage());
      System.exit(2);
    } catch (Exception e) {
      e.printStackTrace(System.err);
      System.exit(1);
    }
  }

  private static final class UsageError extends RuntimeException {
    UsageError(String message) {
      super(message);
    }
  }

  private String required(String key) {
    String v = opts.get(key);
    if (v == null) {
      throw new UsageError("--" + key + " is required");
    }
    return v;
  }

  // ---------------------------------------------------------------- catalogs

  /** One catalog per setting for the whole process (script steps share its connection pool). */
  private static final Map<String, Catalog> CATALOGS = new HashMap<>();

  private Catalog catalog() {
    String kind = required("catalog");
    String warehouse = required("warehouse");
    String key = String.join("\n", kind, warehouse, opts.getOrDefault("uri", ""),
        opts.getOrDefault("name", "default"), catalogProperties().toString());
    Catalog cached = CATALOGS.get(key);
    if (cached != null) {
      return cached;
    }
    Configuration conf = new Configuration();
    Catalog catalog;
    if (kind.equals("hadoop")) {
      catalog = new HadoopCatalog(conf, warehouse);
    } else if (kind.equals("jdbc")) {
      JdbcCatalog jdbc = new JdbcCatalog();
      jdbc.setConf(conf);
      Map<String, String> props = new HashMap<>();
      props.put("uri", required("uri"));
      props.put("warehouse", warehouse);
      // SQLite: wait for another process's lock instead of failing at once.
      props.put("jdbc.busy_timeout", "30000");
      props.putAll(catalogProperties());
      jdbc.initialize(opts.getOrDefault("name", "default"), props);
      catalog = jdbc;
    } else if (kind.equals("rest")) {
      // Iceberg Java's REST client on the server at --uri (http://host:port).
      RESTCatalog rest = new RESTCatalog();
      rest.setConf(conf);
      Map<String, String> props = new HashMap<>();
      props.put("uri", required("uri"));
      props.putAll(catalogProperties());
      rest.initialize(opts.getOrDefault("name", "default"), props);
      catalog = rest;
    } else {
      throw new UsageError("--catalog must be hadoop, jdbc or rest, not " + kind);
    }
    CATALOGS.put(key, catalog);
    return catalog;
  }

  /** The --prop.KEY VALUE options, as catalog properties KEY=VALUE. */
  private Map<String, String> catalogProperties() {
    Map<String, String> props = new HashMap<>();
    opts.forEach((k, v) -> {
      if (k.startsWith("prop.")) {
        props.put(k.substring("prop.".length()), v);
      }
    });
    return props;
  }

  private TableIdentifier tableId() {
    return TableIdentifier.parse(required("table"));
  }

  private Table load() {
    return catalog().loadTable(tableId());
  }

  // ---------------------------------------------------------------- commands

  private void run(String command) throws IOException {
    switch (command) {
      case "create" -> create();
      case "append" -> append();
      case "overwrite" -> overwrite();
      case "delete" -> delete();
      case "row-delta" -> rowDelta();
      case "evolve-schema" -> evolveSchema();
      case "evolve-partition" -> evolvePartition();
      case "expire" -> expire();
      case "scan" -> scan();
      case "schema" -> schema();
      case "snapshots" -> snapshots();
      case "location" -> location();
      case "script" -> script();
      default -> throw new UsageError("unknown command " + command);
    }
  }

  private void create() throws IOException {
    JsonNode spec = readStdinJson();
    Schema schema = SchemaParser.fromJson(spec.get("schema").toString());
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    if (spec.has("partition")) {
      for (JsonNode p : spec.get("partition")) {
        addToSpec(builder, p.asText());
      }
    }
    Map<String, String> props = new HashMap<>();
    props.put("format-version", "2");
    if (spec.has("properties")) {
      spec.get("properties").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
    }
    Catalog catalog = catalog();
    TableIdentifier id = tableId();
    if (catalog instanceof SupportsNamespaces ns && !ns.namespaceExists(id.namespace())) {
      ns.createNamespace(id.namespace());
    }
    Table table = catalog.createTable(id, schema, builder.build(), props);
    System.out.println(table.location());
  }

  private void append() throws IOException {
    Table table = load();
    List<DataFile> files = writeData(table, readStdinRows(table.schema()));
    var append = table.newAppend();
    files.forEach(append::appendFile);
    append.commit();
    printSnapshotId(table);
  }

  private void overwrite() throws IOException {
    Table table = load();
    List<DataFile> files = writeData(table, readStdinRows(table.schema()));
    if (flags.contains("dynamic")) {
      ReplacePartitions replace = table.newReplacePartitions();
      files.forEach(replace::addFile);
      replace.commit();
    } else {
      OverwriteFiles overwrite =
          table.newOverwrite().overwriteByRowFilter(parseFilter(MAPPER.readTree(required("filter"))));
      files.forEach(overwrite::addFile);
      overwrite.commit();
    }
    printSnapshotId(table);
  }

  private void delete() throws IOException {
    Table table = load();
    table.newDelete().deleteFromRowFilter(parseFilter(MAPPER.readTree(required("filter")))).commit();
    printSnapshotId(table);
  }

  private void rowDelta() throws IOException {
    Table table = load();
    JsonNode spec = readStdinJson();
    Schema schema = table.schema();
    RowDelta delta = table.newRowDelta();
    if (table.currentSnapshot() != null) {
      delta.validateFromSnapshot(table.currentSnapshot().snapshotId());
    }
    if (spec.has("position_delete_filter")) {
      Expression filter = parseFilter(spec.get("position_delete_filter"));
      if (((HasTableOperations) table).operations().current().formatVersion() >= 3) {
        addDeletionVectors(table, filter, delta);
      } else {
        for (DeleteFile f : writePositionDeletes(table, filter)) {
          delta.addDeletes(f);
        }
      }
    }
    if (spec.has("equality_deletes")) {
      List<Record> rows = new ArrayList<>();
      for (JsonNode n : spec.get("equality_deletes")) {
        rows.add((Record) fromJson(schema.asStruct(), n));
      }
      List<String> fields = new ArrayList<>();
      spec.get("equality_fields").forEach(n -> fields.add(n.asText()));
      boolean fullRows = spec.path("equality_delete_full_rows").asBoolean(false);
      for (DeleteFile f : writeEqualityDeletes(table, rows, fields, fullRows)) {
        delta.addDeletes(f);
      }
    }
    if (spec.has("add")) {
      List<Record> rows = new ArrayList<>();
      for (JsonNode n : spec.get("add")) {
        rows.add((Record) fromJson(schema.asStruct(), n));
      }
      writeData(table, rows).forEach(delta::addRows);
    }
    delta.commit();
    printSnapshotId(table);
  }

  private void evolveSchema() throws IOException {
    Table table = load();
    UpdateSchema update = table.updateSchema();
    for (JsonNode op : readStdinJson()) {
      String name = op.path("name").asText();
      switch (op.path("op").asText()) {
        case "add" -> {
          Type type = typeFromJson(op.get("type"));
          String parent = op.has("parent") ? op.get("parent").asText() : null;
          if (op.has("default")) {
            // v3: the initial-default (and write-default) of the new column.
            update.addColumn(parent, name, type, null, defaultLiteral(type, op.get("default")));
          } else if (parent != null) {
            update.addColumn(parent, name, type);
          } else {
            update.addColumn(name, type);
          }
        }
        case "rename" -> update.renameColumn(name, op.get("to").asText());
        case "drop" -> update.deleteColumn(name);
        case "widen" -> update.updateColumn(name, (Type.PrimitiveType) typeFromJson(op.get("type")));
        case "optional" -> update.makeColumnOptional(name);
        case "first" -> update.moveFirst(name);
        case "after" -> update.moveAfter(name, op.get("other").asText());
        default -> throw new UsageError("unknown schema change " + op);
      }
    }
    update.commit();
    System.out.println(SchemaParser.toJson(table.schema()));
  }

  private void evolvePartition() throws IOException {
    Table table = load();
    UpdatePartitionSpec update = table.updateSpec();
    for (JsonNode op : readStdinJson()) {
      switch (op.path("op").asText()) {
        case "add" -> update.addField(term(op.get("field").asText()));
        case "remove" -> {
          if (op.has("name")) {
            update.removeField(op.get("name").asText());
          } else {
            update.removeField(term(op.get("field").asText()));
          }
        }
        default -> throw new UsageError("unknown partition change " + op);
      }
    }
    update.commit();
    System.out.println(table.spec());
  }

  private void expire() {
    Table table = load();
    var expire = table.expireSnapshots().expireOlderThan(Long.parseLong(required("older-than-ms")));
    if (opts.containsKey("retain-last")) {
      expire.retainLast(Integer.parseInt(opts.get("retain-last")));
    }
    expire.commit();
    printSnapshotId(table);
  }

  private void scan() throws IOException {
    Table table = load();
    IcebergGenerics.ScanBuilder builder = IcebergGenerics.read(table);
    Schema schema = table.schema();
    if (opts.containsKey("snapshot")) {
      long id = Long.parseLong(opts.get("snapshot"));
      builder.useSnapshot(id);
      schema = SnapshotUtil.schemaFor(table, id);
    }
    Expression filter = Expressions.alwaysTrue();
    if (opts.containsKey("filter")) {
      filter = parseFilter(MAPPER.readTree(opts.get("filter")));
      builder.where(filter);
    }
    // Residual rows are filtered here, exactly, on the full row (the scan only prunes).
    Evaluator evaluator = new Evaluator(schema.asStruct(), filter, true);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    List<String> columns = null;
    if (opts.containsKey("columns")) {
      columns = List.of(opts.get("columns").split(","));
    }
    if (opts.containsKey("schema-file")) {
      java.nio.file.Files.writeString(java.nio.file.Path.of(opts.get("schema-file")), SchemaParser.toJson(schema));
    }
    Writer out = new OutputStreamWriter(System.out, StandardCharsets.UTF_8);
    JsonGenerator gen = new JsonFactory().createGenerator(out);
    gen.setRootValueSeparator(null);
    try (CloseableIterable<Record> rows = builder.build()) {
      for (Record row : rows) {
        if (!evaluator.eval(wrapper.wrap(row))) {
          continue;
        }
        gen.writeStartObject();
        // The read schema's columns only (the reader may add metadata columns like _pos).
        for (Types.NestedField f : schema.columns()) {
          if (columns != null && !columns.contains(f.name())) {
            continue;
          }
          gen.writeFieldName(f.name());
          toJson(gen, f.type(), row.getField(f.name()));
        }
        gen.writeEndObject();
        gen.flush();
        out.write('\n');
      }
    }
    gen.flush();
    out.flush();
  }

  private void script() throws IOException {
    JsonNode steps = readStdinJson();
    java.io.InputStream realIn = System.in;
    PrintStream realOut = System.out;
    ArrayNode outputs = MAPPER.createArrayNode();
    try {
      for (JsonNode step : steps) {
        IcebergPeer peer = new IcebergPeer(new String[0], 0);
        peer.opts.putAll(opts);
        peer.flags.addAll(flags);
        step.path("args").fields().forEachRemaining(e -> peer.opts.put(e.getKey(), e.getValue().asText()));
        step.path("flags").forEach(f -> peer.flags.add(f.asText()));
        String stdin = step.path("stdin").isTextual() ? step.get("stdin").asText()
            : step.has("stdin") ? step.get("stdin").toString() : "";
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setIn(new java.io.ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
          peer.run(step.path("cmd").asText());
        } finally {
          System.out.flush();
          System.setOut(realOut);
          System.setIn(realIn);
        }
        outputs.add(captured.toString(StandardCharsets.UTF_8));
      }
    } finally {
      System.setOut(realOut);
    }
    System.out.println(MAPPER.writeValueAsString(outputs));
  }

  private void schema() {
    Table table = load();
    Schema schema = table.schema();
    if (opts.containsKey("snapshot")) {
      schema = SnapshotUtil.schemaFor(table, Long.parseLong(opts.get("snapshot")));
    }
    System.out.println(SchemaParser.toJson(schema));
  }

  private void snapshots() throws IOException {
    Table table = load();
    ArrayNode list = MAPPER.createArrayNode();
    for (Snapshot s : table.snapshots()) {
      ObjectNode o = list.addObject();
      o.put("snapshot-id", s.snapshotId());
      if (s.parentId() != null) {
        o.put("parent-snapshot-id", s.parentId());
      }
      o.put("sequence-number", s.sequenceNumber());
      o.put("timestamp-ms", s.timestampMillis());
      o.put("operation", s.operation());
      ObjectNode summary = o.putObject("summary");
      new TreeMap<>(s.summary()).forEach(summary::put);
    }
    ObjectNode top = MAPPER.createObjectNode();
    Snapshot current = table.currentSnapshot();
    if (current != null) {
      top.put("current-snapshot-id", current.snapshotId());
    }
    top.set("snapshots", list);
    System.out.println(MAPPER.writeValueAsString(top));
  }

  private void location() {
    Table table = load();
    System.out.println(
        ((org.apache.iceberg.HasTableOperations) table).operations().current().metadataFileLocation());
  }

  private static void printSnapshotId(Table table) {
    table.refresh();
    Snapshot s = table.currentSnapshot();
    System.out.println(s == null ? "null" : Long.toString(s.snapshotId()));
  }

  // ---------------------------------------------------------------- writing files

  /** Writes rows into one or more Parquet data files per partition of the current spec. */
  private List<DataFile> writeData(Table table, List<Record> rows) throws IOException {
    int perFile = Integer.parseInt(opts.getOrDefault("rows-per-file", "1000000"));
    PartitionSpec spec = table.spec();
    GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), spec);
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
        .format(FileFormat.PARQUET).build();
    List<DataFile> out = new ArrayList<>();
    for (Map.Entry<PartitionKey, List<Record>> group : byPartition(table, spec, rows).entrySet()) {
      List<Record> part = group.getValue();
      for (int from = 0; from < part.size(); from += perFile) {
        PartitionKey key = spec.isUnpartitioned() ? null : group.getKey();
        EncryptedOutputFile file = key == null ? files.newOutputFile() : files.newOutputFile(spec, key);
        DataWriter<Record> writer = factory.newDataWriter(file, FileFormat.PARQUET, key);
        try (writer) {
          for (Record r : part.subList(from, Math.min(part.size(), from + perFile))) {
            writer.write(r);
          }
        }
        out.add(writer.toDataFile());
      }
    }
    return out;
  }

  private static Map<PartitionKey, List<Record>> byPartition(
      Table table, PartitionSpec spec, List<Record> rows) {
    Map<PartitionKey, List<Record>> groups = new LinkedHashMap<>();
    PartitionKey key = new PartitionKey(spec, table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    for (Record r : rows) {
      key.partition(wrapper.wrap(r));
      groups.computeIfAbsent(key.copy(), k -> new ArrayList<>()).add(r);
    }
    return groups;
  }

  /**
   * Writes, for every live data file, a position delete file with the positions of the rows
   * that match the filter (in the file's own spec and partition).
   */
  private List<DeleteFile> writePositionDeletes(Table table, Expression filter) throws IOException {
    Schema schema = table.schema();
    Evaluator evaluator = new Evaluator(schema.asStruct(), filter, true);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    OutputFileFactory files = OutputFileFactory.builderFor(table, 2, System.nanoTime())
        .format(FileFormat.PARQUET).build();
    Map<String, DataFile> live = new TreeMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        live.put(t.file().location(), t.file());
      }
    }
    List<DeleteFile> out = new ArrayList<>();
    for (DataFile data : live.values()) {
      List<Long> positions = matchingPositions(table, data, evaluator, wrapper);
      if (positions.isEmpty()) {
        continue;
      }
      PartitionSpec spec = table.specs().get(data.specId());
      StructLike partition = spec.isUnpartitioned() ? null : data.partition();
      GenericAppenderFactory factory = new GenericAppenderFactory(schema, spec);
      EncryptedOutputFile file =
          partition == null ? files.newOutputFile() : files.newOutputFile(spec, partition);
      PositionDeleteWriter<Record> writer = factory.newPosDeleteWriter(file, FileFormat.PARQUET, partition);
      try (writer) {
        PositionDelete<Record> delete = PositionDelete.create();
        for (long p : positions) {
          writer.write(delete.set(data.location(), p, null));
        }
      }
      out.add(writer.toDeleteFile());
    }
    return out;
  }

  /** The positions of the rows of `data` (deleted or not) that `evaluator` accepts. */
  private static List<Long> matchingPositions(
      Table table, DataFile data, Evaluator evaluator, InternalRecordWrapper wrapper) throws IOException {
    Schema schema = table.schema();
    List<Long> positions = new ArrayList<>();
    try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(data.location()))
        .project(schema)
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
        .build()) {
      long pos = 0;
      for (Record r : rows) {
        if (evaluator.eval(wrapper.wrap(r))) {
          positions.add(pos);
        }
        pos++;
      }
    }
    return positions;
  }

  /**
   * The v3 form of writePositionDeletes: one deletion vector per data file with matching rows,
   * all in one Puffin file, each merged with the file's previous deletion vector (or position
   * deletes), which the delta removes, as the spec requires.
   */
  private void addDeletionVectors(Table table, Expression filter, RowDelta delta) throws IOException {
    Schema schema = table.schema();
    Evaluator evaluator = new Evaluator(schema.asStruct(), filter, true);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    Map<String, DataFile> live = new TreeMap<>();
    Map<String, List<DeleteFile>> previous = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        live.put(t.file().location(), t.file());
        List<DeleteFile> positional = new ArrayList<>();
        for (DeleteFile d : t.deletes()) {
          if (d.content() == FileContent.POSITION_DELETES) {
            positional.add(d);
          }
        }
        previous.put(t.file().location(), positional);
      }
    }
    BaseDeleteLoader loader = new BaseDeleteLoader(d -> table.io().newInputFile(d.location()));
    OutputFileFactory files = OutputFileFactory.builderFor(table, 3, System.nanoTime())
        .format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(files, path -> {
      List<DeleteFile> old = previous.getOrDefault(path, List.of());
      return old.isEmpty() ? null : loader.loadPositionDeletes(old, path);
    });
    try (writer) {
      for (DataFile data : live.values()) {
        PartitionSpec spec = table.specs().get(data.specId());
        for (long p : matchingPositions(table, data, evaluator, wrapper)) {
          writer.delete(data.location(), p, spec, data.partition());
        }
      }
    }
    writer.result().deleteFiles().forEach(delta::addDeletes);
    writer.result().rewrittenDeleteFiles().forEach(delta::removeDeletes);
  }

  /**
   * Writes equality delete files keyed by `fields`, one per partition of the current spec (the
   * partition is computed from each full row). With fullRows the files hold whole rows, else
   * only the key columns.
   */
  private List<DeleteFile> writeEqualityDeletes(
      Table table, List<Record> rows, List<String> fields, boolean fullRows) throws IOException {
    Schema schema = table.schema();
    int[] ids = fields.stream().mapToInt(n -> schema.findField(n).fieldId()).toArray();
    Schema deleteSchema = fullRows ? schema : schema.select(fields);
    PartitionSpec spec = table.spec();
    GenericAppenderFactory factory = new GenericAppenderFactory(schema, spec, ids, deleteSchema, null);
    OutputFileFactory files = OutputFileFactory.builderFor(table, 3, System.nanoTime())
        .format(FileFormat.PARQUET).build();
    List<DeleteFile> out = new ArrayList<>();
    for (Map.Entry<PartitionKey, List<Record>> group : byPartition(table, spec, rows).entrySet()) {
      PartitionKey key = spec.isUnpartitioned() ? null : group.getKey();
      EncryptedOutputFile file = key == null ? files.newOutputFile() : files.newOutputFile(spec, key);
      EqualityDeleteWriter<Record> writer = factory.newEqDeleteWriter(file, FileFormat.PARQUET, key);
      try (writer) {
        for (Record r : group.getValue()) {
          if (fullRows) {
            writer.write(r);
          } else {
            Record k = GenericRecord.create(deleteSchema);
            for (String f : fields) {
              k.setField(f, r.getField(f));
            }
            writer.write(k);
          }
        }
      }
      out.add(writer.toDeleteFile());
    }
    return out;
  }

  // ---------------------------------------------------------------- partition terms and filters

  private static void addToSpec(PartitionSpec.Builder builder, String text) {
    Matcher m = TRANSFORM.matcher(text);
    if (!m.matches()) {
      throw new UsageError("bad partition field: " + text);
    }
    String fn = m.group(1);
    String col = m.group(3);
    if (col == null) {
      builder.identity(fn);
      return;
    }
    switch (fn) {
      case "identity" -> builder.identity(col);
      case "bucket" -> builder.bucket(col, Integer.parseInt(m.group(2)));
      case "truncate" -> builder.truncate(col, Integer.parseInt(m.group(2)));
      case "year", "years" -> builder.year(col);
      case "month", "months" -> builder.month(col);
      case "day", "days" -> builder.day(col);
      case "hour", "hours" -> builder.hour(col);
      case "void" -> builder.alwaysNull(col);
      default -> throw new UsageError("unknown transform: " + text);
    }
  }

  private static Term term(String text) {
    Matcher m = TRANSFORM.matcher(text);
    if (!m.matches()) {
      throw new UsageError("bad partition field: " + text);
    }
    String fn = m.group(1);
    String col = m.group(3);
    if (col == null) {
      return Expressions.ref(fn);
    }
    return switch (fn) {
      case "identity" -> Expressions.ref(col);
      case "bucket" -> Expressions.bucket(col, Integer.parseInt(m.group(2)));
      case "truncate" -> Expressions.truncate(col, Integer.parseInt(m.group(2)));
      case "year", "years" -> Expressions.year(col);
      case "month", "months" -> Expressions.month(col);
      case "day", "days" -> Expressions.day(col);
      case "hour", "hours" -> Expressions.hour(col);
      default -> throw new UsageError("unknown transform: " + text);
    };
  }

  private static Expression parseFilter(JsonNode n) {
    String op = n.get(0).asText();
    switch (op) {
      case "true":
        return Expressions.alwaysTrue();
      case "and":
        return Expressions.and(parseFilter(n.get(1)), parseFilter(n.get(2)));
      case "or":
        return Expressions.or(parseFilter(n.get(1)), parseFilter(n.get(2)));
      case "not":
        return Expressions.not(parseFilter(n.get(1)));
      case "is_null":
        return Expressions.isNull(n.get(1).asText());
      case "not_null":
        return Expressions.notNull(n.get(1).asText());
      case "in": {
        List<Object> values = new ArrayList<>();
        n.get(2).forEach(v -> values.add(literal(v)));
        return Expressions.and(
            Expressions.notNull(n.get(1).asText()), Expressions.in(n.get(1).asText(), values));
      }
      default:
        break;
    }
    // SQL semantics: a comparison with null is not true. (Iceberg's row Evaluator orders
    // nulls first, so "x < 5" alone would hold for a null x.)
    String col = n.get(1).asText();
    Object v = literal(n.get(2));
    return Expressions.and(Expressions.notNull(col), comparison(op, col, v));
  }

  private static Expression comparison(String op, String col, Object v) {
    return switch (op) {
      case "=" -> Expressions.equal(col, v);
      case "!=" -> Expressions.notEqual(col, v);
      case "<" -> Expressions.lessThan(col, v);
      case "<=" -> Expressions.lessThanOrEqual(col, v);
      case ">" -> Expressions.greaterThan(col, v);
      case ">=" -> Expressions.greaterThanOrEqual(col, v);
      default -> throw new UsageError("unknown filter operator " + op);
    };
  }

  private static Object literal(JsonNode v) {
    if (v.isIntegralNumber()) {
      return v.longValue();
    }
    if (v.isNumber()) {
      return v.doubleValue();
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    return v.asText();
  }

  // ---------------------------------------------------------------- JSON conventions

  private static Type typeFromJson(JsonNode type) throws IOException {
    ObjectNode wrapper = MAPPER.createObjectNode();
    wrapper.put("type", "struct");
    ObjectNode field = wrapper.putArray("fields").addObject();
    field.put("id", Integer.MAX_VALUE);
    field.put("name", "x");
    field.put("required", false);
    field.set("type", type);
    return SchemaParser.fromJson(MAPPER.writeValueAsString(wrapper)).findType(Integer.MAX_VALUE);
  }

  private static JsonNode readStdinJson() throws IOException {
    return MAPPER.readTree(System.in);
  }

  private static List<Record> readStdinRows(Schema schema) throws IOException {
    List<Record> rows = new ArrayList<>();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (!line.isBlank()) {
        rows.add((Record) fromJson(schema.asStruct(), MAPPER.readTree(line)));
      }
    }
    return rows;
  }

  /** A column default from a value in floe's JSON conventions. */
  private static Literal<?> defaultLiteral(Type type, JsonNode n) {
    return switch (type.typeId()) {
      case BOOLEAN -> Literal.of(n.booleanValue());
      case INTEGER -> Literal.of(n.intValue());
      case LONG -> Literal.of(n.longValue());
      case FLOAT -> Literal.of(n.floatValue());
      case DOUBLE -> Literal.of(n.doubleValue());
      case BINARY, FIXED -> Literal.of(ByteBuffer.wrap(Base64.getDecoder().decode(n.textValue()))).to(type);
      default -> Literal.of(n.isTextual() ? n.textValue() : n.asText()).to(type);
    };
  }

  private static Object fromJson(Type type, JsonNode n) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      return null;
    }
    switch (type.typeId()) {
      case BOOLEAN:
        return n.booleanValue();
      case INTEGER:
        return n.intValue();
      case LONG:
        return n.longValue();
      case FLOAT:
        return n.isTextual() ? Float.parseFloat(n.textValue()) : n.floatValue();
      case DOUBLE:
        return n.isTextual() ? Double.parseDouble(n.textValue()) : n.doubleValue();
      case DECIMAL:
        return new BigDecimal(n.isTextual() ? n.textValue() : n.asText())
            .setScale(((Types.DecimalType) type).scale());
      case DATE:
        return LocalDate.parse(n.textValue());
      case TIME:
        return LocalTime.parse(n.textValue());
      case TIMESTAMP:
        if (((Types.TimestampType) type).shouldAdjustToUTC()) {
          return OffsetDateTime.parse(n.textValue());
        }
        return LocalDateTime.parse(n.textValue());
      case STRING:
        return n.textValue();
      case UUID:
        return UUID.fromString(n.textValue());
      case FIXED:
        return Base64.getDecoder().decode(n.textValue());
      case BINARY:
        return ByteBuffer.wrap(Base64.getDecoder().decode(n.textValue()));
      case STRUCT: {
        Types.StructType struct = type.asStructType();
        GenericRecord r = GenericRecord.create(struct);
        for (Types.NestedField f : struct.fields()) {
          r.setField(f.name(), fromJson(f.type(), n.get(f.name())));
        }
        return r;
      }
      case LIST: {
        List<Object> list = new ArrayList<>();
        Type element = type.asListType().elementType();
        n.forEach(e -> list.add(fromJson(element, e)));
        return list;
      }
      case MAP: {
        Map<Object, Object> map = new LinkedHashMap<>();
        Types.MapType mt = type.asMapType();
        n.forEach(e -> map.put(fromJson(mt.keyType(), e.get("key")), fromJson(mt.valueType(), e.get("value"))));
        return map;
      }
      default:
        throw new UnsupportedOperationException("type not supported by the peer: " + type);
    }
  }

  private static void writeFloating(JsonGenerator g, double d, boolean isFloat) throws IOException {
    if (Double.isNaN(d)) {
      g.writeString("NaN");
    } else if (Double.isInfinite(d)) {
      g.writeString(d > 0 ? "Infinity" : "-Infinity");
    } else if (isFloat) {
      g.writeNumber((float) d);
    } else {
      g.writeNumber(d);
    }
  }

  private static void toJson(JsonGenerator g, Type type, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
      return;
    }
    switch (type.typeId()) {
      case BOOLEAN -> g.writeBoolean((Boolean) v);
      case INTEGER -> g.writeNumber((Integer) v);
      case LONG -> g.writeNumber((Long) v);
      case FLOAT -> writeFloating(g, (Float) v, true);
      case DOUBLE -> writeFloating(g, (Double) v, false);
      case DECIMAL -> g.writeString(((BigDecimal) v).toPlainString());
      case DATE -> g.writeString(v.toString());
      case TIME -> g.writeString(TIME.format((LocalTime) v));
      case TIMESTAMP -> {
        if (v instanceof OffsetDateTime odt) {
          g.writeString(TIMESTAMP.format(odt.withOffsetSameInstant(ZoneOffset.UTC)) + "+00:00");
        } else {
          g.writeString(TIMESTAMP.format((LocalDateTime) v));
        }
      }
      case STRING -> g.writeString(v.toString());
      case UUID -> g.writeString(v.toString());
      case FIXED -> g.writeString(Base64.getEncoder().encodeToString((byte[]) v));
      case BINARY -> {
        ByteBuffer b = ((ByteBuffer) v).duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        g.writeString(Base64.getEncoder().encodeToString(bytes));
      }
      case STRUCT -> {
        Record r = (Record) v;
        g.writeStartObject();
        for (Types.NestedField f : type.asStructType().fields()) {
          g.writeFieldName(f.name());
          toJson(g, f.type(), r.getField(f.name()));
        }
        g.writeEndObject();
      }
      case LIST -> {
        g.writeStartArray();
        for (Object e : (List<?>) v) {
          toJson(g, type.asListType().elementType(), e);
        }
        g.writeEndArray();
      }
      case MAP -> {
        Types.MapType mt = type.asMapType();
        g.writeStartArray();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          g.writeStartObject();
          g.writeFieldName("key");
          toJson(g, mt.keyType(), e.getKey());
          g.writeFieldName("value");
          toJson(g, mt.valueType(), e.getValue());
          g.writeEndObject();
        }
        g.writeEndArray();
      }
      default -> throw new UnsupportedOperationException("type not supported by the peer: " + type);
    }
  }
}
