// The JSON row parser (row_json.h): one pass over the line, straight into the
// row's values. Each byte is read once: a member name is compared in place
// with the name the same position held in the previous object (rows of one
// input nearly always repeat their key order), strings are copied once into
// the arena (unescaped only when they hold an escape), numbers are converted
// from the text as they are scanned. Values of unknown members are checked
// and skipped without recursion. Strings are checked to be UTF-8 and free of
// raw control characters, as RFC 8259 asks.

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "floe/common/base64.h"
#include "floe/common/float_text.h"
#include "floe/common/json_scan.h"
#include "floe/types/json_cursor.h"
#include "floe/types/row_json.h"
#include "floe/types/temporal.h"

namespace floe::types {
namespace {

enum class Op : uint8_t {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,
  kTime,
  kTimestamp,
  kString,
  kUuid,
  kFixed,
  kBinary,
  kStruct,
  kList,
  kMap,
};

Op OpOf(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
      return Op::kBoolean;
    case TypeId::kInt:
      return Op::kInt;
    case TypeId::kLong:
      return Op::kLong;
    case TypeId::kFloat:
      return Op::kFloat;
    case TypeId::kDouble:
      return Op::kDouble;
    case TypeId::kDecimal:
      return Op::kDecimal;
    case TypeId::kDate:
      return Op::kDate;
    case TypeId::kTime:
      return Op::kTime;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return Op::kTimestamp;
    case TypeId::kString:
      return Op::kString;
    case TypeId::kUuid:
      return Op::kUuid;
    case TypeId::kFixed:
      return Op::kFixed;
    case TypeId::kBinary:
      return Op::kBinary;
    case TypeId::kStruct:
      return Op::kStruct;
    case TypeId::kList:
      return Op::kList;
    case TypeId::kMap:
      return Op::kMap;
  }
  return Op::kString;
}

/// A member name as it appears in the text when written without escapes,
/// followed by its closing quote: what the in-place comparison looks for.
struct KeyText {
  std::string quoted;     // name + '"'
  bool plain = false;     // the name needs no escape (else only the slow lookup finds it)
  uint32_t sse_mask = 0;  // quoted.size() <= 16: the low quoted.size() bits set
  alignas(16) char sse_bytes[16] = {};
};

// How to parse one field: a tree mirroring the type.
struct Plan {
  const Type* type = nullptr;
  Op op = Op::kString;
  std::string path;  // dotted name for messages
  bool required = false;
  std::vector<Plan> children;  // struct fields / list element / map key, value
  // Structs:
  std::vector<std::string> names;
  std::vector<KeyText> keys;
  /// follows[i]: the field that came after field i in the last object
  /// (follows[n]: the first one), the guess for the next object's members.
  std::vector<uint32_t> follows;
  std::unordered_map<std::string_view, uint32_t> by_name;  // wide structs only
  std::vector<uint8_t> seen;
  // Lists and maps: elements before they move to the arena.
  std::vector<Value> scratch;
};

void BuildPlan(const Type& type, std::string path, bool required, Plan* plan) {
  plan->type = &type;
  plan->op = OpOf(type.id());
  plan->path = std::move(path);
  plan->required = required;
  if (!type.is_nested()) return;
  const auto& fields = type.fields();
  for (const auto& f : fields) {
    std::string child_path =
        type.id() == TypeId::kStruct && plan->path.empty() ? f.name : plan->path + "." + f.name;
    plan->children.emplace_back();
    BuildPlan(*f.type, std::move(child_path), f.required, &plan->children.back());
  }
  if (type.id() != TypeId::kStruct) return;
  const size_t n = fields.size();
  for (size_t i = 0; i < n; ++i) {
    plan->names.push_back(fields[i].name);
    KeyText key;
    key.quoted = fields[i].name + '"';
    key.plain = true;
    for (char c : fields[i].name) {
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) key.plain = false;
    }
    if (key.quoted.size() <= 16) {
      std::memcpy(key.sse_bytes, key.quoted.data(), key.quoted.size());
      key.sse_mask = (1u << key.quoted.size()) - 1;
    }
    plan->keys.push_back(std::move(key));
    plan->follows.push_back(static_cast<uint32_t>(i + 1));
  }
  plan->follows.push_back(0);
  if (n > 16) {
    for (size_t i = 0; i < n; ++i) plan->by_name.emplace(plan->names[i], static_cast<uint32_t>(i));
  }
  plan->seen.resize(n);
}

/// What a JSON value is, by its first byte (for "expected long, got string").
const char* JsonKindName(char c) {
  switch (c) {
    case '{':
      return "object";
    case '[':
      return "array";
    case '"':
      return "string";
    case 't':
    case 'f':
      return "boolean";
    case 'n':
      return "null";
    default:
      return (c == '-' || (c >= '0' && c <= '9')) ? "number" : "value";
  }
}

}  // namespace

