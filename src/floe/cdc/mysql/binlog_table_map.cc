// TABLE_MAP_EVENT: the column types and their metadata, and the optional
// metadata MySQL 8 (binlog_row_metadata) and MariaDB 10.5+ append.
#include <fmt/format.h>

#include <vector>

#include "floe/cdc/mysql/binlog_internal.h"
#include "floe/cdc/mysql/table_schema.h"
#include "floe/common/one_of.h"

namespace floe::cdc::mysql::binlog_internal {
namespace {

// One column's entry of the metadata block. Returns false when `m` runs out.
Result<bool> ReadOneColumnMetadata(Reader& m, const EventContext& ctx, const TableMapEvent& t,
                                   uint64_t i, ColumnInfo& c) {
  uint8_t b0 = 0, b1 = 0;
  bool ok = true;
  switch (c.type) {
    case column_type::kFloat:
    case column_type::kDouble:
    case column_type::kBlob:
    case column_type::kTinyBlob:
    case column_type::kMediumBlob:
    case column_type::kLongBlob:
    case column_type::kGeometry:
    case column_type::kJson:
      ok = m.U8(&b0);
      c.length = b0;
      break;
    case column_type::kTimestamp2:
    case column_type::kDateTime2:
    case column_type::kTime2:
      ok = m.U8(&b0);
      c.length = b0;
      if (ok && b0 > 6) return ctx.Fail(fmt::format("TABLE_MAP column {} fsp {} > 6", i, b0));
      break;
    case column_type::kVarchar:
    case column_type::kVarString: {
      uint16_t v = 0;
      ok = m.Le(&v);
      c.length = v;
      break;
    }
    case column_type::kBit:
      ok = m.U8(&b0) && m.U8(&b1);
      c.length = uint32_t{b1} * 8 + b0;
      if (ok && (c.length == 0 || c.length > 64)) {
        return ctx.Fail(fmt::format("TABLE_MAP column {} BIT length {}", i, c.length));
      }
      break;
    case column_type::kNewDecimal:
      ok = m.U8(&b0) && m.U8(&b1);
      c.length = b0;
      c.scale = b1;
      if (ok && (b0 == 0 || b0 > kMaxDecimalPrecision || b1 > kMaxDecimalScale || b1 > b0)) {
        return ctx.Fail(fmt::format("TABLE_MAP column {} DECIMAL({},{})", i, b0, b1));
      }
      break;
    case column_type::kString:
    case column_type::kEnum:
    case column_type::kSet:
      ok = m.U8(&b0) && m.U8(&b1);
      if (c.type == column_type::kString && b0 != 0 && (b0 & 0x30) != 0x30) {
        // Lengths over 255 keep their high bits in the type byte.
        c.real_type = b0 | 0x30;
        c.length = b1 | ((((b0 & 0x30) ^ 0x30)) << 4);
      } else {
        c.real_type = b0 == 0 ? c.type : b0;
        c.length = b1;
      }
      if (c.type == column_type::kEnum || c.type == column_type::kSet) c.real_type = c.type;
      break;
    case column_type::kDecimal:
      return NotSupported("binlog {}:{}: table {}.{} column {} has the pre-5.0 DECIMAL type",
                          ctx.file, ctx.pos, t.db, t.table, i);
    default:
      break;  // no metadata
  }
  return ok;
}

// The kinds of columns the optional metadata fields refer to, in column order.
// Membership depends only on the column types, which the fields never change.
enum class Group { kChars, kEnumSet, kEnums, kSets, kGeometry, kNumeric };

bool InGroup(const ColumnInfo& c, Group g, bool mariadb) {
  switch (g) {
    case Group::kChars:
      // MariaDB counts GEOMETRY (a BLOB underneath) among the character columns; MySQL does not.
      return IsCharacterType(c.type, c.real_type) || (mariadb && c.type == column_type::kGeometry);
    case Group::kEnumSet:
      return IsEnumOrSet(c);
    case Group::kEnums:
      return c.real_type == column_type::kEnum;
    case Group::kSets:
      return c.real_type == column_type::kSet;
    case Group::kGeometry:
      return c.type == column_type::kGeometry;
    case Group::kNumeric:
      return c.in_signedness_bitmap(mariadb);
  }
  return false;
}

// The columns of one group, walked without building a list.
struct GroupOf {
  const std::vector<ColumnInfo>& cols;
  Group group;
  bool mariadb;

