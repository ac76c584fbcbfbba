package dev.floe.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * One JSON line to a Flink {@link RowData} in the column order of an Iceberg schema, with Jackson's
 * streaming parser (no tree per line).
 *
 * <p>Plain rows (the append input) follow floe's JSON conventions: decimals as text, timestamps as
 * ISO text. Debezium events carry Kafka Connect's encodings: decimals as base64 two's-complement
 * unscaled bytes, timestamps as microseconds since the epoch; the schema block is skipped. Op c/r
 * gives an INSERT of "after", u an UPDATE_AFTER of "after" (the sink's upsert mode ignores
 * UPDATE_BEFORE, so none is made), d a DELETE that carries the key columns of "before" only (all
 * that an upsert delete reads).
 */
final class JsonToRowData implements MapFunction<String, RowData> {
  private static final long serialVersionUID = 1L;

  private static final int LONG = 0;
  private static final int INT = 1;
  private static final int STRING = 2;
  private static final int TIMESTAMP = 3;
  private static final int DECIMAL = 4;
  private static final int BOOLEAN = 5;
  private static final int DOUBLE = 6;
  private static final int FLOAT = 7;
  private static final int DATE = 8;

  private final String schemaJson;
  private final boolean debezium;
  private final String[] keyColumns;

  private transient JsonFactory factory;
  private transient Map<String, Integer> index;
  private transient int[] kinds;
  private transient int[] precision;
  private transient int[] scale;
  private transient boolean[] isKey;
  private transient int width;

  JsonToRowData(String schemaJson, boolean debezium, Set<String> keyColumns) {
    this.schemaJson = schemaJson;
    this.debezium = debezium;
    this.keyColumns = keyColumns.toArray(new String[0]);
  }

  private void init() {
    Schema schema = SchemaParser.fromJson(schemaJson);
    List<Types.NestedField> columns = schema.columns();
    width = columns.size();
    factory = new JsonFactory();
    index = new HashMap<>();
    kinds = new int[width];
    precision = new int[width];
    scale = new int[width];
    isKey = new boolean[width];
    Set<String> keys = Set.of(keyColumns);
    for (int i = 0; i < width; i++) {
      Types.NestedField f = columns.get(i);
      index.put(f.name(), i);
      isKey[i] = keys.contains(f.name());
      Type t = f.type();
      switch (t.typeId()) {
        case LONG -> kinds[i] = LONG;
        case INTEGER -> kinds[i] = INT;
        case STRING -> kinds[i] = STRING;
        case TIMESTAMP -> kinds[i] = TIMESTAMP;
        case BOOLEAN -> kinds[i] = BOOLEAN;
        case DOUBLE -> kinds[i] = DOUBLE;
        case FLOAT -> kinds[i] = FLOAT;
        case DATE -> kinds[i] = DATE;
        case DECIMAL -> {
          kinds[i] = DECIMAL;
          precision[i] = ((Types.DecimalType) t).precision();
          scale[i] = ((Types.DecimalType) t).scale();
        }
        default -> throw new IllegalArgumentException(
            "column " + f.name() + ": type " + t + " is not supported by this benchmark");
      }
    }
  }

