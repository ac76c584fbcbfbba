// The Debezium JSON reader's one-pass decoder (debezium_json_reader_internal.h):
// row changes are decoded straight from the line into the row's values,
// walking the row plan with the scanning steps of the JSON row parser
// (types/json_cursor.h). Each byte is read once: member names are compared in
// place with the name that followed the previous member in the last event,
// strings are copied once into the arena, numbers are converted as they are
// scanned, unknown members are checked and skipped without recursion, and a
// cached schema block is matched by its text and never parsed.
//
// It decides only what it can decide alone: anything else — an event that is
// not a plain row change, a shape it does not read (variable-scale decimals,
// geometries, maps), and every fault — makes Decode return false, and the
// reader decodes the line with the simdjson decoder, which holds the rules
// and the messages. So this decoder may be stricter than that one (it checks
// skipped values), never more lenient, and gives the same values.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "floe/cdc/debezium_json_reader_internal.h"
#include "floe/common/base64.h"
#include "floe/common/float_text.h"
#include "floe/types/json_cursor.h"
#include "floe/types/temporal.h"

namespace floe::cdc::dbz {

using types::TypeId;
using types::Value;

namespace {

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

/// Skipped values may nest this deep here: well below simdjson's limit of
/// the whole document (1024), so nothing deeper than the simdjson decoder
/// takes is accepted.
constexpr size_t kMaxSkippedDepth = 256;

/// As the simdjson decoder: fraction digits beyond microseconds are dropped.
std::string_view TruncateFraction(std::string_view s, std::string* scratch) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return s;
  size_t end = dot + 1;
  while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
  if (end - dot - 1 <= 6) return s;
  scratch->assign(s.substr(0, dot + 7));
  scratch->append(s.substr(end));
  return *scratch;
}

// The decoder (internal linkage, so that its steps used once are inlined
// without growing the unit).
class OnePass : public types::JsonCursor {
 public:
  OnePass() { max_skip_depth_ = kMaxSkippedDepth; }

  bool Decode(std::string_view line, const types::Schema* known, Arena* arena, PlanSource* plans,
              DebeziumEvent* event) {
    last_plan_ = nullptr;
    bool redo = false;
    if (!DecodeEvent(line, known, arena, plans, /*full_before=*/false, event, &redo)) return false;
    if (!redo) return true;
    // The before image was limited for another table that shares this
    // schema: decode the event again with the whole image.
    *event = DebeziumEvent();
    last_plan_ = nullptr;
    return DecodeEvent(line, known, arena, plans, /*full_before=*/true, event, &redo);
  }

  const RowPlan* last_row_plan() const { return last_plan_; }

 private:
  struct State {
    const types::Schema* known = nullptr;
    PlanSource* plans = nullptr;
    DebeziumEvent* event = nullptr;
    const RowPlan* block = nullptr;
    bool full_before = false;
    bool saw_op = false;
    bool saw_source = false;
    bool has_before = false;
    bool has_after = false;
    bool has_table = false;
    bool has_db = false;
    bool has_schema_name = false;
    const RowPlan* limited_before = nullptr;
  };

