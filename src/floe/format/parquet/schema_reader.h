#pragma once
/// From a Parquet file's flat schema (FileMetaData.schema) to floe's view of
/// it: the leaf columns with their levels and value conversions, a tree that
/// drives row assembly (struct / list / map / primitive, with the definition
/// and repetition levels of each node), and the Iceberg schema.
///
/// Lists are recognised in the modern 3-level form and in the legacy forms
/// of parquet-format's LogicalTypes.md "backward-compatibility rules"
/// (2-level lists, repeated groups named `array` or `<name>_tuple`, and bare
/// repeated fields, which become required lists of required elements).
/// Maps: MAP or MAP_KEY_VALUE groups with one repeated key/value group.
///
/// Field ids come from SchemaElement.field_id. Fields without one get fresh
/// ids above the largest id in the file, assigned like Iceberg's
/// AssignFreshIds: a struct's fields in order, then their nested fields; in a
/// file without ids the top-level fields are therefore 1..n.

#include <cstdint>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/format/parquet/metadata.h"
#include "floe/types/schema.h"

namespace floe::format::parquet {

/// How a leaf's physical values become `types::Value`s.
enum class LeafConversion : uint8_t {
  kBool,
  kInt32,          ///< int, date
  kUint32ToInt64,  ///< INT32 holding UINT_32 -> long
  kInt64,          ///< long, time micros, timestamp micros
  kFloat,
  kDouble,
  kTimeMillis,      ///< INT32 ms -> micros
  kNanosToMicros,   ///< INT64 time / timestamp nanos -> micros (floor)
  kMillisToMicros,  ///< INT64 timestamp millis -> micros
  kInt96Timestamp,  ///< legacy INT96 (nanos of day, Julian day) -> micros
  kDecimalInt32,
  kDecimalInt64,
  kDecimalBytes,  ///< BYTE_ARRAY / FIXED big-endian two's complement
  kBytes,         ///< string, binary, fixed, uuid
  kFloat16,       ///< FIXED[2] half float -> float
};

struct ReaderLeaf {
  int column_index = 0;  ///< position among the file's leaves (= ColumnChunk index)
  Type physical_type = Type::kBoolean;
  int32_t type_length = 0;  ///< FIXED_LEN_BYTE_ARRAY length
  int16_t max_def = 0;
  int16_t max_rep = 0;
  LeafConversion conversion = LeafConversion::kBytes;
  types::TypePtr type;            ///< the Iceberg type of the values
  std::vector<std::string> path;  ///< path_in_schema
  int32_t field_id = 0;           ///< the Iceberg id of the field this leaf belongs to
  /// The deprecated Statistics.min/max (signed order) are meaningful: a
  /// numeric physical type without an unsigned annotation.
  bool legacy_stats_ok = false;
};

/// A node of the assembly tree.
struct SchemaNode {
  enum class Kind : uint8_t { kPrimitive, kStruct, kList, kMap };
  Kind kind = Kind::kPrimitive;
  std::string name;
  int32_t field_id = -1;     ///< -1 until assigned
  bool optional = false;     ///< may be null: null when the leader's def < def_level
  int16_t def_level = 0;     ///< definition level at which this node is present
  int16_t repeated_def = 0;  ///< list/map: definition level of "has an element"
  int16_t repeated_rep = 0;  ///< list/map: repetition level of the repeated node
  int leaf = -1;             ///< primitive: index into the leaf list of the tree's owner
  int leader = -1;           ///< the first leaf below (or at) this node
  int leaf_end = -1;         ///< one past the last leaf below this node (leaves are contiguous)
  std::vector<SchemaNode> children;  ///< struct fields; list: element; map: key, value
  types::TypePtr type;
};

/// The file's schema, as floe reads it.
struct FileSchema {
  std::vector<ReaderLeaf> leaves;  ///< every leaf, in file order
  SchemaNode root;                 ///< struct of the top-level fields; leaf = index into leaves
  types::Schema schema;            ///< the Iceberg schema
};

/// Builds the FileSchema. kCorruption for malformed schemas (bad child
/// counts, missing types, nesting deeper than 64), kNotSupported for types
/// floe cannot represent (e.g. decimal precision above 38, INTERVAL).
Result<FileSchema> BuildFileSchema(const FileMetaData& metadata);

/// A projection of a FileSchema: the tree keeps only the fields selected (and
/// the structs above them); its leaf indices refer to `columns`.
struct ProjectedSchema {
  SchemaNode root;
  std::vector<int> columns;  ///< indices into FileSchema::leaves, in tree order
  types::Schema schema;
};

/// Selects fields by id at any depth (a selected struct, list or map keeps all
/// of its children). kInvalidArgument naming an id that is not in the schema.
/// An empty `field_ids` selects everything.
Result<ProjectedSchema> ProjectSchema(const FileSchema& file,
                                      const std::vector<int32_t>& field_ids);

}  // namespace floe::format::parquet
