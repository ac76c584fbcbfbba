#include "floe/types/schema_json.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "floe/io/file_io.h"

namespace floe::types {
namespace {

using nlohmann::json;

class Parser {
 public:
  explicit Parser(bool corruption)
      : code_(corruption ? ErrorCode::kCorruption : ErrorCode::kInvalidArgument) {}

  template <typename... Args>
  std::unexpected<Error> Fail(const std::string& path, fmt::format_string<Args...> f,
                              Args&&... args) {
    return std::unexpected(Error(code_, fmt::format("{}: {}", path.empty() ? "schema" : path,
                                                    fmt::format(f, std::forward<Args>(args)...))));
  }

  Result<int32_t> Id(const json& j, const char* key, const std::string& path) {
    auto it = j.find(key);
    if (it == j.end()) return Fail(path, "missing '{}'", key);
    if (!it->is_number_integer()) return Fail(path, "'{}' must be an integer", key);
    int64_t v = it->get<int64_t>();
    if (v < INT32_MIN || v > INT32_MAX) return Fail(path, "'{}' {} is out of range", key, v);
    return static_cast<int32_t>(v);
  }

  Result<bool> Bool(const json& j, const char* key, const std::string& path) {
    auto it = j.find(key);
    if (it == j.end()) return Fail(path, "missing '{}'", key);
    if (!it->is_boolean()) return Fail(path, "'{}' must be true or false", key);
    return it->get<bool>();
  }

  Result<TypePtr> ParseType(const json& j, const std::string& path, int depth = 0) {
    if (j.is_string()) {
      auto t = Type::ParsePrimitive(j.get_ref<const std::string&>());
      if (!t) return Fail(path, "{}", t.error().message());
      return t;
    }
    if (!j.is_object()) return Fail(path, "a type must be a string or an object");
    if (depth >= kMaxTypeDepth) {
      return Fail(path, "types nest deeper than the limit of {} levels", kMaxTypeDepth);
    }
    auto kind = j.find("type");
    if (kind == j.end() || !kind->is_string()) return Fail(path, "missing 'type'");
    const std::string& k = kind->get_ref<const std::string&>();
    if (k == "struct") {
      FLOE_ASSIGN_OR_RETURN(auto fields, ParseFields(j, path, depth + 1));
      return Type::Struct(std::move(fields));
    }
    if (k == "list") {
      FLOE_ASSIGN_OR_RETURN(int32_t id, Id(j, "element-id", path));
      FLOE_ASSIGN_OR_RETURN(bool required, Bool(j, "element-required", path));
      auto e = j.find("element");
      if (e == j.end()) return Fail(path, "missing 'element'");
      FLOE_ASSIGN_OR_RETURN(TypePtr element, ParseType(*e, path + ".element", depth + 1));
      return Type::List(id, required, std::move(element));
    }
    if (k == "map") {
      FLOE_ASSIGN_OR_RETURN(int32_t key_id, Id(j, "key-id", path));
      FLOE_ASSIGN_OR_RETURN(int32_t value_id, Id(j, "value-id", path));
      FLOE_ASSIGN_OR_RETURN(bool required, Bool(j, "value-required", path));
      auto key = j.find("key");
      auto value = j.find("value");
      if (key == j.end()) return Fail(path, "missing 'key'");
      if (value == j.end()) return Fail(path, "missing 'value'");
      FLOE_ASSIGN_OR_RETURN(TypePtr key_type, ParseType(*key, path + ".key", depth + 1));
      FLOE_ASSIGN_OR_RETURN(TypePtr value_type, ParseType(*value, path + ".value", depth + 1));
      return Type::Map(key_id, std::move(key_type), value_id, required, std::move(value_type));
    }
    return Fail(path, "unknown type '{}'", k);
  }

  // `depth` is the nesting level of the struct whose fields these are (0 for
  // the schema itself).
  Result<std::vector<NestedField>> ParseFields(const json& j, const std::string& path, int depth) {
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) return Fail(path, "missing 'fields' array");
    std::vector<NestedField> out;
    out.reserve(fields->size());
    for (size_t i = 0; i < fields->size(); ++i) {
      const json& f = (*fields)[i];
      std::string fpath = fmt::format("{}fields[{}]", path.empty() ? "" : path + ".", i);
      if (!f.is_object()) return Fail(fpath, "a field must be an object");
      NestedField field;
      FLOE_ASSIGN_OR_RETURN(field.id, Id(f, "id", fpath));
      auto name = f.find("name");
      if (name == f.end() || !name->is_string()) return Fail(fpath, "missing 'name'");
      field.name = name->get<std::string>();
      FLOE_ASSIGN_OR_RETURN(field.required, Bool(f, "required", fpath));
      auto type = f.find("type");
      if (type == f.end()) return Fail(fpath, "missing 'type'");
      FLOE_ASSIGN_OR_RETURN(field.type, ParseType(*type, fpath + ".type", depth));
      if (auto doc = f.find("doc"); doc != f.end() && doc->is_string())
        field.doc = doc->get<std::string>();
      if (auto d = f.find("initial-default"); d != f.end()) field.initial_default = d->dump();
      if (auto d = f.find("write-default"); d != f.end()) field.write_default = d->dump();
      out.push_back(std::move(field));
    }
    return out;
  }

