#include "floe/cdc/postgres/row_errors.h"

namespace floe::cdc::postgres {

std::unexpected<Error> UnknownRelation(std::string_view what, Lsn lsn, uint32_t relation_id) {
  return Corruption("{} at {} refers to relation {}, which no Relation message described", what,
                    lsn.ToString(), relation_id);
}

std::unexpected<Error> RowWidthMismatch(std::string_view schema, std::string_view table, Lsn lsn,
                                        size_t columns, size_t width) {
  return Corruption("a row of {}.{} at {} has {} columns; its Relation message has {}", schema,
                    table, lsn.ToString(), columns, width);
}

std::unexpected<Error> UnchangedToastWithoutOldRow(std::string_view schema, std::string_view table,
                                                   std::string_view column, Lsn lsn) {
  return NotSupported(
      "{}.{} column {} at {}: an update left this TOASTed value unchanged, so the server did not "
      "send it, and the table's replica identity does not send the old row to take it from; run "
      "ALTER TABLE {}.{} REPLICA IDENTITY FULL",
      schema, table, column, lsn.ToString(), schema, table);
}

std::unexpected<Error> UnreadableValue(std::string_view schema, std::string_view table,
                                       std::string_view column, Lsn lsn, const Error& why) {
  return InvalidArgument("{}.{} column {} at {}: {}", schema, table, column, lsn.ToString(),
                         why.message());
}

std::unexpected<Error> BinaryValue(std::string_view schema, std::string_view table,
                                   std::string_view column, Lsn lsn) {
  return NotSupported("{}.{} column {} at {}: binary-format values are not read", schema, table,
                      column, lsn.ToString());
}

}  // namespace floe::cdc::postgres