class JsonRowParser::Impl : public JsonCursor {
 public:
  explicit Impl(const Schema& schema) { BuildPlan(*schema.as_struct(), "", true, &root_); }

  Result<Row> Parse(std::string_view json, Arena* arena) {
    Start(json);
    arena_ = arena;
    SkipSpace();
    if (p_ == end_) return InvalidArgument("invalid JSON: no value");
    if (*p_ != '{') {
      if (std::strchr("[\"tfn-0123456789", *p_) != nullptr && *p_ != '\0') {
        return InvalidArgument("a row must be a JSON object");
      }
      Syntax("a row must be a JSON object, not this");
      return std::unexpected(std::move(error_));
    }
    Value root;
    if (!ParseObject(root_, &root)) {
      // Text after a whole object is the fault to name, whatever else is wrong.
      if (auto rest = ContentAfterFirstJsonValue(json)) {
        return InvalidArgument("invalid JSON: content after the row object at offset {}", *rest);
      }
      return std::unexpected(std::move(error_));
    }
    SkipSpace();
    // One object is one row: anything after it is an error, never dropped.
    if (p_ != end_) {
      return InvalidArgument("invalid JSON: content after the row object at offset {}", Offset());
    }
    return Row(root.children, root.size);
  }

 private:
  template <typename... Args>
  bool Fail(const Plan& p, fmt::format_string<Args...> f, Args&&... args) {
    return Failed(
        InvalidArgument("field '{}': {}", p.path, fmt::format(f, std::forward<Args>(args)...)));
  }

  bool WrongType(const Plan& p) {
    return Fail(p, "expected {}, got {}", p.type->ToString(), JsonKindName(*p_));
  }

  /// Reads a string value for `p` (WrongType if the value is not a string).
  bool StringFor(const Plan& p, std::string_view* out) {
    if (*p_ != '"') return WrongType(p);
    return ReadString(out);
  }

  // --- Numbers -------------------------------------------------------------

  bool NumberFor(const Plan& p, Number* out) {
    if (*p_ != '-' && !IsDigit(*p_)) return WrongType(p);
    return ReadNumber(out);
  }

  // --- Values --------------------------------------------------------------

