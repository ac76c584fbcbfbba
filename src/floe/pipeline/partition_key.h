#pragma once
/// `partition.key` of the Iceberg sink, in Flink CDC's form:
///
///   db.table:transform(col),col2;db2.t2:bucket[16](id)
///
/// Tables are separated by `;`, a table's terms by `,`; `table:terms` names a
/// sink table (after routing, as Flink CDC's sink sees it) by its Iceberg
/// identifier. A term is a column (identity), `year(col)`, `month(col)`,
/// `day(col)`, `hour(col)`, `bucket[N](col)`, `truncate[W](col)` (Flink
/// CDC's and Iceberg's spelling), or Spark's `bucket(N, col)` and
/// `truncate(W, col)` as floe's `--partition-by` accepts them. The columns are
/// checked against the table's schema only when the table is created.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"
#include "floe/iceberg/partition_field.h"

namespace floe::pipeline {

struct TablePartitionKey {
  iceberg::TableIdentifier table;
  std::vector<iceberg::TransformTerm> terms;
  /// The terms in the syntax of iceberg::ParsePartitionSpecText
  /// ("day(created_at), bucket(16, id)"), for creating the table.
  std::string spec_text;
};

/// Parses a partition.key value. An empty value gives no keys.
/// Errors (kInvalidArgument): an entry without ':' or without terms, a bad
/// table name, a term the transform parser refuses (with its position), a
/// table named twice.
Result<std::vector<TablePartitionKey>> ParsePartitionKeys(std::string_view text);

/// The partition key for a sink table, or nullptr when it has none.
const TablePartitionKey* PartitionKeyFor(const std::vector<TablePartitionKey>& keys,
                                         const iceberg::TableIdentifier& table);

}  // namespace floe::pipeline
