#include "floe/source/split_enumerator.h"

#include <algorithm>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

namespace floe::source {
namespace {

nlohmann::json OptionalId(const std::optional<iceberg::SnapshotId>& id) {
  return id ? nlohmann::json(*id) : nlohmann::json(nullptr);
}

Result<std::optional<iceberg::SnapshotId>> IdFromJson(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::optional<iceberg::SnapshotId>();
  if (!j[key].is_number_integer()) return Corruption("read state: '{}' is not a snapshot id", key);
  return std::optional<iceberg::SnapshotId>(j[key].get<int64_t>());
}

nlohmann::json AssignmentJson(const SplitAssignment& a) {
  nlohmann::json j;
  j["split"] = SplitToJson(a.split);
  j["position"] = a.position;
  return j;
}

Result<SplitAssignment> AssignmentFromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("split") || !j.contains("position") ||
      !j["position"].is_number_integer()) {
    return Corruption("read state: a split without its position");
  }
  SplitAssignment a;
  FLOE_ASSIGN_OR_RETURN(a.split, SplitFromJson(j["split"]));
  a.position = j["position"].get<int64_t>();
  return a;
}

nlohmann::json OriginJson(const std::optional<PlanOrigin>& origin) {
  if (!origin) return nullptr;
  return {{"whole", origin->whole}, {"snapshot", OptionalId(origin->snapshot)}};
}

Result<std::optional<PlanOrigin>> OriginFromJson(const nlohmann::json& m) {
  if (!m.contains("origin") || m["origin"].is_null()) return std::optional<PlanOrigin>();
  const nlohmann::json& o = m["origin"];
  if (!o.is_object() || !o.contains("whole") || !o["whole"].is_boolean()) {
    return Corruption("read state: 'origin' is not an object with 'whole'");
  }
  PlanOrigin origin;
  origin.whole = o["whole"].get<bool>();
  FLOE_ASSIGN_OR_RETURN(origin.snapshot, IdFromJson(o, "snapshot"));
  return std::optional<PlanOrigin>(origin);
}

}  // namespace

SplitEnumerator::SplitEnumerator(EnumeratorOptions options) : options_(std::move(options)) {
  snapshotted_.assign(static_cast<size_t>(std::max(1, options_.readers)), 0);
}

Status SplitEnumerator::Start(const std::vector<std::string>& restored) {
  std::unique_lock lock(mu_);
  if (!restored.empty()) {
    FLOE_RETURN_IF_ERROR(Restore(restored));
    // Schemas of the restored splits, and the next round at once.
    lock.unlock();
    FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata, options_.load());
    lock.lock();
    RememberSchemas(metadata);
    next_round_ = std::chrono::steady_clock::now();
    return Ok();
  }
  return PlanRoundLocked(lock, /*tolerate=*/false);
}

Status SplitEnumerator::Restore(const std::vector<std::string>& restored) {
  std::deque<SplitAssignment> current;
  std::optional<nlohmann::json> monitor;
  for (const std::string& text : restored) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return Corruption("read state: not a JSON object");
    if (j.contains("current") && !j["current"].is_null()) {
      FLOE_ASSIGN_OR_RETURN(SplitAssignment a, AssignmentFromJson(j["current"]));
      current.push_back(std::move(a));
    }
    if (j.contains("monitor")) {
      if (monitor) return Corruption("read state: two monitor states in one checkpoint");
      monitor = j["monitor"];
    }
  }
  if (!monitor || !monitor->is_object()) {
    return Corruption("read state: the checkpoint has no monitor state");
  }
  const nlohmann::json& m = *monitor;
  position_.started = m.value("started", false);
  position_.finished = m.value("finished", false);
  FLOE_ASSIGN_OR_RETURN(position_.last_planned, IdFromJson(m, "last"));
  FLOE_ASSIGN_OR_RETURN(position_.end, IdFromJson(m, "end"));
  FLOE_ASSIGN_OR_RETURN(position_.origin, OriginFromJson(m));
  queue_ = std::move(current);
  if (m.contains("pending")) {
    if (!m["pending"].is_array()) return Corruption("read state: pending is not a list");
    for (const auto& p : m["pending"]) {
      FLOE_ASSIGN_OR_RETURN(SplitAssignment a, AssignmentFromJson(p));
      queue_.push_back(std::move(a));
    }
  }
  return Ok();
}

std::shared_ptr<const iceberg::TableMetadata> SplitEnumerator::Metadata() const {
  std::lock_guard lock(mu_);
  return metadata_;
}

void SplitEnumerator::RememberSchemas(const iceberg::TableMetadata& metadata) {
  metadata_ = std::make_shared<const iceberg::TableMetadata>(metadata);
  for (const auto& s : metadata.schemas) {
    if (schemas_.count(s.schema_id()) == 0) {
      schemas_[s.schema_id()] = std::make_shared<const types::Schema>(s);
    }
  }
}

