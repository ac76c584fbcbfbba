#pragma once
/// Iceberg schemas and types in the spec's JSON form (format spec, Appendix C):
///   {"type": "struct", "schema-id": 0, "identifier-field-ids": [1],
///    "fields": [{"id": 1, "name": "id", "required": true, "type": "long"}, ...]}

#include <nlohmann/json.hpp>

#include "floe/types/schema.h"

namespace floe::types {

/// The deepest nesting of types floe reads or writes: every struct, list and
/// map on the path from the schema to a field counts one level. Each reader
/// and writer of schemas (schema JSON, table metadata JSON, Parquet schemas)
/// refuses deeper ones, so that floe never writes what it cannot read back.
/// A level takes at most 3 JSON levels in schema JSON and 2 Parquet levels.
inline constexpr int kMaxTypeDepth = 100;

/// The nesting depth of `type` in the sense of kMaxTypeDepth (0 for a
/// primitive, 1 for a struct of primitives, ...). Iterative: never recurses.
int TypeDepth(const Type& type);

/// Ok, or kInvalidArgument "schema nests types N levels deep, deeper than the
/// limit of 100" naming the deepest field's dotted name.
Status CheckTypeDepth(const Schema& schema);

/// Parses a schema object. Types nested deeper than kMaxTypeDepth are refused
/// (never a stack overflow, whatever the depth of `json`). Errors: kInvalidArgument (as kCorruption
/// when `corruption` is set, for metadata read from files) naming the JSON path of the bad member,
/// e.g. "fields[2].type: unknown type 'lnog'".
Result<Schema> SchemaFromJson(const nlohmann::json& json, bool corruption = false);
/// Parses a type (a primitive name or a struct/list/map object).
Result<TypePtr> TypeFromJson(const nlohmann::json& json, bool corruption = false);

nlohmann::json SchemaToJson(const Schema& schema);
nlohmann::json TypeToJson(const Type& type);

/// Parses schema JSON text (a schema object, or an object with a "schema"
/// member); `name` (a file name) prefixes error messages. JSON nested deeper
/// than 3 * kMaxTypeDepth + 10 levels is refused while parsing (kInvalidArgument
/// naming the limit), so no deep document is ever built or walked.
Result<Schema> ParseSchemaText(std::string_view text, std::string_view name);

/// Reads and parses a schema JSON file with ParseSchemaText.
Result<Schema> ReadSchemaFile(std::string_view path);

}  // namespace floe::types
