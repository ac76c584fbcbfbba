#pragma once
/// Evaluators of bound filter expressions (expression.h):
///  - `RowEvaluator`: does a row match? (also used on partition tuples with a
///    filter bound to the partition type, e.g. from ProjectInclusive)
///  - `InclusiveMetricsEvaluator`: may a data file hold matching rows, given
///    its column metrics (value/null/NaN counts, lower/upper bounds)?
///  - `ManifestEvaluator`: may a manifest hold matching files, given the
///    partition field summaries of its manifest-list entry?
/// The inclusive evaluators answer false only when no row can match. All are
/// immutable after Make and thread-safe; Eval allocates nothing per row
/// (bounds are decoded as views into the caller's bytes).

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::iceberg {

/// Evaluates a bound filter on rows of the struct it was bound to, with SQL
/// semantics for filtering: comparisons (including != and NOT IN) with a
/// null value are false; comparisons with NaN are false except != (true);
/// NOT has been pushed down at bind time.
class RowEvaluator {
 public:
  /// Errors: kInvalidArgument when `bound_filter` is not bound.
  static Result<RowEvaluator> Make(ExprPtr bound_filter);

  /// A row missing a column the filter needs (too short) does not match.
  bool Eval(types::Row row) const;

 private:
  explicit RowEvaluator(ExprPtr e) : expr_(std::move(e)) {}
  ExprPtr expr_;
};

/// The column metrics of one data file, as a manifest stores them (maps keyed
/// by field id; bounds in the spec's single-value binary form). Any map may
/// be null (absent); missing entries are unknown. The evaluator only reads.
struct FileMetrics {
  int64_t record_count = -1;  ///< < 0: unknown
  const std::map<int32_t, int64_t>* value_counts = nullptr;
  const std::map<int32_t, int64_t>* null_value_counts = nullptr;
  const std::map<int32_t, int64_t>* nan_value_counts = nullptr;
  const std::map<int32_t, std::string>* lower_bounds = nullptr;
  const std::map<int32_t, std::string>* upper_bounds = nullptr;
};

/// Whether a file may contain rows matching a filter. Bounds may be truncated
/// (a string lower bound is a prefix of the true minimum; an upper bound may
/// be a prefix with its last code point incremented), so bounds are only used
/// as inequalities, never as exact values; undecodable bounds are ignored.
class InclusiveMetricsEvaluator {
 public:
  /// `bound_filter` bound to the table schema. Errors: kInvalidArgument when unbound.
  static Result<InclusiveMetricsEvaluator> Make(ExprPtr bound_filter);
  /// False only when no row of the file can match.
  bool Eval(const FileMetrics& metrics) const;

 private:
  explicit InclusiveMetricsEvaluator(ExprPtr e) : expr_(std::move(e)) {}
  ExprPtr expr_;
};

/// One partition field summary of a manifest-list entry (spec "Manifest
/// Lists": field_summary). Bounds are single-value binary of the partition
/// field's result type; absent when every value is null or NaN.
struct PartitionFieldSummaryView {
  bool contains_null = true;
  std::optional<bool> contains_nan;
  std::optional<std::string_view> lower_bound;
  std::optional<std::string_view> upper_bound;
};

/// Whether a manifest may contain files matching a row filter: the filter is
/// projected inclusively through the manifest's partition spec and checked
/// against the summaries.
class ManifestEvaluator {
 public:
  /// `row_filter` bound to `schema` or unbound (bound case-insensitively).
  /// Errors: from ProjectInclusive.
  static Result<ManifestEvaluator> Make(const ExprPtr& row_filter, const PartitionSpec& spec,
                                        const types::Schema& schema);
  /// The projected partition filter (bound to the partition type).
  const ExprPtr& partition_filter() const { return expr_; }
  /// `summaries[i]` is the summary of partition field i; missing ones are
  /// unknown. False only when no file of the manifest can match.
  bool Eval(std::span<const PartitionFieldSummaryView> summaries) const;

 private:
  explicit ManifestEvaluator(ExprPtr e) : expr_(std::move(e)) {}
  ExprPtr expr_;
};

}  // namespace floe::iceberg
