#pragma once
/// Pieces shared by partition specs and sort orders: a partition field, the
/// resolution of a (possibly dotted, possibly quoted) column name to a field
/// of a schema nested only in structs, and the parser of one transform term
/// as users write it, Spark style: `bucket(16, id)`, `truncate(4, name)`,
/// `years(ts)`/`year(ts)`, `months`, `days`/`date`, `hours`/`date_hour`,
/// `identity(col)`, `void(col)`, or a bare column for identity.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/transform.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// One field of a partition spec (spec "Partitioning").
struct PartitionField {
  int32_t source_id = 0;
  int32_t field_id = 0;  ///< unique across the table's specs in v2; from 1000
  std::string name;
  Transform transform;

  bool operator==(const PartitionField&) const = default;
};

/// A column found in a schema: the field, its id, its dotted name as the
/// schema spells it, and the positions to walk from the row through nested
/// structs (positions[0] indexes the top-level row).
struct ResolvedColumn {
  const types::NestedField* field = nullptr;
  int32_t field_id = 0;
  std::string name;
  std::vector<int> positions;
};

/// Resolves `name` ("a", "loc.lat") to a field nested only in structs.
/// Whole names containing dots are tried before splitting. With
/// `case_sensitive` false, a unique case-insensitive match is accepted.
/// Errors: kInvalidArgument "cannot find column 'x' in schema (columns: a, b, ...)",
/// or an ambiguous case-insensitive match.
Result<ResolvedColumn> ResolveColumn(const types::Schema& schema, std::string_view name,
                                     bool case_sensitive);
/// The same over any struct type (for example a partition type).
Result<ResolvedColumn> ResolveColumn(const types::Type& struct_type, std::string_view name,
                                     bool case_sensitive);

/// A transform applied to a named column, as parsed from user text.
struct TransformTerm {
  Transform transform;
  std::string column;   ///< unquoted, dotted
  std::string alias;    ///< from "... AS name", else empty
  size_t position = 0;  ///< offset of the term in the text, for errors
};

/// A tiny tokenizer + parser for comma-separated transform terms. Each term
/// may be followed by words the caller consumes (ASC, NULLS LAST, ...).
class TermParser {
 public:
  explicit TermParser(std::string_view text) : text_(text) {}

  /// Parses one term at the current position. kInvalidArgument with the
  /// position on bad syntax, an unknown function, or a bad parameter.
  Result<TransformTerm> ParseTerm();
  /// Consumes a keyword (case-insensitive) if it is next.
  bool EatKeyword(std::string_view keyword);
  /// Consumes a character (after blanks) if it is next.
  bool EatChar(char c);
  bool AtEnd();
  size_t position() const { return pos_; }
  /// "at position N (near '...')".
  std::string Where() const;

 private:
  void SkipBlanks();
  Result<std::string> ParseIdentifierPath();
  Result<int32_t> ParseInteger();

  std::string_view text_;
  size_t pos_ = 0;
};

/// The default partition field name Iceberg Java gives a transform of a
/// column: identity "col", bucket "col_bucket", truncate "col_trunc",
/// year/month/day/hour "col_year", ..., void "col_null".
std::string DefaultPartitionFieldName(std::string_view column, const Transform& transform);

}  // namespace floe::iceberg
