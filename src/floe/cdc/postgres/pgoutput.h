#pragma once
/// A pure decoder of the messages of PostgreSQL's built-in logical decoding
/// output plugin, `pgoutput`, protocol versions 1 and 2 (PostgreSQL's
/// "Logical Replication Message Formats"; docs/postgres.md). The replication
/// client takes them out of XLogData frames (replication_protocol.h) and feeds
/// them here, in the order the server sent them; tests feed hand-built bytes.
///
/// Every count and length is checked against the bytes that remain. A message
/// that does not follow its format -- cut short, an unknown tag, a count or
/// length beyond the message, bytes left over after it, a stream message out
/// of place -- is kCorruption naming the message and the byte offset; never a
/// crash, a read past the message or an allocation larger than it.
///
/// Ownership: the decoded message points into the bytes passed to `Decode`
/// (names, column values) and into buffers the decoder reuses (the column
/// lists); it is valid until the next `Decode` on the same decoder and while
/// those bytes live. Copy what must outlive that (a relation cache keeps its
/// own strings). Decoding a tuple allocates nothing once the decoder's buffers
/// have grown to the widest table.
///
/// Threading: a decoder is used by one thread.

#include <cstdint>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "floe/cdc/postgres/lsn.h"
#include "floe/common/result.h"

namespace floe::cdc::postgres {

/// The `proto_version` asked for in START_REPLICATION. Version 2 adds
/// streamed transactions (`streaming 'on'`): Stream Start/Stop/Commit/Abort,
/// and the streamed transaction's xid before the fields of every message sent
/// between Stream Start and Stream Stop.
enum class PgoutputVersion : uint8_t { kV1 = 1, kV2 = 2 };

/// Begin ('B'): the first message of a transaction (not of a streamed one).
struct BeginMessage {
  Lsn final_lsn;            ///< the LSN of the transaction's commit record
  int64_t commit_time = 0;  ///< microseconds since 2000-01-01 UTC
  uint32_t xid = 0;
};

/// Commit ('C'): the last message of a transaction.
struct CommitMessage {
  uint8_t flags = 0;  ///< unused, 0
  Lsn commit_lsn;     ///< the LSN of the commit record
  Lsn end_lsn;        ///< the end of the commit record: where the next transaction starts
  int64_t commit_time = 0;
};

/// Origin ('O'): the transaction was replicated from another server.
struct OriginMessage {
  Lsn commit_lsn;  ///< the commit's LSN on the origin server
  std::string_view name;
};

/// `relreplident` of pg_class: which old values an update or delete carries.
enum class ReplicaIdentity : char {
  kDefault = 'd',  ///< the primary key's columns (none without a primary key)
  kNothing = 'n',  ///< no old values
  kFull = 'f',     ///< the whole old row
  kIndex = 'i',    ///< the columns of the index named by REPLICA IDENTITY USING INDEX
};

/// One column of a Relation message (generated columns are not sent).
struct RelationColumn {
  uint8_t flags = 0;  ///< bit 1: part of the replica identity key
  std::string_view name;
  uint32_t type_oid = 0;       ///< pg_type oid
  int32_t type_modifier = -1;  ///< atttypmod: -1 when the type has none
  bool is_key() const { return (flags & 1) != 0; }
};

/// Relation ('R'): the shape of a table, sent before its first row change in
/// a session and again whenever the table's definition changed.
struct RelationMessage {
  uint32_t xid = 0;  ///< the streamed transaction (v2, inside a stream); else 0
  uint32_t relation_id = 0;
  std::string_view namespace_name;  ///< the schema; "" for pg_catalog
  std::string_view name;
  ReplicaIdentity replica_identity = ReplicaIdentity::kDefault;
  std::span<const RelationColumn> columns;
};

/// Type ('Y'): a type a following Relation refers to that is not built in
/// (an enum, a domain, a composite...).
struct TypeMessage {
  uint32_t xid = 0;
  uint32_t type_oid = 0;
  std::string_view namespace_name;  ///< "" for pg_catalog
  std::string_view name;
};

/// One column of a tuple.
struct ColumnValue {
  enum class Kind : char {
    kNull = 'n',
    /// An unchanged TOASTed value: the server does not send it (an update
    /// that did not touch it). Never a null: the value is the row's old one.
    kUnchangedToast = 'u',
    kText = 't',    ///< the type's text output in `data`
    kBinary = 'b',  ///< the type's binary send format in `data` (`binary 'true'`)
  };
  Kind kind = Kind::kNull;
  std::string_view data;  ///< for kText and kBinary; empty otherwise
};

/// The columns of one row, in the order of the relation's columns.
struct TupleData {
  std::span<const ColumnValue> columns;
};

/// Insert ('I').
struct InsertMessage {
  uint32_t xid = 0;
  uint32_t relation_id = 0;
  TupleData new_tuple;
};

/// Which old values an Update or Delete carries.
enum class OldTupleKind : char {
  kNone = 0,   ///< none (an update under REPLICA IDENTITY DEFAULT whose key did not change)
  kKey = 'K',  ///< the replica identity key's columns; the others are null
  kOld = 'O',  ///< the whole old row (REPLICA IDENTITY FULL)
};

/// Update ('U').
struct UpdateMessage {
  uint32_t xid = 0;
  uint32_t relation_id = 0;
  OldTupleKind old_kind = OldTupleKind::kNone;
  TupleData old_tuple;  ///< empty when old_kind is kNone
  TupleData new_tuple;
};

/// Delete ('D'): always carries the key ('K') or the old row ('O').
struct DeleteMessage {
  uint32_t xid = 0;
  uint32_t relation_id = 0;
  OldTupleKind old_kind = OldTupleKind::kKey;
  TupleData old_tuple;
};

/// Truncate ('T'): one TRUNCATE statement, over one or more tables.
struct TruncateMessage {
  uint32_t xid = 0;
  uint8_t options = 0;  ///< bit 1: CASCADE, bit 2: RESTART IDENTITY
  std::span<const uint32_t> relation_ids;
  bool cascade() const { return (options & 1) != 0; }
  bool restart_identity() const { return (options & 2) != 0; }
};

/// Message ('M'): pg_logical_emit_message() (sent when `messages 'true'`).
struct LogicalMessage {
  uint32_t xid = 0;
  uint8_t flags = 0;  ///< bit 1: transactional
  Lsn lsn;
  std::string_view prefix;
  std::string_view content;
  bool transactional() const { return (flags & 1) != 0; }
};

/// Stream Start ('S', v2): the changes of transaction `xid` follow, until Stream Stop.
struct StreamStartMessage {
  uint32_t xid = 0;
  bool first_segment = false;  ///< the first block of this transaction
};

/// Stream Stop ('E', v2): the end of a block of streamed changes.
struct StreamStopMessage {};

/// Stream Commit ('c', v2): the streamed transaction `xid` committed.
struct StreamCommitMessage {
  uint32_t xid = 0;
  uint8_t flags = 0;  ///< unused, 0
  Lsn commit_lsn;
  Lsn end_lsn;
  int64_t commit_time = 0;
};

/// Stream Abort ('A', v2): the streamed (sub)transaction `subxid` of `xid`
/// rolled back; `subxid == xid` for the whole transaction.
struct StreamAbortMessage {
  uint32_t xid = 0;
  uint32_t subxid = 0;
};

using PgoutputMessage =
    std::variant<BeginMessage, CommitMessage, OriginMessage, RelationMessage, TypeMessage,
                 InsertMessage, UpdateMessage, DeleteMessage, TruncateMessage, LogicalMessage,
                 StreamStartMessage, StreamStopMessage, StreamCommitMessage, StreamAbortMessage>;

/// The message's name as the protocol documentation spells it ("Insert",
/// "Stream Start"...).
std::string_view PgoutputMessageName(const PgoutputMessage& message);

/// Decodes pgoutput messages one at a time, keeping the one piece of state
/// the format needs: whether a stream block (Stream Start .. Stream Stop) is
/// open, in which data messages start with the streamed transaction's xid.
class PgoutputDecoder {
 public:
  explicit PgoutputDecoder(PgoutputVersion version = PgoutputVersion::kV2) : version_(version) {}

