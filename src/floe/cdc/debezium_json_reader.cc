#include "floe/cdc/debezium_json_reader.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "floe/cdc/debezium_json_reader_internal.h"

namespace floe::cdc {
namespace dbz {

using types::NestedField;
using types::Type;
using types::TypeId;
using types::TypePtr;

// ---------------------------------------------------------------------------
// Decimal helpers

bool BigEndianToInt128(std::string_view bytes, types::int128_t* out) {
  if (bytes.empty()) {
    *out = 0;
    return true;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  bool negative = (p[0] & 0x80) != 0;
  size_t n = bytes.size();
  // Leading sign-extension bytes beyond 16 are allowed.
  size_t start = 0;
  while (n - start > 16) {
    if (p[start] != (negative ? 0xFF : 0x00)) return false;
    ++start;
  }
  if (start > 0 && ((p[start] & 0x80) != 0) != negative) return false;
  unsigned __int128 u = negative ? ~static_cast<unsigned __int128>(0) : 0;
  for (size_t i = start; i < n; ++i) u = (u << 8) | p[i];
  *out = static_cast<types::int128_t>(u);
  return true;
}

void AppendBigEndianDecimalText(std::string_view bytes, int scale, std::string* out) {
  // Magnitude as base-2^32 limbs (most significant first), then base-10^9 digits.
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  bool negative = n > 0 && (p[0] & 0x80) != 0;
  std::vector<uint8_t> mag(p, p + n);
  if (negative) {  // two's complement negation
    unsigned carry = 1;
    for (size_t i = n; i-- > 0;) {
      unsigned v = static_cast<uint8_t>(~mag[i]) + carry;
      mag[i] = static_cast<uint8_t>(v & 0xFF);
      carry = v >> 8;
    }
  }
  std::vector<uint32_t> limbs;
  limbs.reserve(n / 4 + 1);
  size_t first = n % 4;
  if (first) {
    uint32_t v = 0;
    for (size_t i = 0; i < first; ++i) v = (v << 8) | mag[i];
    limbs.push_back(v);
  }
  for (size_t i = first; i < n; i += 4) {
    limbs.push_back(static_cast<uint32_t>(mag[i]) << 24 | static_cast<uint32_t>(mag[i + 1]) << 16 |
                    static_cast<uint32_t>(mag[i + 2]) << 8 | mag[i + 3]);
  }
  std::string digits;  // least significant first
  auto is_zero = [&] {
    for (uint32_t l : limbs) {
      if (l) return false;
    }
    return true;
  };
  while (!is_zero()) {
    uint64_t rem = 0;
    for (auto& l : limbs) {
      uint64_t cur = (rem << 32) | l;
      l = static_cast<uint32_t>(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    for (int k = 0; k < 9; ++k) {
      digits.push_back(static_cast<char>('0' + rem % 10));
      rem /= 10;
    }
  }
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  if (digits.empty()) digits = "0";
  if (negative && digits != "0") out->push_back('-');
  if (scale <= 0) {
    out->append(digits.rbegin(), digits.rend());
    if (digits != "0") out->append(static_cast<size_t>(-scale), '0');
    return;
  }
  size_t s = static_cast<size_t>(scale);
  if (digits.size() <= s) digits.append(s + 1 - digits.size(), '0');
  out->append(digits.rbegin(), digits.rend() - static_cast<std::ptrdiff_t>(s));
  out->push_back('.');
  out->append(digits.rend() - static_cast<std::ptrdiff_t>(s), digits.rend());
}

bool FitsPrecision(types::int128_t unscaled, int precision) {
  unsigned __int128 limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  unsigned __int128 mag = unscaled < 0 ? -static_cast<unsigned __int128>(unscaled)
                                       : static_cast<unsigned __int128>(unscaled);
  return mag < limit;
}

KeyPattern::KeyPattern(std::string_view name) {
  for (char c : name) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return;  // kNever
  }
  std::string quoted(name);
  quoted.push_back('"');
  size_ = static_cast<uint32_t>(quoted.size());
  if (quoted.size() > 16) {
    form_ = Form::kLong;
    quoted_ = std::move(quoted);
    return;
  }
  form_ = Form::kShort;
  unsigned char bytes[16] = {}, mask[16] = {};
  std::memcpy(bytes, quoted.data(), quoted.size());
  std::memset(mask, 0xFF, quoted.size());
  std::memcpy(&lo_, bytes, 8);
  std::memcpy(&hi_, bytes + 8, 8);
  std::memcpy(&lo_mask_, mask, 8);
  std::memcpy(&hi_mask_, mask + 8, 8);
}

void FinishPlan(FieldPlan* plan) {
  plan->key = KeyPattern(plan->name);
  plan->follows.clear();
  if (plan->type_id == TypeId::kStruct) {
    for (size_t i = 0; i < plan->children.size(); ++i) {
      plan->follows.push_back(static_cast<uint32_t>(i + 1));
    }
    plan->follows.push_back(0);
  }
  for (FieldPlan& child : plan->children) FinishPlan(&child);
}

namespace {

// ---------------------------------------------------------------------------
// Plans

/// Fills the plan of a field whose Iceberg type is known (decoded by the
/// defaults: numbers of time/timestamps are microseconds, decimal strings are
/// base64 when they are valid base64, else decimal text).
void BuildKnownPlan(const NestedField& field, std::string path, FieldPlan* plan) {
  plan->type = field.type.get();
  plan->type_id = field.type->id();
  plan->required = field.required;
  plan->name = field.name;
  plan->path = std::move(path);
  if (field.type->is_nested()) {
    for (const auto& child : field.type->fields()) {
      std::string child_path;
      switch (plan->type_id) {
        case TypeId::kStruct:
          child_path = plan->path + "." + child.name;
          break;
        case TypeId::kList:
          child_path = plan->path + "[]";
          break;
        default:
          child_path = plan->path + "." + child.name;
          break;
      }
      plan->children.emplace_back();
      BuildKnownPlan(child, std::move(child_path), &plan->children.back());
    }
  }
}

void BuildRootPlan(const TypePtr& root, RowPlan* plan) {
  plan->root_type = root;
  plan->root.type = root.get();
  plan->root.type_id = TypeId::kStruct;
  plan->root.required = true;
  for (const auto& f : root->fields()) {
    plan->root.children.emplace_back();
    BuildKnownPlan(f, f.name, &plan->root.children.back());
  }
  FinishPlan(&plan->root);
}

constexpr int kMaxSchemaDepth = 32;

using Json = nlohmann::json;

std::string_view StringMember(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return {};
  return it->get_ref<const std::string&>();
}

/// An integer parameter ("scale": "2" as Debezium writes it, or 2).
bool IntParameter(const Json& node, const char* key, int64_t* out) {
  auto params = node.find("parameters");
  if (params == node.end() || !params->is_object()) return false;
  auto it = params->find(key);
  if (it == params->end()) return false;
  if (it->is_number_integer()) {
    *out = it->get<int64_t>();
    return true;
  }
  if (!it->is_string()) return false;
  const auto& s = it->get_ref<const std::string&>();
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// Converts Kafka Connect JSON schemas to Iceberg types with field ids
/// assigned as Iceberg assigns fresh ids: a struct's own fields first, then
/// the nested types of each field in order.
class BlockConverter {
 public:
  explicit BlockConverter(int32_t next_id) : next_id_(next_id) {}

  /// The struct of `fields` (a JSON array of Connect field schemas).
  Result<TypePtr> ConvertStruct(const Json& fields, const std::string& json_path,
                                const std::string& plan_path, int depth, FieldPlan* plan) {
    if (depth > kMaxSchemaDepth) {
      return InvalidArgument("{}: nested deeper than {} levels", json_path, kMaxSchemaDepth);
    }
    if (!fields.is_array()) return InvalidArgument("{}.fields: expected an array", json_path);
    size_t n = fields.size();
    int32_t first_id = next_id_;
    if (n > 100000) return InvalidArgument("{}.fields: too many fields", json_path);
    next_id_ += static_cast<int32_t>(n);
    std::vector<NestedField> out(n);
    plan->children.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Json& f = fields[i];
      std::string fpath = fmt::format("{}.fields[{}]", json_path, i);
      if (!f.is_object()) return InvalidArgument("{}: expected an object", fpath);
      auto name = f.find("field");
      if (name == f.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
        return InvalidArgument("{}.field: expected the field's name", fpath);
      }
      out[i].id = first_id + static_cast<int32_t>(i);
      out[i].name = name->get<std::string>();
      for (size_t k = 0; k < i; ++k) {
        if (out[k].name == out[i].name) {
          return InvalidArgument("{}: field name '{}' appears twice", fpath, out[i].name);
        }
      }
      FieldPlan& child = plan->children[i];
      child.name = out[i].name;
      child.path = plan_path.empty() ? out[i].name : plan_path + "." + out[i].name;
      FLOE_ASSIGN_OR_RETURN(out[i].type, Convert(f, fpath, child.path, depth + 1, &child));
      out[i].required = !Optional(f);
      child.required = out[i].required;
    }
    auto type = Type::Struct(std::move(out));
    // The plan's children point at the types now held by the struct.
    for (size_t i = 0; i < n; ++i) plan->children[i].type = type->fields()[i].type.get();
    plan->type = type.get();
    plan->type_id = TypeId::kStruct;
    return type;
  }

 private:
  static bool Optional(const Json& node) {
    auto it = node.find("optional");
    // Connect writes "optional" always; a hand-written block without it is optional.
    return it == node.end() || !it->is_boolean() || it->get<bool>();
  }

  static void SetPrimitive(const TypePtr& type, FieldPlan* plan) {
    plan->type = type.get();
    plan->type_id = type->id();
  }

  Result<TypePtr> Convert(const Json& node, const std::string& json_path,
                          const std::string& plan_path, int depth, FieldPlan* plan) {
    if (depth > kMaxSchemaDepth) {
      return InvalidArgument("{}: nested deeper than {} levels", json_path, kMaxSchemaDepth);
    }
    std::string_view type = StringMember(node, "type");
    std::string_view name = StringMember(node, "name");
    if (type.empty()) return InvalidArgument("{}.type: expected a Connect type name", json_path);
    TypePtr t;
    auto timed = [&](TypePtr iceberg, NumberUnit unit) {
      plan->unit = unit;
      return iceberg;
    };
    if (!name.empty()) {
      if (name == "io.debezium.time.Date" || name == "org.apache.kafka.connect.data.Date" ||
          name == "io.debezium.time.IsoDate") {
        t = Type::Date();
      } else if (name == "io.debezium.time.Time" || name == "org.apache.kafka.connect.data.Time") {
        t = timed(Type::Time(), NumberUnit::kMillis);
      } else if (name == "io.debezium.time.MicroTime" || name == "io.debezium.time.IsoTime") {
        t = timed(Type::Time(), NumberUnit::kMicros);
      } else if (name == "io.debezium.time.NanoTime") {
        t = timed(Type::Time(), NumberUnit::kNanos);
      } else if (name == "io.debezium.time.Timestamp" ||
                 name == "org.apache.kafka.connect.data.Timestamp") {
        t = timed(Type::Timestamp(), NumberUnit::kMillis);
      } else if (name == "io.debezium.time.MicroTimestamp") {
        t = timed(Type::Timestamp(), NumberUnit::kMicros);
      } else if (name == "io.debezium.time.NanoTimestamp") {
        t = timed(Type::Timestamp(), NumberUnit::kNanos);
      } else if (name == "io.debezium.time.ZonedTimestamp" ||
                 name == "io.debezium.time.IsoTimestamp") {
        t = Type::TimestampTz();
      } else if (name == "io.debezium.time.Year") {
        t = Type::Int();
      } else if (name == "org.apache.kafka.connect.data.Decimal") {
        int64_t scale = 0, precision = 38;
        if (!IntParameter(node, "scale", &scale)) {
          return InvalidArgument("{}.parameters.scale: a Decimal needs its scale", json_path);
        }
        bool has_precision = IntParameter(node, "connect.decimal.precision", &precision);
        if (!has_precision) precision = 38;
        if (scale < -1000 || scale > 1000) {
          return InvalidArgument("{}.parameters.scale: {} is out of range", json_path, scale);
        }
        auto dec = scale >= 0 && precision >= 1 && precision <= 38
                       ? Type::Decimal(static_cast<int>(precision), static_cast<int>(scale))
                       : Result<TypePtr>(InvalidArgument("too wide"));
        if (dec) {
          t = *dec;
          plan->decimal_base64 = type == "bytes";
        } else {
          // Wider than Iceberg's decimal(38): the decimal's text, as floe does for MySQL.
          t = Type::String();
          plan->decimal_text = true;
          plan->text_scale = static_cast<int>(scale);
        }
      } else if (name == "io.debezium.data.VariableScaleDecimal" ||
                 name == "io.debezium.data.Json" || name == "io.debezium.data.Enum" ||
                 name == "io.debezium.data.EnumSet" || name == "io.debezium.data.Xml" ||
                 name == "io.debezium.time.ZonedTime") {
        t = Type::String();
      } else if (name == "io.debezium.data.Uuid") {
        t = Type::Uuid();
      } else if (name == "io.debezium.data.Bits") {
        t = Type::Binary();
        plan->bits_little_endian = true;
      } else if (name == "io.debezium.data.geometry.Geometry" ||
                 name == "io.debezium.data.geometry.Point" ||
                 name == "io.debezium.data.geometry.Geography") {
        t = Type::Binary();  // the value's wkb
      }
    }
    if (t) {
      SetPrimitive(t, plan);
      return t;
    }
    if (type == "int8" || type == "int16" || type == "int32") {
      t = Type::Int();
    } else if (type == "int64") {
      t = Type::Long();
    } else if (type == "float" || type == "float32") {
      t = Type::Float();
    } else if (type == "double" || type == "float64") {
      t = Type::Double();
    } else if (type == "boolean") {
      t = Type::Boolean();
    } else if (type == "string") {
      t = Type::String();
    } else if (type == "bytes") {
      t = Type::Binary();
    } else if (type == "struct") {
      auto fields = node.find("fields");
      if (fields == node.end()) return InvalidArgument("{}.fields: missing", json_path);
      return ConvertStruct(*fields, json_path, plan_path, depth, plan);
    } else if (type == "array") {
      auto items = node.find("items");
      if (items == node.end() || !items->is_object()) {
        return InvalidArgument("{}.items: expected the element schema", json_path);
      }
      int32_t element_id = next_id_++;
      plan->children.resize(1);
      FieldPlan& element = plan->children[0];
      element.name = "element";
      element.path = plan_path + "[]";
      FLOE_ASSIGN_OR_RETURN(TypePtr element_type, Convert(*items, json_path + ".items",
                                                          element.path, depth + 1, &element));
      element.required = !Optional(*items);
      t = Type::List(element_id, element.required, element_type);
      element.type = t->element().type.get();
      plan->type = t.get();
      plan->type_id = TypeId::kList;
      return t;
    } else if (type == "map") {
      auto keys = node.find("keys");
      auto values = node.find("values");
      if (keys == node.end() || !keys->is_object() || values == node.end() ||
          !values->is_object()) {
        return InvalidArgument("{}: a map needs \"keys\" and \"values\" schemas", json_path);
      }
      int32_t key_id = next_id_++;
      int32_t value_id = next_id_++;
      plan->children.resize(2);
      FieldPlan& key = plan->children[0];
      FieldPlan& value = plan->children[1];
      key.name = "key";
      key.path = plan_path + ".key";
      value.name = "value";
      value.path = plan_path + ".value";
      FLOE_ASSIGN_OR_RETURN(TypePtr key_type,
                            Convert(*keys, json_path + ".keys", key.path, depth + 1, &key));
      FLOE_ASSIGN_OR_RETURN(TypePtr value_type,
                            Convert(*values, json_path + ".values", value.path, depth + 1, &value));
      key.required = true;
      value.required = !Optional(*values);
      t = Type::Map(key_id, key_type, value_id, value.required, value_type);
      key.type = t->key().type.get();
      value.type = t->value().type.get();
      plan->type = t.get();
      plan->type_id = TypeId::kMap;
      return t;
    } else {
      return InvalidArgument("{}.type: unknown Connect type '{}'", json_path, type);
    }
    SetPrimitive(t, plan);
    return t;
  }

  int32_t next_id_;
};

/// Parses a `schema` block into a plan.
Result<std::unique_ptr<RowPlan>> PlanFromBlock(std::string_view text) {
  Json block = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (block.is_discarded()) return InvalidArgument("schema: invalid JSON");
  if (!block.is_object()) return InvalidArgument("schema: expected an object");
  auto plan = std::make_unique<RowPlan>();
  std::string_view name = StringMember(block, "name");
  if (EndsWith(name, "Heartbeat")) {
    plan->kind = RowPlan::Kind::kHeartbeat;
    return plan;
  }
  auto fields = block.find("fields");
  const Json* row = nullptr;
  size_t row_index = 0;
  if (fields != block.end() && fields->is_array()) {
    for (const char* image : {"after", "before"}) {
      for (size_t i = 0; i < fields->size() && !row; ++i) {
        const Json& f = (*fields)[i];
        if (f.is_object() && StringMember(f, "field") == image &&
            StringMember(f, "type") == "struct") {
          row = &f;
          row_index = i;
        }
      }
    }
  }
  if (!row) {
    plan->kind = RowPlan::Kind::kOther;
    return plan;
  }
  auto row_fields = row->find("fields");
  if (row_fields == row->end()) {
    return InvalidArgument("schema.fields[{}].fields: missing", row_index);
  }
  BlockConverter converter(/*next_id=*/1);
  FLOE_ASSIGN_OR_RETURN(TypePtr root, converter.ConvertStruct(
                                          *row_fields, fmt::format("schema.fields[{}]", row_index),
                                          "", 1, &plan->root));
  auto schema = std::make_shared<types::Schema>(root->fields());
  if (auto st = schema->Validate(); !st) {
    return std::unexpected(std::move(st).error().WithContext("schema"));
  }
  // The plan must point at the schema's own types (the same objects as `root`'s).
  plan->root_type = schema->as_struct();
  plan->root.type = plan->root_type.get();
  plan->root.required = true;
  for (size_t i = 0; i < plan->root.children.size(); ++i) {
    plan->root.children[i].type = schema->fields()[i].type.get();
  }
  plan->schema = std::move(schema);
  FinishPlan(&plan->root);
  return plan;
}

uint64_t SampledHash(std::string_view text) {
  // Size, head and tail: the tail holds the envelope's name (server.db.table),
  // so blocks of different tables differ there. Equal hashes are compared in full.
  constexpr size_t kHead = 64, kTail = 256;
  std::hash<std::string_view> h;
  uint64_t x = text.size() * 0x9E3779B97F4A7C15ull;
  if (text.size() <= kHead + kTail) return x ^ h(text);
  return x ^ h(text.substr(0, kHead)) ^ (h(text.substr(text.size() - kTail)) * 31);
}

}  // namespace
}  // namespace dbz

// ---------------------------------------------------------------------------
// The reader

struct DebeziumJsonReader::Impl final : dbz::PlanSource {
  struct Entry {
    std::string text;
    std::unique_ptr<dbz::RowPlan> plan;
  };
  static constexpr size_t kMaxCachedBlocks = 8192;

  std::unique_ptr<dbz::Decoder> decoder;
  dbz::OnePassDecoder onepass;
  bool use_onepass = true;
  uint64_t onepass_events = 0;
  /// The plan that decoded the row images of the last event (either decoder's).
  const dbz::RowPlan* last_row_plan = nullptr;
  std::unordered_map<uint64_t, std::vector<std::unique_ptr<Entry>>> blocks;
  size_t block_count = 0;
  /// The most recently used blocks, most recent first (null: unused slot).
  static constexpr size_t kRecent = 8;
  std::array<const Entry*, kRecent> recent{};
  std::unique_ptr<dbz::RowPlan> known_plan;

  void Touch(const Entry* e) {
    size_t i = 0;
    while (i < kRecent - 1 && recent[i] != e && recent[i] != nullptr) ++i;
    for (size_t k = i; k > 0; --k) recent[k] = recent[k - 1];
    recent[0] = e;
  }

  Result<const dbz::RowPlan*> ForSchemaBlock(std::string_view text) override {
    if (recent[0] && recent[0]->text.size() == text.size() &&
        std::memcmp(recent[0]->text.data(), text.data(), text.size()) == 0) {
      return recent[0]->plan.get();
    }
    uint64_t hash = dbz::SampledHash(text);
    auto it = blocks.find(hash);
    if (it != blocks.end()) {
      for (const auto& e : it->second) {
        if (e->text == text) {
          Touch(e.get());
          return e->plan.get();
        }
      }
    }
    FLOE_ASSIGN_OR_RETURN(auto plan, dbz::PlanFromBlock(text));
    if (block_count >= kMaxCachedBlocks) {
      // Events keep their schema objects alive; only the plans go.
      blocks.clear();
      block_count = 0;
      recent.fill(nullptr);
    }
    auto entry = std::make_unique<Entry>();
    entry->text.assign(text);
    entry->plan = std::move(plan);
    const Entry* added = entry.get();
    blocks[hash].push_back(std::move(entry));
    ++block_count;
    Touch(added);
    return added->plan.get();
  }

  const dbz::RowPlan* MatchCachedBlock(std::string_view rest, size_t* block_size) override {
    for (const Entry* e : recent) {
      if (!e) break;
      size_t n = e->text.size();
      if (rest.size() > n && rest[n] == ',' && std::memcmp(rest.data(), e->text.data(), n) == 0) {
        Touch(e);
        *block_size = n;
        return e->plan.get();
      }
    }
    // Many tables interleaved: find where the block would end (the wrapper is
    // `{"schema":{...},"payload":{...}}`, so searching from the end passes
    // over the payload only), then look the candidate up like a parsed block.
    // A candidate that is not a cached block costs a lookup; a few are tried.
    constexpr std::string_view kPayload = "},\"payload\":";
    size_t pos = rest.size();
    for (int tries = 0; tries < 4 && pos > 0; ++tries) {
      pos = rest.rfind(kPayload, pos - 1);
      if (pos == std::string_view::npos) break;
      std::string_view candidate = rest.substr(0, pos + 1);
      auto it = blocks.find(dbz::SampledHash(candidate));
      if (it == blocks.end()) continue;
      for (const auto& e : it->second) {
        if (e->text == candidate) {
          Touch(e.get());
          *block_size = candidate.size();
          return e->plan.get();
        }
      }
    }
    return nullptr;
  }

  const dbz::RowPlan* ForKnown(const types::Schema& known) override {
    // Keyed by the schema's root type object, which the plan keeps alive, so
    // an address cannot be reused by another schema while cached.
    if (known_plan && known_plan->root_type.get() == known.as_struct().get()) {
      return known_plan.get();
    }
    auto plan = std::make_unique<dbz::RowPlan>();
    dbz::BuildRootPlan(known.as_struct(), plan.get());
    known_plan = std::move(plan);
    return known_plan.get();
  }
};

DebeziumJsonReader::DebeziumJsonReader() : impl_(std::make_unique<Impl>()) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
      __builtin_cpu_supports("bmi2")) {
    impl_->decoder = dbz::haswell_kernel::MakeDecoder();
    return;
  }
#endif
  impl_->decoder = dbz::fallback_kernel::MakeDecoder();
}

DebeziumJsonReader::~DebeziumJsonReader() = default;

Result<DebeziumEvent> DebeziumJsonReader::Decode(std::string_view line, const types::Schema* known,
                                                 Arena* arena) {
  if (impl_->use_onepass) {
    DebeziumEvent event;
    if (impl_->onepass.Decode(line, known, arena, impl_.get(), &event)) {
      impl_->last_row_plan = impl_->onepass.last_row_plan();
      ++impl_->onepass_events;
      return event;
    }
  }
  auto event = impl_->decoder->Decode(line, known, arena, impl_.get());
  impl_->last_row_plan = impl_->decoder->last_row_plan();
  return event;
}

namespace dbz {
void ReaderTesting::UseOnePass(DebeziumJsonReader* reader, bool on) {
  reader->impl_->use_onepass = on;
}

uint64_t ReaderTesting::OnePassEvents(const DebeziumJsonReader& reader) {
  return reader.impl_->onepass_events;
}
}  // namespace dbz

void DebeziumJsonReader::LimitBeforeImage(std::string_view db, std::string_view table,
                                          std::span<const int> fields) {
  const dbz::RowPlan* plan = impl_->last_row_plan;
  if (plan == nullptr) return;
  dbz::RowPlan::BeforeLimit& limit = plan->before_limit;
  if (limit.active && limit.db == db && limit.table == table &&
      std::equal(limit.fields.begin(), limit.fields.end(), fields.begin(), fields.end())) {
    return;
  }
  limit.active = true;
  limit.db.assign(db);
  limit.table.assign(table);
  limit.fields.assign(fields.begin(), fields.end());
  limit.wanted.assign(plan->root.children.size(), 0);
  for (int i : fields) {
    if (i >= 0 && static_cast<size_t>(i) < limit.wanted.size()) limit.wanted[i] = 1;
  }
}

}  // namespace floe::cdc
