#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "floe/common/random.h"
#include "floe/io/file_io.h"

namespace floe::io {
namespace {

std::unexpected<Error> Errno(std::string_view what, std::string_view path, int err) {
  ErrorCode code = err == ENOENT   ? ErrorCode::kNotFound
                   : err == EEXIST ? ErrorCode::kAlreadyExists
                                   : ErrorCode::kIo;
  return MakeError(code, "{} {}: {}", what, path, std::strerror(err));
}

std::string ParentOf(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

// LocalFileIO reads plain paths and file:// URIs only: an s3:// (or any
// other) URI must not become a relative folder named "s3:".
Status CheckLocal(std::string_view path) {
  std::string scheme = UriScheme(path);
  if (!scheme.empty() && scheme != "file") {
    return NotSupported("scheme '{}' not supported (only local paths and file:// URIs): {}", scheme,
                        RedactUri(path));
  }
  return Ok();
}

Status SyncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("opening folder", dir, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return Errno("syncing folder", dir, err);
  return Ok();
}

class LocalInputFile final : public InputFile {
 public:
  LocalInputFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~LocalInputFile() override { ::close(fd_); }
  const std::string& path() const override { return path_; }
  uint64_t size() const override { return size_; }
  Status ReadAt(uint64_t offset, std::span<uint8_t> out) const override {
    if (offset > size_ || out.size() > size_ - offset) {
      return Corruption("{}: read of {} bytes at offset {} is past the end of the file ({} bytes)",
                        path_, out.size(), offset, size_);
    }
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n =
          ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Errno("reading", path_, errno);
      }
      if (n == 0)
        return Corruption("{}: unexpected end of file at offset {}", path_, offset + done);
      done += static_cast<size_t>(n);
    }
    return Ok();
  }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
};

/// Writes all of `bytes` to `fd`, retrying short and interrupted writes.
/// `*written` grows by each byte written, also when a later write fails.
Status WriteAll(int fd, std::span<const uint8_t> bytes, std::string_view what,
                const std::string& path, uint64_t* written) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno(what, path, errno);
    }
    done += static_cast<size_t>(n);
    *written += static_cast<uint64_t>(n);
  }
  return Ok();
}

/// A descriptor opened for writing and the path it was opened as (for
/// messages). Closed once: by Close() or at destruction.
class WritableFd {
 public:
  WritableFd(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~WritableFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  WritableFd(const WritableFd&) = delete;
  WritableFd& operator=(const WritableFd&) = delete;

  const std::string& path() const { return path_; }
  /// -1 once closed.
  int fd() const { return fd_; }
  bool closed() const { return fd_ < 0; }
  /// fdatasync; kInvalidArgument once closed.
  Status Sync() {
    if (fd_ < 0) return InvalidArgument("{}: sync after close", path_);
    if (::fdatasync(fd_) != 0) return Errno("syncing", path_, errno);
    return Ok();
  }
  /// Closes the descriptor once (later calls do nothing) and reports a failed close.
  Status Close() {
    if (fd_ < 0) return Ok();
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return Errno("closing", path_, errno);
    return Ok();
  }

 private:
  std::string path_;
  int fd_;
};

/// The size of the file just opened as `fd`; closes `fd` and fails when it
/// cannot be read or is a folder.
Result<uint64_t> SizeOfOpenedFile(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Errno("reading size of", path, err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return InvalidArgument("{} is a folder, not a file", path);
  }
  return static_cast<uint64_t>(st.st_size);
}

class LocalOutputFile final : public OutputFile {
 public:
  LocalOutputFile(std::string path, int fd) : file_(std::move(path), fd) {}
  const std::string& path() const override { return file_.path(); }
  uint64_t position() const override { return position_; }
  Status Write(std::span<const uint8_t> bytes) override {
    if (file_.closed()) return InvalidArgument("{}: write after close", path());
    uint64_t written = 0;
    FLOE_RETURN_IF_ERROR(WriteAll(file_.fd(), bytes, "writing", path(), &written));
    position_ += written;
    return Ok();
  }
  Status Sync() override { return file_.Sync(); }
  Status Close() override { return file_.Close(); }

 private:
  WritableFd file_;
  uint64_t position_ = 0;
};

class LocalAppendFile final : public AppendFile {
 public:
  LocalAppendFile(std::string path, int fd, uint64_t size)
      : file_(std::move(path), fd), size_(size) {}
  const std::string& path() const override { return file_.path(); }
  uint64_t size() const override { return size_; }
  Status Append(std::span<const uint8_t> bytes) override {
    if (file_.closed()) return InvalidArgument("{}: append after close", path());
    return WriteAll(file_.fd(), bytes, "appending to", path(), &size_);
  }
  Status Truncate(uint64_t length) override {
    if (file_.closed()) return InvalidArgument("{}: truncate after close", path());
    if (length > size_) {
      return InvalidArgument("{}: cannot truncate to {} bytes, the file has {}", path(), length,
                             size_);
    }
    if (::ftruncate(file_.fd(), static_cast<off_t>(length)) != 0) {
      return Errno(fmt::format("truncating to {} bytes", length), path(), errno);
    }
    size_ = length;
    return Ok();
  }
  Status Sync() override { return file_.Sync(); }
  Status Close() override { return file_.Close(); }