  bool DecodeEvent(std::string_view line, const types::Schema* known, Arena* arena,
                   PlanSource* plans, bool full_before, DebeziumEvent* event, bool* redo) {
    arena_ = arena;
    Start(line);
    State s;
    s.known = known;
    s.plans = plans;
    s.event = event;
    s.full_before = full_before;
    constexpr std::string_view kSchemaPrefix = "{\"schema\":";
    if (line.starts_with(kSchemaPrefix)) {
      // The wrapper: only with a block seen before (the first event of a
      // block goes to the simdjson decoder, which caches it).
      size_t block_size = 0;
      const RowPlan* block =
          plans->MatchCachedBlock(line.substr(kSchemaPrefix.size()), &block_size);
      if (block == nullptr || block->kind != RowPlan::Kind::kEnvelope) return false;
      s.block = block;
      if (block->schema) event->row_schema = block->schema;
      p_ = begin_ + kSchemaPrefix.size() + block_size + 1;  // after the block's comma
      SkipSpace();
      bool payload_done = false;
      while (true) {
        std::string_view key;
        if (!MemberName(&key)) return false;
        if (key == "payload") {
          if (payload_done || !Payload(&s)) return false;
          payload_done = true;
        } else if (key == "schema" || !Skip()) {
          return false;
        }
        bool done;
        if (!NextMember(&done)) return false;
        if (done) break;
      }
      if (!payload_done) return false;
    } else {
      // Bare events: the payload's members at the top.
      SkipSpace();
      if (p_ == end_ || *p_ != '{') return false;
      ++p_;
      SkipSpace();
      for (bool first = true;; first = false) {
        std::string_view key;
        if (!MemberName(&key)) return false;
        if (first && (key == "schema" || key == "payload")) return false;
        if (!PayloadMember(key, &s)) return false;
        bool done;
        if (!NextMember(&done)) return false;
        if (done) break;
      }
    }
    SkipSpace();
    if (p_ != end_) return false;
    return Finish(&s, redo);
  }

  /// A member's name at p_ and the ':' after it; p_ is then at its value.
  bool MemberName(std::string_view* key) {
    if (p_ == end_ || *p_ != '"') return false;
    if (!ReadString(key)) return false;
    if (!Expect(':', "expected ':'")) return false;
    SkipSpace();
    return p_ != end_;
  }

  /// After a member's value: steps over ',' (to the next name; `*done`
  /// false) or over the object's '}' (`*done` true).
  bool NextMember(bool* done) {
    SkipSpace();
    if (p_ == end_) return false;
    if (*p_ == ',') {
      ++p_;
      SkipSpace();
      *done = false;
      return true;
    }
    if (*p_ != '}') return false;
    ++p_;
    *done = true;
    return true;
  }

  bool Skip() { return SkipValue(); }

  bool Payload(State* s) {
    if (*p_ != '{') return false;  // null (a tombstone) or not an object
    ++p_;
    SkipSpace();
    if (p_ != end_ && *p_ == '}') return false;  // no op: not a row change
    while (true) {
      std::string_view key;
      if (!MemberName(&key)) return false;
      if (!PayloadMember(key, s)) return false;
      bool done;
      if (!NextMember(&done)) return false;
      if (done) break;
    }
    return true;
  }

  bool Null() { return Literal("null"); }

  bool PayloadMember(std::string_view key, State* s) {
    if (key == "after" || key == "before") return Image(key == "after", s);
    if (key == "op") {
      s->saw_op = true;
      std::string_view op;
      if (*p_ != '"' || !ReadString(&op)) return false;
      std::optional<ChangeOp> row_op = ChangeOpOfLetter(op);
      if (!row_op) return false;  // "t" (a truncate) or unknown
      s->event->op = *row_op;
      return true;
    }
    if (key == "source") {
      s->saw_source = true;
      if (*p_ == 'n') return Null();
      if (*p_ != '{') return false;
      ++p_;
      SkipSpace();
      if (p_ != end_ && *p_ == '}') {
        ++p_;
        return true;
      }
      while (true) {
        std::string_view k;
        if (!MemberName(&k)) return false;
        const int which = k == "table" ? 0 : k == "db" ? 1 : k == "schema" ? 2 : 3;
        if (which == 3) {
          if (!Skip()) return false;
        } else if (*p_ == 'n') {
          if (!Null()) return false;
        } else {
          std::string_view text;
          if (*p_ != '"' || !ReadString(&text)) return false;
          if (which == 0) {
            s->event->table.assign(text);
            s->has_table = true;
          } else if (which == 1) {
            s->event->db.assign(text);
            s->has_db = true;
          } else if (!s->has_db) {
            // PostgreSQL: the schema names the table's namespace (db is the database).
            schema_name_.assign(text);
            s->has_schema_name = true;
          }
        }
        bool done;
        if (!NextMember(&done)) return false;
        if (done) break;
      }
      return true;
    }
    if (key == "ts_ms") {
      if (*p_ == 'n') return Null();
      Number n;
      if (*p_ != '-' && !IsDigit(*p_)) return false;
      if (!ReadNumber(&n) || !n.integer) return false;
      s->event->ts_ms = n.value;
      return true;
    }
    // Schema changes, transaction metadata and floe capture's detail are
    // the simdjson decoder's.
    if (key == "ddl" || key == "tableChanges" || key == "status" || key == "floe") return false;
    return Skip();  // transaction, ts_us, ts_ns, unknown members
  }

