#include "floe/cdc/postgres/pgoutput.h"

#include <fmt/format.h>

#include "floe/cdc/postgres/wire_reader.h"

namespace floe::cdc::postgres {
namespace {

using internal::WireReader;

// The smallest encoding of one column in a Relation message: flags, an empty
// name's NUL, the type oid and the type modifier.
constexpr size_t kMinRelationColumnBytes = 1 + 1 + 4 + 4;

// Decodes the fields of one message. `name` names the message in errors.
class MessageReader {
 public:
  MessageReader(std::string_view bytes, std::string_view name) : in_(bytes), name_(name) {}

  size_t remaining() const { return in_.remaining(); }

  std::unexpected<Error> Fail(std::string_view what) const {
    return Corruption("pgoutput {} message: {} (at byte {} of {})", name_, what, in_.offset() + 1,
                      in_.offset() + 1 + in_.remaining());
  }
  std::unexpected<Error> Short(std::string_view field) const {
    return Fail(fmt::format("cut short in its {}", field));
  }

  Status U8(uint8_t* v, std::string_view field) {
    if (!in_.U8(v)) return Short(field);
    return Ok();
  }
  Status U16(uint16_t* v, std::string_view field) {
    if (!in_.U16(v)) return Short(field);
    return Ok();
  }
  Status U32(uint32_t* v, std::string_view field) {
    if (!in_.U32(v)) return Short(field);
    return Ok();
  }
  Status I32(int32_t* v, std::string_view field) {
    if (!in_.I32(v)) return Short(field);
    return Ok();
  }
  Status I64(int64_t* v, std::string_view field) {
    if (!in_.I64(v)) return Short(field);
    return Ok();
  }
  Status LsnField(Lsn* v, std::string_view field) {
    if (!in_.U64(&v->value)) return Short(field);
    return Ok();
  }
  Status String(std::string_view* v, std::string_view field) {
    if (!in_.CString(v)) return Fail(fmt::format("its {} has no terminating NUL", field));
    return Ok();
  }
  Status Bytes(size_t n, std::string_view* v, std::string_view field) {
    if (!in_.Bytes(n, v)) {
      return Fail(fmt::format("its {} of {} bytes goes beyond the {} bytes left", field, n,
                              in_.remaining()));
    }
    return Ok();
  }
  Status End() {
    if (!in_.at_end()) return Fail(fmt::format("{} bytes after its last field", in_.remaining()));
    return Ok();
  }

  // TupleData: Int16 column count, then per column a kind byte and, for 't'
  // and 'b', an Int32 length and the bytes.
  Status Tuple(std::vector<ColumnValue>* out, TupleData* tuple, std::string_view which) {
    uint16_t count = 0;
    FLOE_RETURN_IF_ERROR(U16(&count, fmt::format("{} tuple's column count", which)));
    if (count > in_.remaining()) {
      return Fail(fmt::format("its {} tuple counts {} columns but only {} bytes are left", which,
                              count, in_.remaining()));
    }
    out->clear();
    out->reserve(count);
    for (uint16_t i = 0; i < count; ++i) {
      uint8_t kind = 0;
      if (!in_.U8(&kind)) return Short(fmt::format("{} tuple's column {}", which, i + 1));
      ColumnValue value;
      switch (kind) {
        case 'n':
          value.kind = ColumnValue::Kind::kNull;
          break;
        case 'u':
          value.kind = ColumnValue::Kind::kUnchangedToast;
          break;
        case 't':
        case 'b': {
          value.kind = kind == 't' ? ColumnValue::Kind::kText : ColumnValue::Kind::kBinary;
          int32_t length = 0;
          if (!in_.I32(&length)) {
            return Short(fmt::format("{} tuple's column {} length", which, i + 1));
          }
          if (length < 0) {
            return Fail(
                fmt::format("its {} tuple's column {} has length {}", which, i + 1, length));
          }
          FLOE_RETURN_IF_ERROR(Bytes(static_cast<size_t>(length), &value.data,
                                     fmt::format("{} tuple's column {} value", which, i + 1)));
          break;
        }
        default:
          return Fail(fmt::format("its {} tuple's column {} has the unknown kind byte 0x{:02x}",
                                  which, i + 1, kind));
      }
      out->push_back(value);
    }
    tuple->columns = *out;
    return Ok();
  }

 private:
  WireReader in_;
  std::string_view name_;
};

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
  if (bytes.empty()) return Corruption("pgoutput message: empty (no tag byte)");
  const uint8_t tag = static_cast<uint8_t>(bytes[0]);
  const std::string_view name = TagName(tag);
  if (name.empty()) {
    return Corruption("pgoutput message: unknown tag 0x{:02x} ({} bytes)", tag, bytes.size());
  }
  MessageReader in(bytes.substr(1), name);
  const bool v2 = version_ == PgoutputVersion::kV2;

