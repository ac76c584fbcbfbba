#pragma once
/// PostgreSQL column types -> Iceberg types, and pgoutput's text-format
/// values -> `types::Value` (docs/postgres-type-mapping.md has the table and
/// the reasons). In short:
///
///   bool -> boolean; int2, int4 -> int; int8, oid -> long
///   float4 -> float; float8 -> double
///   numeric(P,S), P <= 38, 0 <= S <= P -> decimal(P,S); numeric without a
///     precision, P > 38 or a negative scale -> string (the exact text)
///   date -> date; timestamp -> timestamp; timestamptz -> timestamptz;
///     time -> time; 'infinity' / '-infinity' -> the sentinel PostgreSQL
///     itself stores (INT32_MAX / INT32_MIN days, INT64_MAX / INT64_MIN us)
///   uuid -> uuid; bytea -> binary (hex format)
///   text, varchar, bpchar, name, "char", json, jsonb, xml, timetz,
///     interval, inet, cidr, macaddr, macaddr8, money, bit, varbit, pg_lsn
///     -> string (the server's text)
///   one-dimensional arrays of the types above -> list<element>
///   anything else (enums, ranges, composites, geometric types, domains whose
///     base type was not resolved, arrays of those) -> string
///
/// The text forms read are those of a session with DateStyle ISO, TimeZone
/// UTC, IntervalStyle postgres and bytea_output hex (the replication client
/// sets them when it connects).
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/types/type.h"
#include "floe/types/value.h"

namespace floe::cdc::postgres {

/// pg_type oids of the built-in types floe maps (from pg_type.dat; stable).
namespace oid {
inline constexpr uint32_t kBool = 16, kBytea = 17, kChar = 18, kName = 19, kInt8 = 20, kInt2 = 21,
                          kInt4 = 23, kText = 25, kOid = 26, kJson = 114, kXml = 142, kCidr = 650,
                          kMacaddr8 = 774, kMoney = 790, kMacaddr = 829, kInet = 869, kFloat4 = 700,
                          kFloat8 = 701, kBpchar = 1042, kVarchar = 1043, kDate = 1082,
                          kTime = 1083, kTimestamp = 1114, kTimestampTz = 1184, kInterval = 1186,
                          kTimeTz = 1266, kBit = 1560, kVarbit = 1562, kNumeric = 1700,
                          kPgLsn = 3220, kUuid = 2950, kJsonb = 3802;
}  // namespace oid

/// The element type oid of a built-in array type of a mapped scalar
/// (1007 int4[] -> 23), or 0 when `type_oid` is not one.
uint32_t ArrayElementOid(uint32_t type_oid);

/// Whether `type_oid` is one of the built-in scalar types above (not an array).
bool IsMappedScalar(uint32_t type_oid);

/// The numeric precision and scale a `numeric(P,S)` type modifier holds;
/// false when the modifier is -1 (numeric without a precision).
bool NumericTypmod(int32_t type_modifier, int* precision, int* scale);

/// The Iceberg type of a column of type `type_oid` with modifier
/// `type_modifier` (atttypmod, -1 for none). An array's element takes the
/// field id `*next_field_id`, which is then incremented. Never fails: a type
/// floe does not know maps to string.
types::TypePtr IcebergTypeOf(uint32_t type_oid, int32_t type_modifier, int32_t* next_field_id);

/// Reads the text output of one value of type (`type_oid`, `type_modifier`)
/// as the value of the type `IcebergTypeOf` gives. Bytes, strings and list
/// elements are copied into `arena`.
/// Errors: kInvalidArgument when the text is not a value of the type (quoting
/// at most 64 bytes of it), a number out of range, a numeric 'NaN' or
/// 'Infinity' in a decimal column, more digits than the decimal holds, a
/// multi-dimensional array or one with explicit bounds.
Result<types::Value> ParseTextValue(uint32_t type_oid, int32_t type_modifier, std::string_view text,
                                    Arena* arena);

/// Resolves domain types to their base types, asking `lookup` once per
/// unknown type oid (a domain of a domain is followed, up to 8 levels).
class DomainResolver {
 public:
  /// The base type (oid, type modifier) of a domain type, or nullopt when
  /// `type_oid` is not a domain or cannot be looked up.
  using Lookup = std::function<std::optional<std::pair<uint32_t, int32_t>>(uint32_t type_oid)>;

  /// `lookup` may be empty: then no type is resolved.
  explicit DomainResolver(Lookup lookup) : lookup_(std::move(lookup)) {}

  /// The (oid, modifier) a column of type (`type_oid`, `type_modifier`) is
  /// read as: a mapped type or an array of one as it is, a domain as its
  /// base type (whose own modifier, when it has one, replaces the column's),
  /// anything else as it is.
  std::pair<uint32_t, int32_t> Resolve(uint32_t type_oid, int32_t type_modifier);

 private:
  Lookup lookup_;
  std::unordered_map<uint32_t, std::optional<std::pair<uint32_t, int32_t>>> known_;
};

}  // namespace floe::cdc::postgres
