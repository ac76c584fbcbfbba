#include "floe/testing/fault_file_io.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace floe::testing {
namespace {

std::string ReadLocal(const std::string& path) {
  std::ifstream in(std::string(io::LocalPath(path)), std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class FaultyOutputFile final : public io::OutputFile {
 public:
  FaultyOutputFile(FaultyFileIO* io, std::unique_ptr<io::OutputFile> base)
      : io_(io), base_(std::move(base)) {}
  const std::string& path() const override { return base_->path(); }
  Status Write(std::span<const uint8_t> bytes) override {
    FLOE_RETURN_IF_ERROR(io_->Change("write", path()));
    if (io_->CountTornWrite(path())) {
      FLOE_RETURN_IF_ERROR(base_->Write(bytes.first(bytes.size() / 2)));
      io_->Wrote(path(), synced_);
      return io_->Crash(fmt::format("in the middle of writing {}", path()));
    }
    FLOE_RETURN_IF_ERROR(base_->Write(bytes));
    io_->Wrote(path(), synced_);
    return Ok();
  }
  uint64_t position() const override { return base_->position(); }
  Status Sync() override {
    FLOE_RETURN_IF_ERROR(io_->Change("sync", path()));
    FLOE_RETURN_IF_ERROR(base_->Sync());
    synced_ = static_cast<int64_t>(base_->position());
    io_->Synced(path(), synced_);
    return Ok();
  }
  Status Close() override {
    if (closed_) return Ok();
    FLOE_RETURN_IF_ERROR(io_->Change("close", path()));
    closed_ = true;
    FLOE_RETURN_IF_ERROR(base_->Close());
    if (synced_ == static_cast<int64_t>(base_->position())) io_->FullySynced(path());
    if (io_->CountClose(path())) return io_->Crash(fmt::format("after writing {}", path()));
    return Ok();
  }

 private:
  FaultyFileIO* io_;
  std::unique_ptr<io::OutputFile> base_;
  int64_t synced_ = -1;
  bool closed_ = false;
};

class FaultyAppendFile final : public io::AppendFile {
 public:
  FaultyAppendFile(FaultyFileIO* io, std::unique_ptr<io::AppendFile> base)
      : io_(io), base_(std::move(base)) {}
  const std::string& path() const override { return base_->path(); }
  uint64_t size() const override { return base_->size(); }
  Status Append(std::span<const uint8_t> bytes) override {
    FLOE_RETURN_IF_ERROR(io_->Change("append", path()));
    if (io_->CountTornWrite(path())) {
      FLOE_RETURN_IF_ERROR(base_->Append(bytes.first(bytes.size() / 2)));
      return io_->Crash(fmt::format("in the middle of appending to {}", path()));
    }
    return base_->Append(bytes);
  }
  Status Truncate(uint64_t length) override {
    FLOE_RETURN_IF_ERROR(io_->Change(fmt::format("truncate to {}", length), path()));
    return base_->Truncate(length);
  }
  Status Sync() override {
    FLOE_RETURN_IF_ERROR(io_->Change("sync", path()));
    FLOE_RETURN_IF_ERROR(base_->Sync());
    io_->AppendSynced(path());
    return Ok();
  }
  Status Close() override { return base_->Close(); }

 private:
  FaultyFileIO* io_;
  std::unique_ptr<io::AppendFile> base_;
};

}  // namespace

Status FaultState::CheckAlive(std::string_view what) const {
  if (crashed.load()) return IoError("injected crash: the process is dead ({})", what);
  return Ok();
}

FaultyFileIO::FaultyFileIO(std::shared_ptr<FaultState> state) : state_(std::move(state)) {}

void FaultyFileIO::Arm(FaultRule rule) {
  std::lock_guard lock(mu_);
  rule_ = std::move(rule);
  seen_ = 0;
}

void FaultyFileIO::Disarm() {
  std::lock_guard lock(mu_);
  rule_.reset();
}

void FaultyFileIO::Restart() {
  Disarm();
  state_->crashed = false;
}

std::vector<std::string> FaultyFileIO::change_log() const {
  std::lock_guard lock(mu_);
  return change_log_;
}

int FaultyFileIO::LoseUnsyncedWrites() {
  std::lock_guard lock(mu_);
  int touched = 0;
  for (const auto& [path, synced] : unsynced_) {
    std::error_code ec;
    if (synced < 0) {
      std::filesystem::remove(std::string(io::LocalPath(path)), ec);
    } else {
      std::filesystem::resize_file(std::string(io::LocalPath(path)), static_cast<uintmax_t>(synced),
                                   ec);
    }
    ++touched;
  }
  unsynced_.clear();
  for (const auto& [path, durable] : append_durable_) {
    if (ReadLocal(path) == durable) continue;
    std::ofstream out(std::string(io::LocalPath(path)), std::ios::binary | std::ios::trunc);
    out << durable;
    ++touched;
  }
  return touched;
}

Status FaultyFileIO::Change(std::string_view what, std::string_view path) {
  FLOE_RETURN_IF_ERROR(state_->CheckAlive(path));
  ++changes_;
  bool fire = false;
  {
    std::lock_guard lock(mu_);
    change_log_.push_back(fmt::format("{} {}", what, path));
    fire = Count(FaultStep::kCall, path);
  }
  if (fire) return Crash(fmt::format("at {} {}", what, path));
  return Ok();
}

Result<std::unique_ptr<io::InputFile>> FaultyFileIO::OpenInput(std::string_view path) {
  FLOE_RETURN_IF_ERROR(state_->CheckAlive(path));
  return base_.OpenInput(path);
}

Result<std::unique_ptr<io::OutputFile>> FaultyFileIO::CreateOutput(std::string_view path,
                                                                   bool overwrite) {
  FLOE_RETURN_IF_ERROR(Change("create", path));
  {
    std::lock_guard lock(mu_);
    if (Count(FaultStep::kBeforeCreate, path)) {
      return Crash(fmt::format("before creating {}", path));
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto file, base_.CreateOutput(path, overwrite));
  {
    std::lock_guard lock(mu_);
    unsynced_[std::string(path)] = -1;  // the new directory entry is not durable yet
    append_durable_.erase(std::string(path));
  }
  return std::unique_ptr<io::OutputFile>(std::make_unique<FaultyOutputFile>(this, std::move(file)));
}

Result<std::unique_ptr<io::AppendFile>> FaultyFileIO::OpenAppend(std::string_view path) {
  FLOE_RETURN_IF_ERROR(Change("open for append", path));
  FLOE_ASSIGN_OR_RETURN(auto file, base_.OpenAppend(path));
  {
    std::lock_guard lock(mu_);
    // What is there at open is taken as durable (LocalFileIO made the name
    // of a new file durable).
    append_durable_.try_emplace(std::string(path), ReadLocal(std::string(path)));
  }
  return std::unique_ptr<io::AppendFile>(std::make_unique<FaultyAppendFile>(this, std::move(file)));
}

Status FaultyFileIO::Delete(std::string_view path) {
  FLOE_RETURN_IF_ERROR(Change("delete", path));
  {
    std::lock_guard lock(mu_);
    unsynced_.erase(std::string(path));
    append_durable_.erase(std::string(path));
  }
  return base_.Delete(path);
}

Result<bool> FaultyFileIO::Exists(std::string_view path) {
  FLOE_RETURN_IF_ERROR(state_->CheckAlive(path));
  return base_.Exists(path);
}

Status FaultyFileIO::Rename(std::string_view from, std::string_view to, bool replace) {
  FLOE_RETURN_IF_ERROR(Change(fmt::format("rename {} to", from), to));
  FLOE_RETURN_IF_ERROR(base_.Rename(from, to, replace));
  bool fire = false;
  {
    std::lock_guard lock(mu_);
    auto it = unsynced_.find(std::string(from));
    if (it != unsynced_.end()) {
      unsynced_[std::string(to)] = it->second;
      unsynced_.erase(it);
    }
    auto durable = append_durable_.find(std::string(from));
    if (durable != append_durable_.end()) {
      append_durable_[std::string(to)] = std::move(durable->second);
      append_durable_.erase(durable);
    }
    fire = Count(FaultStep::kAfterRename, to);
  }
  if (fire) return Crash(fmt::format("after renaming to {}", to));
  return Ok();
}

Result<std::vector<io::FileInfo>> FaultyFileIO::List(std::string_view dir) {
  FLOE_RETURN_IF_ERROR(state_->CheckAlive(dir));
  return base_.List(dir);
}

Status FaultyFileIO::DeleteDirectory(std::string_view dir) {
  FLOE_RETURN_IF_ERROR(Change("delete folder", dir));
  return base_.DeleteDirectory(dir);
}

void FaultyFileIO::Synced(const std::string& path, int64_t length) {
  std::lock_guard lock(mu_);
  auto it = unsynced_.find(path);
  if (it != unsynced_.end()) it->second = length;
}

void FaultyFileIO::Wrote(const std::string& path, int64_t synced_length) {
  std::lock_guard lock(mu_);
  unsynced_.try_emplace(path, synced_length);
}

void FaultyFileIO::FullySynced(const std::string& path) {
  std::lock_guard lock(mu_);
  unsynced_.erase(path);
}

bool FaultyFileIO::CountClose(const std::string& path) {
  std::lock_guard lock(mu_);
  return Count(FaultStep::kAfterClose, path);
}

bool FaultyFileIO::CountTornWrite(const std::string& path) {
  std::lock_guard lock(mu_);
  return Count(FaultStep::kTornWrite, path);
}

void FaultyFileIO::AppendSynced(const std::string& path) {
  std::string now = ReadLocal(path);
  std::lock_guard lock(mu_);
  append_durable_[path] = std::move(now);
}

std::unexpected<Error> FaultyFileIO::Crash(std::string what) {
  state_->crashed = true;
  ++state_->fired;
  return IoError("injected fault {}", what);
}

bool FaultyFileIO::Count(FaultStep step, std::string_view path) {
  if (!rule_ || rule_->step != step || !rule_->Matches(path)) return false;
  if (++seen_ != rule_->nth) return false;
  rule_.reset();
  return true;
}

}  // namespace floe::testing