  Result<Schema> ParseSchema(const json& j) {
    if (!j.is_object()) return Fail("", "a schema must be a JSON object");
    if (auto t = j.find("type"); t != j.end() && (!t->is_string() || *t != "struct")) {
      return Fail("", "'type' must be \"struct\"");
    }
    FLOE_ASSIGN_OR_RETURN(auto fields, ParseFields(j, "", 0));
    int32_t schema_id = 0;
    if (j.contains("schema-id")) {
      FLOE_ASSIGN_OR_RETURN(schema_id, Id(j, "schema-id", ""));
    }
    std::vector<int32_t> identifiers;
    if (auto ids = j.find("identifier-field-ids"); ids != j.end()) {
      if (!ids->is_array()) return Fail("identifier-field-ids", "must be an array");
      for (const auto& id : *ids) {
        if (!id.is_number_integer()) return Fail("identifier-field-ids", "ids must be integers");
        identifiers.push_back(id.get<int32_t>());
      }
    }
    Schema schema(std::move(fields), schema_id, std::move(identifiers));
    if (auto s = schema.Validate(); !s) return std::unexpected(Error(code_, s.error().message()));
    return schema;
  }

 private:
  ErrorCode code_;
};

json FieldsToJson(const std::vector<NestedField>& fields) {
  json out = json::array();
  for (const auto& f : fields) {
    json j = {
        {"id", f.id}, {"name", f.name}, {"required", f.required}, {"type", TypeToJson(*f.type)}};
    if (!f.doc.empty()) j["doc"] = f.doc;
    for (const auto& [key, text] : {std::pair{"initial-default", &f.initial_default},
                                    std::pair{"write-default", &f.write_default}}) {
      if (!text->has_value()) continue;
      json value = json::parse(**text, nullptr, /*allow_exceptions=*/false);
      if (!value.is_discarded()) j[key] = std::move(value);
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

int TypeDepth(const Type& type) {
  if (type.is_primitive()) return 0;
  int deepest = 0;
  std::vector<std::pair<const Type*, int>> stack = {{&type, 1}};
  while (!stack.empty()) {
    auto [t, depth] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, depth);
    for (const NestedField& f : t->fields()) {
      if (f.type != nullptr && f.type->is_nested()) stack.push_back({f.type.get(), depth + 1});
    }
  }
  return deepest;
}

Status CheckTypeDepth(const Schema& schema) {
  for (const NestedField& f : schema.fields()) {
    if (f.type == nullptr) continue;
    int depth = TypeDepth(*f.type);
    if (depth > kMaxTypeDepth) {
      return InvalidArgument(
          "schema field '{}' nests types {} levels deep, deeper than the limit of {}", f.name,
          depth, kMaxTypeDepth);
    }
  }
  return Ok();
}

Result<Schema> SchemaFromJson(const nlohmann::json& json, bool corruption) {
  return Parser(corruption).ParseSchema(json);
}

Result<TypePtr> TypeFromJson(const nlohmann::json& json, bool corruption) {
  return Parser(corruption).ParseType(json, "type");
}

nlohmann::json TypeToJson(const Type& type) {
  switch (type.id()) {
    case TypeId::kStruct:
      return {{"type", "struct"}, {"fields", FieldsToJson(type.fields())}};
    case TypeId::kList:
      return {{"type", "list"},
              {"element-id", type.element().id},
              {"element", TypeToJson(*type.element().type)},
              {"element-required", type.element().required}};
    case TypeId::kMap:
      return {{"type", "map"},
              {"key-id", type.key().id},
              {"key", TypeToJson(*type.key().type)},
              {"value-id", type.value().id},
              {"value", TypeToJson(*type.value().type)},
              {"value-required", type.value().required}};
    default:  // "decimal(9, 2)", "fixed[16]", "long": the names Java and PyIceberg write.
      return type.ToString();
  }
}

nlohmann::json SchemaToJson(const Schema& schema) {
  nlohmann::json j = {{"type", "struct"}, {"schema-id", schema.schema_id()}};
  if (!schema.identifier_field_ids().empty())
    j["identifier-field-ids"] = schema.identifier_field_ids();
  j["fields"] = FieldsToJson(schema.fields());
  return j;
}

Result<Schema> ReadSchemaFile(std::string_view path) {
  io::LocalFileIO io;
  FLOE_ASSIGN_OR_RETURN(std::string text, io.ReadAll(path));
  return ParseSchemaText(text, path);
}

Result<Schema> ParseSchemaText(std::string_view text, std::string_view path) {
  // Bounded while parsing, so that no deep document is ever built, copied or
  // walked: a type level takes at most 3 JSON levels, plus a "schema" wrapper
  // and room for the type check to name one level too many.
  constexpr int kMaxJsonDepth = 3 * kMaxTypeDepth + 10;
  bool too_deep = false;
  nlohmann::json j = nlohmann::json::parse(
      text.begin(), text.end(),
      [&too_deep](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth <= kMaxJsonDepth) return true;
        too_deep = true;
        return false;
      },
      /*allow_exceptions=*/false);
  if (too_deep) {
    return InvalidArgument("{}: JSON nested deeper than {} levels (types may nest {} levels)", path,
                           kMaxJsonDepth, kMaxTypeDepth);
  }
  if (j.is_discarded()) return InvalidArgument("{}: not valid JSON", path);
  if (j.is_object() && j.contains("schema") && j["schema"].is_object()) j = j["schema"];
  auto schema = SchemaFromJson(j);
  if (!schema) return std::unexpected(std::move(schema).error().WithContext(std::string(path)));
  return schema;
}

}  // namespace floe::types
