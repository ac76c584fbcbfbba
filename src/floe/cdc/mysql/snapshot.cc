#include "floe/cdc/mysql/snapshot.h"
#include "floe/cdc/mysql/sql_quote.h"
#include "floe/types/temporal.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <spdlog/spdlog.h>

namespace floe::cdc::mysql {
namespace {

using types::ReadDigits;
using types::Value;

// ".ffffff" at `pos` (optional) -> micros.
bool Fraction(std::string_view s, size_t pos, int64_t* micros) {
  *micros = 0;
  if (pos >= s.size()) return true;
  if (s[pos] != '.') return false;
  int64_t v = 0;
  size_t n = 0;
  for (size_t i = pos + 1; i < s.size(); ++i, ++n) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (n < 6) v = v * 10 + (s[i] - '0');
  }
  for (; n < 6; ++n) v *= 10;
  *micros = v;
  return true;
}

// "YYYY-MM-DD[ HH:MM:SS[.f]]" -> micros since epoch (wall clock as UTC);
// nullopt for a zero date.
bool ParseDateTime(std::string_view s, bool date_only, std::optional<int64_t>* out) {
  int64_t y, mo, d, h = 0, mi = 0, se = 0, frac = 0;
  if (!ReadDigits(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !ReadDigits(s, 5, 2, &mo) ||
      s[7] != '-' || !ReadDigits(s, 8, 2, &d)) {
    return false;
  }
  if (!date_only && s.size() > 10) {
    if (s.size() < 19 || (s[10] != ' ' && s[10] != 'T') || !ReadDigits(s, 11, 2, &h) ||
        s[13] != ':' || !ReadDigits(s, 14, 2, &mi) || s[16] != ':' || !ReadDigits(s, 17, 2, &se) ||
        !Fraction(s, 19, &frac)) {
      return false;
    }
  }
  if (mo == 0 || d == 0) {
    *out = std::nullopt;
    return true;
  }
  int64_t days = types::DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  *out = date_only ? days : ((days * 86400 + h * 3600 + mi * 60 + se) * 1000000 + frac);
  return true;
}

// Decimal text -> unscaled at `scale`. False unless the value fits
// DECIMAL(precision, scale): at most precision - scale digits before the
// point (leading zeros aside) and no non-zero digit past the scale.
bool ParseDecimalText(std::string_view s, int precision, int scale, types::int128_t* out) {
  bool neg = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  types::int128_t v = 0;
  int frac = -1;
  int integer_digits = 0;
  bool any = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (frac >= 0) return false;
      frac = 0;
    } else if (c >= '0' && c <= '9') {
      any = true;
      if (frac >= scale) {
        if (c != '0') return false;  // more precision than the column keeps
        continue;
      }
      if (frac < 0) {
        if (v == 0 && c == '0') continue;
        if (++integer_digits > precision - scale) return false;
      } else {
        ++frac;
      }
      v = v * 10 + (c - '0');
    } else {
      return false;
    }
  }
  if (!any) return false;
  for (int k = frac < 0 ? 0 : frac; k < scale; ++k) v *= 10;
  *out = neg ? -v : v;
  return true;
}

// The range MySQL gives an integer column of `type`.
std::pair<int64_t, int64_t> IntegerRange(MysqlType type, bool is_unsigned) {
  switch (type) {
    case MysqlType::kTinyInt:
    case MysqlType::kBool:
      return is_unsigned ? std::pair<int64_t, int64_t>{0, 255}
                         : std::pair<int64_t, int64_t>{-128, 127};
    case MysqlType::kSmallInt:
      return is_unsigned ? std::pair<int64_t, int64_t>{0, 65535}
                         : std::pair<int64_t, int64_t>{-32768, 32767};
    case MysqlType::kMediumInt:
      return is_unsigned ? std::pair<int64_t, int64_t>{0, 16777215}
                         : std::pair<int64_t, int64_t>{-8388608, 8388607};
    case MysqlType::kInt:
      return is_unsigned ? std::pair<int64_t, int64_t>{0, 4294967295LL}
                         : std::pair<int64_t, int64_t>{INT32_MIN, INT32_MAX};
    case MysqlType::kYear:
      return {0, 2155};
    default:
      return {INT64_MIN, INT64_MAX};
  }
}

