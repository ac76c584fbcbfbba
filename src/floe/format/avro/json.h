#pragma once
/// Avro datums as JSON, for `floe avro cat` and `floe avro write`. Output
/// conventions (docs/avro.md):
///   null, booleans, numbers as JSON (float/double NaN, Infinity, -Infinity as
///   strings); string as string; bytes and fixed as base64; enum as its
///   symbol; array as array; map as object; record as object in field order;
///   a union as the plain value of its branch.
///   With logical types on (the default): date "2024-02-29", time-millis /
///   time-micros "13:45:00.000001", timestamp-millis/micros "...T...+00:00"
///   (nanos with 9 digits), local-timestamp-* without offset, decimal as a
///   string "12.30", uuid (string or fixed 16) as canonical text.
/// Input accepts the same shapes except logical types, which are given as
/// their underlying value (int days, long micros, base64 decimal bytes,
/// string uuid); a union takes the plain value (first branch that accepts it)
/// or {"<branch type name>": value}; a missing record field takes the
/// schema default, or null for a union with null.

#include <string>

#include "floe/common/result.h"
#include "floe/format/avro/datum.h"
#include "floe/format/avro/schema.h"

namespace floe::format::avro {

struct JsonOptions {
  /// Render logical types as text (see above). Default true; false prints the
  /// underlying values, which `DatumFromJson` reads back.
  bool logical_types = true;
};

/// Appends `datum` (of type `schema`) as compact JSON to `*out`.
void AppendDatumJson(const Node& schema, const Datum& datum, const JsonOptions& options,
                     std::string* out);

/// Converts parsed JSON into a datum of `schema`. Errors: kInvalidArgument
/// naming the field path, e.g. "field 'a.b': expected long, got string".
Result<Datum> DatumFromJson(const Node& schema, const Json& value);

}  // namespace floe::format::avro
