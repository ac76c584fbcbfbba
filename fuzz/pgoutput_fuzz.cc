// Fuzzes the pgoutput decoder (floe/cdc/postgres/pgoutput.h), the CopyData
// framing of the replication protocol and the LSN text form. The input's
// first byte picks the protocol version (bit 0: v2); the rest is a sequence
// of frames, each with a 2-byte big-endian length. Each frame is decoded as a
// pgoutput message by one decoder (so stream blocks span frames) and as a
// CopyData frame, whose XLogData payload goes to a second decoder.
//
// Nothing may crash or read outside the frame; errors are fine. A decoded
// message, written back field by field, must give the frame's bytes exactly
// (every byte read, each once, in order), and its views must lie in the
// frame. Seeds and crash regressions: tests/fuzz/pgoutput/.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "checks.h"
#include "floe/cdc/postgres/lsn.h"
#include "floe/cdc/postgres/pgoutput.h"
#include "floe/cdc/postgres/replication_protocol.h"

namespace {

using namespace floe::cdc::postgres;
using floe::fuzz::Check;

// Writes messages back in the wire format, to compare with the input.
class Writer {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U16(uint16_t v) { BigEndian(v, 2); }
  void U32(uint32_t v) { BigEndian(v, 4); }
  void U64(uint64_t v) { BigEndian(v, 8); }
  void Str(std::string_view s) {
    out_.append(s);
    out_.push_back('\0');
  }
  void Tuple(const TupleData& t) {
    U16(static_cast<uint16_t>(t.columns.size()));
    for (const ColumnValue& c : t.columns) {
      U8(static_cast<uint8_t>(c.kind));
      if (c.kind == ColumnValue::Kind::kText || c.kind == ColumnValue::Kind::kBinary) {
        U32(static_cast<uint32_t>(c.data.size()));
        out_.append(c.data);
      } else {
        Check(c.data.empty());
      }
    }
  }
  const std::string& bytes() const { return out_; }

  void Message(const PgoutputMessage& message, bool streamed) {
    auto xid = [&](uint32_t v) {
      if (streamed)
        U32(v);
      else
        Check(v == 0);
    };
    std::visit(
        [&](const auto& m) {
          using T = std::decay_t<decltype(m)>;
          if constexpr (std::is_same_v<T, BeginMessage>) {
            U8('B'), U64(m.final_lsn.value), U64(static_cast<uint64_t>(m.commit_time)), U32(m.xid);
          } else if constexpr (std::is_same_v<T, CommitMessage>) {
            U8('C'), U8(m.flags), U64(m.commit_lsn.value), U64(m.end_lsn.value);
            U64(static_cast<uint64_t>(m.commit_time));
          } else if constexpr (std::is_same_v<T, OriginMessage>) {
            U8('O'), U64(m.commit_lsn.value), Str(m.name);
          } else if constexpr (std::is_same_v<T, RelationMessage>) {
            U8('R'), xid(m.xid), U32(m.relation_id), Str(m.namespace_name), Str(m.name);
            U8(static_cast<uint8_t>(m.replica_identity));
            U16(static_cast<uint16_t>(m.columns.size()));
            for (const RelationColumn& c : m.columns) {
              U8(c.flags), Str(c.name), U32(c.type_oid),
                  U32(static_cast<uint32_t>(c.type_modifier));
            }
          } else if constexpr (std::is_same_v<T, TypeMessage>) {
            U8('Y'), xid(m.xid), U32(m.type_oid), Str(m.namespace_name), Str(m.name);
          } else if constexpr (std::is_same_v<T, InsertMessage>) {
            U8('I'), xid(m.xid), U32(m.relation_id), U8('N'), Tuple(m.new_tuple);
          } else if constexpr (std::is_same_v<T, UpdateMessage>) {
            U8('U'), xid(m.xid), U32(m.relation_id);
            if (m.old_kind != OldTupleKind::kNone) {
              U8(static_cast<uint8_t>(m.old_kind)), Tuple(m.old_tuple);
            } else {
              Check(m.old_tuple.columns.empty());
            }
            U8('N'), Tuple(m.new_tuple);
          } else if constexpr (std::is_same_v<T, DeleteMessage>) {
            Check(m.old_kind == OldTupleKind::kKey || m.old_kind == OldTupleKind::kOld);
            U8('D'), xid(m.xid), U32(m.relation_id), U8(static_cast<uint8_t>(m.old_kind));
            Tuple(m.old_tuple);
          } else if constexpr (std::is_same_v<T, TruncateMessage>) {
            U8('T'), xid(m.xid), U32(static_cast<uint32_t>(m.relation_ids.size())), U8(m.options);
            for (uint32_t id : m.relation_ids) U32(id);
          } else if constexpr (std::is_same_v<T, LogicalMessage>) {
            U8('M'), xid(m.xid), U8(m.flags), U64(m.lsn.value), Str(m.prefix);
            U32(static_cast<uint32_t>(m.content.size())), out_.append(m.content);
          } else if constexpr (std::is_same_v<T, StreamStartMessage>) {
            U8('S'), U32(m.xid), U8(m.first_segment ? 1 : 0);
          } else if constexpr (std::is_same_v<T, StreamStopMessage>) {
            U8('E');
          } else if constexpr (std::is_same_v<T, StreamCommitMessage>) {
            U8('c'), U32(m.xid), U8(m.flags), U64(m.commit_lsn.value), U64(m.end_lsn.value);
            U64(static_cast<uint64_t>(m.commit_time));
          } else if constexpr (std::is_same_v<T, StreamAbortMessage>) {
            U8('A'), U32(m.xid), U32(m.subxid);
          }
        },
        message);
  }

