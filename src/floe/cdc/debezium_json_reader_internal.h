#pragma once
/// Internal to the Debezium JSON reader (debezium_json_reader.cc and the
/// per-kernel decoders built from debezium_json_reader_decode*.inc). Not part
/// of the module's API: `floe ingest` uses debezium_json_reader.h only.
///
/// The reader turns every schema (a Debezium `schema` block, or the `known`
/// Iceberg schema) into a `RowPlan`: a tree mirroring the Iceberg row type
/// whose nodes also say how the JSON value of that field is encoded (number
/// units of temporal types, Bits byte order, decimals as text). Two decoders
/// walk the JSON along the plan: the one-pass decoder
/// (debezium_json_reader_onepass.cc, on types/json_cursor.h) takes the
/// common events — row changes whose schema block is cached or absent — and
/// hands every other event, and every event it finds malformed, to the
/// simdjson On-Demand decoder (debezium_json_reader_decode*.inc), which
/// decides and words the errors. Both give the same event for what they
/// both accept (the fuzz target and the unit tests compare them).

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/cdc/debezium_json_reader.h"
#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::cdc::dbz {

/// The unit of a JSON number given for a time or timestamp.
enum class NumberUnit : uint8_t { kMillis, kMicros, kNanos };

/// A member name as it appears in JSON without escapes, for matching a key
/// where simdjson found it (the bytes after its opening quote) without
/// unescaping or measuring it: the name followed by the closing quote. Names
/// that need escaping in JSON never match here (their keys hold a
/// backslash, which the decoder then unescapes and compares in full).
class KeyPattern {
 public:
  KeyPattern() = default;
  explicit KeyPattern(std::string_view name);
  /// The length of name + '"' (0 for a name JSON must escape).
  size_t size() const { return size_; }
  /// `raw`: a key's first byte inside a simdjson-padded buffer (at least 16
  /// readable bytes follow it, and at least size() for a long name).
  bool Matches(const char* raw) const {
    switch (form_) {
      case Form::kShort: {
        uint64_t a, b;
        std::memcpy(&a, raw, 8);
        std::memcpy(&b, raw + 8, 8);
        return ((a ^ lo_) & lo_mask_) == 0 && ((b ^ hi_) & hi_mask_) == 0;
      }
      case Form::kLong:
        return std::memcmp(raw, quoted_.data(), quoted_.size()) == 0;
      case Form::kNever:
        break;
    }
    return false;
  }

 private:
  /// kShort: name + '"' fits 16 bytes, compared as two masked words;
  /// kLong: longer, compared with memcmp; kNever: a name JSON must escape.
  enum class Form : uint8_t { kNever, kShort, kLong };
  Form form_ = Form::kNever;
  uint32_t size_ = 0;
  std::string quoted_;        ///< name + '"' (kLong)
  uint64_t lo_ = 0, hi_ = 0;  ///< name + '"', zero-padded to 16 bytes (kShort)
  uint64_t lo_mask_ = 0, hi_mask_ = 0;
};

/// How to decode one field; one node per Iceberg type node.
struct FieldPlan {
  const types::Type* type = nullptr;  ///< owned by the plan's schema / kept type
  types::TypeId type_id = types::TypeId::kString;
  bool required = false;
  std::string name;  ///< the JSON member name (struct fields)
  KeyPattern key;    ///< `name`, for matching keys (set by FinishPlan)
  std::string path;  ///< dotted path below the row image, for messages
  /// time/timestamp/timestamptz: the unit of numbers.
  NumberUnit unit = NumberUnit::kMicros;
  /// binary from io.debezium.data.Bits: JSON bytes are little-endian; stored big-endian.
  bool bits_little_endian = false;
  /// decimal from a Connect `bytes` Decimal: a string is always base64.
  bool decimal_base64 = false;
  /// string holding decimal text, from a Connect Decimal too wide for Iceberg:
  /// a string is base64 of the unscaled value at `text_scale`.
  bool decimal_text = false;
  int text_scale = 0;
  /// struct: fields; list: element; map: key, value.
  std::vector<FieldPlan> children;
  /// struct (the one-pass decoder): follows[i] is the field that came after
  /// field i in the last object decoded (follows[n]: the first one), the
  /// guess for the next object's members. Set by FinishPlan.
  mutable std::vector<uint32_t> follows;
  /// Scratch for list/map elements while they are decoded (the reader is
  /// single-threaded; nested lists use their own node's scratch).
  mutable std::vector<types::Value> scratch;
};

