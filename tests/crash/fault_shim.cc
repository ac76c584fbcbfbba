// A fault-injection shim for crash-safety tests (test-only; never linked into
// floe). Loaded with LD_PRELOAD, it interposes the libc calls through which a
// process makes bytes and names durable, counts them from process start, and
// at the chosen call either kills the process or makes that call and every
// later one fail with ENOSPC, as a full disk does.
//
// Counted calls (only when one of the variables below is set):
//   data    write, pwrite(64), writev, pwritev(64), ftruncate(64),
//           fallocate(64), posix_fallocate(64)   - on regular files only
//   sync    fsync, fdatasync, syncfs             - on regular files and folders
//   name    rename, renameat, renameat2, link, linkat
//   remove  unlink, unlinkat, rmdir, remove      - killed at, never failed
// Writes to pipes, terminals and sockets (standard output, logs) are not
// counted. C++ streams and SQLite reach these symbols too; stdio's fwrite
// does not (glibc calls its internal write), and floe writes files with none.
//
// Environment:
//   FLOE_FAULT_AT=N          the Nth counted call (1-based) is the fault
//   FLOE_FAULT_KIND=kill     SIGKILL the process at call N, before it happens
//   FLOE_FAULT_KIND=enospc   call N and every later data/sync/name call fail
//                            with ENOSPC (removes still work: they free space)
//   FLOE_FAULT_COUNT_FILE=F  at exit, write "<calls> <failed>\n" to F: how
//                            many calls were counted and how many were failed
//   FLOE_FAULT_TRACE=F       append "<N> <kind> <call> <path>\n" per counted
//                            call (to name the call behind an N)
//   FLOE_FAULT_AUDIT=F       append a line per durability mistake a power cut
//                            would expose (no fault is needed): "unsynced-rename
//                            FROM TO" when a file written since its last sync is
//                            renamed or linked to a new name, and, at exit,
//                            "unsynced-folder DIR" when a rename or link into DIR
//                            was not followed by an fsync of DIR

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace {

enum class Kind { kData, kSync, kName, kRemove };

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kData:
      return "data";
    case Kind::kSync:
      return "sync";
    case Kind::kName:
      return "name";
    case Kind::kRemove:
      return "remove";
  }
  return "?";
}

template <typename F>
F Next(const char* name) {
  void* p = ::dlsym(RTLD_NEXT, name);
  if (p == nullptr) {
    static const char msg[] = "fault_shim: a libc symbol is missing\n";
    (void)!::syscall(SYS_write, 2, msg, sizeof msg - 1);
    std::abort();
  }
  return reinterpret_cast<F>(p);
}

// Resolved once, before any counted call can happen from another thread.
#define FLOE_NEXT(name) static const auto real = Next<decltype(&::name)>(#name)

struct Config {
  bool counting = false;
  bool kill = false;
  bool enospc = false;
  uint64_t at = 0;
  const char* count_file = nullptr;
  int trace_fd = -1;
  int audit_fd = -1;
};

Config config;
std::atomic<uint64_t> calls{0};
std::atomic<uint64_t> failed{0};

ssize_t RawWrite(int fd, const void* buf, size_t n) {
  FLOE_NEXT(write);
  return real(fd, buf, n);
}

