#pragma once
/// Iceberg schemas and types in the spec's JSON form (format spec, Appendix C):
///   {"type": "struct", "schema-id": 0, "identifier-field-ids": [1],
///    "fields": [{"id": 1, "name": "id", "required": true, "type": "long"}, ...]}

#include <nlohmann/json.hpp>

#include "floe/types/schema.h"

namespace floe::types {

/// Parses a schema object. Errors: kInvalidArgument (as kCorruption when
/// `corruption` is set, for metadata read from files) naming the JSON path of
/// the bad member, e.g. "fields[2].type: unknown type 'lnog'".
Result<Schema> SchemaFromJson(const nlohmann::json& json, bool corruption = false);
/// Parses a type (a primitive name or a struct/list/map object).
Result<TypePtr> TypeFromJson(const nlohmann::json& json, bool corruption = false);

nlohmann::json SchemaToJson(const Schema& schema);
nlohmann::json TypeToJson(const Type& type);

/// Reads and parses a schema JSON file (a schema object, or an object with a
/// "schema" member).
Result<Schema> ReadSchemaFile(std::string_view path);

}  // namespace floe::types