  /// Parses the value at p_ (after white space) into `*out` per `p`.
  bool ParseValue(Plan& p, Value* out) {
    SkipSpace();
    if (p_ == end_) return Syntax("a value is missing");
    if (*p_ == 'n') {
      if (!Literal("null")) return false;
      *out = Value::Null();
      return true;
    }
    switch (p.op) {
      case Op::kBoolean:
        if (*p_ == 't') {
          if (!Literal("true")) return false;
          *out = Value::Bool(true);
        } else if (*p_ == 'f') {
          if (!Literal("false")) return false;
          *out = Value::Bool(false);
        } else {
          return WrongType(p);
        }
        return true;
      case Op::kInt:
      case Op::kLong: {
        Number n;
        if (!NumberFor(p, &n)) return false;
        if (!n.integer) {
          return Fail(p, "expected {}, got a number that is not a 64-bit integer",
                      p.type->ToString());
        }
        if (p.op == Op::kLong) {
          *out = Value::Int64(n.value);
        } else if (n.value < INT32_MIN || n.value > INT32_MAX) {
          return Fail(p, "{} is out of range for int", n.value);
        } else {
          *out = Value::Int32(static_cast<int32_t>(n.value));
        }
        return true;
      }
      case Op::kFloat:
      case Op::kDouble: {
        double d;
        if (*p_ == '"') {
          std::string_view s;
          if (!ReadString(&s)) return false;
          if (!ParseNonFiniteText(s, &d)) {
            return Fail(p, "expected a number or \"NaN\", \"Infinity\", \"-Infinity\", got \"{}\"",
                        s);
          }
        } else {
          Number n;
          if (!NumberFor(p, &n)) return false;
          // Integers below 2^53 are exact as doubles (but "-0" is -0.0).
          if (n.integer && n.value != 0 && n.value > -(int64_t{1} << 53) &&
              n.value < (int64_t{1} << 53)) {
            d = static_cast<double>(n.value);
          } else {
            auto [end, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), d);
            if (ec != std::errc() || end != n.text.data() + n.text.size()) {
              return Fail(p, "invalid number");
            }
          }
        }
        *out = p.op == Op::kFloat ? Value::Float(static_cast<float>(d)) : Value::Double(d);
        return true;
      }
      case Op::kDecimal: {
        std::string_view text;
        if (*p_ == '"') {
          if (!ReadString(&text)) return false;
        } else {
          Number n;
          if (!NumberFor(p, &n)) return false;
          text = n.text;
          if (text.find_first_of("eE") != std::string_view::npos) {
            return Fail(p, "exponent notation is not accepted for decimals: {}", text);
          }
        }
        auto d = ParseDecimal(text, p.type->precision(), p.type->scale());
        if (!d) return Fail(p, "{}", d.error().message());
        *out = Value::Decimal(*d);
        return true;
      }
      case Op::kDate: {
        std::string_view s;
        if (!StringFor(p, &s)) return false;
        auto d = ParseDate(s);
        if (!d) return Fail(p, "{}", d.error().message());
        *out = Value::Int32(*d);
        return true;
      }
      case Op::kTime:
      case Op::kTimestamp: {
        std::string_view s;
        if (!StringFor(p, &s)) return false;
        auto x = p.op == Op::kTime ? ParseTime(s) : ParseTimestamp(s);
        if (!x) return Fail(p, "{}", x.error().message());
        *out = Value::Int64(*x);
        return true;
      }
      case Op::kString: {
        std::string_view s;
        if (!StringFor(p, &s)) return false;
        *out = Value::Bytes(arena_->Copy(s));
        return true;
      }
      case Op::kUuid:
      case Op::kFixed:
      case Op::kBinary: {
        std::string_view s;
        if (!StringFor(p, &s)) return false;
        decoded_.clear();
        if (p.op == Op::kUuid) {
          if (auto st = ParseUuid(s, &decoded_); !st) return Fail(p, "{}", st.error().message());
        } else if (auto st = Base64Decode(s, &decoded_); !st) {
          return Fail(p, "{}", st.error().message());
        }
        if (p.op == Op::kFixed && decoded_.size() != static_cast<size_t>(p.type->length())) {
          return Fail(p, "expected {} bytes for {}, got {}", p.type->length(), p.type->ToString(),
                      decoded_.size());
        }
        *out = Value::Bytes(arena_->Copy(decoded_));
        return true;
      }
      case Op::kStruct:
        if (*p_ != '{') return WrongType(p);
        return ParseObject(p, out);
      case Op::kList:
        if (*p_ != '[') return WrongType(p);
        return ParseList(p, out);
      case Op::kMap:
        if (*p_ != '[') {
          return Fail(p, "expected a map as an array of {{\"key\": ..., \"value\": ...}}, got {}",
                      JsonKindName(*p_));
        }
        return ParseMap(p, out);
    }
    return Fail(p, "unsupported type");
  }

  /// The field `key` (the text after a member's opening quote) names, found
  /// in place when it is `guess`; steps p_ past the name's closing quote.
  /// Returns the number of fields for an unknown name.
  bool MemberIndex(const Plan& p, uint32_t guess, uint32_t* index) {
    const uint32_t n = static_cast<uint32_t>(p.names.size());
    if (guess < n) {
      const KeyText& key = p.keys[guess];
      bool match = false;
#if defined(__SSE2__)
      if (key.sse_mask != 0 && Left() >= 16) {
        __m128i text = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
        __m128i want = _mm_load_si128(reinterpret_cast<const __m128i*>(key.sse_bytes));
        unsigned eq = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(text, want)));
        match = (eq & key.sse_mask) == key.sse_mask;
      } else
