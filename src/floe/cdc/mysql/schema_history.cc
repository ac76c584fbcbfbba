#include "floe/cdc/mysql/schema_history.h"

#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "floe/cdc/mysql/table_schema_json.h"

namespace floe::cdc::mysql {
namespace {

/// The whole file; a missing file is empty (and *missing is set) when
/// `missing` is given, else kNotFound.
Result<std::string> ReadWholeFile(io::FileIO& file_io, const std::string& path, bool* missing) {
  auto data = file_io.ReadAll(path);
  if (!data) {
    if (data.error().code() == ErrorCode::kNotFound && missing != nullptr) {
      *missing = true;
      return std::string();
    }
    return std::unexpected(std::move(data).error().WithContext("schema history " + path));
  }
  return std::move(*data);
}

Result<SchemaHistoryRecord> ParseRecord(std::string_view line, const std::string& path,
                                        size_t line_no) {
  auto fail = [&](std::string_view what) {
    return Corruption("schema history {} line {}: {}", path, line_no, what);
  };
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return fail("not a JSON object");
  SchemaHistoryRecord r;
  if (!j.contains("pos")) return fail("missing pos");
  auto pos = SourcePosition::FromJson(j["pos"]);
  if (!pos) return fail(pos.error().message());
  r.position = std::move(*pos);
  if (!j.contains("db") || !j["db"].is_string() || !j.contains("table") ||
      !j["table"].is_string()) {
    return fail("missing db or table");
  }
  r.db = j["db"].get<std::string>();
  r.table = j["table"].get<std::string>();
  if (j.contains("ddl") && j["ddl"].is_string()) r.ddl = j["ddl"].get<std::string>();
  if (j.contains("schema") && !j["schema"].is_null()) {
    auto schema = TableSchemaFromJson(j["schema"]);
    if (!schema) return fail("schema." + schema.error().message());
    r.schema = std::move(*schema);
  }
  return r;
}

// Parses complete lines; sets *complete_size to the byte size of the
// complete-line prefix (a torn tail is not part of it).
Result<std::vector<SchemaHistoryRecord>> ParseAll(const std::string& data, const std::string& path,
                                                  size_t* complete_size) {
  std::vector<SchemaHistoryRecord> out;
  size_t start = 0;
  size_t line_no = 0;
  while (start < data.size()) {
    size_t nl = data.find('\n', start);
    if (nl == std::string::npos) break;  // torn last line
    ++line_no;
    std::string_view line(data.data() + start, nl - start);
    if (!line.empty()) {
      FLOE_ASSIGN_OR_RETURN(SchemaHistoryRecord r, ParseRecord(line, path, line_no));
      out.push_back(std::move(r));
    }
    start = nl + 1;
  }
  if (complete_size != nullptr) *complete_size = start;
  return out;
}

}  // namespace

Result<std::vector<SchemaHistoryRecord>> ReadSchemaHistory(io::FileIO& file_io,
                                                           const std::string& path) {
  bool missing = false;
  FLOE_ASSIGN_OR_RETURN(std::string data, ReadWholeFile(file_io, path, &missing));
  if (missing) return NotFound("schema history {}: no such file", path);
  return ParseAll(data, path, nullptr);
}

Result<SchemaHistory> SchemaHistory::Open(io::FileIO& file_io, std::string path) {
  bool missing = false;
  FLOE_ASSIGN_OR_RETURN(std::string data, ReadWholeFile(file_io, path, &missing));
  size_t complete = 0;
  FLOE_ASSIGN_OR_RETURN(auto records, ParseAll(data, path, &complete));
  (void)records;
  auto file = file_io.OpenAppend(path);
  if (!file) return std::unexpected(std::move(file).error().WithContext("schema history " + path));
  if (complete < (*file)->size()) {
    Status cut = (*file)->Truncate(complete);
    if (cut) cut = (*file)->Sync();
    FLOE_RETURN_IF_ERROR_CTX(cut, "schema history {}: cutting off a torn last line", path);
  }
  return SchemaHistory(file_io, std::move(path), std::move(*file));
}

Status SchemaHistory::Append(const std::vector<SchemaHistoryRecord>& records) {
  if (!file_) return InvalidArgument("schema history {}: not open", path_);
  if (torn_) {
    return IoError("schema history {}: a failed append left a torn line; reopen the history",
                   path_);
  }
  std::string out;
  for (const auto& r : records) {
    nlohmann::json j = nlohmann::json::object();
    j["pos"] = r.position.ToJson();
    j["db"] = r.db;
    j["table"] = r.table;
    j["schema"] = r.schema ? TableSchemaToJson(*r.schema) : nlohmann::json(nullptr);
    if (!r.ddl.empty()) j["ddl"] = r.ddl;
    // Replacement of invalid UTF-8 keeps a bad DDL byte from failing the write.
    out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  }
  uint64_t before = file_->size();
  Status written = file_->Append(out);
  if (written) written = file_->Sync();
  if (!written) {
    // Cut the records of this call off, so that a later Append does not
    // follow a torn line.
    if (!file_->Truncate(before)) torn_ = true;
    return std::unexpected(std::move(written).error().WithContext("schema history " + path_));
  }
  return Ok();
}

Result<std::vector<SchemaHistoryRecord>> SchemaHistory::ReadAll() const {
  FLOE_ASSIGN_OR_RETURN(std::string data, ReadWholeFile(*file_io_, path_, nullptr));
  return ParseAll(data, path_, nullptr);
}

Result<std::vector<TableSchema>> SchemaHistory::LoadAsOf(const SourcePosition& position) const {
  FLOE_ASSIGN_OR_RETURN(auto records, ReadAll());
  std::map<std::pair<std::string, std::string>, std::optional<TableSchema>> state;
  for (const auto& r : records) {
    auto cmp = ComparePositions(r.position, position);
    if (!cmp) {
      return InvalidArgument(
          "schema history {}: the record for {}.{} at {} cannot be ordered against {}", path_, r.db,
          r.table, r.position.ToJsonString(), position.ToJsonString());
    }
    if (*cmp > 0) continue;  // after the position
    state[{r.db, r.table}] = r.schema;
  }
  std::vector<TableSchema> out;
  for (auto& [key, schema] : state) {
    if (schema) out.push_back(std::move(*schema));
  }
  return out;
}

}  // namespace floe::cdc::mysql
