#include "floe/iceberg/json/partition_spec_json.h"

namespace floe::iceberg {

namespace {

Result<int32_t> GetInt(const nlohmann::json& obj, const char* key, size_t index, ErrorCode code) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) {
    return MakeError(code, "partition field {}: \"{}\" is missing or not an integer", index, key);
  }
  auto v = it->get<int64_t>();
  if (v < INT32_MIN || v > INT32_MAX) {
    return MakeError(code, "partition field {}: \"{}\" {} is out of range", index, key, v);
  }
  return static_cast<int32_t>(v);
}

}  // namespace

Result<PartitionSpec> PartitionSpecFromJsonValue(const nlohmann::json& json,
                                                 int32_t default_spec_id, ErrorCode code) {
  int32_t spec_id = default_spec_id;
  const nlohmann::json* fields = &json;
  if (json.is_object()) {
    auto id = json.find("spec-id");
    if (id == json.end() || !id->is_number_integer()) {
      return MakeError(code, "partition spec: \"spec-id\" is missing or not an integer");
    }
    spec_id = id->get<int32_t>();
    auto f = json.find("fields");
    if (f == json.end() || !f->is_array()) {
      return MakeError(code, "partition spec {}: \"fields\" is missing or not an array", spec_id);
    }
    fields = &*f;
  } else if (!json.is_array()) {
    return MakeError(code, "partition spec must be an object or an array of fields");
  }
  std::vector<PartitionField> out;
  for (size_t i = 0; i < fields->size(); ++i) {
    const auto& f = (*fields)[i];
    if (!f.is_object()) return MakeError(code, "partition field {} is not an object", i);
    PartitionField field;
    if (f.contains("source-id")) {
      FLOE_ASSIGN_OR_RETURN(field.source_id, GetInt(f, "source-id", i, code));
    } else if (auto ids = f.find("source-ids"); ids != f.end() && ids->is_array()) {
      if (ids->size() != 1 || !(*ids)[0].is_number_integer()) {
        return NotSupported("partition field {}: multi-argument transforms are not supported", i);
      }
      field.source_id = (*ids)[0].get<int32_t>();
    } else {
      return MakeError(code, "partition field {}: \"source-id\" is missing", i);
    }
    if (f.contains("field-id")) {
      FLOE_ASSIGN_OR_RETURN(field.field_id, GetInt(f, "field-id", i, code));
    } else {
      field.field_id = kFirstPartitionFieldId + static_cast<int32_t>(i);
    }
    auto name = f.find("name");
    if (name == f.end() || !name->is_string()) {
      return MakeError(code, "partition field {}: \"name\" is missing or not a string", i);
    }
    field.name = name->get<std::string>();
    auto transform = f.find("transform");
    if (transform == f.end() || !transform->is_string()) {
      return MakeError(code, "partition field {} ('{}'): \"transform\" is missing or not a string",
                       i, field.name);
    }
    auto t = Transform::Parse(transform->get<std::string>());
    if (!t) {
      return MakeError(code, "partition field {} ('{}'): {}", i, field.name, t.error().message());
    }
    field.transform = *t;
    out.push_back(std::move(field));
  }
  return PartitionSpec(spec_id, std::move(out));
}

Result<PartitionSpec> ParsePartitionSpecJson(std::string_view text, int32_t default_spec_id,
                                             ErrorCode code) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return MakeError(code, "partition spec is not valid JSON");
  return PartitionSpecFromJsonValue(json, default_spec_id, code);
}

nlohmann::ordered_json PartitionFieldsToJsonValue(const PartitionSpec& spec) {
  auto fields = nlohmann::ordered_json::array();
  for (const auto& f : spec.fields()) {
    nlohmann::ordered_json j;
    j["source-id"] = f.source_id;
    j["field-id"] = f.field_id;
    j["name"] = f.name;
    j["transform"] = f.transform.ToString();
    fields.push_back(std::move(j));
  }
  return fields;
}

nlohmann::ordered_json PartitionSpecToJsonValue(const PartitionSpec& spec) {
  nlohmann::ordered_json j;
  j["spec-id"] = spec.spec_id();
  j["fields"] = PartitionFieldsToJsonValue(spec);
  return j;
}

std::string PartitionSpecToJsonText(const PartitionSpec& spec) {
  return PartitionSpecToJsonValue(spec).dump();
}

}  // namespace floe::iceberg
