#pragma once
/// FileFilter: decides, from manifest metadata alone, whether a data file's
/// rows match a row filter not at all, partly, or all (the selection of
/// overwrite-by-filter and delete-by-filter). "None" uses the inclusive
/// partition projection and column metrics (evaluator.h); "all" is strict:
/// identity partition values and exact column bounds prove that every row
/// matches (no nulls or NaNs where a comparison needs a value). Anything
/// unproven is "some".

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include "floe/common/result.h"
#include "floe/iceberg/data_file.h"
#include "floe/iceberg/expression/evaluator.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

enum class FileMatch { kNone, kSome, kAll };

/// The column metrics `file` carries, for InclusiveMetricsEvaluator (the
/// maps point into `file`, which must outlive them).
FileMetrics MetricsOf(const DataFile& file);

class FileFilter {
 public:
  /// Binds `filter` (unbound or bound) to the current schema of `metadata`,
  /// case-insensitively. Errors: binding errors (kInvalidArgument).
  static Result<FileFilter> Make(const ExprPtr& filter, const TableMetadata& metadata);

  const ExprPtr& bound_filter() const { return bound_; }

  /// False only when no file of the manifest can match.
  Result<bool> ManifestMayMatch(const ManifestFile& manifest);
  /// How the rows of `file` (written for spec `spec_id`) match.
  Result<FileMatch> Match(const DataFile& file, int32_t spec_id);

 private:
  FileFilter(ExprPtr bound, const TableMetadata* metadata, InclusiveMetricsEvaluator metrics)
      : bound_(std::move(bound)), metadata_(metadata), metrics_(std::move(metrics)) {}
  Result<const ManifestEvaluator*> ManifestEvaluatorFor(int32_t spec_id);
  Result<const RowEvaluator*> PartitionEvaluatorFor(int32_t spec_id);

  ExprPtr bound_;
  const TableMetadata* metadata_;
  InclusiveMetricsEvaluator metrics_;
  std::map<int32_t, std::unique_ptr<ManifestEvaluator>> manifest_evaluators_;
  std::map<int32_t, std::unique_ptr<RowEvaluator>> partition_evaluators_;
};

/// The row filter of an operation that removes whole data files by filter
/// (overwrite by filter, delete by filter): the filters added are OR-ed, and
/// bound again to the base metadata of each commit attempt.
class WholeFileSelection {
 public:
  /// Selects also the files whose rows all match `filter`.
  void Or(ExprPtr filter);
  /// Binds the filter to `base` (nothing to do when none was added). Call
  /// at each attempt, before the other calls. Errors: FileFilter::Make's.
  Status Bind(const TableMetadata& base);
  /// The bound filter; nullptr when no filter was added.
  FileFilter* bound() { return bound_ ? &*bound_ : nullptr; }

  /// False when no data file of `manifest` can be selected (always false
  /// for a delete manifest, or without a filter).
  Result<bool> ManifestMaySelect(const ManifestFile& manifest);
  /// Whether every row of data file `file` (written for spec `spec_id`)
  /// matches the filter; false for a delete file or without a filter. A file
  /// whose rows may match only in part is kInvalidArgument "cannot <verb> by
  /// filter <filter>: data file <path> holds rows that may not match
  /// it<remedy>".
  Result<bool> Selects(const DataFile& file, int32_t spec_id, std::string_view verb,
                       std::string_view remedy = {});

 private:
  ExprPtr filter_;
  std::optional<FileFilter> bound_;
};

}  // namespace floe::iceberg
