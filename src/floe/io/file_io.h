#pragma once
/// FileIO: the storage interface every module writes and reads through.
/// Implementations: LocalFileIO (POSIX, fsync + atomic rename); later memory,
/// fault-injecting and S3. Paths are plain paths or `file://` URIs; LocalFileIO
/// refuses any other scheme (`s3://...`) with kNotSupported.
///
/// Durability contract: data written to an OutputFile is durable only after
/// `Sync()` succeeds. `Close()` without `Sync()` may lose it on a crash. The
/// same holds for bytes appended to (or cut from) an AppendFile.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::io {

/// A file opened for random reads. Thread-compatible: concurrent ReadAt calls
/// on one InputFile are safe for LocalFileIO.
class InputFile {
 public:
  virtual ~InputFile() = default;
  virtual const std::string& path() const = 0;
  /// The size in bytes at open time.
  virtual uint64_t size() const = 0;
  /// Reads exactly `out.size()` bytes at `offset`. A read past the end is
  /// kCorruption naming the file and offset (callers trust sizes found in files
  /// only after checking them against `size()`).
  virtual Status ReadAt(uint64_t offset, std::span<uint8_t> out) const = 0;

  /// One of several reads asked at once: `out.size()` bytes at `offset`.
  struct Range {
    uint64_t offset = 0;
    std::span<uint8_t> out;
  };
  /// Reads every range, as ReadAt would, in any order (the column chunks of a
  /// row group, say). Object stores coalesce nearby ranges into fewer
  /// requests and send them in parallel (S3FileIO, docs/s3.md); the default
  /// reads one after another. The first error is returned; then the contents
  /// of the other ranges are unspecified.
  virtual Status ReadRanges(std::span<const Range> ranges) const {
    for (const Range& r : ranges) {
      if (auto st = ReadAt(r.offset, r.out); !st) return st;
    }
    return Ok();
  }
};