__attribute__((constructor)) void Init() {
  const char* at = std::getenv("FLOE_FAULT_AT");
  const char* kind = std::getenv("FLOE_FAULT_KIND");
  config.count_file = std::getenv("FLOE_FAULT_COUNT_FILE");
  if (const char* trace = std::getenv("FLOE_FAULT_TRACE")) {
    FLOE_NEXT(open);
    config.trace_fd = real(trace, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }
  if (const char* audit = std::getenv("FLOE_FAULT_AUDIT")) {
    FLOE_NEXT(open);
    config.audit_fd = real(audit, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }
  if (at != nullptr && *at != '\0') {
    config.at = std::strtoull(at, nullptr, 10);
    std::string k = kind != nullptr ? kind : "";
    config.kill = k == "kill";
    config.enospc = k == "enospc";
    if (config.at == 0 || (!config.kill && !config.enospc)) {
      static const char msg[] =
          "fault_shim: FLOE_FAULT_AT needs a number >= 1 and FLOE_FAULT_KIND kill or enospc\n";
      RawWrite(2, msg, sizeof msg - 1);
      std::abort();
    }
  }
  config.counting = config.at != 0 || config.count_file != nullptr || config.trace_fd >= 0 ||
                    config.audit_fd >= 0;
}

// The audit's bookkeeping: files written since their last sync, and folders that
// received a name since their last sync, by (device, inode).
using FileId = std::pair<dev_t, ino_t>;
struct Audit {
  std::mutex mu;
  std::set<FileId> dirty;
  std::map<FileId, std::string> pending_folders;
};
Audit& audit() {
  static Audit* a = new Audit;  // never destroyed: used until the last destructor
  return *a;
}

void AuditLine(const std::string& line) { RawWrite(config.audit_fd, line.data(), line.size()); }

void AuditWrite(int fd) {
  struct stat st;
  if (config.audit_fd < 0 || ::fstat(fd, &st) != 0) return;
  std::lock_guard lock(audit().mu);
  audit().dirty.insert({st.st_dev, st.st_ino});
}

void AuditSync(int fd) {
  struct stat st;
  if (config.audit_fd < 0 || ::fstat(fd, &st) != 0) return;
  std::lock_guard lock(audit().mu);
  audit().dirty.erase({st.st_dev, st.st_ino});
  audit().pending_folders.erase({st.st_dev, st.st_ino});
}

// A syncfs through `fd`: every file and folder of that file system is synced.
void AuditSyncFs(int fd) {
  struct stat st;
  if (config.audit_fd < 0 || ::fstat(fd, &st) != 0) return;
  std::lock_guard lock(audit().mu);
  std::erase_if(audit().dirty, [&](const FileId& id) { return id.first == st.st_dev; });
  std::erase_if(audit().pending_folders,
                [&](const auto& entry) { return entry.first.first == st.st_dev; });
}

// Before a rename or link of `from` (relative to from_dir) to `to`.
void AuditBeforeName(int from_dir, const char* from, const char* to) {
  struct stat st;
  if (config.audit_fd < 0 || ::fstatat(from_dir, from, &st, AT_SYMLINK_NOFOLLOW) != 0) return;
  bool unsynced;
  {
    std::lock_guard lock(audit().mu);
    unsynced = audit().dirty.count({st.st_dev, st.st_ino}) != 0;
  }
  if (unsynced) AuditLine(std::string("unsynced-rename ") + from + " " + to + "\n");
}

// After a successful rename or link to `to` (relative to to_dir).
void AuditAfterName(int to_dir, const char* to) {
  if (config.audit_fd < 0) return;
  std::string path = to;
  size_t slash = path.rfind('/');
  std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st;
  if (::fstatat(to_dir, folder.c_str(), &st, 0) != 0) return;
  std::lock_guard lock(audit().mu);
  audit().pending_folders.emplace(FileId{st.st_dev, st.st_ino}, folder);
}

__attribute__((destructor)) void Report() {
  if (config.audit_fd >= 0) {
    std::lock_guard lock(audit().mu);
    for (const auto& [id, folder] : audit().pending_folders) {
      AuditLine("unsynced-folder " + folder + "\n");
    }
  }
  if (config.count_file == nullptr) return;
  FLOE_NEXT(open);
  int fd = real(config.count_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::string line = std::to_string(calls.load()) + " " + std::to_string(failed.load()) + "\n";
  RawWrite(fd, line.data(), line.size());
  ::close(fd);
}

bool FdIs(int fd, bool dirs_too) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return false;
  return S_ISREG(st.st_mode) || (dirs_too && S_ISDIR(st.st_mode));
}

void Trace(uint64_t n, Kind kind, const char* call, int fd, const char* path) {
  std::string target;
  if (path != nullptr) {
    target = path;
  } else {
    char link[64];
    char buf[4096];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = ::readlink(link, buf, sizeof buf);
    target = len > 0 ? std::string(buf, static_cast<size_t>(len)) : "fd " + std::to_string(fd);
  }
  std::string line = std::to_string(n) + " " + KindName(kind) + " " + call + " " + target + "\n";
  RawWrite(config.trace_fd, line.data(), line.size());
}

// Counts one call; returns true when it must fail with ENOSPC (errno is set).
// `fd` is used when `path` is null.
bool Fault(Kind kind, const char* call, int fd, const char* path) {
  if (!config.counting) return false;
  if (path == nullptr) {
    if (!FdIs(fd, /*dirs_too=*/kind == Kind::kSync)) return false;
  }
  if (path == nullptr && kind == Kind::kData) AuditWrite(fd);
  if (path == nullptr && kind == Kind::kSync) AuditSync(fd);
  uint64_t n = calls.fetch_add(1) + 1;
  if (config.trace_fd >= 0) Trace(n, kind, call, fd, path);
  if (config.kill && n == config.at) {
    ::raise(SIGKILL);
  }
  if (config.enospc && n >= config.at && kind != Kind::kRemove) {
    failed.fetch_add(1);
    errno = ENOSPC;
    return true;
  }
  return false;
}

}  // namespace

extern "C" {

ssize_t write(int fd, const void* buf, size_t n) {
  FLOE_NEXT(write);
  if (Fault(Kind::kData, "write", fd, nullptr)) return -1;
  return real(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  FLOE_NEXT(pwrite);
  if (Fault(Kind::kData, "pwrite", fd, nullptr)) return -1;
  return real(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t off) {
  FLOE_NEXT(pwrite64);
  if (Fault(Kind::kData, "pwrite64", fd, nullptr)) return -1;
  return real(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
  FLOE_NEXT(writev);
  if (Fault(Kind::kData, "writev", fd, nullptr)) return -1;
  return real(fd, iov, count);
}

ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t off) {
  FLOE_NEXT(pwritev);
  if (Fault(Kind::kData, "pwritev", fd, nullptr)) return -1;
  return real(fd, iov, count, off);
}

ssize_t pwritev64(int fd, const struct iovec* iov, int count, off64_t off) {
  FLOE_NEXT(pwritev64);
  if (Fault(Kind::kData, "pwritev64", fd, nullptr)) return -1;
  return real(fd, iov, count, off);
}

int ftruncate(int fd, off_t length) {
  FLOE_NEXT(ftruncate);
  if (Fault(Kind::kData, "ftruncate", fd, nullptr)) return -1;
  return real(fd, length);
}

int ftruncate64(int fd, off64_t length) {
  FLOE_NEXT(ftruncate64);
  if (Fault(Kind::kData, "ftruncate64", fd, nullptr)) return -1;
  return real(fd, length);
}

int fallocate(int fd, int mode, off_t off, off_t len) {
  FLOE_NEXT(fallocate);
  if (Fault(Kind::kData, "fallocate", fd, nullptr)) return -1;
  return real(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off64_t off, off64_t len) {
  FLOE_NEXT(fallocate64);
  if (Fault(Kind::kData, "fallocate64", fd, nullptr)) return -1;
  return real(fd, mode, off, len);
}

// posix_fallocate returns the error instead of setting errno.
int posix_fallocate(int fd, off_t off, off_t len) {
  FLOE_NEXT(posix_fallocate);
  if (Fault(Kind::kData, "posix_fallocate", fd, nullptr)) return ENOSPC;
  return real(fd, off, len);
}

int posix_fallocate64(int fd, off64_t off, off64_t len) {
  FLOE_NEXT(posix_fallocate64);
  if (Fault(Kind::kData, "posix_fallocate64", fd, nullptr)) return ENOSPC;
  return real(fd, off, len);
}

int fsync(int fd) {
  FLOE_NEXT(fsync);
  if (Fault(Kind::kSync, "fsync", fd, nullptr)) return -1;
  return real(fd);
}

int fdatasync(int fd) {
  FLOE_NEXT(fdatasync);
  if (Fault(Kind::kSync, "fdatasync", fd, nullptr)) return -1;
  return real(fd);
}

int syncfs(int fd) {
  FLOE_NEXT(syncfs);
  if (Fault(Kind::kSync, "syncfs", fd, nullptr)) return -1;
  int rc = real(fd);
  if (rc == 0) AuditSyncFs(fd);
  return rc;
}

int rename(const char* from, const char* to) {
  FLOE_NEXT(rename);
  if (Fault(Kind::kName, "rename", -1, to)) return -1;
  AuditBeforeName(AT_FDCWD, from, to);
  int rc = real(from, to);
  if (rc == 0) AuditAfterName(AT_FDCWD, to);
  return rc;
}

int renameat(int from_dir, const char* from, int to_dir, const char* to) {
  FLOE_NEXT(renameat);
  if (Fault(Kind::kName, "renameat", -1, to)) return -1;
  AuditBeforeName(from_dir, from, to);
  int rc = real(from_dir, from, to_dir, to);
  if (rc == 0) AuditAfterName(to_dir, to);
  return rc;
}

int renameat2(int from_dir, const char* from, int to_dir, const char* to, unsigned int flags) {
  FLOE_NEXT(renameat2);
  if (Fault(Kind::kName, "renameat2", -1, to)) return -1;
  AuditBeforeName(from_dir, from, to);
  int rc = real(from_dir, from, to_dir, to, flags);
  if (rc == 0) AuditAfterName(to_dir, to);
  return rc;
}

int link(const char* from, const char* to) {
  FLOE_NEXT(link);
  if (Fault(Kind::kName, "link", -1, to)) return -1;
  AuditBeforeName(AT_FDCWD, from, to);
  int rc = real(from, to);
  if (rc == 0) AuditAfterName(AT_FDCWD, to);
  return rc;
}

int linkat(int from_dir, const char* from, int to_dir, const char* to, int flags) {
  FLOE_NEXT(linkat);
  if (Fault(Kind::kName, "linkat", -1, to)) return -1;
  AuditBeforeName(from_dir, from, to);
  int rc = real(from_dir, from, to_dir, to, flags);
  if (rc == 0) AuditAfterName(to_dir, to);
  return rc;
}

int unlink(const char* path) {
  FLOE_NEXT(unlink);
  Fault(Kind::kRemove, "unlink", -1, path);
  return real(path);
}

int unlinkat(int dir, const char* path, int flags) {
  FLOE_NEXT(unlinkat);
  Fault(Kind::kRemove, "unlinkat", -1, path);
  return real(dir, path, flags);
}

int rmdir(const char* path) {
  FLOE_NEXT(rmdir);
  Fault(Kind::kRemove, "rmdir", -1, path);
  return real(path);
}

int remove(const char* path) {
  FLOE_NEXT(remove);
  Fault(Kind::kRemove, "remove", -1, path);
  return real(path);
}

}  // extern "C"
