#pragma once
/// The Iceberg column metrics of a data file (Iceberg spec, "Manifests":
/// data_file fields 103..110, 132) and the bound truncation of the
/// `write.metadata.metrics.*` table properties.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::format::parquet {

/// `write.metadata.metrics.default`: what metrics to keep for a column.
struct MetricsConfig {
  enum class Mode { kNone, kCounts, kTruncate, kFull };
  Mode mode = Mode::kTruncate;  ///< default "truncate(16)", as in Iceberg
  int truncate_length = 16;     ///< kTruncate only: code points (string) or bytes (binary)

  /// Parses "none", "counts", "full" or "truncate(N)" with N >= 1.
  /// kInvalidArgument otherwise.
  static Result<MetricsConfig> Parse(std::string_view text);
};

/// What a written data file reports to the Iceberg manifest, in the spec's
/// data_file field names (ids in comments); iceberg::DataFile holds these
/// fields as they are. Maps are keyed by Iceberg field id (leaf fields only).
struct DataFileMetrics {
  int64_t record_count = 0;        ///< 103
  int64_t file_size_in_bytes = 0;  ///< 104
  /// 108: compressed bytes of each leaf column, page headers included (all
  /// modes).
  std::map<int32_t, int64_t> column_sizes;
  /// 109: values including nulls (the column chunks' num_values); not in
  /// mode none.
  std::map<int32_t, int64_t> value_counts;
  std::map<int32_t, int64_t> null_value_counts;  ///< 110
  /// 137: float and double leaves only.
  std::map<int32_t, int64_t> nan_value_counts;
  /// 125, 128: Iceberg single-value serialization (Appendix D), possibly
  /// truncated; only for primitive leaves outside lists and maps, modes
  /// truncate/full.
  std::map<int32_t, std::string> lower_bounds;
  std::map<int32_t, std::string> upper_bounds;
  /// 132: the file offset of each row group's first column chunk, ascending
  /// (empty: null).
  std::vector<int64_t> split_offsets;
};

/// A lower bound for strings starting with `value`: its first `length` code
/// points (UTF-8), or `value` if it is shorter.
std::string TruncateStringLowerBound(std::string_view value, int length);
/// An upper bound for strings starting with `value`: if longer than `length`
/// code points, the first `length` with the last one incremented (skipping the
/// surrogate range; when it is U+10FFFF, dropped and the one before it
/// incremented, and so on). nullopt if no such bound exists.
std::optional<std::string> TruncateStringUpperBound(std::string_view value, int length);
/// The same for bytes: a prefix of `length` bytes; for the upper bound the last
/// byte below 0xFF is incremented and the bytes after it dropped.
std::string TruncateBinaryLowerBound(std::string_view value, int length);
std::optional<std::string> TruncateBinaryUpperBound(std::string_view value, int length);

}  // namespace floe::format::parquet
