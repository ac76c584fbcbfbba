#pragma once
/// ChangeEventHandler: what becomes of one change event message — a line of
/// `floe ingest`'s input, a Kafka message of `floe run`'s kafka source — in
/// the `debezium-json` and `canal-json` formats. It decodes the message,
/// finds or creates its table and evolves the table's schema
/// (TableResolver), and hands the rows to the writers through a
/// sink::RowBatcher, by RowChangeWriter:
///
///   a row change        -> its rows (RowChangeWriter: insert, update, delete)
///   a truncation        -> RowBatcher::Truncate of the event's table (also a
///                          `floe capture` schema-change event of kind
///                          "truncate_table"); a table that does not exist and
///                          cannot be created has nothing to truncate (skipped)
///   a schema change     -> the primary keys it names are noted
///                          (TableResolver::NotePrimaryKey), then skipped
///   a heartbeat         -> skipped
/// A canal-json message holds one or more rows of one table: each is handled
/// as a Debezium event with a schema block, in order; its `pkNames` is noted
/// as the table's primary key.
///
/// The owner (the source operator) says through ChangeEventHooks what a bad
/// event becomes (an error naming where it was read, or a dead letter), adds
/// its position to the job's own errors, and may skip events its tables
/// already hold. The handler counts rows emitted and events skipped
/// (`counts()`, and the IngestStats given).
///
/// Not thread-safe: one thread (the source's) calls every method. Decoded
/// events handed in (HandleDecoded) may come from other threads' decoders.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/cdc/debezium_json_reader.h"
#include "floe/cdc/mysql/canal_json.h"
#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/engine/operator.h"
#include "floe/ingest/ingest_stats.h"
#include "floe/ingest/row_change_writer.h"
#include "floe/ingest/table_resolver.h"
#include "floe/sink/record.h"
#include "floe/sink/router.h"

namespace floe::ingest {

enum class InputFormat : uint8_t {
  kDebeziumJson,  ///< "debezium-json" (default)
  kJson,          ///< "json": plain JSON rows (docs/json-rows.md), appended to --table
  kCanalJson,     ///< "canal-json": Canal's flat JSON messages (docs/kafka.md, "canal-json")
};
Result<InputFormat> ParseInputFormat(std::string_view text);
std::string_view InputFormatName(InputFormat format);

/// The owner's side of a ChangeEventHandler call.
class ChangeEventHooks {
 public:
  virtual ~ChangeEventHooks() = default;
  /// The event is bad (malformed, a value of the wrong type, an unknown op, a
  /// missing image, an incompatible schema change, a table that cannot be
  /// created, a null key): returns the error that fails the job (naming
  /// where the event was read), or Ok when the event was set aside.
  virtual Status BadEvent(const Error& error) = 0;
  /// An error that is not the event's fault (catalog I/O, ...), with where
  /// the event was read added as context.
  virtual Error JobError(Error error) = 0;
  /// Whether `target` already holds the event (it is then skipped).
  virtual bool AlreadyCommitted(const sink::TableTarget& target) { return false; }
  /// Called for every row event with a before image once its table is
  /// known: the event row fields the writers read of a before image (its
  /// key, the partition source columns), and the schema the event was
  /// decoded with when it has no schema block (`known`).
  virtual void NoteBeforeImageFields(const cdc::DebeziumEvent& event, const types::Schema* known,
                                     std::span<const int> fields) {}
};

/// Totals of a handler (carried by the owner's checkpoint state).
struct ChangeCounts {
  int64_t rows = 0;     ///< rows handed to the batcher
  int64_t skipped = 0;  ///< heartbeats, schema-change events, truncations of no table
};

class ChangeEventHandler {
 public:
  /// `resolver`, `batcher` and `stats` must outlive the handler.
  ChangeEventHandler(TableResolver* resolver, sink::RowBatcher* batcher, IngestStats* stats);
  ~ChangeEventHandler();
  ChangeEventHandler(const ChangeEventHandler&) = delete;
  ChangeEventHandler& operator=(const ChangeEventHandler&) = delete;

  /// Called for every row change handed on, with its table, op and source
  /// commit time (ms; 0: unknown), e.g. for per-table metrics.
  using ChangeObserver =
      std::function<void(const sink::TableTarget& target, cdc::ChangeOp op, int64_t ts_ms)>;
  void set_change_observer(ChangeObserver observer) { observer_ = std::move(observer); }

