#include "floe/engine/checkpoint_store.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include <nlohmann/json.hpp>

#include "floe/common/json_dump.h"

namespace floe::engine {
namespace {
constexpr std::string_view kPrefix = "checkpoint-";
constexpr std::string_view kSuffix = ".json";
}  // namespace

CheckpointStore::CheckpointStore(io::FileIO* file_io, std::string dir, int retain)
    : file_io_(file_io), dir_(std::move(dir)), retain_(std::max(1, retain)) {}

std::string CheckpointStore::PathOf(CheckpointId id) const {
  return fmt::format("{}/{}{:020d}{}", dir_, kPrefix, id, kSuffix);
}

std::string CheckpointStore::Serialize(const CompletedCheckpoint& c) {
  nlohmann::json j = {
      {"checkpoint-id", c.id}, {"timestamp-ms", c.timestamp_ms}, {"states", c.states}};
  return DumpJson(j, 2) + "\n";  // never throws on state that is not UTF-8
}

Result<CompletedCheckpoint> CheckpointStore::Parse(std::string_view text, std::string_view path) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Corruption("{}: not a JSON object", path);
  CompletedCheckpoint c;
  auto id = j.find("checkpoint-id");
  auto ts = j.find("timestamp-ms");
  auto states = j.find("states");
  if (id == j.end() || !id->is_number_integer())
    return Corruption("{}: missing checkpoint-id", path);
  if (ts == j.end() || !ts->is_number_integer())
    return Corruption("{}: missing timestamp-ms", path);
  if (id->is_number_unsigned() &&
      id->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Corruption("{}: checkpoint-id out of range", path);
  }
  if (ts->is_number_unsigned() &&
      ts->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Corruption("{}: timestamp-ms out of range", path);
  }
  if (states == j.end() || !states->is_object()) return Corruption("{}: missing states", path);
  c.id = id->get<int64_t>();
  c.timestamp_ms = ts->get<int64_t>();
  for (auto& [key, value] : states->items()) {
    if (!value.is_string()) return Corruption("{}: states.{} is not a string", path, key);
    c.states.emplace(key, value.get<std::string>());
  }
  return c;
}

Result<std::vector<CheckpointId>> CheckpointStore::ListIds() {
  FLOE_ASSIGN_OR_RETURN(auto entries, file_io_->List(dir_));
  std::vector<CheckpointId> ids;
  for (const auto& e : entries) {
    std::string_view name = e.path;
    name = name.substr(name.rfind('/') + 1);
    if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) continue;
    std::string_view digits =
        name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
    CheckpointId id;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (ec == std::errc() && p == digits.data() + digits.size()) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Status CheckpointStore::Save(const CompletedCheckpoint& checkpoint) {
  FLOE_RETURN_IF_ERROR(io::CreateDirectories(dir_));
  FLOE_RETURN_IF_ERROR_CTX(file_io_->WriteAtomically(PathOf(checkpoint.id), Serialize(checkpoint)),
                           "saving checkpoint {}", checkpoint.id);
  FLOE_ASSIGN_OR_RETURN(auto ids, ListIds());
  // Older checkpoints beyond `retain` are no longer needed for recovery.
  int keep = 0;
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    if (*it > checkpoint.id) continue;  // a newer one from a previous run: left alone
    if (++keep > retain_) FLOE_RETURN_IF_ERROR(file_io_->Delete(PathOf(*it)));
  }
  return Ok();
}

Result<std::optional<CompletedCheckpoint>> CheckpointStore::LoadLatest(std::string* warning) {
  FLOE_ASSIGN_OR_RETURN(auto ids, ListIds());
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    std::string path = PathOf(*it);
    auto text = file_io_->ReadAll(path);
    Result<CompletedCheckpoint> parsed =
        text ? Parse(*text, path) : Result<CompletedCheckpoint>(std::unexpected(text.error()));
    if (parsed) return std::optional<CompletedCheckpoint>(std::move(*parsed));
    if (warning) *warning += parsed.error().ToString() + "; ";
  }
  return std::optional<CompletedCheckpoint>();
}

}  // namespace floe::engine