/// A file being written, sequentially. Not thread-safe.
class OutputFile {
 public:
  virtual ~OutputFile() = default;
  virtual const std::string& path() const = 0;
  virtual Status Write(std::span<const uint8_t> bytes) = 0;
  Status Write(std::string_view bytes) {
    return Write({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  }
  /// Bytes written so far.
  virtual uint64_t position() const = 0;
  /// Makes everything written so far durable.
  virtual Status Sync() = 0;
  /// Closes the file; further writes fail. Idempotent.
  virtual Status Close() = 0;
};

/// A file opened for appending (FileIO::OpenAppend): a log that grows at its
/// end and may be cut back to a length it had (the dead-letter file, the
/// MySQL schema history). Not thread-safe; one AppendFile per file.
///
/// Appended bytes and truncations are durable only after `Sync()` succeeds;
/// a crash before that may leave the file at any length between the last
/// synced one and the current one, ending in a torn record. Readers of such
/// logs therefore find the end of the last whole record and cut the rest off
/// (`Truncate`) before appending again.
class AppendFile {
 public:
  virtual ~AppendFile() = default;
  virtual const std::string& path() const = 0;
  /// The file's length: its length at open, plus the bytes appended since,
  /// or the length given to the last Truncate.
  virtual uint64_t size() const = 0;
  /// Appends `bytes` at the end of the file. On error a prefix of them may
  /// have been written (size() counts it): a caller that needs whole records
  /// truncates back to the size it had before the call.
  virtual Status Append(std::span<const uint8_t> bytes) = 0;
  Status Append(std::string_view bytes) {
    return Append({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  }
  /// Cuts the file to its first `length` bytes; later appends go after them.
  /// kInvalidArgument if `length` is more than size().
  virtual Status Truncate(uint64_t length) = 0;
  /// Makes the appends and truncations so far durable.
  virtual Status Sync() = 0;
  /// Closes the file; further calls fail with kInvalidArgument. Idempotent.
  /// Does not sync.
  virtual Status Close() = 0;
};

struct FileInfo {
  std::string path;
  uint64_t size = 0;
  bool is_directory = false;
};

class FileIO {
 public:
  virtual ~FileIO() = default;

  /// Opens an existing file. kNotFound if it does not exist.
  virtual Result<std::unique_ptr<InputFile>> OpenInput(std::string_view path) = 0;

  /// Creates a new file, and the folders above it. With `overwrite` false a
  /// file that exists already is kAlreadyExists (exclusive create).
  virtual Result<std::unique_ptr<OutputFile>> CreateOutput(std::string_view path,
                                                           bool overwrite = false) = 0;

  /// Deletes a file. Deleting a missing file is not an error.
  virtual Status Delete(std::string_view path) = 0;

  virtual Result<bool> Exists(std::string_view path) = 0;

  /// Atomically renames `from` to `to`. With `replace` false, kAlreadyExists if
  /// `to` exists (and then `from` is left in place). The rename is durable on return.
  virtual Status Rename(std::string_view from, std::string_view to, bool replace) = 0;

  /// The entries directly inside folder `dir` (empty if it does not exist).
  virtual Result<std::vector<FileInfo>> List(std::string_view dir) = 0;

  /// Rename without making the new name durable: a crash may undo it until
  /// the folder is synced (SyncFiles of the folder, or a SyncFiles that
  /// flushes the whole file system). The default is Rename, which is durable.
  virtual Status RenameUnsynced(std::string_view from, std::string_view to, bool replace) {
    return Rename(from, to, replace);
  }
  /// Whether SyncFiles can make files durable after they were closed.
  virtual bool SupportsSyncFiles() const { return false; }
  /// Makes files written (and closed) through this FileIO durable, as if each
  /// had been synced before it was closed; files that no longer exist are
  /// skipped (they were deleted). kNotSupported unless SupportsSyncFiles().
  /// See DeferredSyncFileIO.
  virtual Status SyncFiles(std::span<const std::string> paths);
  /// Opens `path` for appending, creating it (and the folders above it) when
  /// it does not exist; a file it creates is named durably (its folder is
  /// synced) before this returns, so only the appended bytes wait for Sync.
  /// The default is kNotSupported naming the path: object stores cannot
  /// append to an object (S3FileIO), so logs live on local disks.
  virtual Result<std::unique_ptr<AppendFile>> OpenAppend(std::string_view path);
  /// Removes folder `dir` if it is empty (object stores have no folders: Ok).
  /// kInvalidArgument if it is not empty; Ok if it does not exist.
  virtual Status DeleteDirectory(std::string_view dir) { return Ok(); }

  /// Reads a whole file into memory.
  Result<std::string> ReadAll(std::string_view path);

  /// Writes `bytes` to `path` so that readers see either the old file or the
  /// whole new one: write a temporary, sync, rename (replacing). Virtual so
  /// that object stores, where one PUT is atomic, skip the temporary.
  virtual Status WriteAtomically(std::string_view path, std::string_view bytes);

  /// Creates `path` holding `bytes`, never replacing a file: writes a
  /// temporary beside it, syncs it and renames it into place without
  /// replacing. kAlreadyExists if `path` exists (then nothing changed). On any
  /// error the temporary is removed, so `path` is either absent or whole: a
  /// failed write (disk full) never leaves a partial file under `path`. An
  /// error other than kAlreadyExists from the final rename can come after the
  /// file appeared; callers that must know check Exists(path). Virtual so that
  /// object stores can use a conditional PUT (If-None-Match) instead.
  virtual Status WriteNew(std::string_view path, std::string_view bytes);
};

/// A hidden name beside `path` that no reader takes for a table file,
/// `<folder>/.<random>.<name>.tmp`: where WriteNew writes before naming.
std::string HiddenTemporaryBeside(std::string_view path);

/// Strips a `file://` scheme; other schemes are returned unchanged.
std::string_view LocalPath(std::string_view path_or_uri);

/// The scheme of a URI, lower-cased ("s3" for "s3://bucket/key", "file" for
/// "file:///a"); empty for a plain path. A scheme is letters, digits, '+',
/// '-' or '.' after a letter, followed by "://" (or "file:/").
std::string UriScheme(std::string_view path_or_uri);

/// `path_or_uri` fit to print in a message or a log: the password of a
/// user-info part (`scheme://user:secret@host` -> `scheme://user:***@host`)
/// and the values of query parameters that carry secrets (password, passwd,
/// pwd, token, secret, key, credential, signature and names containing them,
/// case-insensitive) are replaced by `***`. Every URI that goes into a message
/// goes through this.
std::string RedactUri(std::string_view path_or_uri);

/// An absolute, lexically normalized local path for `path_or_uri` (a plain
/// path or a file:// URI; the scheme is dropped): a relative path is taken
/// relative to `base_dir`, or to the current folder when `base_dir` is empty.
/// No trailing '/' (except for "/"). URIs of other schemes are returned
/// unchanged.
std::string AbsoluteLocalPath(std::string_view path_or_uri, std::string_view base_dir = {});

/// Whether `path` is `dir` or lies inside it, compared lexically after
/// dropping a file:// scheme and normalizing "." and ".." (so
/// "/t/data/../../etc/x" is not inside "/t"). Paths with different schemes
/// never match.
bool PathIsWithin(std::string_view path, std::string_view dir);

/// POSIX file system. Stateless and thread-safe.
class LocalFileIO final : public FileIO {
 public:
  Result<std::unique_ptr<InputFile>> OpenInput(std::string_view path) override;
  Result<std::unique_ptr<OutputFile>> CreateOutput(std::string_view path,
                                                   bool overwrite = false) override;
  Status Delete(std::string_view path) override;
  Result<bool> Exists(std::string_view path) override;
  Status Rename(std::string_view from, std::string_view to, bool replace) override;
  Status RenameUnsynced(std::string_view from, std::string_view to, bool replace) override;
  Result<std::vector<FileInfo>> List(std::string_view dir) override;
  Status DeleteDirectory(std::string_view dir) override;
  /// O_APPEND writes, ftruncate, fdatasync; syncs the folder when it creates
  /// the file.
  Result<std::unique_ptr<AppendFile>> OpenAppend(std::string_view path) override;
  /// Files and folders alike. Fewer than kSyncfsMinFiles files on one file system: each is opened
  /// and fdatasync'ed. More: one syncfs(2) of that file system (one device flush for all of them;
  /// it also writes back other dirty data of that file system). syncfs reports a write-back error
  /// of the file system that no syncfs caller has seen yet (Linux >= 5.8), so a failed write-back
  /// of one of the files is an error here; one of another file on that file system is too
  /// (conservative).
  bool SupportsSyncFiles() const override { return true; }
  Status SyncFiles(std::span<const std::string> paths) override;
  static constexpr size_t kSyncfsMinFiles = 8;
};

/// Creates `dir` and its parents. Succeeds if it exists.
Status CreateDirectories(std::string_view dir);

}  // namespace floe::io