 private:
  WritableFd file_;
  uint64_t size_;
};

}  // namespace

std::string_view LocalPath(std::string_view path_or_uri) {
  if (path_or_uri.starts_with("file://")) return path_or_uri.substr(7);
  if (path_or_uri.starts_with("file:/")) return path_or_uri.substr(5);
  return path_or_uri;
}

Status CreateDirectories(std::string_view dir_in) {
  FLOE_RETURN_IF_ERROR(CheckLocal(dir_in));
  std::string dir(LocalPath(dir_in));
  if (dir.empty()) return Ok();
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Ok();
    return AlreadyExists("{} exists and is not a folder", dir);
  }
  std::string parent = ParentOf(dir);
  if (parent != dir) FLOE_RETURN_IF_ERROR(CreateDirectories(parent));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return Errno("creating folder", dir, errno);
  return Ok();
}

Result<std::unique_ptr<InputFile>> LocalFileIO::OpenInput(std::string_view path_in) {
  FLOE_RETURN_IF_ERROR(CheckLocal(path_in));
  std::string path(LocalPath(path_in));
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("opening", path, errno);
  FLOE_ASSIGN_OR_RETURN(uint64_t size, SizeOfOpenedFile(fd, path));
  return std::make_unique<LocalInputFile>(path, fd, size);
}

Result<std::unique_ptr<OutputFile>> LocalFileIO::CreateOutput(std::string_view path_in,
                                                              bool overwrite) {
  FLOE_RETURN_IF_ERROR(CheckLocal(path_in));
  std::string path(LocalPath(path_in));
  FLOE_RETURN_IF_ERROR(CreateDirectories(ParentOf(path)));
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL);
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) return Errno("creating", path, errno);
  return std::make_unique<LocalOutputFile>(path, fd);
}

Result<std::unique_ptr<AppendFile>> LocalFileIO::OpenAppend(std::string_view path_in) {
  FLOE_RETURN_IF_ERROR(CheckLocal(path_in));
  std::string path(LocalPath(path_in));
  constexpr int kFlags = O_WRONLY | O_APPEND | O_CLOEXEC;
  int fd = ::open(path.c_str(), kFlags);
  bool created = false;
  if (fd < 0 && errno == ENOENT) {
    FLOE_RETURN_IF_ERROR(CreateDirectories(ParentOf(path)));
    fd = ::open(path.c_str(), kFlags | O_CREAT | O_EXCL, 0644);
    created = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = ::open(path.c_str(), kFlags);  // created meanwhile
  }
  if (fd < 0 && errno == EISDIR) return InvalidArgument("{} is a folder, not a file", path);
  if (fd < 0) return Errno("opening for append", path, errno);
  FLOE_ASSIGN_OR_RETURN(uint64_t size, SizeOfOpenedFile(fd, path));
  auto file = std::make_unique<LocalAppendFile>(path, fd, size);
  if (created) FLOE_RETURN_IF_ERROR(SyncDirectory(ParentOf(path)));
  return file;
}

Status LocalFileIO::Delete(std::string_view path_in) {
  FLOE_RETURN_IF_ERROR(CheckLocal(path_in));
  std::string path(LocalPath(path_in));
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return Errno("deleting", path, errno);
  return Ok();
}

Result<bool> LocalFileIO::Exists(std::string_view path_in) {
  FLOE_RETURN_IF_ERROR(CheckLocal(path_in));
  std::string path(LocalPath(path_in));
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return Errno("checking", path, errno);
}

Status LocalFileIO::Rename(std::string_view from_in, std::string_view to_in, bool replace) {
  FLOE_RETURN_IF_ERROR(RenameUnsynced(from_in, to_in, replace));
  std::string from(LocalPath(from_in));
  std::string to(LocalPath(to_in));
  FLOE_RETURN_IF_ERROR(SyncDirectory(ParentOf(to)));
  if (ParentOf(from) != ParentOf(to)) FLOE_RETURN_IF_ERROR(SyncDirectory(ParentOf(from)));
  return Ok();
}

Status LocalFileIO::RenameUnsynced(std::string_view from_in, std::string_view to_in, bool replace) {
  FLOE_RETURN_IF_ERROR(CheckLocal(from_in));
  FLOE_RETURN_IF_ERROR(CheckLocal(to_in));
  std::string from(LocalPath(from_in));
  std::string to(LocalPath(to_in));
  FLOE_RETURN_IF_ERROR(CreateDirectories(ParentOf(to)));
  if (replace) {
    if (::rename(from.c_str(), to.c_str()) != 0) return Errno("renaming", from, errno);
  } else {
    // link() fails with EEXIST if the target exists: an atomic create-if-absent.
    if (::link(from.c_str(), to.c_str()) != 0) {
      int err = errno;
      if (err == EEXIST) return AlreadyExists("{} exists", to);
      return Errno("linking", from, err);
    }
    if (::unlink(from.c_str()) != 0) return Errno("unlinking", from, errno);
  }
  return Ok();
}

