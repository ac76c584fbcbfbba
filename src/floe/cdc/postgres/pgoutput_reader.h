#pragma once
/// Internal to floe::cdc::postgres: the steps of the pgoutput decoder
/// (pgoutput.h). `MessageReader` reads the fields of one message and words
/// its errors; `Read<Message>` reads one message type's fields, from the
/// byte after its tag (and, for a data message inside a stream block, after
/// the streamed transaction's xid, which the caller reads and passes in) to
/// the message's end. `PgoutputDecoder::Decode` checks where a message may
/// come (stream blocks) and dispatches on the tag; tests call the steps on
/// hand-built bytes.

#include <fmt/format.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "floe/cdc/postgres/pgoutput.h"
#include "floe/cdc/postgres/wire_reader.h"
#include "floe/common/result.h"

namespace floe::cdc::postgres::internal {

/// Decodes the fields of one message. `name` names the message in errors,
/// which are kCorruption giving the byte offset counted from the tag.
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

  Status U8(uint8_t* v, std::string_view field) { return Read(in_.U8(v), field); }
  Status U16(uint16_t* v, std::string_view field) { return Read(in_.U16(v), field); }
  Status U32(uint32_t* v, std::string_view field) { return Read(in_.U32(v), field); }
  Status I32(int32_t* v, std::string_view field) { return Read(in_.I32(v), field); }
  Status I64(int64_t* v, std::string_view field) { return Read(in_.I64(v), field); }
  Status LsnField(Lsn* v, std::string_view field) { return Read(in_.U64(&v->value), field); }
  Status String(std::string_view* v, std::string_view field) {
    if (!in_.CString(v)) return Fail(fmt::format("its {} has no terminating NUL", field));
    return Ok();
  }
  Status Bytes(size_t n, std::string_view* v, std::string_view field) {
    if (!in_.Bytes(n, v)) return TooLong(n, field);
    return Ok();
  }
  std::unexpected<Error> TooLong(size_t n, std::string_view field) const {
    return Fail(
        fmt::format("its {} of {} bytes goes beyond the {} bytes left", field, n, in_.remaining()));
  }
  Status End() {
    if (!in_.at_end()) return Fail(fmt::format("{} bytes after its last field", in_.remaining()));
    return Ok();
  }

  /// TupleData: Int16 column count, then per column a kind byte and, for
  /// 't' and 'b', an Int32 length and the bytes. `which` ("new", "old",
  /// "key") names the tuple in errors. The columns go to `*out` (reused),
  /// which `tuple` then spans.
  Status Tuple(std::vector<ColumnValue>* out, TupleData* tuple, std::string_view which);

 private:
  /// Ok if the fixed-size read of `field` was `done`, else Short(field).
  Status Read(bool done, std::string_view field) const {
    if (!done) return Short(field);
    return Ok();
  }
  /// One column of a tuple (`index` from 0).
  Status TupleColumn(ColumnValue* value, uint16_t index, std::string_view which);

  WireReader in_;
  std::string_view name_;
};

Result<BeginMessage> ReadBegin(MessageReader& in);
Result<CommitMessage> ReadCommit(MessageReader& in);
Result<OriginMessage> ReadOrigin(MessageReader& in);
/// `columns`: reused, the message's columns span it.
Result<RelationMessage> ReadRelation(MessageReader& in, uint32_t xid,
                                     std::vector<RelationColumn>* columns);
Result<TypeMessage> ReadType(MessageReader& in, uint32_t xid);
Result<InsertMessage> ReadInsert(MessageReader& in, uint32_t xid,
                                 std::vector<ColumnValue>* new_columns);
Result<UpdateMessage> ReadUpdate(MessageReader& in, uint32_t xid,
                                 std::vector<ColumnValue>* old_columns,
                                 std::vector<ColumnValue>* new_columns);
Result<DeleteMessage> ReadDelete(MessageReader& in, uint32_t xid,
                                 std::vector<ColumnValue>* old_columns);
Result<TruncateMessage> ReadTruncate(MessageReader& in, uint32_t xid,
                                     std::vector<uint32_t>* relation_ids);
Result<LogicalMessage> ReadLogicalMessage(MessageReader& in, uint32_t xid);
Result<StreamStartMessage> ReadStreamStart(MessageReader& in);
Result<StreamCommitMessage> ReadStreamCommit(MessageReader& in);
Result<StreamAbortMessage> ReadStreamAbort(MessageReader& in);

}  // namespace floe::cdc::postgres::internal
