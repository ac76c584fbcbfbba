#pragma once
/// An Iceberg schema: a struct of fields with unique ids, plus the ids of its
/// identifier (primary-key) fields.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/types/type.h"

namespace floe::types {

class Schema {
 public:
  Schema() = default;
  /// Builds the schema and its id index. Field ids are assumed unique; call
  /// `Validate()` for input that may not be.
  Schema(std::vector<NestedField> fields, int32_t schema_id = 0,
         std::vector<int32_t> identifier_field_ids = {});

  int32_t schema_id() const { return schema_id_; }
  const std::vector<NestedField>& fields() const { return struct_type_->fields(); }
  /// The schema as a struct type (the root of the row).
  const TypePtr& as_struct() const { return struct_type_; }
  const std::vector<int32_t>& identifier_field_ids() const { return identifier_field_ids_; }

  /// Any field, at any depth, by id; nullptr if absent.
  const NestedField* FindField(int32_t field_id) const;
  /// A field by dotted name ("location.lat"); nullptr if absent.
  const NestedField* FindFieldByName(std::string_view dotted_name) const;
  /// The dotted name of a field id ("" if absent).
  std::string FindColumnName(int32_t field_id) const;
  /// The largest field id in use (0 for an empty schema).
  int32_t highest_field_id() const { return highest_field_id_; }

  /// Checks: unique field ids (> 0), unique names within each struct,
  /// identifier fields exist, are required primitives not inside lists/maps.
  Status Validate() const;

  std::string ToString() const;
  bool Equals(const Schema& other) const;

 private:
  void Index(const NestedField& field, const std::string& prefix, bool under_collection);

  int32_t schema_id_ = 0;
  TypePtr struct_type_ = Type::Struct({});
  std::vector<int32_t> identifier_field_ids_;
  std::unordered_map<int32_t, const NestedField*> by_id_;
  std::unordered_map<std::string, int32_t> by_name_;
  std::unordered_map<int32_t, std::string> name_of_id_;
  int32_t highest_field_id_ = 0;
};

}  // namespace floe::types