  // Data messages inside a stream block start with the streamed transaction's xid.
  auto stream_xid = [&](uint32_t* xid) -> Status {
    *xid = 0;
    if (!in_stream_) return Ok();
    FLOE_RETURN_IF_ERROR(in.U32(xid, "streamed transaction's xid"));
    return Ok();
  };
  auto not_in_stream = [&]() -> Status {
    if (in_stream_) {
      return in.Fail(fmt::format("inside the stream block of transaction {}", stream_xid_));
    }
    return Ok();
  };
  auto needs_v2 = [&]() -> Status {
    if (!v2) return in.Fail("sent under protocol version 1, which has no streaming");
    return Ok();
  };

  switch (tag) {
    case 'B': {
      BeginMessage m;
      FLOE_RETURN_IF_ERROR(not_in_stream());
      FLOE_RETURN_IF_ERROR(in.LsnField(&m.final_lsn, "final LSN"));
      FLOE_RETURN_IF_ERROR(in.I64(&m.commit_time, "commit time"));
      FLOE_RETURN_IF_ERROR(in.U32(&m.xid, "xid"));
      FLOE_RETURN_IF_ERROR(in.End());
      return m;
    }
    case 'C': {
      CommitMessage m;
      FLOE_RETURN_IF_ERROR(not_in_stream());
      FLOE_RETURN_IF_ERROR(in.U8(&m.flags, "flags"));
      FLOE_RETURN_IF_ERROR(in.LsnField(&m.commit_lsn, "commit LSN"));
      FLOE_RETURN_IF_ERROR(in.LsnField(&m.end_lsn, "end LSN"));
      FLOE_RETURN_IF_ERROR(in.I64(&m.commit_time, "commit time"));
      FLOE_RETURN_IF_ERROR(in.End());
      return m;
    }
    case 'O': {
      OriginMessage m;
      FLOE_RETURN_IF_ERROR(in.LsnField(&m.commit_lsn, "commit LSN"));
      FLOE_RETURN_IF_ERROR(in.String(&m.name, "origin name"));
      FLOE_RETURN_IF_ERROR(in.End());
      return m;
    }
    case 'R': {
      RelationMessage m;
      FLOE_RETURN_IF_ERROR(stream_xid(&m.xid));
      FLOE_RETURN_IF_ERROR(in.U32(&m.relation_id, "relation id"));
      FLOE_RETURN_IF_ERROR(in.String(&m.namespace_name, "namespace"));
      FLOE_RETURN_IF_ERROR(in.String(&m.name, "relation name"));
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
      relation_columns_.clear();
      relation_columns_.reserve(count);
      for (uint16_t i = 0; i < count; ++i) {
        RelationColumn c;
        const std::string field = fmt::format("column {}", i + 1);
        FLOE_RETURN_IF_ERROR(in.U8(&c.flags, field + " flags"));
        FLOE_RETURN_IF_ERROR(in.String(&c.name, field + " name"));
        FLOE_RETURN_IF_ERROR(in.U32(&c.type_oid, field + " type oid"));
        FLOE_RETURN_IF_ERROR(in.I32(&c.type_modifier, field + " type modifier"));
        relation_columns_.push_back(c);
      }
      FLOE_RETURN_IF_ERROR(in.End());
      m.columns = relation_columns_;
      return m;
    }
    case 'Y': {
      TypeMessage m;
      FLOE_RETURN_IF_ERROR(stream_xid(&m.xid));
      FLOE_RETURN_IF_ERROR(in.U32(&m.type_oid, "type oid"));
      FLOE_RETURN_IF_ERROR(in.String(&m.namespace_name, "namespace"));
      FLOE_RETURN_IF_ERROR(in.String(&m.name, "type name"));
      FLOE_RETURN_IF_ERROR(in.End());
      return m;
    }
    case 'I': {
      InsertMessage m;
      FLOE_RETURN_IF_ERROR(stream_xid(&m.xid));
      FLOE_RETURN_IF_ERROR(in.U32(&m.relation_id, "relation id"));
      uint8_t marker = 0;
      FLOE_RETURN_IF_ERROR(in.U8(&marker, "new tuple marker"));
      if (marker != 'N') {
        return in.Fail(fmt::format("0x{:02x} where the new tuple marker 'N' belongs", marker));
      }
      FLOE_RETURN_IF_ERROR(in.Tuple(&new_columns_, &m.new_tuple, "new"));
      FLOE_RETURN_IF_ERROR(in.End());
      return m;
    }
    case 'U': {
      UpdateMessage m;
      FLOE_RETURN_IF_ERROR(stream_xid(&m.xid));
      FLOE_RETURN_IF_ERROR(in.U32(&m.relation_id, "relation id"));
      uint8_t marker = 0;
      FLOE_RETURN_IF_ERROR(in.U8(&marker, "tuple marker"));
      if (marker == 'K' || marker == 'O') {
        m.old_kind = static_cast<OldTupleKind>(marker);
        FLOE_RETURN_IF_ERROR(in.Tuple(&old_columns_, &m.old_tuple, marker == 'K' ? "key" : "old"));
        FLOE_RETURN_IF_ERROR(in.U8(&marker, "new tuple marker"));
      }
      if (marker != 'N') {
        return in.Fail(
            fmt::format("0x{:02x} where a tuple marker ('K', 'O' or 'N') belongs", marker));
      }
      FLOE_RETURN_IF_ERROR(in.Tuple(&new_columns_, &m.new_tuple, "new"));
      FLOE_RETURN_IF_ERROR(in.End());
      return m;
    }
    case 'D': {
      DeleteMessage m;
      FLOE_RETURN_IF_ERROR(stream_xid(&m.xid));
      FLOE_RETURN_IF_ERROR(in.U32(&m.relation_id, "relation id"));
      uint8_t marker = 0;
      FLOE_RETURN_IF_ERROR(in.U8(&marker, "old tuple marker"));
      if (marker != 'K' && marker != 'O') {
        return in.Fail(
            fmt::format("0x{:02x} where the old tuple marker ('K' or 'O') belongs", marker));
      }
      m.old_kind = static_cast<OldTupleKind>(marker);
      FLOE_RETURN_IF_ERROR(in.Tuple(&old_columns_, &m.old_tuple, marker == 'K' ? "key" : "old"));
      FLOE_RETURN_IF_ERROR(in.End());
      return m;
    }
    case 'T': {
      TruncateMessage m;
      FLOE_RETURN_IF_ERROR(stream_xid(&m.xid));
      uint32_t count = 0;
      FLOE_RETURN_IF_ERROR(in.U32(&count, "relation count"));
      FLOE_RETURN_IF_ERROR(in.U8(&m.options, "options"));
      if (count > in.remaining() / 4) {
        return in.Fail(fmt::format("it counts {} relations but only {} bytes are left", count,
                                   in.remaining()));
      }
      relation_ids_.clear();
      relation_ids_.reserve(count);
      for (uint32_t i = 0; i < count; ++i) {
        uint32_t id = 0;
        FLOE_RETURN_IF_ERROR(in.U32(&id, "relation id"));
        relation_ids_.push_back(id);
      }
      FLOE_RETURN_IF_ERROR(in.End());
      m.relation_ids = relation_ids_;
      return m;
    }
    case 'M': {
      LogicalMessage m;
      FLOE_RETURN_IF_ERROR(stream_xid(&m.xid));
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
    case 'S': {
      StreamStartMessage m;
      FLOE_RETURN_IF_ERROR(needs_v2());
      FLOE_RETURN_IF_ERROR(not_in_stream());
      FLOE_RETURN_IF_ERROR(in.U32(&m.xid, "xid"));
      uint8_t first = 0;
      FLOE_RETURN_IF_ERROR(in.U8(&first, "first segment flag"));
      if (first > 1) return in.Fail(fmt::format("its first segment flag is {}", first));
      m.first_segment = first == 1;
      FLOE_RETURN_IF_ERROR(in.End());
      in_stream_ = true;
      stream_xid_ = m.xid;
      return m;
    }
    case 'E': {
      FLOE_RETURN_IF_ERROR(needs_v2());
      if (!in_stream_) return in.Fail("outside a stream block");
      FLOE_RETURN_IF_ERROR(in.End());
      Reset();
      return StreamStopMessage{};
    }
    case 'c': {
      StreamCommitMessage m;
      FLOE_RETURN_IF_ERROR(needs_v2());
      FLOE_RETURN_IF_ERROR(not_in_stream());
      FLOE_RETURN_IF_ERROR(in.U32(&m.xid, "xid"));
      FLOE_RETURN_IF_ERROR(in.U8(&m.flags, "flags"));
      FLOE_RETURN_IF_ERROR(in.LsnField(&m.commit_lsn, "commit LSN"));
      FLOE_RETURN_IF_ERROR(in.LsnField(&m.end_lsn, "end LSN"));
      FLOE_RETURN_IF_ERROR(in.I64(&m.commit_time, "commit time"));
      FLOE_RETURN_IF_ERROR(in.End());
      return m;
    }
    case 'A': {
      StreamAbortMessage m;
      FLOE_RETURN_IF_ERROR(needs_v2());
      FLOE_RETURN_IF_ERROR(not_in_stream());
      FLOE_RETURN_IF_ERROR(in.U32(&m.xid, "xid"));
      FLOE_RETURN_IF_ERROR(in.U32(&m.subxid, "subtransaction xid"));
      FLOE_RETURN_IF_ERROR(in.End());
      return m;
    }
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
