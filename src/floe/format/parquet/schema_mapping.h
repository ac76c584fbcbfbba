#pragma once
/// How an Iceberg schema becomes a Parquet schema (Iceberg spec, "Parquet"
/// section): the flattened SchemaElement list of the footer, the leaf columns
/// with their max definition/repetition levels, and the tree the row shredder
/// walks.
///
///   boolean -> BOOLEAN            int -> INT32            long -> INT64
///   float -> FLOAT                double -> DOUBLE        date -> INT32 DATE
///   decimal(P,S) -> INT32 (P <= 9), INT64 (P <= 18), else FIXED[minimal bytes]; DECIMAL(P,S)
///   time -> INT64 TIME(MICROS, false)       timestamp -> INT64 TIMESTAMP(MICROS, false)
///   timestamptz -> INT64 TIMESTAMP(MICROS, true)
///   string -> BYTE_ARRAY STRING   uuid -> FIXED[16] UUID  fixed[L] -> FIXED[L]
///   binary -> BYTE_ARRAY          struct -> group
///   list -> <name> (LIST) { repeated group list { <element> } }
///   map -> <name> (MAP) { repeated group key_value { required key; <value> } }
/// Every element with an Iceberg field id carries it as `field_id`; the legacy
/// ConvertedType is set where one exists (UTF8, DECIMAL, DATE, TIME_MICROS,
/// TIMESTAMP_MICROS, LIST, MAP).

#include <cstdint>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/format/parquet/metadata.h"
#include "floe/types/schema.h"

namespace floe::format::parquet {

/// The bytes of a FIXED_LEN_BYTE_ARRAY holding any unscaled decimal of `precision`
/// digits in two's complement (decimal(38, s) -> 16).
int DecimalFixedLength(int precision);

/// One leaf (primitive) column of the Parquet schema.
struct LeafColumn {
  int32_t field_id = 0;
  std::vector<std::string> path;      ///< path_in_schema, e.g. {"tags", "list", "element"}
  const types::Type* type = nullptr;  ///< the Iceberg primitive type
  Type physical_type = Type::kInt32;
  int32_t type_length = 0;  ///< FIXED_LEN_BYTE_ARRAY only
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  bool in_collection = false;  ///< inside a list or map (no bounds in Iceberg metrics)
};

/// A node of the shredding tree: one Iceberg field (or list element, map key/value).
struct ShredNode {
  const types::Type* type = nullptr;
  int32_t field_id = 0;
  std::string name;  ///< dotted path, for error messages
  bool optional = false;
  int16_t definition_level = 0;  ///< the level when this node's value is present (not null)
  /// list/map: the repetition level of the repeated group; the entries'
  /// definition level is definition_level + 1.
  int16_t repetition_level = 0;
  uint32_t first_leaf = 0;  ///< leaves under this node: [first_leaf, end_leaf)
  uint32_t end_leaf = 0;
  std::vector<ShredNode> children;  ///< struct fields; list: element; map: key, value
};

struct ParquetSchema {
  std::vector<SchemaElement> elements;  ///< depth-first, root ("schema") first
  std::vector<LeafColumn> leaves;
  std::vector<ShredNode> roots;  ///< one per top-level field
};

/// Maps `schema`. kInvalidArgument if a type cannot be written (e.g. a fixed
/// longer than 2^31 - 1, which the type system already forbids).
Result<ParquetSchema> MapSchema(const types::Schema& schema);

}  // namespace floe::format::parquet
