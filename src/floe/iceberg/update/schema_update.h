#pragma once
/// Schema evolution (format spec, "Schema Evolution"): UpdateSchema applies
/// column changes to a table's current schema under the spec's rules and
/// assigns new field ids after the table's last-column-id.
///
/// Allowed: add an optional column (top level or inside a struct, with any
/// nested fields), drop, rename, reorder (first / before / after, within one
/// struct), widen int→long, float→double, decimal(P,S)→decimal(P',S) with
/// P' > P, make a required column optional, set identifier fields.
/// Refused with kSchemaIncompatible and a message naming the column and the
/// rule: any other type change (string→int, long→int, ...), optional→
/// required, adding a required column (v1/v2: never; v3: only with a default,
/// which floe's schema model cannot carry yet, so kNotSupported), dropping an
/// identifier field or a partition source column, moving a column across
/// structs, names that clash. kInvalidArgument for unknown column names.
///
/// Operations are recorded and checked when Apply() runs; the first error is
/// returned there. Not thread-safe. Usage:
///   UpdateSchema u(*metadata.CurrentSchema(), metadata.last_column_id, options);
///   u.AddColumn("email", types::Type::String()).RenameColumn("name", "full_name");
///   FLOE_ASSIGN_OR_RETURN(auto result, u.Apply());
///   updates: update::AddSchema{result.schema, result.last_column_id},
///            update::SetCurrentSchema{-1}

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

class UpdateSchema {
 public:
  struct Options {
    /// The table's format version (decides whether required columns with
    /// defaults may be added). Default: 2.
    int format_version = kDefaultFormatVersion;
    /// Columns that partition specs read: they cannot be dropped.
    std::set<int32_t> partition_source_ids;
  };

  /// The outcome: the new schema (schema id 0; the builder assigns the real
  /// one) and the table's new last-column-id.
  struct Result {
    types::Schema schema;
    int32_t last_column_id = 0;
  };

  UpdateSchema(const types::Schema& schema, int32_t last_column_id, Options options);
  /// For the current schema of `metadata`, with its format version and the
  /// source columns of all its partition specs.
  static UpdateSchema ForTable(const TableMetadata& metadata);

  /// Adds a column at the top level. `name` must not contain '.'.
  UpdateSchema& AddColumn(std::string name, types::TypePtr type, std::string doc = "");
  /// Adds a column inside the struct `parent` (dotted name; a list or map
  /// whose element/value is a struct means that struct). Empty parent: the
  /// top level. `required` is refused per the rules above.
  UpdateSchema& AddColumn(std::string_view parent, std::string name, types::TypePtr type,
                          bool required = false, std::string doc = "");
  UpdateSchema& DeleteColumn(std::string_view name);
  UpdateSchema& RenameColumn(std::string_view name, std::string new_name);
  /// Changes a primitive column's type (widening only).
  UpdateSchema& UpdateColumn(std::string_view name, types::TypePtr new_type);
  UpdateSchema& UpdateColumnDoc(std::string_view name, std::string doc);
  UpdateSchema& MakeColumnOptional(std::string_view name);
  /// Always refused (optional → required is not a safe change); kept so the
  /// error says why.
  UpdateSchema& RequireColumn(std::string_view name);
  UpdateSchema& MoveFirst(std::string_view name);
  UpdateSchema& MoveBefore(std::string_view name, std::string_view before);
  UpdateSchema& MoveAfter(std::string_view name, std::string_view after);
  /// Replaces the identifier fields (dotted names; may name added columns).
  UpdateSchema& SetIdentifierFields(std::vector<std::string> names);

  /// Checks every recorded change and produces the new schema. Errors as in
  /// the file comment; the first failing operation wins.
  floe::Result<Result> Apply() const;

 private:
  struct Move {
    int32_t field_id;
    enum class Kind { kFirst, kBefore, kAfter } kind;
    int32_t reference_id;
  };

  void Fail(Error error);
  /// The id of an existing or added column, or records kInvalidArgument.
  std::optional<int32_t> Resolve(std::string_view name, std::string_view op);
  /// The id of the struct that directly holds field `id` (-1: the top level).
  int32_t ParentOf(int32_t id) const;
  const types::NestedField* Current(int32_t id) const;
  UpdateSchema& AddMove(std::string_view name, Move::Kind kind, std::string_view reference);
  std::vector<types::NestedField> Rebuild(int32_t parent_id,
                                          const std::vector<types::NestedField>& fields) const;
  types::TypePtr RebuildType(const types::TypePtr& type) const;

  types::Schema schema_;
  int32_t last_column_id_;
  Options options_;
  std::optional<Error> error_;
  std::set<int32_t> deletes_;
  std::map<int32_t, types::NestedField> updates_;            ///< by field id
  std::map<int32_t, std::vector<types::NestedField>> adds_;  ///< by parent id
  std::map<std::string, int32_t> added_names_;               ///< dotted name -> id
  std::map<int32_t, int32_t> added_parent_;                  ///< added id -> parent id
  std::map<int32_t, std::vector<Move>> moves_;               ///< by parent id
  std::map<int32_t, int32_t> parent_of_;                     ///< existing id -> parent id
  std::optional<std::vector<std::string>> identifier_names_;
};

}  // namespace floe::iceberg
