package dev.floe.bench;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.cdc.connectors.mysql.source.MySqlSource;
import org.apache.flink.cdc.connectors.mysql.table.StartupOptions;
import org.apache.flink.cdc.connectors.shaded.org.apache.kafka.connect.data.Field;
import org.apache.flink.cdc.connectors.shaded.org.apache.kafka.connect.data.Struct;
import org.apache.flink.cdc.connectors.shaded.org.apache.kafka.connect.source.SourceRecord;
import org.apache.flink.cdc.debezium.DebeziumDeserializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Flink side of {@code bench/run_mysql_bench.py --peer flink}: Flink CDC's MySQL source
 * (DataStream {@link MySqlSource}, incremental snapshot, then the binlog) reading every table of
 * one database, and one Iceberg {@link FlinkSink} per table in upsert mode (equality fields = the
 * primary key) into Iceberg's JdbcCatalog on a SQLite file, the kind of catalog {@code floe run}
 * writes in the same benchmark. One unbounded job on a local MiniCluster; the runner stops it.
 *
 * <pre>
 *   FlinkCdcBench --hostname H --port P --username U --password-env VAR --database DB
 *                 --server-id 6400-6404 --catalog-uri jdbc:sqlite:PATH --warehouse DIR
 *                 [--parallelism 2] [--checkpoint-interval-ms 1000] [--chunk-size 8096]
 * </pre>
 *
 * <p>At the start it lists the database's base tables and their columns (information_schema),
 * maps them to Iceberg types (INT/SMALLINT/TINYINT/MEDIUMINT: int, INT UNSIGNED and BIGINT: long,
 * DECIMAL(P,S): decimal(P,S), CHAR/VARCHAR/TEXT: string, DATETIME: timestamp, TIMESTAMP:
 * timestamptz, DATE: date, FLOAT/DOUBLE) and creates each table afresh as NAMESPACE=DB, NAME=table
 * (format v2, unpartitioned, zstd Parquet, identifier fields = primary key).
 *
 * <p>The deserializer turns Debezium's change records (Kafka Connect structs) straight into
 * {@link RowData}: a snapshot read or an insert is an INSERT, an update an UPDATE_AFTER (the
 * before image is dropped: upsert mode deletes by key), a delete a DELETE of the before image. A
 * process function chained to the source sends each row to its table's side output, and each
 * table's FlinkSink keys its rows by the primary key onto {@code parallelism} writers.
 */
public final class FlinkCdcBench {
  static {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
  }

  private FlinkCdcBench() {}

  /** A changed row of one of the tables (the index into the table list). */
  public static final class TableRow {
    public int table;
    public RowData row;

    public TableRow() {}

    TableRow(int table, RowData row) {
      this.table = table;
      this.row = row;
    }
  }

  /** One MySQL table as it will be mirrored. */
  static final class SourceTable {
    final String name;
    final Schema schema;
    final List<String> key;

    SourceTable(String name, Schema schema, List<String> key) {
      this.name = name;
      this.schema = schema;
      this.key = key;
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        usage("bad argument: " + args[i]);
      }
      opts.put(args[i].substring(2), args[++i]);
    }
    String host = opts.getOrDefault("hostname", "127.0.0.1");
    int port = Integer.parseInt(opts.getOrDefault("port", "3306"));
    String user = required(opts, "username");
    String password = System.getenv(opts.getOrDefault("password-env", "MYSQL_PASSWORD"));
    if (password == null) {
      usage("the password's environment variable is not set");
    }
    String database = required(opts, "database");
    String serverId = required(opts, "server-id");
    String catalogUri = required(opts, "catalog-uri");
    String warehouse = required(opts, "warehouse");
    int parallelism = Integer.parseInt(opts.getOrDefault("parallelism", "2"));
    long checkpointMs = Long.parseLong(opts.getOrDefault("checkpoint-interval-ms", "1000"));
    int chunkSize = Integer.parseInt(opts.getOrDefault("chunk-size", "8096"));

    List<SourceTable> tables = describe(host, port, user, password, database);
    if (tables.isEmpty()) {
      usage("no tables in database " + database);
    }

