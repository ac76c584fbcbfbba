#pragma once
/// Avro binary encoding: zigzag varints, the primitive encodings, and whole
/// datums against a schema, with schema resolution (reader schema vs writer
/// schema) on decode. See docs/avro.md for the resolution rules implemented.
///
/// Decoding is defensive: every length and count is checked against the bytes
/// that remain before anything is allocated, nesting is bounded, and bad input
/// is kCorruption naming the source (file path or "avro data") and the byte
/// offset.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "floe/common/bytes.h"
#include "floe/common/result.h"
#include "floe/format/avro/datum.h"
#include "floe/format/avro/schema.h"

namespace floe::format::avro {

/// Appends the zigzag varint encoding of `value` (Avro "long"; "int" uses the
/// same encoding).
void AppendVarLong(int64_t value, ByteBuffer* out);
/// Appends an Avro string/bytes: the length as a long, then the bytes.
void AppendLengthPrefixed(std::string_view bytes, ByteBuffer* out);

/// Reads Avro primitives from a byte span. `offset()` is absolute:
/// `base_offset` plus the bytes consumed, so errors name the file position.
class BinaryDecoder {
 public:
  explicit BinaryDecoder(std::span<const uint8_t> data, std::string_view source = "avro data",
                         uint64_t base_offset = 0)
      : data_(data), source_(source), base_offset_(base_offset) {}

  Result<int64_t> ReadLong();
  /// A long that must fit in 32 bits.
  Result<int32_t> ReadInt();
  /// One byte, 0 or 1.
  Result<bool> ReadBoolean();
  Result<float> ReadFloat();
  Result<double> ReadDouble();
  /// A length-prefixed string/bytes, as a view into the input.
  Result<std::string_view> ReadLengthPrefixed();
  /// `n` raw bytes, as a view into the input.
  Result<std::string_view> ReadRaw(size_t n);

  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  uint64_t offset() const { return base_offset_ + pos_; }
  std::string_view source() const { return source_; }

  /// kCorruption: "<source> at offset <offset>: <what>".
  std::unexpected<Error> Corrupt(std::string_view what) const;

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  std::string_view source_;
  uint64_t base_offset_;
};

/// Appends `datum` encoded as `schema` describes. A value may be wider than the
/// schema asks only where no information is lost (int for long/float/double,
/// long for float/double, float for double, string for bytes, bytes for
/// string, string for enum by symbol). In a union the datum's branch() is used
/// if set, else the first branch the value fits.
/// Errors: kInvalidArgument naming the field path when the datum does not fit
/// the schema (wrong type, wrong field count, enum index or fixed size out of
/// range). On error `*out` may hold a partial encoding.
Status EncodeDatum(const Node& schema, const Datum& datum, ByteBuffer* out);

/// Options for schema resolution.
struct ResolveOptions {
  /// A reader field with no default and no matching writer field is an error
  /// by the Avro spec. With this set, such a field whose type is a union with
  /// a "null" branch reads as null instead (Iceberg's rule for optional
  /// fields). Default: false (spec behaviour).
  bool missing_optional_as_null = false;
};

/// Decodes datums written with a writer schema, optionally into a different
/// reader schema. Immutable after Make; copies share the plan; safe to use
/// from several threads. Keeps a reference to both schemas.
class DatumReader {
 public:
  /// Limits applied while decoding.
  static constexpr int kMaxNesting = 200;  ///< Nested records/arrays/maps/unions in one datum.

  /// Reads data as written (no resolution).
  static Result<DatumReader> Make(const Schema& writer);
  /// Reads data written with `writer` as `reader`, per the Avro resolution rules.
  /// Errors: kSchemaIncompatible when the schemas cannot be resolved (a reader
  /// field without default and no writer counterpart, a type that cannot be
  /// promoted, fixed of different size). Mismatches that only some values hit
  /// (a union branch, an enum symbol) are reported when such a value is read.
  static Result<DatumReader> Make(const Schema& writer, const Schema& reader,
                                  ResolveOptions options = {});

  /// Decodes one datum into `*out` (reusing its memory). Errors: kCorruption
  /// for bad bytes (naming source and offset), kSchemaIncompatible for a value
  /// the reader schema cannot take.
  Status Read(BinaryDecoder* decoder, Datum* out) const;

  /// The schema of the datums produced (the reader schema if one was given).
  const Schema& schema() const;
  const Schema& writer_schema() const;

  struct Plan;
  struct State;

 private:
  std::shared_ptr<const State> state_;
};

/// Encodes one datum (Avro "single object" body without header) into a string.
Result<std::string> EncodeBinary(const Schema& schema, const Datum& datum);
/// Decodes one datum that must take all of `bytes`. Errors: kCorruption (also
/// for trailing bytes), kSchemaIncompatible.
Result<Datum> DecodeBinary(const Schema& schema, std::string_view bytes);
/// Decodes one datum written as `writer`, resolved to `reader`.
Result<Datum> DecodeBinary(const Schema& writer, const Schema& reader, std::string_view bytes,
                           ResolveOptions options = {});

/// Converts a JSON default value (as in a schema's "default") into a datum of
/// type `schema`. A union default is tried against the first branch, then the
/// others. bytes/fixed defaults are strings of code points 0-255.
/// Errors: kSchemaIncompatible naming what did not fit.
Result<Datum> DefaultToDatum(const Node& schema, const Json& value);

/// `value` converted by `convert(branch, value)` (a Result<Datum>) with the
/// first branch of the union `schema` that converts it, marked with that
/// branch's index; nullopt if no branch does (their errors are dropped).
template <typename Convert>
std::optional<Datum> FirstFittingBranch(const Node& schema, const Json& value, Convert convert) {
  const auto& branches = schema.branches();
  for (size_t i = 0; i < branches.size(); ++i) {
    Result<Datum> d = convert(*branches[i], value);
    if (d) {
      d->set_branch(static_cast<int32_t>(i));
      return std::move(*d);
    }
  }
  return std::nullopt;
}

}  // namespace floe::format::avro
