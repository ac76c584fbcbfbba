#pragma once
/// What a row change of a pgoutput stream can get wrong, as both assemblers
/// (capture.h, change_stream.h) report it: each error names the table, the
/// column and the LSN. The checks are inline; the errors are built out of
/// line.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "floe/cdc/postgres/lsn.h"
#include "floe/cdc/postgres/pgoutput.h"
#include "floe/common/result.h"

namespace floe::cdc::postgres {

/// kCorruption: `what` (a message name) at `lsn` refers to relation
/// `relation_id`, which no Relation message described.
std::unexpected<Error> UnknownRelation(std::string_view what, Lsn lsn, uint32_t relation_id);

/// The relation `relation_id` of `relations`, or UnknownRelation.
template <typename Relation>
Result<const Relation*> FindRelation(const std::unordered_map<uint32_t, Relation>& relations,
                                     uint32_t relation_id, std::string_view what, Lsn lsn) {
  auto it = relations.find(relation_id);
  if (it == relations.end()) return UnknownRelation(what, lsn, relation_id);
  return &it->second;
}

/// kCorruption: a row of schema.table at `lsn` has `columns` columns where
/// its Relation message has `width`.
std::unexpected<Error> RowWidthMismatch(std::string_view schema, std::string_view table, Lsn lsn,
                                        size_t columns, size_t width);

/// Ok when `tuple` and `old` (when not null) have `width` columns each;
/// RowWidthMismatch otherwise.
inline Status CheckRowWidth(std::string_view schema, std::string_view table, Lsn lsn,
                            const TupleData& tuple, const TupleData* old, size_t width) {
  if (tuple.columns.size() != width || (old && old->columns.size() != width)) {
    return RowWidthMismatch(schema, table, lsn, tuple.columns.size(), width);
  }
  return Ok();
}

/// kNotSupported: an update left a TOASTed value of `column` unchanged and
/// the replica identity sent no old row to take it from (advising REPLICA
/// IDENTITY FULL).
std::unexpected<Error> UnchangedToastWithoutOldRow(std::string_view schema, std::string_view table,
                                                   std::string_view column, Lsn lsn);

/// kInvalidArgument: the text of `column` is not a value of its type (`why`).
std::unexpected<Error> UnreadableValue(std::string_view schema, std::string_view table,
                                       std::string_view column, Lsn lsn, const Error& why);

/// kNotSupported: `column` came in the binary format, which is not read.
std::unexpected<Error> BinaryValue(std::string_view schema, std::string_view table,
                                   std::string_view column, Lsn lsn);

}  // namespace floe::cdc::postgres
