#include "floe/io/deferred_sync_file_io.h"

#include <algorithm>
#include <iterator>

namespace floe::io {

/// Forwards to the wrapped file; Sync() records the path instead of syncing.
class DeferredSyncFileIO::DeferredOutputFile final : public OutputFile {
 public:
  DeferredOutputFile(DeferredSyncFileIO& owner, std::unique_ptr<OutputFile> inner)
      : owner_(owner), inner_(std::move(inner)) {}
  const std::string& path() const override { return inner_->path(); }
  Status Write(std::span<const uint8_t> bytes) override { return inner_->Write(bytes); }
  uint64_t position() const override { return inner_->position(); }
  Status Sync() override {
    if (synced_) return Ok();
    owner_.Record(inner_->path());
    synced_ = true;
    return Ok();
  }
  Status Close() override { return inner_->Close(); }

 private:
  DeferredSyncFileIO& owner_;
  std::unique_ptr<OutputFile> inner_;
  bool synced_ = false;
};

DeferredSyncFileIO::DeferredSyncFileIO(FileIO& inner) : inner_(inner) {}

void DeferredSyncFileIO::Record(const std::string& path) {
  std::lock_guard lock(mu_);
  deferred_.push_back(path);
}

size_t DeferredSyncFileIO::deferred_files() const {
  std::lock_guard lock(mu_);
  return deferred_.size();
}

Status DeferredSyncFileIO::SyncDeferred() {
  std::vector<std::string> files;
  {
    std::lock_guard lock(mu_);
    files.swap(deferred_);
  }
  if (files.empty()) return Ok();
  Status s = inner_.SyncFiles(files);
  if (!s) {
    std::lock_guard lock(mu_);
    deferred_.insert(deferred_.end(), std::make_move_iterator(files.begin()),
                     std::make_move_iterator(files.end()));
  }
  return s;
}

Result<std::unique_ptr<OutputFile>> DeferredSyncFileIO::CreateOutput(std::string_view path,
                                                                     bool overwrite) {
  FLOE_ASSIGN_OR_RETURN(auto file, inner_.CreateOutput(path, overwrite));
  if (!inner_.SupportsSyncFiles()) return file;
  return std::make_unique<DeferredOutputFile>(*this, std::move(file));
}

Status DeferredSyncFileIO::Rename(std::string_view from, std::string_view to, bool replace) {
  // A renamed file must be durable before its new name is: sync it now if
  // its Sync() was deferred (SyncDeferred would no longer find it by name).
  bool deferred = false;
  {
    std::lock_guard lock(mu_);
    auto it = std::find(deferred_.begin(), deferred_.end(), from);
    if (it != deferred_.end()) {
      deferred_.erase(it);
      deferred = true;
    }
  }
  if (deferred) {
    const std::string path(from);
    FLOE_RETURN_IF_ERROR(inner_.SyncFiles(std::span<const std::string>(&path, 1)));
  }
  return inner_.Rename(from, to, replace);
}

Status DeferredSyncFileIO::RenameThenDefer(std::string_view from, std::string_view to,
                                           bool replace) {
  if (!inner_.SupportsSyncFiles()) return inner_.Rename(from, to, replace);
  FLOE_RETURN_IF_ERROR(inner_.RenameUnsynced(from, to, replace));
  auto parent = [](std::string_view path) {
    size_t slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? std::string_view(".")
                       : slash == 0                    ? std::string_view("/")
                                                       : path.substr(0, slash));
  };
  std::lock_guard lock(mu_);
  deferred_.push_back(parent(to));
  if (parent(from) != parent(to)) deferred_.push_back(parent(from));
  return Ok();
}

}  // namespace floe::io