  bool Image(bool after, State* s) {
    if (*p_ == 'n') return Null();
    if (*p_ != '{') return false;
    const RowPlan* plan = nullptr;
    if (s->block != nullptr) {
      plan = s->block;
    } else if (s->known != nullptr) {
      plan = s->plans->ForKnown(*s->known);
    } else {
      return false;
    }
    last_plan_ = plan;
    const std::vector<uint8_t>* wanted = nullptr;
    if (!after && !s->full_before && plan->before_limit.active) {
      wanted = &plan->before_limit.wanted;
      s->limited_before = plan;
    }
    // `before` may hold only the key's values: required fields are checked
    // in `after` only.
    Value row;
    if (!DecodeStruct(plan->root, /*check_required=*/after, &row, wanted)) return false;
    (after ? s->event->after : s->event->before) = types::Row(row.children, row.size);
    (after ? s->has_after : s->has_before) = true;
    return true;
  }

  bool Finish(State* s, bool* redo) {
    DebeziumEvent& event = *s->event;
    if (!s->has_db && s->has_schema_name && !schema_name_.empty()) event.db.assign(schema_name_);
    if (!s->saw_op || !s->saw_source || !s->has_table || event.table.empty()) return false;
    switch (event.op) {
      case ChangeOp::kInsert:
      case ChangeOp::kRead:
      case ChangeOp::kUpdate:
        if (!s->has_after) return false;
        break;
      case ChangeOp::kDelete:
        if (!s->has_before) return false;
        break;
    }
    if (s->limited_before) {
      const RowPlan::BeforeLimit& limit = s->limited_before->before_limit;
      if (event.db != limit.db || event.table != limit.table) *redo = true;
    }
    event.kind = DebeziumEvent::Kind::kRow;
    return true;
  }

  /// The index of the field a member name at p_ (after its opening quote)
  /// names, found in place when it is `guess`; steps p_ past the name's
  /// closing quote. The number of fields for an unknown name.
  bool MemberIndex(const FieldPlan& p, uint32_t guess, uint32_t* index) {
    const uint32_t n = static_cast<uint32_t>(p.children.size());
    if (guess < n) {
      const KeyPattern& key = p.children[guess].key;
      const size_t size = key.size();
      if (size != 0 && Left() >= 16 && Left() >= size && key.Matches(p_)) {
        p_ += size;
        *index = guess;
        return true;
      }
    }
    --p_;  // ReadString starts at the opening quote
    std::string_view name;
    if (!ReadString(&name)) return false;
    *index = n;
    for (uint32_t i = 0; i < n; ++i) {
      if (p.children[i].name == name) {
        *index = i;
        break;
      }
    }
    return true;
  }

