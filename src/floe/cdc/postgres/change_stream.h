#pragma once
/// A PostgreSQL slot's changes in floe's change model (cdc/change.h): the
/// source of `floe run`'s postgres pipelines (docs/postgres.md).
///
/// `ChangeBatchAssembler` is the pure part: pgoutput messages in, one
/// ChangeBatch per committed transaction out, with row images as
/// `types::Value`s of type_mapping.h's Iceberg types. It keeps the relation
/// cache (each Relation message becomes a TableDefinition; the primary key,
/// nullability and attribute numbers come from the catalog through
/// `Options::describe`), holds streamed transactions (protocol v2) until
/// Stream Commit, fills unchanged TOASTed values from the REPLICA IDENTITY
/// FULL old row, and turns a Relation message that differs from the one
/// before into SchemaChanges (columns added, dropped, renamed — told apart
/// by attribute number —, retyped; the primary key changed; the table
/// renamed), placed before the transaction's first row of that table.
/// Truncations are kTruncateTable changes. Renamed and dropped tables, of
/// which pgoutput says nothing until a row changes, come from the catalog
/// (`ApplyCatalog`, and `Options::locate` for a name a Relation message
/// takes from another relation).
///
/// `PostgresChangeStream` wires it to a ReplicationClient: it resumes after
/// the LSN of its state (transactions that end at or before it are skipped,
/// since the slot may send them again), and confirms to the slot only what
/// its caller says is committed (`Committed`); after `heartbeat_interval`
/// without a change, with nothing read waiting for its commit, it confirms
/// the server's WAL position so that an idle slot holds no WAL back.
///
/// Positions: a PostgreSQL LSN is carried in the change model's
/// SourcePosition as `binlog = {"lsn", LSN as an integer}` (PositionOfLsn),
/// so the positions of the shared source code order and print as LSNs do. A
/// change's position is its transaction's commit LSN (commit order, unlike
/// the changes' own LSNs); a batch's `resume` is the transaction's end LSN.
///
/// Threading: the assembler and `Run` on one thread; `Committed` from any.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "floe/cdc/change.h"
#include "floe/cdc/postgres/lsn.h"
#include "floe/cdc/postgres/pgoutput.h"
#include "floe/cdc/postgres/replication_client.h"
#include "floe/cdc/postgres/transaction_decoder.h"
#include "floe/cdc/postgres/type_mapping.h"
#include "floe/common/result.h"

namespace floe::cdc::postgres {

/// The `binlog.file` of a SourcePosition that holds an LSN.
inline constexpr std::string_view kLsnPositionFile = "lsn";
/// {binlog = {"lsn", lsn.value}}.
SourcePosition PositionOfLsn(Lsn lsn);
/// The LSN a position holds; nullopt when it holds none.
std::optional<Lsn> LsnOfPosition(const BinlogFilePos& position);

/// What the catalog says of a relation's columns (pg_attribute, pg_index).
struct CatalogColumn {
  std::string name;
  int attnum = 0;
  bool not_null = false;
  int key_position = 0;  ///< 1-based position in the primary key; 0: not in it
};

/// Where some relations are in the catalog now (pg_class, pg_namespace).
struct CatalogReading {
  /// The relations asked about.
  std::vector<uint32_t> relation_ids;
  /// Their schema and name now; an asked relation missing here is gone (dropped).
  std::map<uint32_t, TableId> tables;
  /// The WAL insert position when the reading began. A relation whose last
  /// Relation message came in a transaction that commits after it may be
  /// newer than the reading: it is left as it is (a later reading tells).
  /// Unset: the reading is newer than every message handed on.
  std::optional<Lsn> started_at;
};

class ChangeBatchAssembler {
 public:
  struct Options {
    /// Whether a table is mirrored (others are passed over).
    std::function<bool(std::string_view schema, std::string_view table)> selector;
    /// The base type (oid, modifier) of a domain; nullopt when not one.
    DomainResolver::Lookup resolve_type;
    /// The relation's columns in the catalog now; nullopt when it cannot
    /// tell (the key then comes from the Relation message's key flags).
    std::function<std::optional<std::vector<CatalogColumn>>(uint32_t relation_id)> describe;
    /// Where relations are in the catalog now; nullopt when it cannot tell.
    /// Asked when a Relation message names a table that another known
    /// relation still holds: that one was renamed or dropped before.
    std::function<std::optional<CatalogReading>(std::span<const uint32_t> relation_ids)> locate;
  };
  /// Called once per committed transaction with its batch (ends_transaction,
  /// resume = its end LSN); may take the batch's contents.
  using Sink = std::function<Status(ChangeBatch& batch)>;