  /// Where rows go (set before each Poll's first event).
  void set_output(engine::Collector<sink::RowBatch>* out) { out_ = out; }

  /// One message of `format` (debezium-json or canal-json; json rows are
  /// the owner's). Errors: those of the hooks, the batcher's.
  Status Handle(InputFormat format, std::string_view text, ChangeEventHooks& hooks,
                const std::vector<std::string>* key_fields = nullptr);
  /// One debezium-json message, decoded on this thread. `key_fields` (may
  /// be null or empty): the primary key of the event's table, from the
  /// message's key (a Kafka message's Debezium key names the key columns);
  /// noted for the table (TableResolver::NotePrimaryKey) before it is
  /// resolved.
  Status HandleDebezium(std::string_view text, ChangeEventHooks& hooks,
                        const std::vector<std::string>* key_fields = nullptr);
  /// One debezium-json message decoded elsewhere (parallel decoding), with
  /// `known` as the schema of events without a schema block (null: none);
  /// `own_reader`: decoded by this handler's reader.
  Status HandleDecoded(std::string_view text, Result<cdc::DebeziumEvent>& decoded,
                       const types::Schema* known, bool own_reader, ChangeEventHooks& hooks);
  /// One canal-json message.
  Status HandleCanal(std::string_view text, ChangeEventHooks& hooks);

  /// The schema that decodes events without a schema block: the current
  /// schema of the table of the last such event (null before one).
  const types::Schema* KnownSchema() const;
  /// Keeps KnownSchema() alive.
  const sink::TableTargetPtr& known_target() const { return known_target_; }

  /// Emits a batch of inserts that own their values (RowBatcher::AddBatch)
  /// and counts its rows.
  Status EmitBatch(sink::RowBatch batch);
  /// Adds one row (already in table order) to the batcher and counts it.
  Status Emit(const sink::TableTargetPtr& target, sink::RowKind kind, types::Row row);
  /// Counts `n` rows handed to the batcher for `target`.
  void CountEmitted(const sink::TableTarget& target, int64_t n);
  /// Counts an event passed over.
  void CountSkipped();

  ChangeCounts& counts() { return counts_; }
  /// Adds the rows per table counted since the last call to the stats.
  void PublishTableRows();

 private:
  Status Truncate(const cdc::DebeziumEvent& event, ChangeEventHooks& hooks);
  /// Notes `key_fields_` for the event's table (when they changed).
  void NoteKeyFields(const cdc::DebeziumEvent& event);
  Status FromResolver(Error error, bool event_error, ChangeEventHooks& hooks);
  std::span<const int> BeforeImageFields(const RowMapping& m);

  TableResolver* resolver_;
  sink::RowBatcher* batcher_;
  IngestStats* stats_;
  engine::Collector<sink::RowBatch>* out_ = nullptr;
  RowChangeWriter changes_;
  ChangeCounts counts_;
  ChangeObserver observer_;

  cdc::DebeziumJsonReader reader_;
  cdc::mysql::CanalJsonReader canal_reader_;
  std::vector<cdc::DebeziumEvent> canal_events_;
  cdc::DebeziumEvent::TableKey canal_noted_;  // the last primary key noted
  /// The message key's fields of the event being handled (may be null), and
  /// the last ones noted.
  const std::vector<std::string>* key_fields_ = nullptr;
  cdc::DebeziumEvent::TableKey key_noted_;
  types::Schema empty_schema_;
  Arena arena_;
  /// The target whose schema decoded the last event without a schema block.
  sink::TableTargetPtr known_target_;
  /// BeforeImageFields (reused).
  std::vector<int> before_fields_;
  /// Rows emitted per table since the last PublishTableRows.
  std::unordered_map<std::string, int64_t> rows_per_table_;
  const std::string* last_table_key_ = nullptr;
  int64_t* last_table_count_ = nullptr;
};

/// The primary keys a source noted (TableResolver::NotedPrimaryKeys), as its
/// checkpoint state keeps them: [{"db": .., "table": .., "columns": [..]}].
nlohmann::json NotedPrimaryKeysToJson(const std::vector<NotedPrimaryKey>& keys);
/// Reads them back. Throws nlohmann::json's exceptions on a value of another
/// shape (the state parsers report them as kCorruption).
std::vector<NotedPrimaryKey> NotedPrimaryKeysFromJson(const nlohmann::json& keys);

}  // namespace floe::ingest
