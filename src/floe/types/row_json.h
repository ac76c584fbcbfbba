#pragma once
/// Rows as JSON, with floe's conventions (docs/json-rows.md), used by every
/// command that prints or reads rows:
///   numbers as JSON numbers (NaN/Infinity/-Infinity as strings), decimals as
///   strings, binary and fixed as base64, uuid as canonical text, dates and
///   times as ISO text, struct as object, list as array, map as an array of
///   {"key":...,"value":...}, null as null; on input a missing field is null.

#include <memory>
#include <string>
#include <string_view>

#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::types {

/// Appends one row as a JSON object (no newline) to `*out`.
void AppendRowJson(const Schema& schema, Row row, std::string* out);
/// Appends one value of `type` as JSON.
void AppendValueJson(const Type& type, const Value& value, std::string* out);

/// Parses JSON objects (one per call) into rows of a schema. Strings and
/// children are allocated in the arena passed to Parse; the returned row is
/// valid until that arena is reset. Reuse one parser for many lines: it keeps
/// its buffers, so steady state allocates nothing outside the arena, and it
/// learns the order of the members (it compares each member name with the
/// one that followed the previous member in the last object first, so rows
/// that repeat their key order cost one comparison per member; any order is
/// accepted). One pass over the text (row_json_parse.cc). Not thread-safe.
class JsonRowParser {
 public:
  explicit JsonRowParser(const Schema& schema);
  ~JsonRowParser();
  JsonRowParser(const JsonRowParser&) = delete;
  JsonRowParser& operator=(const JsonRowParser&) = delete;

  /// Parses one JSON object. Errors are kInvalidArgument naming the field path
  /// and the problem: "field 'a.b': expected long, got string", "field 'id'
  /// is required but missing", "invalid JSON: ... at offset 12". Unknown
  /// members are checked to be valid JSON and ignored; a member that appears
  /// twice keeps its last value; a missing member is null. Strings must be
  /// UTF-8 without raw control characters.
  Result<Row> Parse(std::string_view json, Arena* arena);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::types