  ChangeBatchAssembler(PgoutputVersion version, Options options);

  /// Feeds the pgoutput message of the XLogData frame at `wal_start`.
  /// Errors: the decoder's (kCorruption, with the LSN); a row of an unknown
  /// relation or with a column count that differs from its Relation
  /// message (kCorruption); a value that cannot be read (kInvalidArgument
  /// naming table, column and LSN); an unchanged TOASTed value without the
  /// old row (kNotSupported, advising REPLICA IDENTITY FULL); the sink's.
  Status Feed(Lsn wal_start, std::string_view message, const Sink& sink);

  /// The initial snapshot: relation `m` described from the catalog as its
  /// Relation message would describe it.
  Status SnapshotRelation(const RelationMessage& m);
  /// Rows of relation `relation_id` read in the slot's exported snapshot
  /// (op kRead): one batch without a transaction boundary per call.
  Status SnapshotRows(uint32_t relation_id, std::span<const TupleData> rows, Lsn consistent_point,
                      const Sink& sink);
  /// The snapshot is whole: a batch that ends it, to resume at the slot's
  /// consistent point.
  Status SnapshotEnd(Lsn consistent_point, const Sink& sink);

  /// The relations of the cache whose tables are mirrored, to be located in
  /// the catalog.
  std::vector<uint32_t> SelectedRelations() const;
  /// Between transactions, once every transaction that commits before the
  /// reading's end has been handed on: the mirrored relations of `reading`
  /// (but those newer than it, CatalogReading::started_at) that are
  /// gone from the catalog become kDropTable changes (and leave the cache),
  /// those under another schema or name kRenameTable changes (a table
  /// renamed out of the selection leaves the pipeline: a kDropTable of its
  /// old name, with a warning). They go to the sink as one batch that ends at `resume`
  /// (the end of the last transaction handed on, also the changes'
  /// position: after every change before them, before every later one);
  /// no batch when nothing changed. Errors: the sink's.
  Status ApplyCatalog(const CatalogReading& reading, Lsn resume, const Sink& sink);
  /// True once since a Relation message renamed a known relation: the
  /// caller should compare the others with the catalog soon.
  bool TakeCatalogCheckWanted() { return std::exchange(catalog_check_wanted_, false); }

  /// A new replication connection: forgets an open transaction and the held
  /// streamed ones (the server sends them again) and passes over the
  /// transactions ending at or before `resume`.
  void Restart(Lsn resume);

  /// Transactions ending at or before `lsn` are passed over (not given to the sink).
  void SkipThrough(Lsn lsn) { skip_through_ = lsn; }
  /// Whether a transaction is open or a streamed one is held.
  bool busy() const { return open_.has_value() || transactions_.busy(); }

  /// The relation cache as JSON text, and its restore: a resumed stream
  /// compares the server's Relation messages with what it knew.
  std::string RelationsJson() const;
  Status RestoreRelations(std::string_view json);
  /// Grows whenever the relation cache changes.
  uint64_t relations_generation() const { return relations_generation_; }