  // The first column of the group at or after `from`, or cols.size().
  size_t Next(size_t from) const {
    while (from < cols.size() && !InGroup(cols[from], group, mariadb)) ++from;
    return from;
  }
  size_t Count() const {
    size_t n = 0;
    for (size_t i = Next(0); i < cols.size(); i = Next(i + 1)) ++n;
    return n;
  }
  // The index of the group's `k`-th column, or cols.size().
  size_t Nth(uint64_t k) const {
    size_t i = Next(0);
    for (; i < cols.size() && k > 0; --k) i = Next(i + 1);
    return i;
  }
};

std::unexpected<Error> BadMetadata(const TableMapEvent& t, std::string_view what) {
  return Corruption("TABLE_MAP {}.{}: optional metadata: {}", t.db, t.table, what);
}

// SIGNEDNESS: one bit per numeric column, most significant bit first.
Status ReadSignedness(std::span<const uint8_t> v, const GroupOf& numeric, TableMapEvent* t) {
  if (v.size() < (numeric.Count() + 7) / 8) return BadMetadata(*t, "short signedness bitmap");
  size_t k = 0;
  for (size_t i = numeric.Next(0); i < t->columns.size(); i = numeric.Next(i + 1), ++k) {
    t->columns[i].is_unsigned = (v[k / 8] >> (7 - k % 8)) & 1;
  }
  t->has_signedness = true;
  return Ok();
}

// DEFAULT_CHARSET (a default, then index/collation pairs for the exceptions)
// or COLUMN_CHARSET (one collation per column), for the columns of `targets`.
Status ReadCharsets(std::span<const uint8_t> v, const GroupOf& targets, bool with_default,
                    TableMapEvent* t) {
  auto& cols = t->columns;
  Reader f(v);
  if (!with_default) {
    for (size_t i = targets.Next(0); i < cols.size(); i = targets.Next(i + 1)) {
      uint64_t coll = 0;
      if (!f.LenEnc(&coll)) return BadMetadata(*t, "truncated column charsets");
      cols[i].collation = static_cast<uint32_t>(coll);
    }
    return Ok();
  }
  uint64_t def = 0;
  if (!f.LenEnc(&def)) return BadMetadata(*t, "truncated default charset");
  for (size_t i = targets.Next(0); i < cols.size(); i = targets.Next(i + 1)) {
    cols[i].collation = static_cast<uint32_t>(def);
  }
  while (f.remaining() > 0) {
    uint64_t idx = 0, coll = 0;
    if (!f.LenEnc(&idx) || !f.LenEnc(&coll)) return BadMetadata(*t, "truncated charset pair");
    size_t column = targets.Nth(idx);
    if (column >= cols.size()) return BadMetadata(*t, "charset for a column out of range");
    cols[column].collation = static_cast<uint32_t>(coll);
  }
  return Ok();
}

// ENUM_STR_VALUE / SET_STR_VALUE: the member names of each column of `targets`.
Status ReadEnumValues(std::span<const uint8_t> v, const GroupOf& targets, TableMapEvent* t) {
  Reader f(v);
  for (size_t i = targets.Next(0); i < t->columns.size(); i = targets.Next(i + 1)) {
    auto& values = t->columns[i].enum_values;
    uint64_t count = 0;
    if (!f.LenEnc(&count) || count > f.remaining()) {
      return BadMetadata(*t, "truncated ENUM/SET values");
    }
    values.clear();
    values.reserve(count);
    for (uint64_t k = 0; k < count; ++k) {
      uint64_t len = 0;
      std::string_view s;
      if (!f.LenEnc(&len) || !f.Str(len, &s)) return BadMetadata(*t, "truncated ENUM/SET value");
      values.emplace_back(s);
    }
  }
  return Ok();
}

// COLUMN_NAME: one name per column.
Status ReadColumnNames(std::span<const uint8_t> v, TableMapEvent* t) {
  Reader f(v);
  for (auto& c : t->columns) {
    uint64_t n = 0;
    std::string_view s;
    if (!f.LenEnc(&n) || !f.Str(n, &s)) return BadMetadata(*t, "truncated column names");
    c.name = std::string(s);
  }
  t->has_full_metadata = true;
  return Ok();
}

Status ReadGeometryTypes(std::span<const uint8_t> v, const GroupOf& geometry, TableMapEvent* t) {
  Reader f(v);
  for (size_t i = geometry.Next(0); i < t->columns.size(); i = geometry.Next(i + 1)) {
    uint64_t g = 0;
    if (!f.LenEnc(&g)) return BadMetadata(*t, "truncated geometry types");
    t->columns[i].geometry_type = static_cast<uint32_t>(g);
  }
  return Ok();
}

// SIMPLE_PRIMARY_KEY (column indexes) or PRIMARY_KEY_WITH_PREFIX (index and
// prefix length pairs).
Status ReadPrimaryKey(std::span<const uint8_t> v, bool with_prefix, TableMapEvent* t) {
  Reader f(v);
  t->primary_key.clear();
  while (f.remaining() > 0) {
    uint64_t idx = 0, prefix = 0;
    if (!f.LenEnc(&idx) || (with_prefix && !f.LenEnc(&prefix)) || idx >= t->columns.size()) {
      return BadMetadata(*t, "bad primary key column");
    }
    t->primary_key.push_back(static_cast<uint32_t>(idx));
    t->columns[idx].in_primary_key = true;
  }
  return Ok();
}

Status ApplyOptionalField(uint8_t type, std::span<const uint8_t> v, bool mariadb,
                          TableMapEvent* t) {
  auto group = [&](Group g) { return GroupOf{t->columns, g, mariadb}; };
  switch (type) {
    case 1:
      return ReadSignedness(v, group(Group::kNumeric), t);
    case 2:
      return ReadCharsets(v, group(Group::kChars), true, t);
    case 3:
      return ReadCharsets(v, group(Group::kChars), false, t);
    case 4:
      return ReadColumnNames(v, t);
    case 5:
      return ReadEnumValues(v, group(Group::kSets), t);
    case 6:
      return ReadEnumValues(v, group(Group::kEnums), t);
    case 7:
      return ReadGeometryTypes(v, group(Group::kGeometry), t);
    case 8:
      return ReadPrimaryKey(v, false, t);
    case 9:
      return ReadPrimaryKey(v, true, t);
    case 10:
      return ReadCharsets(v, group(Group::kEnumSet), true, t);
    case 11:
      return ReadCharsets(v, group(Group::kEnumSet), false, t);
    default:
      return Ok();  // COLUMN_VISIBILITY and future fields
  }
}

}  // namespace

bool IsCharacterType(uint8_t type, uint8_t real_type) {
  if (type == column_type::kString) return real_type == column_type::kString;
  return OneOf(type, column_type::kVarchar, column_type::kVarString, column_type::kBlob,
               column_type::kTinyBlob, column_type::kMediumBlob, column_type::kLongBlob);
}

Status ParseOptionalMetadata(std::span<const uint8_t> bytes, bool mariadb, TableMapEvent* t) {
  Reader r(bytes);
  while (r.remaining() > 0) {
    uint8_t type = 0;
    uint64_t len = 0;
    std::span<const uint8_t> v;
    if (!r.U8(&type) || !r.LenEnc(&len) || !r.Bytes(len, &v)) {
      return BadMetadata(*t, "truncated field");
    }
    FLOE_RETURN_IF_ERROR(ApplyOptionalField(type, v, mariadb, t));
  }
  return Ok();
}

Status DecodeColumnMetadata(std::span<const uint8_t> meta, const EventContext& ctx,
                            TableMapEvent* t) {
  Reader m(meta);
  for (uint64_t i = 0; i < t->columns.size(); ++i) {
    ColumnInfo& c = t->columns[i];
    FLOE_ASSIGN_OR_RETURN(bool ok, ReadOneColumnMetadata(m, ctx, *t, i, c));
    if (!ok) return ctx.Truncated("TABLE_MAP metadata");
    c.name = fmt::format("col_{}", i + 1);
  }
  if (m.remaining() != 0) return ctx.Fail("TABLE_MAP metadata longer than its columns need");
  return Ok();
}

Result<std::unique_ptr<TableMapEvent>> DecodeTableMap(Reader& r, const EventContext& ctx,
                                                      uint8_t post_header_len, bool mariadb) {
  auto t = std::make_unique<TableMapEvent>();
  uint64_t id = 0;
  if (post_header_len == 6) {
    uint32_t id32 = 0;
    if (!r.Le(&id32)) return ctx.Truncated("TABLE_MAP");
    id = id32;
  } else if (!r.LeN(6, &id)) {
    return ctx.Truncated("TABLE_MAP");
  }
  t->table_id = id;
  uint8_t len = 0;
  std::string_view s;
  if (!r.Skip(2) || !r.U8(&len) || !r.Str(len, &s) || !r.Skip(1)) {
    return ctx.Truncated("TABLE_MAP");
  }
  t->db = std::string(s);
  if (!r.U8(&len) || !r.Str(len, &s) || !r.Skip(1)) return ctx.Truncated("TABLE_MAP");
  t->table = std::string(s);
  uint64_t ncols = 0;
  if (!r.LenEnc(&ncols) || ncols > r.remaining()) return ctx.Truncated("TABLE_MAP");
  std::span<const uint8_t> types;
  r.Bytes(ncols, &types);
  t->columns.resize(ncols);
  for (uint64_t i = 0; i < ncols; ++i) t->columns[i].type = t->columns[i].real_type = types[i];
  uint64_t meta_len = 0;
  std::span<const uint8_t> meta;
  if (!r.LenEnc(&meta_len) || !r.Bytes(meta_len, &meta)) return ctx.Truncated("TABLE_MAP");
  FLOE_RETURN_IF_ERROR(DecodeColumnMetadata(meta, ctx, t.get()));
  std::span<const uint8_t> nulls;
  if (!r.Bytes((ncols + 7) / 8, &nulls)) return ctx.Truncated("TABLE_MAP");
  for (uint64_t i = 0; i < ncols; ++i) t->columns[i].nullable = (nulls[i / 8] >> (i % 8)) & 1;
  if (r.remaining() > 0) {
    std::span<const uint8_t> opt;
    r.Bytes(r.remaining(), &opt);
    auto st = ParseOptionalMetadata(opt, mariadb, t.get());
    if (!st) return ctx.Fail(st.error().message());
  }
  return t;
}

}  // namespace floe::cdc::mysql::binlog_internal
