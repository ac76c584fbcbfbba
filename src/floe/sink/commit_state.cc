#include "floe/sink/commit_state.h"

#include <limits>

#include <nlohmann/json.hpp>

#include "floe/common/json_dump.h"

namespace floe::sink {
namespace {

using nlohmann::json;

constexpr int kFormat = 1;

json IdJson(const iceberg::TableIdentifier& id) {
  return {{"namespace", id.ns}, {"name", id.name}};
}

std::string_view ContentName(iceberg::ManifestContent content) {
  return content == iceberg::ManifestContent::kData ? "data" : "deletes";
}

/// Reads members with type checks; the first problem is kept in `error`.
class Reader {
 public:
  explicit Reader(std::string_view what) : what_(what) {}

  template <typename T>
  bool Get(const json& object, const char* key, T* out, std::string_view where) {
    if (!object.is_object()) return Fail(where, "is not an object");
    auto it = object.find(key);
    if (it == object.end()) return Fail(where, fmt::format("has no member '{}'", key));
    if constexpr (std::is_same_v<T, std::string>) {
      if (!it->is_string()) return Fail(where, fmt::format("'{}' is not a string", key));
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!it->is_boolean()) return Fail(where, fmt::format("'{}' is not a boolean", key));
    } else if constexpr (std::is_integral_v<T>) {
      if (!it->is_number_integer()) return Fail(where, fmt::format("'{}' is not an integer", key));
      // nlohmann keeps integers as int64 or uint64; refuse what does not fit T.
      bool fits =
          it->is_number_unsigned()
              ? it->get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max())
              : it->get<int64_t>() >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                    (std::is_unsigned_v<T> ||
                     it->get<int64_t>() <= static_cast<int64_t>(std::numeric_limits<T>::max()));
      if (!fits) return Fail(where, fmt::format("'{}' is out of range", key));
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      if (!it->is_array()) return Fail(where, fmt::format("'{}' is not an array", key));
      for (const auto& e : *it) {
        if (!e.is_string()) return Fail(where, fmt::format("'{}' holds a non-string", key));
      }
    }
    *out = it->get<T>();
    return true;
  }
  const json* Array(const json& object, const char* key, std::string_view where) {
    if (!object.is_object()) {
      Fail(where, "is not an object");
      return nullptr;
    }
    auto it = object.find(key);
    if (it == object.end() || !it->is_array()) {
      Fail(where, fmt::format("'{}' is missing or not an array", key));
      return nullptr;
    }
    return &*it;
  }
  bool Id(const json& object, iceberg::TableIdentifier* id, std::string_view where) {
    return Get(object, "namespace", &id->ns, where) && Get(object, "name", &id->name, where);
  }
  bool Fail(std::string_view where, std::string_view problem) {
    if (!error_) {
      error_ = Error(ErrorCode::kCorruption,
                     fmt::format("committer state of {}: {} {}", what_, where, problem));
    }
    return false;
  }
  std::optional<Error>& error() { return error_; }

 private:
  std::string_view what_;
  std::optional<Error> error_;
};

}  // namespace

std::string SerializeCommitState(const CommitState& state) {
  json pending = json::array();
  for (const auto& [id, checkpoint] : state.pending) {
    json tables = json::array();
    for (const auto& [key, table] : checkpoint.tables) {
      json manifests = json::array();
      for (const StagedManifest& m : table.manifests) {
        manifests.push_back({{"path", m.path},
                             {"length", m.length},
                             {"spec-id", m.spec_id},
                             {"content", ContentName(m.content)},
                             {"files", m.files},
                             {"records", m.records}});
      }
      json t = IdJson(table.id);
      t["manifests"] = std::move(manifests);
      t["referenced-data-files"] = table.referenced_data_files;
      t["data-files"] = table.data_files;
      t["delete-files"] = table.delete_files;
      t["records"] = table.records;
      t["deleted-records"] = table.deleted_records;
      t["overwrite"] = table.overwrite;
      if (table.truncated) t["truncated"] = true;
      tables.push_back(std::move(t));
    }
    pending.push_back({{"checkpoint-id", id},
                       {"source-position", checkpoint.source_position},
                       {"tables", std::move(tables)}});
  }
  json known = json::array();
  for (const auto& [key, table] : state.known_tables) {
    json t = IdJson(table.id);
    t["empty-checkpoints"] = table.empty_checkpoints;
    known.push_back(std::move(t));
  }
  json j = {
      {"format", kFormat}, {"pending", std::move(pending)}, {"known-tables", std::move(known)}};
  return DumpJson(j);  // never throws on a name that is not UTF-8
}