 private:
  void BigEndian(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  std::string out_;
};

bool Inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

void CheckViews(const PgoutputMessage& message, std::string_view bytes) {
  auto tuple = [&](const TupleData& t) {
    for (const ColumnValue& c : t.columns) Check(Inside(c.data, bytes));
  };
  if (auto* r = std::get_if<RelationMessage>(&message)) {
    Check(Inside(r->namespace_name, bytes) && Inside(r->name, bytes));
    for (const RelationColumn& c : r->columns) Check(Inside(c.name, bytes));
  } else if (auto* i = std::get_if<InsertMessage>(&message)) {
    tuple(i->new_tuple);
  } else if (auto* u = std::get_if<UpdateMessage>(&message)) {
    tuple(u->old_tuple), tuple(u->new_tuple);
  } else if (auto* d = std::get_if<DeleteMessage>(&message)) {
    tuple(d->old_tuple);
  } else if (auto* m = std::get_if<LogicalMessage>(&message)) {
    Check(Inside(m->prefix, bytes) && Inside(m->content, bytes));
  }
}

// Decodes `bytes` with `decoder`; a decoded message must write back to them.
void DecodeAndCheck(PgoutputDecoder& decoder, std::string_view bytes) {
  const bool was_in_stream = decoder.in_stream();
  const uint32_t was_xid = decoder.stream_xid();
  auto message = decoder.Decode(bytes);
  if (!message) {
    Check(decoder.in_stream() == was_in_stream && decoder.stream_xid() == was_xid);
    Check(!message.error().message().empty());
    return;
  }
  CheckViews(*message, bytes);
  Writer w;
  w.Message(*message, was_in_stream && !std::holds_alternative<OriginMessage>(*message) &&
                          !std::holds_alternative<StreamStopMessage>(*message));
  Check(w.bytes() == bytes);
  bool in_stream = was_in_stream;
  if (std::holds_alternative<StreamStartMessage>(*message)) in_stream = true;
  if (std::holds_alternative<StreamStopMessage>(*message)) in_stream = false;
  Check(decoder.in_stream() == in_stream);
}

void CheckLsnText(std::string_view text) {
  auto lsn = Lsn::Parse(text);
  if (!lsn) return;
  auto again = Lsn::Parse(lsn->ToString());
  Check(again && again->value == lsn->value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const PgoutputVersion version = (data[0] & 1) ? PgoutputVersion::kV2 : PgoutputVersion::kV1;
  PgoutputDecoder messages(version);
  PgoutputDecoder payloads(version);
  size_t off = 1;
  while (off + 2 <= size) {
    size_t len = (size_t{data[off]} << 8) | data[off + 1];
    off += 2;
    if (len > size - off) len = size - off;
    // A copy of its own, so that ASan sees any read past the frame.
    const std::string frame(input.substr(off, len));
    off += len;

    DecodeAndCheck(messages, frame);
    auto copy_data = DecodeReplicationMessage(frame);
    if (copy_data) {
      if (auto* x = std::get_if<XLogData>(&*copy_data)) {
        Check(Inside(x->data, frame) && x->data.size() + 25 == frame.size());
        DecodeAndCheck(payloads, x->data);
      } else {
        Check(frame.size() == 18);
      }
    }
    CheckLsnText(frame);
  }
  // Any 8 bytes as an LSN print and parse back.
  if (size >= 8) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i) v = (v << 8) | data[i];
    auto back = Lsn::Parse(Lsn{v}.ToString());
    Check(back && back->value == v);
  }
  return 0;
}