 private:
  struct Column {
    std::string name;
    uint32_t type_oid = 0;  ///< after resolving a domain to its base type
    int32_t type_modifier = -1;
    int attnum = 0;  ///< 0: unknown
    bool key = false;
    bool not_null = false;
    int key_position = 0;
  };
  struct Relation {
    std::string schema, name;
    ReplicaIdentity identity = ReplicaIdentity::kDefault;
    std::vector<Column> columns;
    bool selected = true;
    TableDefinitionPtr definition;
    /// The commit LSN of the transaction of its last Relation message (0:
    /// described from the catalog for the snapshot, or restored).
    Lsn described_at;
  };
  struct Open {
    uint32_t xid = 0;
    std::shared_ptr<const ChangeSource> source;
    /// Schema changes go before the transaction's first row of their table.
    std::vector<ChangeEvent> front;
    std::vector<ChangeEvent> rows;
    std::vector<uint32_t> tables_with_rows;
  };

  /// Gives the columns of a Relation message whose name the catalog does
  /// not know (renamed or dropped since the message was written) their
  /// attribute number where it can be told: from `before`, the relation's
  /// previous message, by name; or from their place between numbered
  /// columns (see the body). Others stay 0 (matched by name).
  static void NumberUnknownColumns(const std::vector<CatalogColumn>* catalog,
                                   const Relation* before, std::vector<Column>& columns);
  Open Begin(uint32_t xid, Lsn commit_lsn, int64_t commit_time);
  Status Handle(const PgoutputMessage& m, Lsn lsn);
  Status Finish(Lsn end_lsn, const Sink& sink);
  Status OnRelation(const RelationMessage& m, Lsn lsn);
  void BuildDefinition(Relation& rel);
  void DiffRelations(const Relation& before, const Relation& after);
  /// Where a schema change of `table` goes in the open transaction: before
  /// its first row, or in place when rows of the table came already.
  std::vector<ChangeEvent>& ChangesOf(const TableId& table);
  /// The changes of the relations of `reading` that differ from the cache
  /// (see ApplyCatalog), appended to `out`; the cache follows.
  void CatalogChanges(const CatalogReading& reading,
                      const std::shared_ptr<const ChangeSource>& source,
                      std::vector<ChangeEvent>& out);
  /// The change of a mirrored relation renamed to a name the selector does
  /// not take: a kDropTable of its old name, as MySQL's RENAME TABLE out of
  /// the selection is (with a warning).
  static SchemaChange LeavesThePipeline(const Relation& before, const Relation& after,
                                        const std::shared_ptr<const ChangeSource>& source);
  /// Locates, in the open transaction, the other relations that hold the
  /// table `rel` names now (Options::locate).
  void LocateNameHolders(uint32_t relation_id, const Relation& rel);
  Result<types::Row> ReadRow(const Relation& rel, const TupleData& tuple, const TupleData* old,
                             bool before_image, Lsn lsn);
  void AddRow(uint32_t relation_id, const Relation& rel, ChangeOp op, types::Row before,
              types::Row after);

  PgoutputVersion version_;
  Options options_;
  TransactionDecoder transactions_;
  DomainResolver domains_;
  std::unordered_map<uint32_t, Relation> relations_;
  std::optional<Open> open_;
  ChangeBatch batch_;
  std::vector<types::Value> values_;
  Lsn skip_through_;
  uint64_t relations_generation_ = 0;
  int64_t definition_version_ = 0;
  bool catalog_check_wanted_ = false;
};

struct ChangeStreamOptions {
  ReplicationClientOptions client;
  /// Whether schema.table is mirrored; also the tables of a publication that
  /// publication.autocreate.mode filtered makes.
  std::function<bool(std::string_view schema, std::string_view table)> selector;
  /// The state of a checkpoint (StateText); empty: start at the slot's position.
  std::string initial_state;
  /// Idle this long, the slot is confirmed up to the server's WAL position;
  /// also how often the tables are compared with the catalog (renamed and
  /// dropped tables; at a transaction's Begin or while idle).
  std::chrono::milliseconds heartbeat_interval{30'000};
  /// Without a state: read every selected table of the publication in the
  /// snapshot a new slot exports, then stream from its consistent point
  /// (scan.startup.mode initial). A slot that exists is dropped and made
  /// again for it (the pipeline has no checkpoint, so nothing was read from
  /// it). Rows are fetched `snapshot_fetch_rows` at a time.
  bool snapshot = false;
  int snapshot_fetch_rows = 2000;
};

class PostgresChangeStream {
 public:
  using Sink = ChangeBatchAssembler::Sink;