/// The float or double the text of a selected FLOAT/DOUBLE starts with
/// (strtof/strtod: the server's text, "1e+30" and the like). False when
/// nothing at the start reads as a number.
template <typename T>
bool ParseFloating(std::string_view s, T* out) {
  std::string text(s);  // strtod needs the terminating NUL
  char* end = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    *out = std::strtof(text.c_str(), &end);
  } else {
    *out = std::strtod(text.c_str(), &end);
  }
  return end != text.c_str();
}

}  // namespace

Result<Value> ParseSelectedValue(const ColumnDef& c, const char* text, size_t length,
                                 Arena* arena) {
  if (!text) return Value::Null();
  std::string_view s(text, length);
  auto bad = [&]() {
    return InvalidArgument("column '{}' ({}): cannot read the selected value '{}'", c.name,
                           MysqlTypeName(c.type), s.substr(0, 64));
  };
  switch (c.type) {
    case MysqlType::kTinyInt:
    case MysqlType::kSmallInt:
    case MysqlType::kMediumInt:
    case MysqlType::kInt:
    case MysqlType::kBigInt:
    case MysqlType::kBool:
    case MysqlType::kYear: {
      if (c.is_unsigned && c.type == MysqlType::kBigInt) {
        uint64_t u = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), u);
        if (ec != std::errc() || p != s.data() + s.size()) return bad();
        return Value::Decimal(static_cast<types::int128_t>(u));
      }
      int64_t v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || p != s.data() + s.size()) return bad();
      auto [low, high] = IntegerRange(c.type, c.is_unsigned);
      if (v < low || v > high) return bad();
      if (c.type == MysqlType::kBigInt || (c.type == MysqlType::kInt && c.is_unsigned)) {
        return Value::Int64(v);
      }
      return Value::Int32(static_cast<int32_t>(v));
    }
    case MysqlType::kDecimal: {
      int precision = c.precision.value_or(10), scale = c.scale.value_or(0);
      if (precision > 38) return Value::Bytes(arena->Copy(s));
      types::int128_t v = 0;
      if (!ParseDecimalText(s, precision, scale, &v)) return bad();
      return Value::Decimal(v);
    }
    case MysqlType::kFloat: {
      float f = 0;
      if (!ParseFloating(s, &f)) return bad();
      return Value::Float(f);
    }
    case MysqlType::kDouble: {
      double d = 0;
      if (!ParseFloating(s, &d)) return bad();
      return Value::Double(d);
    }
    case MysqlType::kBit: {
      // The server sends BIT values as big-endian bytes of (n+7)/8 bytes.
      int64_t bits = c.length.value_or(1);
      if (bits == 1) return Value::Bool(!s.empty() && (s.back() & 1));
      size_t n = static_cast<size_t>((bits + 7) / 8);
      char* p = static_cast<char*>(arena->Allocate(n, 1));
      std::memset(p, 0, n);
      size_t k = std::min(n, s.size());
      std::memcpy(p + n - k, s.data() + s.size() - k, k);
      return Value::Bytes({p, n});
    }
    case MysqlType::kDate: {
      std::optional<int64_t> v;
      if (!ParseDateTime(s, true, &v)) return bad();
      return v ? Value::Int32(static_cast<int32_t>(*v)) : Value::Null();
    }
    case MysqlType::kDateTime:
    case MysqlType::kTimestamp: {
      std::optional<int64_t> v;
      if (!ParseDateTime(s, false, &v)) return bad();
      return v ? Value::Int64(*v) : Value::Null();
    }
    case MysqlType::kTime: {
      bool neg = !s.empty() && s[0] == '-';
      std::string_view t = neg ? s.substr(1) : s;
      size_t colon = t.find(':');
      int64_t h = 0, mi = 0, se = 0, frac = 0;
      // MySQL's TIME reaches 838 hours; more than 4 digits is not a TIME.
      if (colon == std::string_view::npos || colon > 4 || !ReadDigits(t, 0, colon, &h) ||
          t.size() < colon + 6 || !ReadDigits(t, colon + 1, 2, &mi) || t[colon + 3] != ':' ||
          !ReadDigits(t, colon + 4, 2, &se) || !Fraction(t, colon + 6, &frac)) {
        return bad();
      }
      int64_t micros = (h * 3600 + mi * 60 + se) * 1000000 + frac;
      return Value::Int64(neg ? -micros : micros);
    }
    case MysqlType::kBinary: {
      // BINARY(n) comes back padded; keep it as is.
      return Value::Bytes(arena->Copy(s));
    }
    default:
      if (IsSpatialType(c.type)) {
        if (s.size() < 4) return bad();
        return Value::Bytes(arena->Copy(s.substr(4)));  // drop the SRID
      }
      return Value::Bytes(arena->Copy(s));
  }
}