  /// An object at p_ into a struct value of `p`'s fields. `wanted` (root
  /// only; null: all): the fields to decode, the others are skipped and null.
  bool DecodeStruct(const FieldPlan& p, bool check_required, Value* out,
                    const std::vector<uint8_t>* wanted = nullptr) {
    ++p_;  // '{'
    const uint32_t n = static_cast<uint32_t>(p.children.size());
    Value* fields = arena_->AllocateArray<Value>(n);
    for (uint32_t i = 0; i < n; ++i) new (&fields[i]) Value();
    SkipSpace();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
    } else {
      uint32_t previous = n;  // follows[n]: the guess for the first member
      while (true) {
        if (p_ == end_ || *p_ != '"') return false;
        ++p_;
        const uint32_t guess = p.follows[previous];
        uint32_t index;
        if (!MemberIndex(p, guess, &index)) return false;
        if (!Expect(':', "expected ':'")) return false;
        SkipSpace();
        if (p_ == end_) return false;
        if (index == n) {
          if (!Skip()) return false;
        } else {
          if (index != guess) p.follows[previous] = index;
          previous = index;
          if (wanted != nullptr && !(*wanted)[index]) {
            if (!Skip()) return false;
          } else if (!DecodeValue(p.children[index], check_required, &fields[index])) {
            return false;
          }
        }
        bool done;
        if (!NextMember(&done)) return false;
        if (done) break;
      }
    }
    if (check_required) {
      for (uint32_t i = 0; i < n; ++i) {
        if (p.children[i].required && fields[i].is_null()) return false;
      }
    }
    *out = Value::Struct(fields, n);
    return true;
  }

  /// A JSON number at p_ that is an integer of int64's range.
  bool Integer(int64_t* x) {
    if (*p_ != '-' && !IsDigit(*p_)) return false;
    Number n;
    if (!ReadNumber(&n) || !n.integer) return false;
    *x = n.value;
    return true;
  }

  /// A number of a time or timestamp in `p.unit`, as microseconds.
  static bool ScaleNumber(const FieldPlan& p, int64_t x, int64_t* micros) {
    switch (p.unit) {
      case NumberUnit::kMillis:
        return !__builtin_mul_overflow(x, int64_t{1000}, micros);
      case NumberUnit::kMicros:
        *micros = x;
        return true;
      case NumberUnit::kNanos:
        *micros = x >= 0 ? x / 1000 : -((-(x + 1)) / 1000) - 1;  // floor
        return true;
    }
    return false;
  }

  /// The value at p_ (not at the end) per `p`: null, else by the family of
  /// its type. The family steps are inlined here (one call per value).
  bool DecodeValue(const FieldPlan& p, bool check_required, Value* out) {
    const char c = *p_;
    if (c == 'n') {
      if (!Null()) return false;
      *out = Value::Null();
      return true;
    }
    switch (p.type_id) {
      case TypeId::kBoolean:
        return DecodeBoolean(c, out);
      case TypeId::kInt:
        return DecodeInteger(/*as_long=*/false, out);
      case TypeId::kLong:
        return DecodeInteger(/*as_long=*/true, out);
      case TypeId::kFloat:
      case TypeId::kDouble:
        return DecodeFloating(p, c, out);
      case TypeId::kDecimal:
        return DecodeDecimal(p, out);
      case TypeId::kDate:
        return DecodeDate(c, out);
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
        return DecodeTimeOrTimestamp(p, c, out);
      case TypeId::kString:
        return DecodeString(p, c, out);
      case TypeId::kUuid:
        return DecodeUuid(c, out);
      case TypeId::kFixed:
      case TypeId::kBinary:
        return DecodeBytes(p, c, out);
      case TypeId::kStruct:
        if (c != '{') return false;
        return DecodeStruct(p, check_required, out);
      case TypeId::kList:
        if (c != '[') return false;
        return DecodeList(p, check_required, out);
      case TypeId::kMap:
        return false;  // the simdjson decoder's
    }
    return false;
  }

  /// true, false, 0 or 1 (`c`: the value's first byte).
  [[gnu::always_inline]] bool DecodeBoolean(char c, Value* out) {
    if (c == 't') {
      if (!Literal("true")) return false;
      *out = Value::Bool(true);
    } else if (c == 'f') {
      if (!Literal("false")) return false;
      *out = Value::Bool(false);
    } else {
      int64_t x;
      if (!Integer(&x) || (x != 0 && x != 1)) return false;
      *out = Value::Bool(x != 0);
    }
    return true;
  }

  /// long, or int (in int32's range).
  [[gnu::always_inline]] bool DecodeInteger(bool as_long, Value* out) {
    int64_t x;
    if (!Integer(&x)) return false;
    if (as_long) {
      *out = Value::Int64(x);
      return true;
    }
    if (x < INT32_MIN || x > INT32_MAX) return false;
    *out = Value::Int32(static_cast<int32_t>(x));
    return true;
  }