  /// Connects, checks the requirements, makes the publication and slot
  /// (ReplicationClient::Connect and Prepare, their errors) and reads the
  /// initial state (kCorruption when it is not one).
  static Result<std::unique_ptr<PostgresChangeStream>> Open(ChangeStreamOptions options);

  /// Streams until `stop` (Ok) or an error; one sink call per committed
  /// transaction, with every batch ending a transaction.
  Status Run(const Sink& sink, const std::atomic<bool>& stop);

  /// Inside the sink: the state to resume exactly after its batch (its end
  /// LSN and the relation cache), as JSON text.
  std::string StateText();
  /// The same in two parts, so that the relation cache's text is made only
  /// when it changed: the JSON object without the cache, and the cache's
  /// JSON, to be spliced in as its last member "schemas".
  std::pair<std::string, std::shared_ptr<const std::string>> StateParts();

  /// The transactions ending at or before `lsn` are committed where they
  /// go: the slot may confirm them. Never moves backwards.
  void Committed(Lsn lsn);

  ReplicationClient& client() { return *client_; }

 private:
  ChangeStreamOptions options_;
  std::unique_ptr<ReplicationClient> client_;
  std::unique_ptr<ChangeBatchAssembler> assembler_;
  Status ReadSnapshot(const Sink& sink, const std::atomic<bool>& stop);
  /// Streams from `resume_` until `stop` or an error.
  Status Stream(const Sink& sink, const std::atomic<bool>& stop);
  /// Every heartbeat interval (and soon after a Relation message renamed a
  /// table), at the Begin of a transaction or while idle: reads where the
  /// mirrored relations are in the catalog (between two readings of the WAL
  /// insert position); then, once every transaction that commits before
  /// the second has been handed on — at the Begin of one that commits at or
  /// after it, or while idle once the server has sent all WAL up to it —
  /// hands on the renames and drops it shows
  /// (ChangeBatchAssembler::ApplyCatalog), before that transaction: in
  /// order on a database that is never idle too. `next_commit`: the commit
  /// LSN of the transaction whose Begin is next; nullopt while idle. A
  /// reading that fails is logged and taken again later. Costs two catalog
  /// queries per reading, none per row. Errors: the sink's, kIo.
  Status CheckCatalog(ReplicationClient& c, const Sink& sink, std::optional<Lsn> next_commit);
  /// Connects again after the connection failed, to stream from `resume_`.
  Status Reconnect();

  ReplicationClientOptions client_options_;
  std::string snapshot_;  ///< the exported snapshot to read first ("" for none)
  Lsn consistent_point_;
  Lsn resume_;       ///< the end of the last transaction handed on (or of the state)
  Lsn current_end_;  ///< in the sink: the end of the batch's transaction
  std::atomic<uint64_t> committed_{0};
  std::string restored_relations_;
  std::shared_ptr<const std::string> relations_text_;
  uint64_t relations_text_generation_ = ~uint64_t{0};
  /// A catalog reading waiting for the stream to reach it (CheckCatalog):
  /// the WAL insert positions before and after it.
  struct PendingCatalog {
    CatalogReading reading;
    Lsn before, after;
    std::chrono::steady_clock::time_point asked;  ///< last keepalive asked for
  };
  std::optional<PendingCatalog> pending_catalog_;
  std::chrono::steady_clock::time_point next_catalog_check_{};
};

}  // namespace floe::cdc::postgres