  /// Decodes one message (the payload of one XLogData frame).
  /// Errors, all kCorruption:
  ///  - the message is empty, cut short, or has bytes after its last field;
  ///  - an unknown tag, an unknown tuple column kind or old-tuple marker, a
  ///    negative length, a count larger than the bytes could hold;
  ///  - a stream message under protocol v1, Stream Start inside a stream
  ///    block, Stream Stop outside one, Begin/Commit/Stream Commit/Stream
  ///    Abort inside one.
  /// The tags of protocol v3's two-phase commit messages are kNotSupported.
  /// After an error the decoder's stream state is unchanged.
  Result<PgoutputMessage> Decode(std::string_view bytes);

  /// Whether a stream block is open (after Stream Start, before Stream Stop).
  bool in_stream() const { return in_stream_; }
  /// The xid of the open stream block (0 when none).
  uint32_t stream_xid() const { return stream_xid_; }
  PgoutputVersion version() const { return version_; }

  /// Forgets the stream state (a new replication session).
  void Reset() {
    in_stream_ = false;
    stream_xid_ = 0;
  }

 private:
  PgoutputVersion version_;
  bool in_stream_ = false;
  uint32_t stream_xid_ = 0;
  // Reused between messages; the decoded message points into them.
  std::vector<RelationColumn> relation_columns_;
  std::vector<ColumnValue> old_columns_;
  std::vector<ColumnValue> new_columns_;
  std::vector<uint32_t> relation_ids_;
};

}  // namespace floe::cdc::postgres