Result<CommitState> ParseCommitState(std::string_view text, std::string_view what) {
  CommitState state;
  if (text.empty()) return state;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Corruption("committer state of {}: not valid JSON", what);
  Reader r(what);
  int format = 0;
  if (!r.Get(j, "format", &format, "the state")) return std::unexpected(*r.error());
  if (format != kFormat) {
    return Corruption("committer state of {}: format {} is not known (expected {})", what, format,
                      kFormat);
  }
  const json* pending = r.Array(j, "pending", "the state");
  if (pending == nullptr) return std::unexpected(*r.error());
  for (const json& p : *pending) {
    PendingCheckpoint checkpoint;
    if (!r.Get(p, "checkpoint-id", &checkpoint.id, "a pending checkpoint") ||
        !r.Get(p, "source-position", &checkpoint.source_position, "a pending checkpoint")) {
      return std::unexpected(*r.error());
    }
    std::string where = fmt::format("pending checkpoint {}", checkpoint.id);
    const json* tables = r.Array(p, "tables", where);
    if (tables == nullptr) return std::unexpected(*r.error());
    for (const json& t : *tables) {
      StagedTable table;
      if (!r.Id(t, &table.id, where)) return std::unexpected(*r.error());
      std::string twhere = fmt::format("{}, table {}", where, table.id.ToString());
      if (!r.Get(t, "referenced-data-files", &table.referenced_data_files, twhere) ||
          !r.Get(t, "data-files", &table.data_files, twhere) ||
          !r.Get(t, "delete-files", &table.delete_files, twhere) ||
          !r.Get(t, "records", &table.records, twhere) ||
          !r.Get(t, "deleted-records", &table.deleted_records, twhere) ||
          !r.Get(t, "overwrite", &table.overwrite, twhere) ||
          (t.contains("truncated") && !r.Get(t, "truncated", &table.truncated, twhere))) {
        return std::unexpected(*r.error());
      }
      const json* manifests = r.Array(t, "manifests", twhere);
      if (manifests == nullptr) return std::unexpected(*r.error());
      for (const json& m : *manifests) {
        StagedManifest staged;
        std::string content;
        if (!r.Get(m, "path", &staged.path, twhere) ||
            !r.Get(m, "length", &staged.length, twhere) ||
            !r.Get(m, "spec-id", &staged.spec_id, twhere) ||
            !r.Get(m, "content", &content, twhere) || !r.Get(m, "files", &staged.files, twhere) ||
            !r.Get(m, "records", &staged.records, twhere)) {
          return std::unexpected(*r.error());
        }
        if (content == "data") {
          staged.content = iceberg::ManifestContent::kData;
        } else if (content == "deletes") {
          staged.content = iceberg::ManifestContent::kDeletes;
        } else {
          return Corruption("committer state of {}: {}: manifest content '{}' is not data/deletes",
                            what, twhere, content);
        }
        table.manifests.push_back(std::move(staged));
      }
      std::string key = table.id.ToString();
      if (!checkpoint.tables.emplace(key, std::move(table)).second) {
        return Corruption("committer state of {}: {} lists table {} twice", what, where, key);
      }
    }
    engine::CheckpointId id = checkpoint.id;
    if (!state.pending.emplace(id, std::move(checkpoint)).second) {
      return Corruption("committer state of {}: checkpoint {} is listed twice", what, id);
    }
  }
  const json* known = r.Array(j, "known-tables", "the state");
  if (known == nullptr) return std::unexpected(*r.error());
  for (const json& k : *known) {
    KnownTable table;
    if (!r.Id(k, &table.id, "a known table") ||
        !r.Get(k, "empty-checkpoints", &table.empty_checkpoints, "a known table")) {
      return std::unexpected(*r.error());
    }
    state.known_tables[table.id.ToString()] = std::move(table);
  }
  return state;
}

Result<CommitState> MergeCommitStates(const std::vector<std::string>& states,
                                      const std::function<bool(const std::string&)>& keep) {
  CommitState merged;
  for (size_t i = 0; i < states.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(CommitState state,
                          ParseCommitState(states[i], fmt::format("subtask state {}", i)));
    for (auto& [id, checkpoint] : state.pending) {
      for (auto& [key, table] : checkpoint.tables) {
        if (!keep(key)) continue;
        PendingCheckpoint& into = merged.pending[id];
        into.id = id;
        if (into.source_position.empty()) into.source_position = checkpoint.source_position;
        into.tables.emplace(key, std::move(table));
      }
    }
    for (auto& [key, table] : state.known_tables) {
      if (!keep(key)) continue;
      auto [it, inserted] = merged.known_tables.emplace(key, table);
      if (!inserted) {
        it->second.empty_checkpoints =
            std::max(it->second.empty_checkpoints, table.empty_checkpoints);
      }
    }
  }
  return merged;
}

}  // namespace floe::sink
