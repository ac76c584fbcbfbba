#pragma once
/// The names of the table properties floe reads or writes: Iceberg's own
/// (`write.*`, `commit.*`, `history.expire.*`, `read.*`, `format-version`)
/// and floe's (`floe.*`). Each name says what the property does and its
/// default; the code that reads a property applies the default. Where a
/// default is needed in more than one place it is a constant here too.

#include <cstdint>
#include <string_view>

namespace floe::iceberg::table_properties {

// ------------------------------------------------------------------ format

/// Reserved: the format version a catalog asks for at create time; never
/// stored. Default 2.
inline constexpr std::string_view kFormatVersion = "format-version";

// ------------------------------------------------------------- data files

/// Size a data file is closed at. Default 512 MiB.
inline constexpr std::string_view kWriteTargetFileSizeBytes = "write.target-file-size-bytes";
inline constexpr int64_t kWriteTargetFileSizeBytesDefault = 512LL << 20;
/// Parquet codec: uncompressed, snappy, gzip, zstd, lz4, brotli. Default zstd.
inline constexpr std::string_view kWriteParquetCompressionCodec = "write.parquet.compression-codec";
/// Parquet codec level; unset or 0: the codec's own default.
inline constexpr std::string_view kWriteParquetCompressionLevel = "write.parquet.compression-level";
/// Buffered size a Parquet row group is closed at. Default 128 MiB.
inline constexpr std::string_view kWriteParquetRowGroupSizeBytes =
    "write.parquet.row-group-size-bytes";
/// Encoded size a Parquet page is cut at. Default 1 MiB.
inline constexpr std::string_view kWriteParquetPageSizeBytes = "write.parquet.page-size-bytes";
/// Rows a Parquet page is cut at. Default 20000.
inline constexpr std::string_view kWriteParquetPageRowLimit = "write.parquet.page-row-limit";
/// Dictionary size past which a column chunk falls back to PLAIN. Default 2 MiB.
inline constexpr std::string_view kWriteParquetDictSizeBytes = "write.parquet.dict-size-bytes";
/// Column metrics kept: none, counts, truncate(N) or full. Default truncate(16).
inline constexpr std::string_view kWriteMetadataMetricsDefault = "write.metadata.metrics.default";
/// How rows are spread over writers: none, hash or range. Default none.
inline constexpr std::string_view kWriteDistributionMode = "write.distribution-mode";
/// Whether an insert of an existing key replaces the row. Default false.
inline constexpr std::string_view kWriteUpsertEnabled = "write.upsert.enabled";

// ------------------------------------------------------------- file folders

/// Folder of data files. Default `<location>/data`.
inline constexpr std::string_view kWriteDataPath = "write.data.path";
/// Folder of metadata files. Default `<location>/metadata`.
inline constexpr std::string_view kWriteMetadataPath = "write.metadata.path";
/// Older name of the data folder (object storage layout). Default unset.
inline constexpr std::string_view kWriteObjectStoragePath = "write.object-storage.path";
/// Older name of the data folder. Default unset.
inline constexpr std::string_view kWriteFolderStoragePath = "write.folder-storage.path";

// ------------------------------------------------------------------ commits

/// How many previous metadata files `metadata-log` keeps. Default 100.
inline constexpr std::string_view kWriteMetadataPreviousVersionsMax =
    "write.metadata.previous-versions-max";
inline constexpr int kWriteMetadataPreviousVersionsMaxDefault = 100;
/// Retries of a commit that lost a race. Default 4.
inline constexpr std::string_view kCommitRetryNumRetries = "commit.retry.num-retries";
inline constexpr int64_t kCommitRetryNumRetriesDefault = 4;
/// Shortest wait before a retry. Default 100 ms.
inline constexpr std::string_view kCommitRetryMinWaitMs = "commit.retry.min-wait-ms";
inline constexpr int64_t kCommitRetryMinWaitMsDefault = 100;
/// Longest wait between retries. Default 60 s.
inline constexpr std::string_view kCommitRetryMaxWaitMs = "commit.retry.max-wait-ms";
inline constexpr int64_t kCommitRetryMaxWaitMsDefault = 60000;
/// Time after which a commit stops retrying. Default 30 min.
inline constexpr std::string_view kCommitRetryTotalTimeoutMs = "commit.retry.total-timeout-ms";
inline constexpr int64_t kCommitRetryTotalTimeoutMsDefault = 1800000;
/// Whether a commit merges small manifests. Default true.
inline constexpr std::string_view kCommitManifestMergeEnabled = "commit.manifest-merge.enabled";
/// Manifests of a spec that trigger a merge. Default 100.
inline constexpr std::string_view kCommitManifestMinCountToMerge =
    "commit.manifest.min-count-to-merge";
inline constexpr int64_t kCommitManifestMinCountToMergeDefault = 100;
/// Size of a merged manifest. Default 8 MiB.
inline constexpr std::string_view kCommitManifestTargetSizeBytes =
    "commit.manifest.target-size-bytes";
inline constexpr int64_t kCommitManifestTargetSizeBytesDefault = 8 << 20;

// ------------------------------------------------------- snapshot expiry

/// Age past which snapshots are expired. Default 5 days.
inline constexpr std::string_view kHistoryExpireMaxSnapshotAgeMs =
    "history.expire.max-snapshot-age-ms";
inline constexpr int64_t kHistoryExpireMaxSnapshotAgeMsDefault = 5LL * 24 * 3600 * 1000;
/// Snapshots of a branch kept whatever their age. Default 1.
inline constexpr std::string_view kHistoryExpireMinSnapshotsToKeep =
    "history.expire.min-snapshots-to-keep";
inline constexpr int64_t kHistoryExpireMinSnapshotsToKeepDefault = 1;

// ------------------------------------------------------------------- reads

/// Weight a read split is packed up to. Default 128 MiB.
inline constexpr std::string_view kReadSplitTargetSize = "read.split.target-size";
/// Least weight a file counts for in a split. Default 4 MiB.
inline constexpr std::string_view kReadSplitOpenFileCost = "read.split.open-file-cost";
/// Splits still open while packing. Default 10.
inline constexpr std::string_view kReadSplitPlanningLookback = "read.split.planning-lookback";

// -------------------------------------------------------------------- floe

/// Prefix of `floe.committed-checkpoint.<pipeline-id>`: the last checkpoint
/// id a pipeline committed to the table, set in the same commit. Default unset.
inline constexpr std::string_view kFloeCommittedCheckpointPrefix = "floe.committed-checkpoint.";

/// The binlog position ("FILE:POS") of the last schema change `floe run`'s
/// `schema.change.behavior: evolve` applied to the table (or of its CREATE
/// TABLE): every row of the table before it is in the table (or belongs to an
/// older table of the same name), so a replayed change the table has is
/// skipped, a table is told from a newer one of the same name, and a restore
/// behind the lake skips the rows before it. Default unset.
inline constexpr std::string_view kFloeSchemaChangePosition = "floe.schema-change-position";
/// Set with kFloeSchemaChangePosition on a table that evolve renamed: its
/// sink name before ("ns.table"), whose rows before that position are in the
/// renamed table. Default unset.
inline constexpr std::string_view kFloeRenamedFrom = "floe.renamed-from";

}  // namespace floe::iceberg::table_properties
