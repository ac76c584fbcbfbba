#pragma once
/// The spec's binary single-value serialization (Appendix D), used for the
/// lower/upper bounds of data files and the partition field summaries of
/// manifest lists:
///   boolean 1 byte (0 false, non-zero true); int, date 4 bytes LE; long,
///   time, timestamp(tz) 8 bytes LE; float 4 / double 8 bytes LE; string
///   UTF-8 bytes; uuid 16 big-endian bytes; fixed/binary the bytes; decimal
///   the unscaled value as minimal big-endian two's complement.
/// Nested types are not serializable.

#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/iceberg/expression/literal.h"
#include "floe/types/type.h"
#include "floe/types/value.h"

namespace floe::iceberg {

/// Appends the serialization of a non-null `value` of primitive `type`.
/// Errors: kInvalidArgument for null, nested types, or a value whose
/// representation does not match the type (uuid not 16 bytes, fixed not L).
Status AppendSingleValue(const types::Type& type, const types::Value& value, std::string* out);
Result<std::string> SerializeSingleValue(const types::Type& type, const types::Value& value);

/// Decodes `bytes` as a value of `type`. Bytes values point into `bytes`
/// (the caller keeps it alive). Errors: kCorruption for a wrong length (int
/// not 4 bytes, uuid not 16, fixed not L, decimal empty or over 16 bytes,
/// boolean not 1), kInvalidArgument for nested types.
Result<types::Value> DeserializeSingleValue(const types::Type& type, std::string_view bytes);

/// Decodes a lower/upper bound of a column whose type is now `current` but
/// may have been promoted since the file was written (spec "Schema
/// Evolution"): a 4-byte long bound is an int, a 4-byte double bound a float,
/// a 4-byte timestamp bound a date (converted to the current type's
/// representation). Otherwise as DeserializeSingleValue.
Result<types::Value> DeserializeBound(const types::Type& current, std::string_view bytes);

/// DeserializeBound into an owning literal of type `current`.
Result<Literal> DeserializeBoundLiteral(const types::TypePtr& current, std::string_view bytes);

}  // namespace floe::iceberg