    // The tables, made fresh in the JDBC catalog.
    Map<String, String> catalogProps = new HashMap<>();
    catalogProps.put("uri", catalogUri);
    catalogProps.put("warehouse", warehouse);
    // SQLite: a committer waits for another one's lock instead of failing.
    catalogProps.put("jdbc.busy_timeout", "60000");
    // Every table's committer loads its own catalog, each with its own SQLite connections;
    // concurrent commits of several tables then fail at once with SQLITE_BUSY (seen with
    // the default rollback journal and with WAL, busy_timeout set). SharedCatalog gives the
    // whole JVM one JdbcCatalog with one connection, so commits take turns.
    catalogProps.put("clients", "1");
    SharedCatalog catalog = new SharedCatalog();
    catalog.initialize("default", catalogProps);
    Namespace ns = Namespace.of(database);
    if (!catalog.namespaceExists(ns)) {
      catalog.createNamespace(ns);
    }
    Map<String, String> tableProps = new HashMap<>();
    tableProps.put(TableProperties.FORMAT_VERSION, "2");
    tableProps.put(TableProperties.DEFAULT_FILE_FORMAT, "parquet");
    tableProps.put(TableProperties.PARQUET_COMPRESSION, "zstd");
    tableProps.put(TableProperties.UPSERT_ENABLED, "true");
    List<Table> icebergTables = new ArrayList<>();
    for (SourceTable t : tables) {
      TableIdentifier id = TableIdentifier.of(ns, t.name);
      if (catalog.tableExists(id)) {
        catalog.dropTable(id, true);
      }
      icebergTables.add(catalog.createTable(id, t.schema, PartitionSpec.unpartitioned(), tableProps));
    }

    // The job.
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    env.enableCheckpointing(checkpointMs, CheckpointingMode.EXACTLY_ONCE);
    env.getConfig().enableObjectReuse();

