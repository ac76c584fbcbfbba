#include "floe/types/schema.h"

#include <unordered_set>

#include <fmt/format.h>

#include "floe/common/utf8.h"

namespace floe::types {

Schema::Schema(std::vector<NestedField> fields, int32_t schema_id,
               std::vector<int32_t> identifier_field_ids)
    : schema_id_(schema_id),
      struct_type_(Type::Struct(std::move(fields))),
      identifier_field_ids_(std::move(identifier_field_ids)) {
  for (const auto& f : struct_type_->fields()) Index(f, "", false);
}

void Schema::Index(const NestedField& field, const std::string& prefix, bool under_collection) {
  std::string name = prefix.empty() ? field.name : prefix + "." + field.name;
  by_id_.emplace(field.id, &field);
  by_name_.emplace(name, field.id);
  name_of_id_.emplace(field.id, name);
  if (field.id > highest_field_id_) highest_field_id_ = field.id;
  if (field.type && field.type->is_nested()) {
    bool collection = field.type->id() != TypeId::kStruct;
    for (const auto& child : field.type->fields())
      Index(child, name, under_collection || collection);
  }
}

const NestedField* Schema::FindField(int32_t field_id) const {
  auto it = by_id_.find(field_id);
  return it == by_id_.end() ? nullptr : it->second;
}

const NestedField* Schema::FindFieldByName(std::string_view dotted_name) const {
  auto it = by_name_.find(std::string(dotted_name));
  return it == by_name_.end() ? nullptr : FindField(it->second);
}

std::string Schema::FindColumnName(int32_t field_id) const {
  auto it = name_of_id_.find(field_id);
  return it == name_of_id_.end() ? std::string() : it->second;
}

namespace {

Status ValidateStruct(const std::vector<NestedField>& fields, const std::string& path,
                      std::unordered_set<int32_t>* ids) {
  std::unordered_set<std::string> names;
  for (const auto& f : fields) {
    std::string name = path.empty() ? f.name : path + "." + f.name;
    if (f.id <= 0)
      return InvalidArgument("field '{}' has invalid id {}: ids must be positive", name, f.id);
    if (!ids->insert(f.id).second)
      return InvalidArgument("field id {} is used twice ('{}')", f.id, name);
    if (f.name.empty()) return InvalidArgument("field {} under '{}' has an empty name", f.id, path);
    // Names go into JSON metadata, which must be UTF-8.
    if (size_t bad = FindInvalidUtf8(f.name); bad != std::string::npos) {
      return InvalidArgument(
          "field {} under '{}': its name is not valid UTF-8 (byte 0x{:02X} at "
          "offset {})",
          f.id, path, static_cast<unsigned char>(f.name[bad]), bad);
    }
    if (!names.insert(f.name).second) return InvalidArgument("field name '{}' is used twice", name);
    if (!f.type) return InvalidArgument("field '{}' has no type", name);
    if (f.type->is_nested()) FLOE_RETURN_IF_ERROR(ValidateStruct(f.type->fields(), name, ids));
  }
  return Ok();
}

}  // namespace

Status Schema::Validate() const {
  std::unordered_set<int32_t> ids;
  FLOE_RETURN_IF_ERROR(ValidateStruct(fields(), "", &ids));
  for (int32_t id : identifier_field_ids_) {
    const NestedField* f = FindField(id);
    if (f == nullptr) return InvalidArgument("identifier field id {} is not in the schema", id);
    std::string name = FindColumnName(id);
    if (!f->required) return InvalidArgument("identifier field '{}' must be required", name);
    if (!f->type->is_primitive())
      return InvalidArgument("identifier field '{}' must be a primitive", name);
    if (f->type->id() == TypeId::kFloat || f->type->id() == TypeId::kDouble) {
      return InvalidArgument("identifier field '{}' cannot be float or double", name);
    }
    // An identifier must not be nested inside a list or map (reached only through structs).
    for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
      const NestedField* parent = FindFieldByName(name.substr(0, dot));
      if (parent == nullptr || parent->type->id() != TypeId::kStruct || !parent->required) {
        return InvalidArgument("identifier field '{}' must be reached through required structs",
                               name);
      }
    }
  }
  return Ok();
}

std::string Schema::ToString() const {
  std::string out = "table {\n";
  for (const auto& f : fields()) {
    out += fmt::format("  {}: {}: {} {}\n", f.id, f.name, f.required ? "required" : "optional",
                       f.type->ToString());
  }
  return out + "}";
}

bool Schema::Equals(const Schema& other) const {
  return struct_type_->Equals(*other.struct_type_) &&
         identifier_field_ids_ == other.identifier_field_ids_;
}

}  // namespace floe::types
