#include "floe/cdc/postgres/pgoutput.h"

#include <fmt/format.h>

#include "floe/cdc/postgres/pgoutput_reader.h"

namespace floe::cdc::postgres {
namespace internal {
namespace {

// The smallest encoding of one column in a Relation message: flags, an empty
// name's NUL, the type oid and the type modifier.
constexpr size_t kMinRelationColumnBytes = 1 + 1 + 4 + 4;

// Commit and Stream Commit: flags, commit LSN, end LSN, commit time.
template <typename M>
Status ReadCommitFields(MessageReader& in, M* m) {
  FLOE_RETURN_IF_ERROR(in.U8(&m->flags, "flags"));
  FLOE_RETURN_IF_ERROR(in.LsnField(&m->commit_lsn, "commit LSN"));
  FLOE_RETURN_IF_ERROR(in.LsnField(&m->end_lsn, "end LSN"));
  FLOE_RETURN_IF_ERROR(in.I64(&m->commit_time, "commit time"));
  return Ok();
}

// Relation and Type: an oid, then the namespace and the name as strings.
template <typename M>
Status ReadQualifiedObject(MessageReader& in, uint32_t* oid, std::string_view oid_field, M* m,
                           std::string_view name_field) {
  FLOE_RETURN_IF_ERROR(in.U32(oid, oid_field));
  FLOE_RETURN_IF_ERROR(in.String(&m->namespace_name, "namespace"));
  FLOE_RETURN_IF_ERROR(in.String(&m->name, name_field));
  return Ok();
}

// Insert, Update and Delete: the relation id and the first tuple marker.
Status ReadRowHeader(MessageReader& in, uint32_t* relation_id, uint8_t* marker,
                     std::string_view marker_field) {
  FLOE_RETURN_IF_ERROR(in.U32(relation_id, "relation id"));
  FLOE_RETURN_IF_ERROR(in.U8(marker, marker_field));
  return Ok();
}

// The old tuple of an Update or Delete after its marker, 'K' or 'O'.
template <typename M>
Status ReadOldTuple(MessageReader& in, uint8_t marker, M* m, std::vector<ColumnValue>* columns) {
  m->old_kind = static_cast<OldTupleKind>(marker);
  return in.Tuple(columns, &m->old_tuple, marker == 'K' ? "key" : "old");
}

// One column of a Relation message.
Status ReadRelationColumn(MessageReader& in, uint16_t index, RelationColumn* c) {
  const std::string field = fmt::format("column {}", index + 1);
  FLOE_RETURN_IF_ERROR(in.U8(&c->flags, field + " flags"));
  FLOE_RETURN_IF_ERROR(in.String(&c->name, field + " name"));
  FLOE_RETURN_IF_ERROR(in.U32(&c->type_oid, field + " type oid"));
  FLOE_RETURN_IF_ERROR(in.I32(&c->type_modifier, field + " type modifier"));
  return Ok();
}

}  // namespace

Status MessageReader::TupleColumn(ColumnValue* value, uint16_t index, std::string_view which) {
  uint8_t kind = 0;
  if (!in_.U8(&kind)) return Short(fmt::format("{} tuple's column {}", which, index + 1));
  switch (kind) {
    case 'n':
      value->kind = ColumnValue::Kind::kNull;
      return Ok();
    case 'u':
      value->kind = ColumnValue::Kind::kUnchangedToast;
      return Ok();
    case 't':
    case 'b': {
      value->kind = kind == 't' ? ColumnValue::Kind::kText : ColumnValue::Kind::kBinary;
      int32_t length = 0;
      if (!in_.I32(&length)) {
        return Short(fmt::format("{} tuple's column {} length", which, index + 1));
      }
      if (length < 0) {
        return Fail(
            fmt::format("its {} tuple's column {} has length {}", which, index + 1, length));
      }
      if (!in_.Bytes(static_cast<size_t>(length), &value->data)) {
        return TooLong(static_cast<size_t>(length),
                       fmt::format("{} tuple's column {} value", which, index + 1));
      }
      return Ok();
    }
    default:
      return Fail(fmt::format("its {} tuple's column {} has the unknown kind byte 0x{:02x}", which,
                              index + 1, kind));
  }
}

Status MessageReader::Tuple(std::vector<ColumnValue>* out, TupleData* tuple,
                            std::string_view which) {
  uint16_t count = 0;
  FLOE_RETURN_IF_ERROR(U16(&count, fmt::format("{} tuple's column count", which)));
  if (count > in_.remaining()) {
    return Fail(fmt::format("its {} tuple counts {} columns but only {} bytes are left", which,
                            count, in_.remaining()));
  }
  out->clear();
  out->reserve(count);
  for (uint16_t i = 0; i < count; ++i) {
    ColumnValue value;
    FLOE_RETURN_IF_ERROR(TupleColumn(&value, i, which));
    out->push_back(value);
  }
  tuple->columns = *out;
  return Ok();
}

Result<BeginMessage> ReadBegin(MessageReader& in) {
  BeginMessage m;
  FLOE_RETURN_IF_ERROR(in.LsnField(&m.final_lsn, "final LSN"));
  FLOE_RETURN_IF_ERROR(in.I64(&m.commit_time, "commit time"));
  FLOE_RETURN_IF_ERROR(in.U32(&m.xid, "xid"));
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

Result<CommitMessage> ReadCommit(MessageReader& in) {
  CommitMessage m;
  FLOE_RETURN_IF_ERROR(ReadCommitFields(in, &m));
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

Result<OriginMessage> ReadOrigin(MessageReader& in) {
  OriginMessage m;
  FLOE_RETURN_IF_ERROR(in.LsnField(&m.commit_lsn, "commit LSN"));
  FLOE_RETURN_IF_ERROR(in.String(&m.name, "origin name"));
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

Result<RelationMessage> ReadRelation(MessageReader& in, uint32_t xid,
                                     std::vector<RelationColumn>* columns) {
  RelationMessage m;
  m.xid = xid;
  FLOE_RETURN_IF_ERROR(ReadQualifiedObject(in, &m.relation_id, "relation id", &m, "relation name"));
  uint8_t identity = 0;
  FLOE_RETURN_IF_ERROR(in.U8(&identity, "replica identity"));
  switch (identity) {
    case 'd':
    case 'n':
    case 'f':
    case 'i':
      m.replica_identity = static_cast<ReplicaIdentity>(identity);
      break;
    default:
      return in.Fail(fmt::format("relation {} has the unknown replica identity 0x{:02x}",
                                 m.relation_id, identity));
  }
  uint16_t count = 0;
  FLOE_RETURN_IF_ERROR(in.U16(&count, "column count"));
  if (count > in.remaining() / kMinRelationColumnBytes) {
    return in.Fail(
        fmt::format("it counts {} columns but only {} bytes are left", count, in.remaining()));
  }
  columns->clear();
  columns->reserve(count);
  for (uint16_t i = 0; i < count; ++i) {
    RelationColumn c;
    FLOE_RETURN_IF_ERROR(ReadRelationColumn(in, i, &c));
    columns->push_back(c);
  }
  FLOE_RETURN_IF_ERROR(in.End());
  m.columns = *columns;
  return m;
}

Result<TypeMessage> ReadType(MessageReader& in, uint32_t xid) {
  TypeMessage m;
  m.xid = xid;
  FLOE_RETURN_IF_ERROR(ReadQualifiedObject(in, &m.type_oid, "type oid", &m, "type name"));
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

Result<InsertMessage> ReadInsert(MessageReader& in, uint32_t xid,
                                 std::vector<ColumnValue>* new_columns) {
  InsertMessage m;
  m.xid = xid;
  uint8_t marker = 0;
  FLOE_RETURN_IF_ERROR(ReadRowHeader(in, &m.relation_id, &marker, "new tuple marker"));
  if (marker != 'N') {
    return in.Fail(fmt::format("0x{:02x} where the new tuple marker 'N' belongs", marker));
  }
  FLOE_RETURN_IF_ERROR(in.Tuple(new_columns, &m.new_tuple, "new"));
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

Result<UpdateMessage> ReadUpdate(MessageReader& in, uint32_t xid,
                                 std::vector<ColumnValue>* old_columns,
                                 std::vector<ColumnValue>* new_columns) {
  UpdateMessage m;
  m.xid = xid;
  uint8_t marker = 0;
  FLOE_RETURN_IF_ERROR(ReadRowHeader(in, &m.relation_id, &marker, "tuple marker"));
  if (marker == 'K' || marker == 'O') {
    FLOE_RETURN_IF_ERROR(ReadOldTuple(in, marker, &m, old_columns));
    FLOE_RETURN_IF_ERROR(in.U8(&marker, "new tuple marker"));
  }
  if (marker != 'N') {
    return in.Fail(fmt::format("0x{:02x} where a tuple marker ('K', 'O' or 'N') belongs", marker));
  }
  FLOE_RETURN_IF_ERROR(in.Tuple(new_columns, &m.new_tuple, "new"));
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

Result<DeleteMessage> ReadDelete(MessageReader& in, uint32_t xid,
                                 std::vector<ColumnValue>* old_columns) {
  DeleteMessage m;
  m.xid = xid;
  uint8_t marker = 0;
  FLOE_RETURN_IF_ERROR(ReadRowHeader(in, &m.relation_id, &marker, "old tuple marker"));
  if (marker != 'K' && marker != 'O') {
    return in.Fail(fmt::format("0x{:02x} where the old tuple marker ('K' or 'O') belongs", marker));
  }
  FLOE_RETURN_IF_ERROR(ReadOldTuple(in, marker, &m, old_columns));
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

Result<TruncateMessage> ReadTruncate(MessageReader& in, uint32_t xid,
                                     std::vector<uint32_t>* relation_ids) {
  TruncateMessage m;
  m.xid = xid;
  uint32_t count = 0;
  FLOE_RETURN_IF_ERROR(in.U32(&count, "relation count"));
  FLOE_RETURN_IF_ERROR(in.U8(&m.options, "options"));
  if (count > in.remaining() / 4) {
    return in.Fail(
        fmt::format("it counts {} relations but only {} bytes are left", count, in.remaining()));
  }
  relation_ids->clear();
  relation_ids->reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t id = 0;
    FLOE_RETURN_IF_ERROR(in.U32(&id, "relation id"));
    relation_ids->push_back(id);
  }
  FLOE_RETURN_IF_ERROR(in.End());
  m.relation_ids = *relation_ids;
  return m;
}

Result<LogicalMessage> ReadLogicalMessage(MessageReader& in, uint32_t xid) {
  LogicalMessage m;
  m.xid = xid;
  FLOE_RETURN_IF_ERROR(in.U8(&m.flags, "flags"));
  FLOE_RETURN_IF_ERROR(in.LsnField(&m.lsn, "LSN"));
  FLOE_RETURN_IF_ERROR(in.String(&m.prefix, "prefix"));
  int32_t length = 0;
  FLOE_RETURN_IF_ERROR(in.I32(&length, "content length"));
  if (length < 0) return in.Fail(fmt::format("its content length is {}", length));
  FLOE_RETURN_IF_ERROR(in.Bytes(static_cast<size_t>(length), &m.content, "content"));
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

Result<StreamStartMessage> ReadStreamStart(MessageReader& in) {
  StreamStartMessage m;
  FLOE_RETURN_IF_ERROR(in.U32(&m.xid, "xid"));
  uint8_t first = 0;
  FLOE_RETURN_IF_ERROR(in.U8(&first, "first segment flag"));
  if (first > 1) return in.Fail(fmt::format("its first segment flag is {}", first));
  m.first_segment = first == 1;
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

Result<StreamCommitMessage> ReadStreamCommit(MessageReader& in) {
  StreamCommitMessage m;
  FLOE_RETURN_IF_ERROR(in.U32(&m.xid, "xid"));
  FLOE_RETURN_IF_ERROR(ReadCommitFields(in, &m));
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

Result<StreamAbortMessage> ReadStreamAbort(MessageReader& in) {
  StreamAbortMessage m;
  FLOE_RETURN_IF_ERROR(in.U32(&m.xid, "xid"));
  FLOE_RETURN_IF_ERROR(in.U32(&m.subxid, "subtransaction xid"));
  FLOE_RETURN_IF_ERROR(in.End());
  return m;
}

}  // namespace internal

namespace {

using internal::MessageReader;

std::string_view TagName(uint8_t tag) {
  switch (tag) {
    case 'B':
      return "Begin";
    case 'C':
      return "Commit";
    case 'O':
      return "Origin";
    case 'R':
      return "Relation";
    case 'Y':
      return "Type";
    case 'I':
      return "Insert";
    case 'U':
      return "Update";
    case 'D':
      return "Delete";
    case 'T':
      return "Truncate";
    case 'M':
      return "Message";
    case 'S':
      return "Stream Start";
    case 'E':
      return "Stream Stop";
    case 'c':
      return "Stream Commit";
    case 'A':
      return "Stream Abort";
    case 'b':
      return "Begin Prepare";
    case 'P':
      return "Prepare";
    case 'K':
      return "Commit Prepared";
    case 'r':
      return "Rollback Prepared";
    case 'p':
      return "Stream Prepare";
    default:
      return {};
  }
}

// Data messages: inside a stream block they start with the streamed
// transaction's xid.
bool IsDataMessage(uint8_t tag) {
  switch (tag) {
    case 'R':
    case 'Y':
    case 'I':
    case 'U':
    case 'D':
    case 'T':
    case 'M':
      return true;
    default:
      return false;
  }
}

// Where a message may come: the stream messages only under protocol v2;
// Stream Stop only inside a stream block; Begin, Commit and the other
// stream messages only outside one.
Status CheckPlace(uint8_t tag, PgoutputVersion version, bool in_stream, uint32_t stream_xid,
                  const MessageReader& in) {
  switch (tag) {
    case 'S':
    case 'E':
    case 'c':
    case 'A':
      if (version != PgoutputVersion::kV2) {
        return in.Fail("sent under protocol version 1, which has no streaming");
      }
      if (tag == 'E') {
        if (!in_stream) return in.Fail("outside a stream block");
        return Ok();
      }
      [[fallthrough]];
    case 'B':
    case 'C':
      if (in_stream) {
        return in.Fail(fmt::format("inside the stream block of transaction {}", stream_xid));
      }
      return Ok();
    default:
      return Ok();
  }
}

template <typename T>
Result<PgoutputMessage> AsMessage(Result<T>&& r) {
  if (!r) return std::unexpected(std::move(r).error());
  return PgoutputMessage(std::in_place_type<T>, std::move(*r));
}

}  // namespace

std::string_view PgoutputMessageName(const PgoutputMessage& message) {
  static constexpr std::string_view kNames[] = {
      "Begin",        "Commit",      "Origin",        "Relation",    "Type",
      "Insert",       "Update",      "Delete",        "Truncate",    "Message",
      "Stream Start", "Stream Stop", "Stream Commit", "Stream Abort"};
  static_assert(std::size(kNames) == std::variant_size_v<PgoutputMessage>);
  return kNames[message.index()];
}

Result<PgoutputMessage> PgoutputDecoder::Decode(std::string_view bytes) {
  using namespace internal;
  if (bytes.empty()) return Corruption("pgoutput message: empty (no tag byte)");
  const uint8_t tag = static_cast<uint8_t>(bytes[0]);
  const std::string_view name = TagName(tag);
  if (name.empty()) {
    return Corruption("pgoutput message: unknown tag 0x{:02x} ({} bytes)", tag, bytes.size());
  }
  MessageReader in(bytes.substr(1), name);
  FLOE_RETURN_IF_ERROR(CheckPlace(tag, version_, in_stream_, stream_xid_, in));
  uint32_t xid = 0;
  if (in_stream_ && IsDataMessage(tag)) {
    FLOE_RETURN_IF_ERROR(in.U32(&xid, "streamed transaction's xid"));
  }
  switch (tag) {
    case 'B':
      return AsMessage(ReadBegin(in));
    case 'C':
      return AsMessage(ReadCommit(in));
    case 'O':
      return AsMessage(ReadOrigin(in));
    case 'R':
      return AsMessage(ReadRelation(in, xid, &relation_columns_));
    case 'Y':
      return AsMessage(ReadType(in, xid));
    case 'I':
      return AsMessage(ReadInsert(in, xid, &new_columns_));
    case 'U':
      return AsMessage(ReadUpdate(in, xid, &old_columns_, &new_columns_));
    case 'D':
      return AsMessage(ReadDelete(in, xid, &old_columns_));
    case 'T':
      return AsMessage(ReadTruncate(in, xid, &relation_ids_));
    case 'M':
      return AsMessage(ReadLogicalMessage(in, xid));
    case 'S': {
      auto m = ReadStreamStart(in);
      if (m) {
        in_stream_ = true;
        stream_xid_ = m->xid;
      }
      return AsMessage(std::move(m));
    }
    case 'E':
      FLOE_RETURN_IF_ERROR(in.End());
      Reset();
      return StreamStopMessage{};
    case 'c':
      return AsMessage(ReadStreamCommit(in));
    case 'A':
      return AsMessage(ReadStreamAbort(in));
    default:
      // Protocol v3's two-phase commit messages: only sent when asked for
      // (`two_phase 'on'`), which floe does not do.
      return NotSupported(
          "pgoutput {} message (tag '{}'): two-phase commit decoding (protocol version 3) is not "
          "supported; create the slot without two_phase",
          name, static_cast<char>(tag));
  }
}

}  // namespace floe::cdc::postgres
