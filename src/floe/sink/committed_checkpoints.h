#pragma once
/// What a pipeline has committed to a table (docs/sink-commit.md, "Recovery"):
/// the highest checkpoint id, found in two places written by the same atomic
/// commit — the table property `floe.committed-checkpoint.<pipeline-id>`
/// (survives snapshot expiry) and the snapshot summaries
/// (`floe.pipeline-id`, `floe.checkpoint-id`) of the main branch's history,
/// walking parents from the current snapshot (survives a writer that drops
/// unknown properties). The answer is the larger of the two.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/iceberg/catalog.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::sink {

/// `floe.committed-checkpoint.<pipeline_id>`.
std::string CommittedCheckpointProperty(std::string_view pipeline_id);

/// The highest checkpoint id `pipeline_id` committed to the table `metadata`
/// describes; 0 if none. Commits of one pipeline to one table have strictly
/// increasing ids, so the walk stops at the newest snapshot of the pipeline.
/// Errors: kCorruption naming the table location when the property or a
/// summary value of this pipeline is not an integer, or when parents loop.
Result<engine::CheckpointId> MaxCommittedCheckpoint(const iceberg::TableMetadata& metadata,
                                                    std::string_view pipeline_id);

/// The snapshot of the main branch's history (current and its ancestors)
/// that committed checkpoint `id` of `pipeline_id`, or nullptr (never
/// committed, or its snapshot was expired).
const iceberg::Snapshot* FindCheckpointSnapshot(const iceberg::TableMetadata& metadata,
                                                std::string_view pipeline_id,
                                                engine::CheckpointId id);

/// The highest checkpoint id `pipeline_id` committed to any of `tables`
/// (0 if none; a table that does not exist counts 0). A pipeline starts its
/// job with JobOptions::min_checkpoint_id set to this, so that a restore from
/// an older checkpoint never reuses a committed id. Errors: those of
/// Catalog::LoadTable other than kNotFound, and of the overload above, with
/// the table named.
Result<engine::CheckpointId> MaxCommittedCheckpoint(
    iceberg::Catalog& catalog, std::string_view pipeline_id,
    const std::vector<iceberg::TableIdentifier>& tables);

/// Every table of the catalog, two namespace levels deep: the tables a
/// pipeline whose destinations depend on its events may have committed to.
Result<std::vector<iceberg::TableIdentifier>> ListTablesTwoLevelsDeep(iceberg::Catalog& catalog);

/// What one pipeline has committed to one table: the highest checkpoint id
/// and the source position its snapshot records (`floe.source-position`).
struct TableProgress {
  iceberg::TableIdentifier table;
  engine::CheckpointId checkpoint = 0;
  /// The position of that checkpoint's snapshot; nullopt when the snapshot
  /// was expired (the table property alone survives expiry) or carries none.
  std::optional<std::string> source_position;
  /// The table's values of the properties CommittedProgress was asked for
  /// (those it has).
  std::map<std::string, std::string> properties;
};

/// The progress of `pipeline_id` on each of `tables` that exists and has at
/// least one commit of it, or one of `properties`; other tables are left
/// out. Errors: as the catalog-wide MaxCommittedCheckpoint.
Result<std::vector<TableProgress>> CommittedProgress(
    iceberg::Catalog& catalog, std::string_view pipeline_id,
    const std::vector<iceberg::TableIdentifier>& tables,
    const std::vector<std::string>& properties = {});

}  // namespace floe::sink