#endif
      {
        match = Left() >= key.quoted.size() &&
                std::memcmp(p_, key.quoted.data(), key.quoted.size()) == 0;
      }
      if (match && key.plain) {
        p_ += key.quoted.size();
        *index = guess;
        return true;
      }
    }
    --p_;  // ReadString starts at the opening quote
    std::string_view name;
    if (!ReadString(&name)) return false;
    *index = n;
    if (!p.by_name.empty()) {
      auto it = p.by_name.find(name);
      if (it != p.by_name.end()) *index = it->second;
      return true;
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (p.names[i] == name) {
        *index = i;
        break;
      }
    }
    return true;
  }

  /// An object at p_ into a struct value of `p`'s fields. Members may come in
  /// any order; unknown ones are skipped; a repeated one keeps its last value;
  /// a missing one is null.
  bool ParseObject(Plan& p, Value* out) {
    ++p_;  // '{'
    const uint32_t n = static_cast<uint32_t>(p.children.size());
    Value* fields = arena_->AllocateArray<Value>(n);
    for (uint32_t i = 0; i < n; ++i) new (&fields[i]) Value();
    std::fill(p.seen.begin(), p.seen.end(), 0);
    SkipSpace();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
    } else {
      uint32_t previous = n;  // follows[n]: the guess for the first member
      while (true) {
        if (p_ == end_ || *p_ != '"') return Syntax("expected a member name");
        ++p_;
        const uint32_t guess = p.follows[previous];
        uint32_t index;
        if (!MemberIndex(p, guess, &index)) return false;
        if (!Expect(':', "expected ':' after a member name")) return false;
        if (index == n) {
          if (!SkipValue()) return false;
        } else {
          if (index != guess) p.follows[previous] = index;
          if (!ParseValue(p.children[index], &fields[index])) return false;
          p.seen[index] = 1;
          previous = index;
        }
        SkipSpace();
        if (p_ == end_) return Syntax("expected ',' or '}' in an object");
        if (*p_ == ',') {
          ++p_;
          SkipSpace();
          continue;
        }
        if (*p_ == '}') {
          ++p_;
          break;
        }
        return Syntax("expected ',' or '}' in an object");
      }
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (p.children[i].required && fields[i].is_null()) {
        if (!p.seen[i]) return Fail(p.children[i], "is required but missing");
        return Fail(p.children[i], "is required but null");
      }
    }
    *out = Value::Struct(fields, n);
    return true;
  }

  /// Truncates a scratch vector back to its size at construction when it
  /// goes out of scope, so an element that fails to parse leaves nothing.
  struct ScratchMark {
    std::vector<Value>& scratch;
    size_t base;
    explicit ScratchMark(std::vector<Value>& s) : scratch(s), base(s.size()) {}
    ~ScratchMark() { scratch.resize(base); }
  };

  /// Calls `element()` for each element of the array at p_.
  template <typename Element>
  bool ForEachElement(Element element) {
    ++p_;  // '['
    SkipSpace();
    if (p_ < end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    while (true) {
      if (!element()) return false;
      SkipSpace();
      if (p_ == end_) return Syntax("expected ',' or ']' in an array");
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ == ']') {
        ++p_;
        return true;
      }
      return Syntax("expected ',' or ']' in an array");
    }
  }

  bool ParseList(Plan& p, Value* out) {
    // Elements go to this plan's scratch first (a nested list has its own).
    ScratchMark mark(p.scratch);
    Plan& element = p.children[0];
    if (!ForEachElement([&]() -> bool {
          Value v;
          if (!ParseValue(element, &v)) return false;
          if (element.required && v.is_null())
            return Fail(element, "list element is required but null");
          p.scratch.push_back(v);
          return true;
        })) {
      return false;
    }
    size_t count = p.scratch.size() - mark.base;
    Value* elements = arena_->AllocateArray<Value>(count);
    std::copy(p.scratch.begin() + static_cast<std::ptrdiff_t>(mark.base), p.scratch.end(),
              elements);
    *out = Value::List(elements, count);
    return true;
  }

  bool ParseMap(Plan& p, Value* out) {
    ScratchMark mark(p.scratch);
    Plan& key_plan = p.children[0];
    Plan& value_plan = p.children[1];
    if (!ForEachElement([&]() -> bool {
          SkipSpace();
          if (p_ == end_ || *p_ != '{') {
            if (p_ == end_) return Syntax("a value is missing");
            return Fail(p, "map entries must be {{\"key\": ..., \"value\": ...}} objects");
          }
          ++p_;
          Value k, v;
          bool has_key = false;
          SkipSpace();
          if (p_ < end_ && *p_ == '}') {
            ++p_;
          } else {
            while (true) {
              if (p_ == end_ || *p_ != '"') return Syntax("expected a member name");
              std::string_view name;
              if (!ReadString(&name)) return false;
              const int which = name == "key" ? 0 : name == "value" ? 1 : 2;
              if (!Expect(':', "expected ':' after a member name")) return false;
              if (which == 0) {
                if (!ParseValue(key_plan, &k)) return false;
                has_key = true;
              } else if (which == 1) {
                if (!ParseValue(value_plan, &v)) return false;
              } else {
                if (!SkipValue()) return false;
              }
              SkipSpace();
              if (p_ < end_ && *p_ == ',') {
                ++p_;
                SkipSpace();
                continue;
              }
              if (p_ < end_ && *p_ == '}') {
                ++p_;
                break;
              }
              return Syntax("expected ',' or '}' in an object");
            }
          }
          if (!has_key || k.is_null()) return Fail(key_plan, "map keys are required");
          if (value_plan.required && v.is_null()) {
            return Fail(value_plan, "map value is required but null");
          }
          p.scratch.push_back(k);
          p.scratch.push_back(v);
          return true;
        })) {
      return false;
    }
    size_t count = (p.scratch.size() - mark.base) / 2;
    Value* entries = arena_->AllocateArray<Value>(2 * count);
    std::copy(p.scratch.begin() + static_cast<std::ptrdiff_t>(mark.base), p.scratch.end(), entries);
    *out = Value::Map(entries, count);
    return true;
  }

  Plan root_;
  Arena* arena_ = nullptr;
  std::string decoded_;  // base64 / uuid bytes
};

JsonRowParser::JsonRowParser(const Schema& schema) : impl_(std::make_unique<Impl>(schema)) {}

JsonRowParser::~JsonRowParser() = default;

Result<Row> JsonRowParser::Parse(std::string_view json, Arena* arena) {
  return impl_->Parse(json, arena);
}

}  // namespace floe::types