Result<std::vector<FileInfo>> LocalFileIO::List(std::string_view dir_in) {
  FLOE_RETURN_IF_ERROR(CheckLocal(dir_in));
  std::string dir(LocalPath(dir_in));
  std::vector<FileInfo> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return out;
    return Errno("listing", dir, errno);
  }
  while (struct dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    FileInfo info;
    info.path = dir + "/" + std::string(name);
    struct stat st;
    if (::stat(info.path.c_str(), &st) == 0) {
      info.size = static_cast<uint64_t>(st.st_size);
      info.is_directory = S_ISDIR(st.st_mode);
    }
    out.push_back(std::move(info));
  }
  ::closedir(d);
  return out;
}

Status LocalFileIO::DeleteDirectory(std::string_view dir_in) {
  FLOE_RETURN_IF_ERROR(CheckLocal(dir_in));
  std::string dir(LocalPath(dir_in));
  if (::rmdir(dir.c_str()) != 0) {
    if (errno == ENOENT) return Ok();
    if (errno == ENOTEMPTY || errno == EEXIST)
      return InvalidArgument("folder {} is not empty", dir);
    return Errno("removing folder", dir, errno);
  }
  return Ok();
}

Result<std::unique_ptr<AppendFile>> FileIO::OpenAppend(std::string_view path) {
  return NotSupported("{}: this file system cannot append to a file (logs need a local path)",
                      RedactUri(path));
}

Status FileIO::SyncFiles(std::span<const std::string> /*paths*/) {
  return NotSupported("this file system cannot sync files after they were closed");
}

Status LocalFileIO::SyncFiles(std::span<const std::string> paths) {
  // Files by file system; a missing file was deleted and needs nothing.
  std::map<dev_t, std::vector<std::string>> by_device;
  for (const std::string& path_in : paths) {
    FLOE_RETURN_IF_ERROR(CheckLocal(path_in));
    std::string path(LocalPath(path_in));
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) continue;
      return Errno("checking", path, errno);
    }
    by_device[st.st_dev].push_back(std::move(path));
  }
  for (auto& [device, files] : by_device) {
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    if (files.size() < kSyncfsMinFiles) {
      for (const std::string& path : files) {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
          if (errno == ENOENT) continue;
          return Errno("opening", path, errno);
        }
        int rc = ::fdatasync(fd);
        int err = errno;
        ::close(fd);
        if (rc != 0) return Errno("syncing", path, err);
      }
      continue;
    }
    // Opened now, the descriptor still reports a write-back error that no
    // syncfs caller has seen (the error sequence is sampled "unseen").
    int fd = ::open(files.front().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Errno("opening", files.front(), errno);
    int rc = ::syncfs(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) {
      return MakeError(ErrorCode::kIo, "syncing the file system of {} and {} other files: {}",
                       files.front(), files.size() - 1, std::strerror(err));
    }
  }
  return Ok();
}

Result<std::string> FileIO::ReadAll(std::string_view path) {
  FLOE_ASSIGN_OR_RETURN(auto file, OpenInput(path));
  std::string bytes(file->size(), '\0');
  FLOE_RETURN_IF_ERROR(file->ReadAt(0, {reinterpret_cast<uint8_t*>(bytes.data()), bytes.size()}));
  return bytes;
}

Status FileIO::WriteAtomically(std::string_view path, std::string_view bytes) {
  std::string tmp = fmt::format("{}.{:016x}.tmp", path, RandomU64());
  {
    FLOE_ASSIGN_OR_RETURN(auto out, CreateOutput(tmp, /*overwrite=*/false));
    Status s = out->Write(bytes);
    if (s) s = out->Sync();
    if (s) s = out->Close();
    if (!s) {
      (void)Delete(tmp);
      return s;
    }
  }
  Status s = Rename(tmp, path, /*replace=*/true);
  if (!s) (void)Delete(tmp);
  return s;
}

std::string HiddenTemporaryBeside(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') + 1);
  std::string_view dir = path.substr(0, path.size() - name.size());
  return fmt::format("{}.{:016x}.{}.tmp", dir, RandomU64(), name);
}

Status FileIO::WriteNew(std::string_view path, std::string_view bytes) {
  std::string tmp = HiddenTemporaryBeside(path);
  {
    FLOE_ASSIGN_OR_RETURN(auto out, CreateOutput(tmp, /*overwrite=*/false));
    Status s = out->Write(bytes);
    if (s) s = out->Sync();
    if (s) s = out->Close();
    if (!s) {
      (void)out->Close();
      (void)Delete(tmp);
      return std::unexpected(std::move(s).error().WithContext(fmt::format("writing {}", path)));
    }
  }
  Status s = Rename(tmp, path, /*replace=*/false);
  if (!s) (void)Delete(tmp);
  return s;
}

}  // namespace floe::io
