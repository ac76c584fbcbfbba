#pragma once
/// Partition specs (spec "Partitioning", "Partition Evolution"): how a row's
/// partition tuple is derived from its columns, the partition type stored in
/// manifests, partition paths for data file names, the parser of user specs
/// such as "bucket(16, id), day(ts)", and the evolution rules that assign
/// partition field ids. JSON lives in partition_spec_json.h.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/partition_field.h"
#include "floe/iceberg/transform.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::iceberg {

/// The first partition field id (spec: v1 assigned 1000, 1001, ...).
inline constexpr int32_t kFirstPartitionFieldId = 1000;

class PartitionSpec {
 public:
  /// The unpartitioned spec with id 0.
  PartitionSpec() = default;
  PartitionSpec(int32_t spec_id, std::vector<PartitionField> fields)
      : spec_id_(spec_id), fields_(std::move(fields)) {}

  int32_t spec_id() const { return spec_id_; }
  const std::vector<PartitionField>& fields() const { return fields_; }
  /// True with no fields, or only void fields.
  bool is_unpartitioned() const;
  /// The largest field id, or kFirstPartitionFieldId - 1 with no fields.
  int32_t last_assigned_field_id() const;

  /// Checks the spec against `schema`: every source field exists, is a
  /// primitive nested only in structs, and accepts the transform; field ids
  /// and names are unique; a partition name equal to a schema column name is
  /// allowed only for an identity partition of that column.
  /// Errors: kInvalidArgument naming the field (unknown transforms pass, as
  /// readers must ignore them).
  Status Validate(const types::Schema& schema) const;

  /// The partition tuple type: a struct of optional fields, one per partition
  /// field, with the partition field ids and names and the transforms' result
  /// types. Unknown transforms give a string field (their values are not
  /// interpreted). Errors: kInvalidArgument when a source field is missing.
  Result<types::TypePtr> PartitionType(const types::Schema& schema) const;

  /// Same field list (source ids, transforms, names; ids ignored), as the
  /// spec defines equivalent specs.
  bool EquivalentTo(const PartitionSpec& other) const;

  /// "ts_day=2024-02-29/id_bucket=3": each field's name and human-readable
  /// value, URL-encoded as Iceberg Java encodes them. `partition` holds one
  /// value per field, in field order. Errors: kInvalidArgument on a size
  /// mismatch or a missing source field.
  Result<std::string> PartitionPath(const types::Schema& schema,
                                    std::span<const types::Value> partition) const;

  /// "[1000: ts_day: day(4), 1001: id_bucket: bucket[16](1)]".
  std::string ToString() const;

  bool operator==(const PartitionSpec&) const = default;

 private:
  int32_t spec_id_ = 0;
  std::vector<PartitionField> fields_;
};

/// Computes partition tuples of rows for one spec and schema. Build once,
/// apply to every row: `Apply` allocates nothing (truncated strings point
/// into the row). Not thread-safe only in that `Apply` writes `out`.
class PartitionTransformer {
 public:
  /// Errors: as PartitionSpec::Validate, and kNotSupported for unknown transforms.
  static Result<PartitionTransformer> Make(const PartitionSpec& spec, const types::Schema& schema);

  size_t num_fields() const { return fields_.size(); }
  /// Fills `out[0..num_fields)` with the partition values of `row`.
  /// Errors: kInvalidArgument if the row does not match the schema.
  Status Apply(types::Row row, types::Value* out) const;

 private:
  struct Field {
    std::vector<int> positions;
    types::TypePtr source_type;
    Transform transform;
  };
  std::vector<Field> fields_;
};

/// Parses a user partition spec: comma-separated terms as in
/// "bucket(16, id), day(ts), truncate(4, name), identity(region)" or "id",
/// each optionally followed by "AS name" (see partition_field.h for the term
/// syntax). Field ids start after `last_partition_id`; default names follow
/// Iceberg Java (id_bucket, ts_day, name_trunc, region). An empty or blank
/// text gives the unpartitioned spec. Columns are matched case-insensitively
/// when not exact. Errors: kInvalidArgument with the position for syntax,
/// unknown columns (listing the schema's columns), transforms that do not
/// apply to the column's type, and duplicate names or fields.
Result<PartitionSpec> ParsePartitionSpecText(std::string_view text, const types::Schema& schema,
                                             int32_t spec_id = 0,
                                             int32_t last_partition_id = kFirstPartitionFieldId -
                                                                         1);

/// A partition field without an id, as evolution requests it.
struct UnassignedPartitionField {
  int32_t source_id = 0;
  std::string name;
  Transform transform;
};

/// The outcome of evolving a table's partitioning.
struct EvolvedPartitionSpec {
  PartitionSpec spec;
  int32_t last_partition_id = kFirstPartitionFieldId - 1;  ///< the table's new value
  bool is_existing = false;  ///< an equivalent spec exists; `spec` is that one
};

/// Evolves a table from its specs to a new field list (spec "Partition
/// Evolution"):
///  - an equivalent existing spec is reused (spec: writers must not create a
///    new spec if a compatible one exists);
///  - otherwise the new spec gets max(existing spec ids) + 1;
///  - v2+: a field equal (source id and transform) to a field of any existing
///    spec reuses that field's id; other fields get ids after
///    `last_partition_id`. Removing fields is allowed.
///  - v1: fields of the current default spec are kept in place; removed ones
///    become void transforms renamed "<name>_<field-id>"; new fields are
///    appended with new ids.
/// Errors: kInvalidArgument when the result does not validate against `schema`.
Result<EvolvedPartitionSpec> EvolvePartitionSpec(
    const types::Schema& schema, const std::vector<PartitionSpec>& existing_specs,
    int32_t default_spec_id, int32_t last_partition_id,
    const std::vector<UnassignedPartitionField>& fields, int format_version);

/// Java's URLEncoder (UTF-8): letters, digits and ".-*_" stay, space becomes
/// '+', every other byte becomes %XX.
std::string UrlEncodePathPart(std::string_view s);

}  // namespace floe::iceberg