  /// float or double: a number, or "NaN", "Infinity", "-Infinity".
  [[gnu::always_inline]] bool DecodeFloating(const FieldPlan& p, char c, Value* out) {
    double d;
    if (c == '"') {
      std::string_view s;
      if (!ReadString(&s) || !ParseNonFiniteText(s, &d)) return false;
    } else {
      if (c != '-' && !IsDigit(c)) return false;
      Number n;
      if (!ReadNumber(&n)) return false;
      // Integers below 2^53 are exact as doubles (but "-0" is -0.0).
      if (n.integer && n.value != 0 && n.value > -(int64_t{1} << 53) &&
          n.value < (int64_t{1} << 53)) {
        d = static_cast<double>(n.value);
      } else {
        auto [end, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), d);
        if (ec != std::errc() || end != n.text.data() + n.text.size() || std::isinf(d)) {
          return false;
        }
      }
    }
    *out = p.type_id == TypeId::kFloat ? Value::Float(static_cast<float>(d)) : Value::Double(d);
    return true;
  }

  /// date: days, or an ISO date.
  [[gnu::always_inline]] bool DecodeDate(char c, Value* out) {
    if (c == '"') {
      std::string_view s;
      if (!ReadString(&s)) return false;
      if (!s.empty() && s.back() == 'Z') s.remove_suffix(1);  // IsoDate "2024-01-31Z"
      auto d = types::ParseDate(s);
      if (!d) return false;
      *out = Value::Int32(*d);
      return true;
    }
    int64_t days;
    if (!Integer(&days) || days < INT32_MIN || days > INT32_MAX) return false;
    *out = Value::Int32(static_cast<int32_t>(days));
    return true;
  }

  /// time, timestamp, timestamptz: a number in `p.unit`, or ISO text.
  [[gnu::always_inline]] bool DecodeTimeOrTimestamp(const FieldPlan& p, char c, Value* out) {
    const bool time = p.type_id == TypeId::kTime;
    int64_t micros;
    if (c == '"') {
      std::string_view s;
      if (!ReadString(&s)) return false;
      if (time && !s.empty() && s.back() == 'Z') s.remove_suffix(1);  // IsoTime "10:15:30Z"
      auto x = time ? types::ParseTime(TruncateFraction(s, &text_))
                    : types::ParseTimestamp(TruncateFraction(s, &text_));
      if (!x) return false;
      micros = *x;
    } else {
      int64_t x;
      if (!Integer(&x) || !ScaleNumber(p, x, &micros)) return false;
    }
    if (time && (micros < 0 || micros >= kMicrosPerDay)) return false;
    *out = Value::Int64(micros);
    return true;
  }

  /// string: the text, or (a decimal too wide for Iceberg) the decimal text
  /// of base64 or of a number.
  [[gnu::always_inline]] bool DecodeString(const FieldPlan& p, char c, Value* out) {
    if (c == '"') {
      std::string_view s;
      if (!ReadString(&s)) return false;
      if (!p.decimal_text) {
        *out = Value::Bytes(arena_->Copy(s));
        return true;
      }
      decoded_.clear();
      if (!Base64Decode(s, &decoded_) || decoded_.size() > 1024) return false;
      text_.clear();
      AppendBigEndianDecimalText(decoded_, p.text_scale, &text_);
      *out = Value::Bytes(arena_->Copy(text_));
      return true;
    }
    if (!p.decimal_text || (c != '-' && !IsDigit(c))) return false;
    Number n;
    if (!ReadNumber(&n) || n.text.find_first_of("eE") != std::string_view::npos) return false;
    *out = Value::Bytes(arena_->Copy(n.text));
    return true;
  }

  [[gnu::always_inline]] bool DecodeUuid(char c, Value* out) {
    std::string_view s;
    if (c != '"' || !ReadString(&s)) return false;
    decoded_.clear();
    if (!types::ParseUuid(s, &decoded_)) return false;
    *out = Value::Bytes(arena_->Copy(decoded_));
    return true;
  }

  /// fixed or binary: base64 (geometries: the simdjson decoder's).
  [[gnu::always_inline]] bool DecodeBytes(const FieldPlan& p, char c, Value* out) {
    std::string_view s;
    if (c != '"' || !ReadString(&s)) return false;
    decoded_.clear();
    if (!Base64Decode(s, &decoded_)) return false;
    if (p.bits_little_endian) std::reverse(decoded_.begin(), decoded_.end());
    if (p.type_id == TypeId::kFixed && decoded_.size() != static_cast<size_t>(p.type->length())) {
      return false;
    }
    *out = Value::Bytes(arena_->Copy(decoded_));
    return true;
  }

  bool DecodeDecimal(const FieldPlan& p, Value* out) {
    const types::Type& type = *p.type;
    const char c = *p_;
    if (c == '"') {
      std::string_view s;
      if (!ReadString(&s)) return false;
      decoded_.clear();
      const bool is_base64 = static_cast<bool>(Base64Decode(s, &decoded_));
      if (is_base64) {
        types::int128_t unscaled;
        if (!BigEndianToInt128(decoded_, &unscaled) || !FitsPrecision(unscaled, type.precision())) {
          return false;
        }
        *out = Value::Decimal(unscaled);
        return true;
      }
      if (p.decimal_base64) return false;
      auto d = types::ParseDecimal(s, type.precision(), type.scale());
      if (!d) return false;
      *out = Value::Decimal(*d);
      return true;
    }
    if (c != '-' && !IsDigit(c)) return false;  // variable-scale objects: the simdjson decoder's
    Number n;
    if (!ReadNumber(&n) || n.text.find_first_of("eE") != std::string_view::npos) return false;
    auto d = types::ParseDecimal(n.text, type.precision(), type.scale());
    if (!d) return false;
    *out = Value::Decimal(*d);
    return true;
  }

  bool DecodeList(const FieldPlan& p, bool check_required, Value* out) {
    ++p_;  // '['
    auto& scratch = p.scratch;
    const size_t base = scratch.size();
    const FieldPlan& element = p.children[0];
    auto fail = [&] {
      scratch.resize(base);
      return false;
    };
    SkipSpace();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
    } else {
      while (true) {
        SkipSpace();
        if (p_ == end_) return fail();
        Value v;
        if (!DecodeValue(element, check_required, &v)) return fail();
        if (check_required && element.required && v.is_null()) return fail();
        scratch.push_back(v);
        SkipSpace();
        if (p_ == end_) return fail();
        if (*p_ == ',') {
          ++p_;
          continue;
        }
        if (*p_ != ']') return fail();
        ++p_;
        break;
      }
    }
    const size_t count = scratch.size() - base;
    Value* elements = arena_->AllocateArray<Value>(count);
    std::copy(scratch.begin() + static_cast<std::ptrdiff_t>(base), scratch.end(), elements);
    scratch.resize(base);
    *out = Value::List(elements, count);
    return true;
  }

  Arena* arena_ = nullptr;
  const RowPlan* last_plan_ = nullptr;
  std::string decoded_;      // base64 / uuid bytes
  std::string text_;         // decimal text / timestamp scratch
  std::string schema_name_;  // source.schema, until source.db is known
};

}  // namespace

class OnePassDecoder::Impl : public OnePass {};

OnePassDecoder::OnePassDecoder() : impl_(std::make_unique<Impl>()) {}
OnePassDecoder::~OnePassDecoder() = default;

bool OnePassDecoder::Decode(std::string_view line, const types::Schema* known, Arena* arena,
                            PlanSource* plans, DebeziumEvent* event) {
  return impl_->Decode(line, known, arena, plans, event);
}

const RowPlan* OnePassDecoder::last_row_plan() const { return impl_->last_row_plan(); }

}  // namespace floe::cdc::dbz