  @Override
  public RowData map(String line) throws IOException {
    if (factory == null) {
      init();
    }
    try (JsonParser p = factory.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("not a JSON object: " + abbreviate(line));
      }
      return debezium ? event(p, line) : row(p, false);
    }
  }

  private RowData event(JsonParser p, String line) throws IOException {
    Envelope e = new Envelope();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken t = p.nextToken();
      if (name.equals("payload") && t == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String inner = p.currentName();
          envelopeField(p, inner, p.nextToken(), e);
        }
      } else {
        envelopeField(p, name, t, e); // an event without the schema/payload wrapper
      }
    }
    if (e.op == null) {
      throw new IOException("no op in event: " + abbreviate(line));
    }
    switch (e.op) {
      case "c", "r" -> {
        return withKind(e.after, RowKind.INSERT, line);
      }
      case "u" -> {
        return withKind(e.after, RowKind.UPDATE_AFTER, line);
      }
      case "d" -> {
        return withKind(e.before, RowKind.DELETE, line);
      }
      default -> throw new IOException("unsupported op " + e.op + ": " + abbreviate(line));
    }
  }

  private static RowData withKind(GenericRowData row, RowKind kind, String line) throws IOException {
    if (row == null) {
      throw new IOException("event without the row image its op needs: " + abbreviate(line));
    }
    row.setRowKind(kind);
    return row;
  }

  private static final class Envelope {
    GenericRowData before;
    GenericRowData after;
    String op;
  }

  private void envelopeField(JsonParser p, String name, JsonToken t, Envelope e) throws IOException {
    switch (name) {
      case "before" -> {
        if (t == JsonToken.START_OBJECT) {
          e.before = row(p, true);
        }
      }
      case "after" -> {
        if (t == JsonToken.START_OBJECT) {
          e.after = row(p, false);
        }
      }
      case "op" -> e.op = p.getText();
      default -> p.skipChildren(); // schema, source, ts_ms, transaction, ...
    }
  }

  /** The object the parser is in (after its START_OBJECT) as a row; keyOnly keeps key columns. */
  private GenericRowData row(JsonParser p, boolean keyOnly) throws IOException {
    GenericRowData row = new GenericRowData(width);
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      Integer at = index.get(p.currentName());
      JsonToken t = p.nextToken();
      if (at == null || (keyOnly && !isKey[at])) {
        p.skipChildren();
        continue;
      }
      if (t != JsonToken.VALUE_NULL) {
        row.setField(at, value(p, t, at));
      }
    }
    return row;
  }

  private Object value(JsonParser p, JsonToken t, int i) throws IOException {
    switch (kinds[i]) {
      case LONG:
        return t == JsonToken.VALUE_STRING ? Long.parseLong(p.getText()) : p.getLongValue();
      case INT:
        return t == JsonToken.VALUE_STRING ? Integer.parseInt(p.getText()) : p.getIntValue();
      case STRING:
        return StringData.fromString(p.getText());
      case BOOLEAN:
        return p.getValueAsBoolean();
      case DOUBLE:
        return p.getValueAsDouble();
      case FLOAT:
        return (float) p.getValueAsDouble();
      case DATE:
        return t == JsonToken.VALUE_STRING
            ? (int) LocalDate.parse(p.getText()).toEpochDay()
            : p.getIntValue();
      case TIMESTAMP:
        if (t == JsonToken.VALUE_STRING) {
          return timestamp(p.getText());
        }
        long micros = p.getLongValue();
        return TimestampData.fromEpochMillis(
            Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000);
      case DECIMAL:
        if (t != JsonToken.VALUE_STRING) {
          return decimal(p.getDecimalValue(), i);
        }
        return debezium ? connectDecimal(p.getText(), i) : textDecimal(p.getText(), i);
      default:
        throw new IllegalStateException();
    }
  }

  /** uuuu-MM-ddTHH:mm:ss[.f{1,9}] (a space for the T too); anything else through java.time. */
  private static TimestampData timestamp(String s) {
    int n = s.length();
    if (n >= 19 && s.charAt(4) == '-' && s.charAt(7) == '-' && s.charAt(13) == ':'
        && s.charAt(16) == ':' && (s.charAt(10) == 'T' || s.charAt(10) == ' ')) {
      int year = digits(s, 0, 4);
      int month = digits(s, 5, 7);
      int day = digits(s, 8, 10);
      int hour = digits(s, 11, 13);
      int minute = digits(s, 14, 16);
      int second = digits(s, 17, 19);
      int nanos = 0;
      boolean ok = year >= 0 && month >= 0 && day >= 0 && hour >= 0 && minute >= 0 && second >= 0;
      if (ok && n > 19) {
        ok = s.charAt(19) == '.' && n > 20 && n <= 29;
        for (int k = 20; ok && k < 29; k++) {
          int d = k < n ? s.charAt(k) - '0' : 0;
          ok = d >= 0 && d <= 9;
          nanos = nanos * 10 + d;
        }
      }
      if (ok) {
        long epochSecond = LocalDate.of(year, month, day).toEpochDay() * 86400L
            + hour * 3600L + minute * 60L + second;
        return TimestampData.fromEpochMillis(
            epochSecond * 1000 + nanos / 1_000_000, nanos % 1_000_000);
      }
    }
    if (s.endsWith("Z") || s.lastIndexOf('+') > 10 || s.lastIndexOf('-') > 10) {
      return TimestampData.fromInstant(OffsetDateTime.parse(s).toInstant());
    }
    return TimestampData.fromLocalDateTime(LocalDateTime.parse(s.replace(' ', 'T')));
  }

  private static int digits(String s, int from, int to) {
    int v = 0;
    for (int k = from; k < to; k++) {
      int d = s.charAt(k) - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      v = v * 10 + d;
    }
    return v;
  }

  /** "-123.45" at the column's scale; the unscaled value as a long where it fits. */
  private DecimalData textDecimal(String s, int i) {
    int n = s.length();
    int k = 0;
    boolean negative = false;
    if (n > 0 && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
      negative = s.charAt(0) == '-';
      k = 1;
    }
    long unscaled = 0;
    int digitCount = 0;
    int fraction = -1;
    boolean simple = k < n && precision[i] <= 18;
    for (; simple && k < n; k++) {
      char c = s.charAt(k);
      if (c == '.' && fraction < 0) {
        fraction = 0;
      } else if (c >= '0' && c <= '9') {
        unscaled = unscaled * 10 + (c - '0');
        if (fraction >= 0) {
          fraction++;
        }
        simple = ++digitCount <= 18;
      } else {
        simple = false;
      }
    }
    if (fraction < 0) {
      fraction = 0;
    }
    if (simple && fraction <= scale[i]) {
      for (int f = fraction; f < scale[i]; f++) {
        unscaled *= 10;
      }
      return DecimalData.fromUnscaledLong(negative ? -unscaled : unscaled, precision[i], scale[i]);
    }
    return decimal(new BigDecimal(s), i);
  }

  /** Kafka Connect's Decimal: base64 of the big-endian two's-complement unscaled value. */
  private DecimalData connectDecimal(String base64, int i) {
    byte[] bytes = Base64.getDecoder().decode(base64);
    if (bytes.length <= 8 && precision[i] <= 18) {
      long v = bytes.length > 0 && bytes[0] < 0 ? -1L : 0L;
      for (byte b : bytes) {
        v = (v << 8) | (b & 0xFF);
      }
      return DecimalData.fromUnscaledLong(v, precision[i], scale[i]);
    }
    return decimal(new BigDecimal(new BigInteger(bytes), scale[i]), i);
  }

  private DecimalData decimal(BigDecimal v, int i) {
    return DecimalData.fromBigDecimal(
        v.setScale(scale[i], RoundingMode.UNNECESSARY), precision[i], scale[i]);
  }

  private static String abbreviate(String line) {
    return line.length() <= 200 ? line : line.substring(0, 200) + "...";
  }
}
