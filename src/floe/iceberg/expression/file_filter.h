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

}  // namespace floe::iceberg
