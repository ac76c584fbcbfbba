#pragma once
/// The postgres source of `floe run` (docs/pipeline.md "source: (type
/// postgres)", docs/postgres.md): a PostgreSQL slot's changes
/// (cdc::postgres::PostgresChangeStream) read by the same CaptureSource as
/// MySQL's binlog, so rows, truncations and schema changes go through the
/// same TableResolver, RowChangeWriter and `schema.change.behavior`
/// handling.
///
/// Exactly once: the checkpoint state is the end LSN of the last
/// transaction handed on (and the relation cache); each commit's
/// `floe.source-position` is "lsn:N (X/Y)". The slot is confirmed up to a
/// checkpoint's LSN only once every Iceberg commit of that checkpoint is
/// done (CaptureSource tells the stream through ChangeStream::Committed), so
/// it never lets go of WAL the lake does not hold; a restart resumes after
/// the restored checkpoint's LSN and passes over the transactions the slot
/// sends again.
#include <memory>
#include <string>
#include <vector>

#include "floe/cdc/postgres/change_stream.h"
#include "floe/pipeline/pipeline_definition.h"
#include "floe/run/capture_source.h"
#include "floe/run/run_pipeline.h"

namespace floe::run {

/// The stream settings of a postgres source: connection, slot, publication,
/// the selected tables (`tables` minus `tables.exclude`, within
/// `schema-name`), heartbeat. Errors: kInvalidArgument for a bad
/// publication.autocreate.mode.
Result<cdc::postgres::ChangeStreamOptions> PostgresStreamOptions(
    const pipeline::PostgresSourceDefinition& source);

/// Opens a PostgresChangeStream with `options` and the restored state, as
/// CaptureSourceOptions::open_stream wants it.
std::function<Result<std::unique_ptr<ChangeStream>>(const std::string& state)> PostgresStreamOpener(
    cdc::postgres::ChangeStreamOptions options);

/// `floe run --check` of a postgres source: connects as the pipeline would
/// (the requirement checks of ReplicationClient::Connect: wal_level, the
/// REPLICATION attribute, each failure saying what to do) without making the
/// publication or the slot, and lists the selected tables with their sink
/// tables (schema.table -> the route's sink table; by default the schema is
/// the Iceberg namespace).
Result<std::vector<TableRoute>> CheckPostgresSource(const pipeline::PipelineDefinition& definition);

/// `floe run --drop-slot`: drops the pipeline's replication slot (not the
/// publication, not the lake). Errors: those of ReplicationClient::Connect;
/// kNotFound when there is no such slot; kIo when a client streams from it.
Status DropPostgresSlot(const pipeline::PipelineDefinition& definition);

}  // namespace floe::run