Result<std::unique_ptr<Snapshot>> Snapshot::Open(const ConnectionOptions& options,
                                                 SnapshotOptions snapshot_options) {
  auto snap = std::make_unique<Snapshot>();
  snap->options_ = snapshot_options;
  FLOE_ASSIGN_OR_RETURN(snap->conn_, Connection::Open(options));
  Connection& c = *snap->conn_;
  FLOE_RETURN_IF_ERROR(c.Execute("SET SESSION time_zone = '+00:00'"));
  FLOE_RETURN_IF_ERROR(c.Execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ"));
  if (c.is_mariadb()) {
    FLOE_RETURN_IF_ERROR(c.Execute("START TRANSACTION WITH CONSISTENT SNAPSHOT"));
    FLOE_ASSIGN_OR_RETURN(auto rows, c.Query("SHOW STATUS LIKE 'binlog_snapshot_%'"));
    for (const auto& r : rows) {
      if (r.size() < 2 || !r[0] || !r[1]) continue;
      if (*r[0] == "Binlog_snapshot_file") snap->position_.binlog.file = *r[1];
      if (*r[0] == "Binlog_snapshot_position") snap->position_.binlog.pos = std::stoull(*r[1]);
    }
    if (snap->position_.binlog.file.empty()) {
      return InvalidArgument(
          "{}:{}: the server reports no binlog snapshot position (is log_bin on?)", options.host,
          options.port);
    }
    FLOE_ASSIGN_OR_RETURN(auto cur, CurrentPosition(c));
    snap->position_.server_id = cur.server_id;
  } else {
    FLOE_RETURN_IF_ERROR(c.Execute("FLUSH TABLES WITH READ LOCK"));
    auto started = c.Execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
    auto pos = CurrentPosition(c);
    auto unlocked = c.Execute("UNLOCK TABLES");
    FLOE_RETURN_IF_ERROR(started);
    FLOE_RETURN_IF_ERROR(unlocked);
    if (!pos) return std::unexpected(pos.error());
    snap->position_ = *pos;
  }
  spdlog::info("snapshot: consistent point at binlog {}", snap->position_.binlog.ToString());
  return snap;
}

Status Snapshot::ReadTable(const TableSchema& schema, const TableDefinitionPtr& definition,
                           const std::function<Status(ChangeBatch&)>& sink) {
  Connection& c = *conn_;
  std::string cols;
  for (size_t i = 0; i < schema.columns.size(); ++i) {
    if (i) cols += ", ";
    cols += QuoteId(schema.columns[i].name);
  }
  const std::string from = QuoteId(schema.db) + "." + QuoteId(schema.table);
  std::vector<int> pk;
  for (const auto& k : schema.primary_key) pk.push_back(schema.FindColumnIndex(k));
  auto source = std::make_shared<ChangeSource>();
  source->position = position_;
  source->snapshot = "true";
  source->ts_ms = 0;
  const size_t n = schema.columns.size();
  ChangeBatch batch;
  std::vector<std::optional<std::string>> last_key;
  uint64_t total = 0;
  bool done = false;
  if (pk.empty()) {
    spdlog::warn(
        "snapshot: table {}.{} has no primary key: reading it in one chunk (a full scan "
        "under the snapshot transaction)",
        schema.db, schema.table);
  }
  while (!done) {
    std::string sql = "SELECT " + cols + " FROM " + from;
    if (!pk.empty()) {
      if (!last_key.empty()) {
        std::string lhs, rhs;
        for (size_t k = 0; k < pk.size(); ++k) {
          if (k) {
            lhs += ", ";
            rhs += ", ";
          }
          lhs += QuoteId(schema.columns[static_cast<size_t>(pk[k])].name);
          rhs += last_key[k] ? QuoteLiteral(*last_key[k]) : "NULL";
        }
        sql += " WHERE (" + lhs + ") > (" + rhs + ")";
      }
      sql += " ORDER BY ";
      for (size_t k = 0; k < pk.size(); ++k) {
        if (k) sql += ", ";
        sql += QuoteId(schema.columns[static_cast<size_t>(pk[k])].name);
      }
      sql += fmt::format(" LIMIT {}", options_.chunk_rows);
    }
    size_t rows_in_chunk = 0;
    FLOE_RETURN_IF_ERROR(c.QueryStream(
        sql, [&](MYSQL_ROW row, const unsigned long* lengths, unsigned fields) -> Status {
          if (fields != n)
            return InternalError("snapshot of {}: {} columns selected, schema has {}", from, fields,
                                 n);
          auto* values = batch.arena->AllocateArray<types::Value>(n);
          for (size_t i = 0; i < n; ++i) {
            FLOE_ASSIGN_OR_RETURN(
                types::Value v,
                ParseSelectedValue(schema.columns[i], row[i], lengths[i], batch.arena.get()));
            new (&values[i]) types::Value(v);
          }
          RowChange rc;
          rc.op = ChangeOp::kRead;
          rc.table = definition;
          rc.after = {values, n};
          rc.source = source;
          batch.events.emplace_back(std::move(rc));
          if (!pk.empty()) {
            last_key.assign(pk.size(), std::nullopt);
            for (size_t k = 0; k < pk.size(); ++k) {
              size_t idx = static_cast<size_t>(pk[k]);
              if (row[idx]) last_key[k] = std::string(row[idx], lengths[idx]);
            }
          }
          ++rows_in_chunk;
          if (pk.empty() && batch.events.size() >= options_.chunk_rows) {
            total += batch.events.size();
            FLOE_RETURN_IF_ERROR(sink(batch));
            batch.Clear();
          }
          return Ok();
        }));
    done = pk.empty() || rows_in_chunk < options_.chunk_rows;
    total += batch.events.size();
    if (done && !batch.events.empty()) {
      auto last = std::make_shared<ChangeSource>(*source);
      last->snapshot = "last_in_data_collection";
      std::get<RowChange>(batch.events.back()).source = last;
    }
    if (!batch.events.empty()) {
      FLOE_RETURN_IF_ERROR(sink(batch));
      batch.Clear();
    }
  }
  spdlog::info("snapshot: {}.{}: {} rows", schema.db, schema.table, total);
  return Ok();
}

Status Snapshot::Close() {
  if (conn_) FLOE_RETURN_IF_ERROR(conn_->Execute("COMMIT"));
  return Ok();
}

}  // namespace floe::cdc::mysql
