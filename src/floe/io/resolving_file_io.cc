#include "floe/io/resolving_file_io.h"

namespace floe::io {

ResolvingFileIO::ResolvingFileIO(Properties properties, Factory factory)
    : factory_(std::move(factory)), properties_(std::move(properties)) {}

Status ResolvingFileIO::SetProperties(Properties properties) {
  std::lock_guard lock(mu_);
  bool made = !made_.empty();
  for (const auto& [location, at] : locations_) made = made || at.io != nullptr;
  if (made && properties != properties_) {
    return InvalidArgument(
        "the storage settings cannot change once an object-store path has been used (set them "
        "before)");
  }
  properties_ = std::move(properties);
  return Ok();
}

ResolvingFileIO::Properties ResolvingFileIO::properties() const {
  std::lock_guard lock(mu_);
  return properties_;
}

void ResolvingFileIO::SetLocationProperties(std::string_view location,
                                            const Properties& overrides) {
  if (overrides.empty() || SchemeOf(location).empty()) return;
  while (location.size() > 1 && location.back() == '/') location.remove_suffix(1);
  std::lock_guard lock(mu_);
  auto it = locations_.find(location);
  if (it == locations_.end()) {
    locations_.emplace(std::string(location), Location{overrides, nullptr});
    return;
  }
  if (it->second.overrides == overrides) return;
  it->second.overrides = overrides;
  if (it->second.io) retired_.push_back(std::move(it->second.io));
}

std::string ResolvingFileIO::SchemeOf(std::string_view path) {
  std::string scheme = UriScheme(path);
  if (scheme == "file") return {};
  if (scheme == "s3a" || scheme == "s3n") return "s3";
  return scheme;
}

Result<FileIO*> ResolvingFileIO::For(std::string_view path) {
  std::string scheme = SchemeOf(path);
  if (scheme.empty()) return &local_;
  std::lock_guard lock(mu_);
  if (!locations_.empty()) {
    // The longest registered location that is `path` or a folder above it.
    for (size_t end = path.size(); end != std::string_view::npos && end > 0;
         end = path.rfind('/', end - 1)) {
      auto it = locations_.find(path.substr(0, end));
      if (it == locations_.end()) continue;
      Location& at = it->second;
      if (!at.io) {
        if (!factory_) break;
        Properties merged = properties_;
        for (const auto& [k, v] : at.overrides) merged[k] = v;
        auto made = factory_(scheme, merged);
        if (!made) return std::unexpected(std::move(made).error().WithContext(RedactUri(path)));
        at.io = std::move(*made);
      }
      return at.io.get();
    }
  }
  if (auto it = made_.find(scheme); it != made_.end()) return it->second.get();
  if (!factory_) {
    return NotSupported("{}: scheme '{}' not supported (local paths, file:// and s3://)",
                        RedactUri(path), scheme);
  }
  auto made = factory_(scheme, properties_);
  if (!made) {
    return std::unexpected(std::move(made).error().WithContext(RedactUri(path)));
  }
  FileIO* io = made->get();
  made_.emplace(std::move(scheme), std::move(*made));
  return io;
}

namespace {

Status CheckSameScheme(std::string_view from, std::string_view to) {
  if (ResolvingFileIO::SchemeOf(from) != ResolvingFileIO::SchemeOf(to)) {
    return NotSupported("cannot rename {} to {}: they are on different storage", RedactUri(from),
                        RedactUri(to));
  }
  return Ok();
}

}  // namespace

Status ResolvingFileIO::Rename(std::string_view from, std::string_view to, bool replace) {
  FLOE_RETURN_IF_ERROR(CheckSameScheme(from, to));
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(from));
  return io->Rename(from, to, replace);
}

Status ResolvingFileIO::RenameUnsynced(std::string_view from, std::string_view to, bool replace) {
  FLOE_RETURN_IF_ERROR(CheckSameScheme(from, to));
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(from));
  return io->RenameUnsynced(from, to, replace);
}

Status ResolvingFileIO::SyncFiles(std::span<const std::string> paths) {
  // Paths are grouped by the FileIO that serves them, each group synced at
  // once (LocalFileIO may then use one syncfs for many files).
  std::map<FileIO*, std::vector<std::string>> groups;
  for (const std::string& path : paths) {
    FLOE_ASSIGN_OR_RETURN(FileIO * io, For(path));
    groups[io].push_back(path);
  }
  for (auto& [io, group] : groups) {
    if (!io->SupportsSyncFiles()) {
      return NotSupported("{}: its storage cannot sync files after they were closed",
                          RedactUri(group.front()));
    }
    FLOE_RETURN_IF_ERROR(io->SyncFiles(group));
  }
  return Ok();
}

Status ResolvingFileIO::WriteAtomically(std::string_view path, std::string_view bytes) {
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(path));
  return io->WriteAtomically(path, bytes);
}

Status ResolvingFileIO::WriteNew(std::string_view path, std::string_view bytes) {
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(path));
  return io->WriteNew(path, bytes);
}

}  // namespace floe::io