Status SplitEnumerator::PlanRoundLocked(std::unique_lock<std::mutex>& lock, bool tolerate) {
  planning_ = true;
  PlanPosition from = position_;
  lock.unlock();
  Result<PlanRound> round = [&]() -> Result<PlanRound> {
    FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata, options_.load());
    {
      std::lock_guard schemas(mu_);
      RememberSchemas(metadata);
    }
    return PlanNextRound(*options_.io, metadata, options_.table_name, options_.plan, from);
  }();
  lock.lock();
  planning_ = false;
  next_round_ = std::chrono::steady_clock::now() + options_.monitor_interval;
  if (!round) {
    Error error =
        std::move(round).error().WithContext("planning the read of " + options_.table_name);
    ++planning_failures_;
    const int max = options_.max_allowed_planning_failures;
    if (tolerate && (max < 0 || planning_failures_ <= max)) {
      spdlog::warn("{} (failed planning round {} in a row; retried in {} ms)", error.ToString(),
                   planning_failures_, options_.monitor_interval.count());
      return Ok();
    }
    failure_ = std::move(error);
    cv_.notify_all();
    return std::unexpected(*failure_);
  }
  planning_failures_ = 0;
  for (auto& split : round->splits) {
    queue_.push_back(SplitAssignment{std::move(split), 0});
    ++splits_planned_;
  }
  position_ = round->next;
  if (round->stopped_by) stopped_by_ = std::move(round->stopped_by);
  cv_.notify_all();
  return Ok();
}

void SplitEnumerator::SetReaders(int readers) {
  std::lock_guard lock(mu_);
  options_.readers = std::max(1, readers);
  snapshotted_.assign(static_cast<size_t>(options_.readers), 0);
}

size_t SplitEnumerator::pending_splits() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

Result<std::optional<SplitAssignment>> SplitEnumerator::Next(int reader, bool* finished) {
  *finished = false;
  std::unique_lock lock(mu_);
  if (failure_) return std::unexpected(*failure_);
  if (!planning_ && !position_.finished && !stopped_by_ &&
      std::chrono::steady_clock::now() >= next_round_) {
    FLOE_RETURN_IF_ERROR(PlanRoundLocked(lock, /*tolerate=*/true));
  }
  const size_t index = static_cast<size_t>(reader);
  const engine::CheckpointId slowest = *std::min_element(snapshotted_.begin(), snapshotted_.end());
  if (index < snapshotted_.size() && snapshotted_[index] > slowest) {
    return std::optional<SplitAssignment>();  // wait until every reader has snapshotted
  }
  if (!queue_.empty()) {
    SplitAssignment a = std::move(queue_.front());
    queue_.pop_front();
    ++in_flight_;
    return std::optional<SplitAssignment>(std::move(a));
  }
  if (stopped_by_) {
    // Every split before the refused snapshot is read: the readers end (and
    // the job with a final checkpoint); RunRead then reports stopped_by().
    *finished = in_flight_ == 0;
    return std::optional<SplitAssignment>();
  }
  *finished = position_.finished;
  return std::optional<SplitAssignment>();
}

void SplitEnumerator::Done(int reader) {
  std::lock_guard lock(mu_);
  --in_flight_;
  cv_.notify_all();
}

std::string SplitEnumerator::SnapshotState(int reader, engine::CheckpointId id,
                                           const std::optional<SplitAssignment>& current) {
  std::lock_guard lock(mu_);
  const size_t index = static_cast<size_t>(reader);
  const engine::CheckpointId before = *std::min_element(snapshotted_.begin(), snapshotted_.end());
  if (index < snapshotted_.size()) snapshotted_[index] = std::max(snapshotted_[index], id);
  const engine::CheckpointId after = *std::min_element(snapshotted_.begin(), snapshotted_.end());
  nlohmann::json j = nlohmann::json::object();
  j["current"] = current ? AssignmentJson(*current) : nlohmann::json(nullptr);
  if (before < id && after >= id) {
    nlohmann::json m;
    m["started"] = position_.started;
    m["finished"] = position_.finished;
    m["last"] = OptionalId(position_.last_planned);
    m["end"] = OptionalId(position_.end);
    m["origin"] = OriginJson(position_.origin);
    nlohmann::json pending = nlohmann::json::array();
    for (const auto& a : queue_) pending.push_back(AssignmentJson(a));
    m["pending"] = std::move(pending);
    j["monitor"] = std::move(m);
  }
  cv_.notify_all();  // readers held back by this checkpoint may go on
  return j.dump();
}

void SplitEnumerator::Wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  if (!position_.finished && next_round_ < deadline)
    deadline = std::max(next_round_, std::chrono::steady_clock::now());
  cv_.wait_until(lock, deadline);
}

std::shared_ptr<const types::Schema> SplitEnumerator::Schema(int32_t schema_id) const {
  std::lock_guard lock(mu_);
  auto it = schemas_.find(schema_id);
  return it == schemas_.end() ? nullptr : it->second;
}

PlanPosition SplitEnumerator::position() const {
  std::lock_guard lock(mu_);
  return position_;
}

std::optional<Error> SplitEnumerator::stopped_by() const {
  std::lock_guard lock(mu_);
  return stopped_by_;
}

int64_t SplitEnumerator::splits_planned() const {
  std::lock_guard lock(mu_);
  return splits_planned_;
}

}  // namespace floe::source
