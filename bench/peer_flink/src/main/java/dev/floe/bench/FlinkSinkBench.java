package dev.floe.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.streaming.api.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;

/**
 * The Flink side of bench/peer_flink_bench.py: one bounded Flink job on a local MiniCluster that
 * reads the file `floe ingest` reads and writes it with Iceberg's FlinkSink into a Hadoop catalog.
 *
 * <pre>
 *   FlinkSinkBench --mode append|upsert --input FILE --warehouse DIR --table NS.T
 *                  --schema ICEBERG_SCHEMA_JSON [--key id] [--parallelism 2]
 *                  [--checkpoint-interval-ms 10000]
 * </pre>
 *
 * <ul>
 *   <li><b>append</b>: JSON Lines, one row object per line (floe's JSON conventions: decimals and
 *       timestamps as text). The single file is read by one source task; lines are spread
 *       round-robin over {@code parallelism} parser tasks, each chained to a writer.
 *   <li><b>upsert</b>: Debezium JSON (with or without the schema block). The source task parses
 *       the events itself so that the changes of a key keep their order; FlinkSink keys the rows by
 *       the equality field onto {@code parallelism} writers (upsert mode, equality deletes).
 * </ul>
 *
 * <p>The table is created (dropped first if it exists) unpartitioned, format version 2, zstd
 * Parquet. Checkpoints every {@code checkpoint-interval-ms}; the last one commits at the end of
 * the input. Prints the job's wall time and the process's peak resident memory (VmHWM).
 */
public final class FlinkSinkBench {
  static {
    // Flink and Hadoop log at INFO by default; the runner wants warnings and errors only.
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
  }

  private FlinkSinkBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        usage("bad argument: " + args[i]);
      }
      opts.put(args[i].substring(2), args[++i]);
    }
    String mode = required(opts, "mode");
    if (!mode.equals("append") && !mode.equals("upsert")) {
      usage("--mode must be append or upsert");
    }
    boolean upsert = mode.equals("upsert");
    String input = required(opts, "input");
    String warehouse = required(opts, "warehouse");
    TableIdentifier ident = TableIdentifier.parse(required(opts, "table"));
    String schemaJson = Files.readString(Path.of(required(opts, "schema")), StandardCharsets.UTF_8);
    String key = opts.getOrDefault("key", "id");
    int parallelism = Integer.parseInt(opts.getOrDefault("parallelism", "2"));
    long checkpointMs = Long.parseLong(opts.getOrDefault("checkpoint-interval-ms", "10000"));

    Schema schema = SchemaParser.fromJson(schemaJson);
    if (upsert) {
      Types.NestedField keyField = schema.findField(key);
      if (keyField == null) {
        usage("no column " + key + " in the schema");
      }
      schema = new Schema(schema.columns(), Set.of(keyField.fieldId()));
    }

    // The table, made fresh in the Hadoop catalog.
    org.apache.hadoop.conf.Configuration hadoopConf = new org.apache.hadoop.conf.Configuration();
    Map<String, String> catalogProps = Map.of("warehouse", warehouse);
    HadoopCatalog catalog = new HadoopCatalog(hadoopConf, warehouse);
    if (catalog.tableExists(ident)) {
      catalog.dropTable(ident, true);
    }
    Namespace ns = ident.namespace();
    if (!ns.isEmpty() && !catalog.namespaceExists(ns)) {
      catalog.createNamespace(ns);
    }
    Map<String, String> tableProps = new HashMap<>();
    tableProps.put(TableProperties.FORMAT_VERSION, "2");
    tableProps.put(TableProperties.DEFAULT_FILE_FORMAT, "parquet");
    tableProps.put(TableProperties.PARQUET_COMPRESSION, "zstd");
    if (upsert) {
      tableProps.put(TableProperties.UPSERT_ENABLED, "true");
    }
    Table table = catalog.createTable(ident, schema, PartitionSpec.unpartitioned(), tableProps);
    catalog.close();

    // The job.
    Configuration conf = new Configuration();
    // A failure ends the run (no restarts of a benchmark).
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    env.enableCheckpointing(checkpointMs, CheckpointingMode.EXACTLY_ONCE);
    env.getConfig().enableObjectReuse();

    FileSource<String> source =
        FileSource.forRecordStreamFormat(
                new TextLineInputFormat(), new org.apache.flink.core.fs.Path(input))
            .build();
    DataStream<String> lines =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "lines").setParallelism(1);

    RowType rowType = FlinkSchemaUtil.convert(schema);
    TypeInformation<RowData> rowInfo = InternalTypeInfo.of(rowType);
    DataStream<RowData> rows;
    if (upsert) {
      rows =
          lines
              .map(new JsonToRowData(schemaJson, true, Set.of(key)))
              .returns(rowInfo)
              .name("parse debezium json")
              .setParallelism(1);
    } else {
      rows =
          lines
              .rebalance()
              .map(new JsonToRowData(schemaJson, false, new HashSet<>()))
              .returns(rowInfo)
              .name("parse json rows")
              .setParallelism(parallelism);
    }

    TableLoader loader =
        TableLoader.fromCatalog(CatalogLoader.hadoop("hadoop", hadoopConf, catalogProps), ident);
    FlinkSink.Builder sink =
        FlinkSink.forRowData(rows)
            .tableLoader(loader)
            .table(table)
            .writeParallelism(parallelism)
            .distributionMode(DistributionMode.NONE)
            .uidPrefix("floe-bench");
    if (upsert) {
      sink = sink.upsert(true).equalityFieldColumns(List.of(key));
    }
    sink.append();

    long t0 = System.nanoTime();
    env.execute("floe bench: FlinkSink " + mode);
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf("job finished in %.2f s%n", seconds);
    System.out.printf("peak memory %.1f MiB%n", peakResidentMiB());
    System.out.flush();
    System.exit(0);
  }

  private static double peakResidentMiB() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
      }
    } catch (Exception e) {
      // not Linux
    }
    return Double.NaN;
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
        "usage: FlinkSinkBench --mode append|upsert --input FILE --warehouse DIR --table NS.T"
            + " --schema SCHEMA_JSON [--key id] [--parallelism 2] [--checkpoint-interval-ms 10000]");
    System.exit(2);
  }
}
