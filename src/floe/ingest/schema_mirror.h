#pragma once
/// PlanSchemaMirror: the Iceberg schema changes that make a table's schema
/// equal a source table's — `floe run`'s `schema.change.behavior: evolve`
/// (docs/pipeline.md, "Schema changes").
///
/// Columns are matched by name, plus the rename hints of the statement (the
/// columns a RENAME or CHANGE COLUMN renamed), so a renamed column keeps its
/// Iceberg field id and its history. Then:
///   - a table column the source lacks is dropped;
///   - a source column the table lacks is added (optional: Iceberg v1/v2
///     cannot add a required column);
///   - a wider source type widens the column (int → long, float → double,
///     decimal precision up); a narrower one keeps the wider Iceberg type (a
///     note says so: the source's values still fit); any other type change is
///     kSchemaIncompatible, naming table, column, both types and the ways out;
///   - a column that became nullable becomes optional; one that became NOT
///     NULL stays optional (a note); a primary key that takes in a column
///     that is optional in Iceberg is kSchemaIncompatible (identifier fields
///     must be required, and an optional column cannot become required);
///   - the column order becomes the source's;
///   - the identifier fields become the source's primary key.
/// The plan is data (for tests and logs) and applies itself to an
/// UpdateSchema (which checks the spec's rules once more).

#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/update/schema_update.h"
#include "floe/types/schema.h"

namespace floe::ingest {

struct MirrorStep {
  enum class Kind {
    kRename,          ///< column `name` becomes `to`
    kDelete,          ///< column `name`
    kAdd,             ///< column `name` of `type`
    kWiden,           ///< column `name` to `type`
    kMakeOptional,    ///< column `name`
    kMoveFirst,       ///< column `name`
    kMoveAfter,       ///< column `name` after column `to`
    kSetIdentifiers,  ///< `identifiers`, by their new names
  };
  Kind kind;
  /// The column as UpdateSchema knows it: its name in the table before the
  /// change (an added column: its new name).
  std::string name;
  std::string to;
  types::TypePtr type;
  std::vector<std::string> identifiers;
};

/// A column a statement renamed.
struct ColumnRename {
  std::string from;
  std::string to;
};

struct SchemaMirrorPlan {
  std::vector<MirrorStep> steps;
  /// What the table keeps different from the source, one sentence each.
  std::vector<std::string> notes;

  bool empty() const { return steps.empty(); }
  /// Records the steps, in order, on `update`.
  void ApplyTo(iceberg::UpdateSchema& update) const;
  /// "rename a to b, drop c, add d long, ..." for logs.
  std::string Describe() const;
};

/// The plan that makes `table` (an Iceberg schema) equal `source` (the
/// source table's row schema, identifier fields = its primary key).
/// `renames`: the columns the statement renamed (old name, new name).
/// Errors: kSchemaIncompatible for a type change Iceberg cannot express.
Result<SchemaMirrorPlan> PlanSchemaMirror(std::string_view table_name, const types::Schema& table,
                                          const types::Schema& source,
                                          const std::vector<ColumnRename>& renames);
/// With at most one rename (`renamed_from` empty: none).
Result<SchemaMirrorPlan> PlanSchemaMirror(std::string_view table_name, const types::Schema& table,
                                          const types::Schema& source,
                                          std::string_view renamed_from = {},
                                          std::string_view renamed_to = {});

}  // namespace floe::ingest