    Map<String, Integer> index = new HashMap<>();
    List<Type[]> types = new ArrayList<>();
    for (int i = 0; i < tables.size(); i++) {
      index.put(tables.get(i).name, i);
      List<Types.NestedField> cols = tables.get(i).schema.columns();
      Type[] ts = new Type[cols.size()];
      for (int c = 0; c < ts.length; c++) {
        ts[c] = cols.get(c).type();
      }
      types.add(ts);
    }
    List<String> tableList = new ArrayList<>();
    for (SourceTable t : tables) {
      tableList.add(database + "." + t.name);
    }
    MySqlSource<TableRow> source =
        MySqlSource.<TableRow>builder()
            .hostname(host)
            .port(port)
            .username(user)
            .password(password)
            .databaseList(database)
            .tableList(tableList.toArray(new String[0]))
            .serverId(serverId)
            .serverTimeZone("UTC")
            .splitSize(chunkSize)
            .startupOptions(StartupOptions.initial())
            .deserializer(new ToRowData(index, types))
            .build();
    DataStream<TableRow> changes =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "mysql-cdc source")
            .setParallelism(parallelism);

    List<OutputTag<RowData>> tags = new ArrayList<>();
    for (int i = 0; i < tables.size(); i++) {
      tags.add(
          new OutputTag<>(
              "t" + i, InternalTypeInfo.of(FlinkSchemaUtil.convert(tables.get(i).schema))));
    }
    SingleOutputStreamOperator<Void> split =
        changes
            .process(new Split(tags))
            .returns(Void.class)
            .name("split by table")
            .setParallelism(parallelism);

    CatalogLoader loader =
        CatalogLoader.custom(
            "default", catalogProps, new org.apache.hadoop.conf.Configuration(),
            SharedCatalog.class.getName());
    for (int i = 0; i < tables.size(); i++) {
      SourceTable t = tables.get(i);
      FlinkSink.forRowData(split.getSideOutput(tags.get(i)))
          .tableLoader(TableLoader.fromCatalog(loader, TableIdentifier.of(ns, t.name)))
          .table(icebergTables.get(i))
          .writeParallelism(parallelism)
          .distributionMode(DistributionMode.NONE)
          .upsert(true)
          .equalityFieldColumns(t.key)
          .uidPrefix("sink-" + t.name)
          .append();
    }

    System.out.printf("mirroring %d tables of %s%n", tables.size(), database);
    System.out.flush();
    env.execute("floe bench: Flink CDC MySQL -> Iceberg FlinkSink");
  }

  /**
   * One JdbcCatalog per catalog URI for the whole JVM (the MiniCluster runs every task in it),
   * behind the instances that CatalogLoader makes for each committer.
   */
  public static final class SharedCatalog implements Catalog, SupportsNamespaces {
    private static final Map<String, JdbcCatalog> SHARED = new HashMap<>();
    private JdbcCatalog delegate;

    public SharedCatalog() {}

    @Override
    public void initialize(String name, Map<String, String> properties) {
      synchronized (SHARED) {
        delegate =
            SHARED.computeIfAbsent(
                properties.get("uri"),
                uri -> {
                  JdbcCatalog c = new JdbcCatalog();
                  c.setConf(new org.apache.hadoop.conf.Configuration());
                  c.initialize(name, properties);
                  return c;
                });
      }
    }

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public List<TableIdentifier> listTables(Namespace namespace) {
      return delegate.listTables(namespace);
    }

    @Override
    public Table createTable(
        TableIdentifier identifier,
        Schema schema,
        PartitionSpec spec,
        Map<String, String> properties) {
      return delegate.createTable(identifier, schema, spec, properties);
    }

    @Override
    public boolean tableExists(TableIdentifier identifier) {
      return delegate.tableExists(identifier);
    }

    @Override
    public boolean dropTable(TableIdentifier identifier, boolean purge) {
      return delegate.dropTable(identifier, purge);
    }

    @Override
    public void renameTable(TableIdentifier from, TableIdentifier to) {
      delegate.renameTable(from, to);
    }

    @Override
    public Table loadTable(TableIdentifier identifier) {
      return delegate.loadTable(identifier);
    }

    @Override
    public void createNamespace(Namespace namespace, Map<String, String> metadata) {
      delegate.createNamespace(namespace, metadata);
    }

    @Override
    public List<Namespace> listNamespaces(Namespace namespace) {
      return delegate.listNamespaces(namespace);
    }

    @Override
    public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
      return delegate.loadNamespaceMetadata(namespace);
    }

    @Override
    public boolean dropNamespace(Namespace namespace) {
      return delegate.dropNamespace(namespace);
    }

    @Override
    public boolean setProperties(Namespace namespace, Map<String, String> properties) {
      return delegate.setProperties(namespace, properties);
    }

    @Override
    public boolean removeProperties(Namespace namespace, Set<String> properties) {
      return delegate.removeProperties(namespace, properties);
    }
  }

  /** Sends each row to its table's side output. */
  static final class Split extends ProcessFunction<TableRow, Void> {
    private final List<OutputTag<RowData>> tags;

    Split(List<OutputTag<RowData>> tags) {
      this.tags = tags;
    }

    @Override
    public void processElement(TableRow value, Context ctx, Collector<Void> out) {
      ctx.output(tags.get(value.table), value.row);
    }
  }

  /** Debezium change records (Kafka Connect structs) to rows of the Iceberg tables. */
  static final class ToRowData implements DebeziumDeserializationSchema<TableRow> {
    private final Map<String, Integer> index;
    private final List<Type[]> types;

    ToRowData(Map<String, Integer> index, List<Type[]> types) {
      this.index = index;
      this.types = types;
    }

    @Override
    public void deserialize(SourceRecord record, Collector<TableRow> out) {
      if (!(record.value() instanceof Struct value)
          || value.schema().field("op") == null
          || value.schema().field("source") == null) {
        return; // heartbeats, schema changes, watermarks
      }
      Struct source = value.getStruct("source");
      Integer table = index.get(source.getString("table"));
      if (table == null) {
        return;
      }
      Type[] ts = types.get(table);
      switch (value.getString("op")) {
        case "r", "c" -> out.collect(
            new TableRow(table, row(RowKind.INSERT, value.getStruct("after"), ts)));
        case "u" -> out.collect(
            new TableRow(table, row(RowKind.UPDATE_AFTER, value.getStruct("after"), ts)));
        case "d" -> out.collect(
            new TableRow(table, row(RowKind.DELETE, value.getStruct("before"), ts)));
        default -> {}
      }
    }

    private static GenericRowData row(RowKind kind, Struct s, Type[] ts) {
      List<Field> fields = s.schema().fields();
      GenericRowData r = new GenericRowData(kind, ts.length);
      for (int i = 0; i < ts.length; i++) {
        Field f = fields.get(i);
        r.setField(i, convert(s.get(f), f.schema().name(), ts[i]));
      }
      return r;
    }

    private static Object convert(Object v, String logical, Type t) {
      if (v == null) {
        return null;
      }
      switch (t.typeId()) {
        case INTEGER:
          return ((Number) v).intValue();
        case LONG:
          return ((Number) v).longValue();
        case FLOAT:
          return ((Number) v).floatValue();
        case DOUBLE:
          return ((Number) v).doubleValue();
        case STRING:
          return StringData.fromString(v.toString());
        case DECIMAL:
          Types.DecimalType d = (Types.DecimalType) t;
          BigDecimal dec = v instanceof BigDecimal b ? b : new BigDecimal(v.toString());
          return DecimalData.fromBigDecimal(dec, d.precision(), d.scale());
        case DATE:
          if (v instanceof java.util.Date date) {
            return (int) (date.getTime() / 86_400_000L);
          }
          return ((Number) v).intValue(); // io.debezium.time.Date: days
        case TIMESTAMP:
          if (v instanceof String text) { // io.debezium.time.ZonedTimestamp
            return TimestampData.fromInstant(OffsetDateTime.parse(text).toInstant());
          }
          if (v instanceof java.util.Date date) {
            return TimestampData.fromEpochMillis(date.getTime());
          }
          long n = ((Number) v).longValue();
          if ("io.debezium.time.MicroTimestamp".equals(logical)) {
            return TimestampData.fromEpochMillis(
                Math.floorDiv(n, 1000L), (int) Math.floorMod(n, 1000L) * 1000);
          }
          if ("io.debezium.time.NanoTimestamp".equals(logical)) {
            return TimestampData.fromEpochMillis(
                Math.floorDiv(n, 1_000_000L), (int) Math.floorMod(n, 1_000_000L));
          }
          return TimestampData.fromEpochMillis(n); // io.debezium.time.Timestamp: ms
        default:
          throw new IllegalArgumentException("no conversion to " + t);
      }
    }

    @Override
    public TypeInformation<TableRow> getProducedType() {
      return TypeInformation.of(TableRow.class);
    }
  }

  /** The base tables of the database, their columns as Iceberg fields and primary key. */
  private static List<SourceTable> describe(
      String host, int port, String user, String password, String database) throws Exception {
    String url = "jdbc:mysql://" + host + ":" + port + "/?useSSL=false&allowPublicKeyRetrieval=true";
    Map<String, List<String[]>> columns = new LinkedHashMap<>();
    try (Connection c = DriverManager.getConnection(url, user, password);
        PreparedStatement st =
            c.prepareStatement(
                "SELECT c.table_name, c.column_name, c.data_type, c.column_type,"
                    + " c.numeric_precision, c.numeric_scale, c.column_key, c.is_nullable"
                    + " FROM information_schema.columns c JOIN information_schema.tables t"
                    + " ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
                    + " WHERE c.table_schema = ? AND t.table_type = 'BASE TABLE'"
                    + " ORDER BY c.table_name, c.ordinal_position")) {
      st.setString(1, database);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          columns
              .computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
              .add(
                  new String[] {
                    rs.getString(2), rs.getString(3).toLowerCase(), rs.getString(4).toLowerCase(),
                    rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8)
                  });
        }
      }
    }
    List<SourceTable> out = new ArrayList<>();
    for (Map.Entry<String, List<String[]>> e : columns.entrySet()) {
      List<Types.NestedField> fields = new ArrayList<>();
      List<String> key = new ArrayList<>();
      Set<Integer> keyIds = new HashSet<>();
      int id = 1;
      for (String[] col : e.getValue()) {
        boolean pk = "PRI".equals(col[5]);
        Type type = icebergType(e.getKey(), col);
        Types.NestedField f =
            pk || "NO".equals(col[6])
                ? Types.NestedField.required(id, col[0], type)
                : Types.NestedField.optional(id, col[0], type);
        fields.add(f);
        if (pk) {
          key.add(col[0]);
          keyIds.add(id);
        }
        id++;
      }
      if (key.isEmpty()) {
        throw new IllegalArgumentException("table " + e.getKey() + " has no primary key");
      }
      out.add(new SourceTable(e.getKey(), new Schema(fields, keyIds), key));
    }
    return out;
  }

  private static Type icebergType(String table, String[] col) {
    boolean unsigned = col[2].contains("unsigned");
    switch (col[1]) {
      case "tinyint", "smallint", "mediumint":
        return Types.IntegerType.get();
      case "int", "integer":
        return unsigned ? Types.LongType.get() : Types.IntegerType.get();
      case "bigint":
        if (unsigned) {
          return Types.DecimalType.of(20, 0);
        }
        return Types.LongType.get();
      case "float":
        return Types.FloatType.get();
      case "double":
        return Types.DoubleType.get();
      case "decimal", "numeric":
        return Types.DecimalType.of(Integer.parseInt(col[3]), Integer.parseInt(col[4]));
      case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
        return Types.StringType.get();
      case "date":
        return Types.DateType.get();
      case "datetime":
        return Types.TimestampType.withoutZone();
      case "timestamp":
        return Types.TimestampType.withZone();
      default:
        throw new IllegalArgumentException(
            "column " + table + "." + col[0] + ": type " + col[2] + " is not mapped");
    }
  }

  private static String required(Map<String, String> opts, String key) {
    String v = opts.get(key);
    if (v == null) {
      usage("--" + key + " is required");
    }
    return v;
  }

  private static void usage(String message) {
    System.err.println("usage error: " + message);
    System.err.println(
        "usage: FlinkCdcBench --hostname H --port P --username U --password-env VAR"
            + " --database DB --server-id 6400-6404 --catalog-uri jdbc:sqlite:PATH"
            + " --warehouse DIR [--parallelism 2] [--checkpoint-interval-ms 1000]"
            + " [--chunk-size 8096]");
    System.exit(2);
  }
}