/// A schema turned into a decoding plan.
struct RowPlan {
  enum class Kind : uint8_t {
    kEnvelope,   ///< a row envelope with a before/after struct
    kHeartbeat,  ///< a schema block named ...Heartbeat
    kOther,      ///< a block without a row struct (schema change, transaction, ...)
  };
  Kind kind = Kind::kEnvelope;
  /// The row schema (schema blocks only; null for plans of a `known` schema).
  std::shared_ptr<const types::Schema> schema;
  /// The root struct type the plan points into (kept alive by the plan).
  types::TypePtr root_type;
  FieldPlan root;
  /// DebeziumJsonReader::LimitBeforeImage: before images of events of
  /// db.table decode only the root fields marked in `wanted`.
  struct BeforeLimit {
    bool active = false;
    std::string db;
    std::string table;
    std::vector<int> fields;      ///< as given
    std::vector<uint8_t> wanted;  ///< per root field
  };
  mutable BeforeLimit before_limit;
};

/// Sets the key patterns of `plan` and of every node below it (after the
/// names are final).
void FinishPlan(FieldPlan* plan);

/// Gives the decoder the plan of a schema block or of a known schema (cached).
class PlanSource {
 public:
  virtual ~PlanSource() = default;
  /// `text`: the raw JSON of the `schema` object. Errors: kInvalidArgument
  /// naming the block's path ("schema.fields[1]...") and the reason.
  virtual Result<const RowPlan*> ForSchemaBlock(std::string_view text) = 0;
  virtual const RowPlan* ForKnown(const types::Schema& known) = 0;
  /// The decoder's fast path: if `rest` (a line after `{"schema":`) starts
  /// with the exact text of a cached block followed by a comma,
  /// returns that block's plan and sets `*block_size`; else null. The block
  /// then needs no parsing at all (a cached text is one complete JSON object).
  virtual const RowPlan* MatchCachedBlock(std::string_view rest, size_t* block_size) = 0;
};

/// One simdjson kernel's decoder.
class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual Result<DebeziumEvent> Decode(std::string_view line, const types::Schema* known,
                                       Arena* arena, PlanSource* plans) = 0;
  /// The plan that decoded the row images of the last event (null if none).
  virtual const RowPlan* last_row_plan() const = 0;
};

/// The one-pass decoder (debezium_json_reader_onepass.cc).
class OnePassDecoder {
 public:
  OnePassDecoder();
  ~OnePassDecoder();
  /// Decodes `line` into `*event` and returns true when it is a row change
  /// (op c, r, u or d) whose images this decoder reads; else returns false
  /// and `*event` is unspecified: the caller decodes the line with a Decoder,
  /// which accepts it or words the error. Values may have been allocated in
  /// `arena` either way.
  bool Decode(std::string_view line, const types::Schema* known, Arena* arena, PlanSource* plans,
              DebeziumEvent* event);
  /// The plan that decoded the row images of the last event it decoded.
  const RowPlan* last_row_plan() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// For tests and the fuzz target: turns the one-pass decoder of a reader
/// off (every event goes to the simdjson decoder) or on (the default).
struct ReaderTesting {
  static void UseOnePass(DebeziumJsonReader* reader, bool on);
  /// How many events the one-pass decoder of `reader` has decoded.
  static uint64_t OnePassEvents(const DebeziumJsonReader& reader);
};

namespace haswell_kernel {
std::unique_ptr<Decoder> MakeDecoder();
}
namespace fallback_kernel {
std::unique_ptr<Decoder> MakeDecoder();
}

/// Big-endian two's-complement bytes (Kafka Connect's Decimal encoding) to a
/// 128-bit integer. False if the value does not fit in 128 bits. Empty is 0.
bool BigEndianToInt128(std::string_view bytes, types::int128_t* out);

/// Appends the decimal text of big-endian two's-complement `bytes` at `scale`
/// (any length; a negative scale appends zeros): "-12.30".
void AppendBigEndianDecimalText(std::string_view bytes, int scale, std::string* out);

/// True if |unscaled| < 10^precision (precision 1..38).
bool FitsPrecision(types::int128_t unscaled, int precision);

}  // namespace floe::cdc::dbz
