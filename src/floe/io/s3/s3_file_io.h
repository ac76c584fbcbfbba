#pragma once
/// S3FileIO: FileIO on S3 and S3-compatible object stores, for `s3://`,
/// `s3a://` and `s3n://` paths (docs/s3.md).
///
/// Durability and visibility, against the contract of file_io.h:
/// - An output file is buffered; up to `part_size` bytes it is sent with one
///   PUT on Close(), larger files as a multipart upload whose parts go up
///   while the file is still being written (at most `max_parts_in_flight` at a
///   time, so a file holds at most (max_parts_in_flight + 1) * part_size bytes
///   of memory). Nothing is visible under the path before Close() returns Ok;
///   then the whole object is, at once, and it is durable (S3 acknowledges a
///   PUT or CompleteMultipartUpload only once the object is stored
///   redundantly, and reads after it see it: S3 is strongly consistent).
/// - Sync() therefore cannot make anything durable before Close(): it returns
///   the error of a part upload that already failed, else Ok, and promises
///   nothing else. Callers that write, Sync(), Close() and only then publish
///   the path (every table file and metadata file in floe) get the local
///   rule; a file that must be durable while it stays open (an append log)
///   does not belong on S3. SyncFiles() is Ok: closed objects are durable.
/// - A failed Close(), or an output destroyed without Close(), aborts its
///   multipart upload: no object appears and no parts are left behind (except
///   when the abort itself fails; a bucket lifecycle rule
///   AbortIncompleteMultipartUpload removes those).
/// - CreateOutput(path, overwrite=false) checks that the key is absent and
///   sends If-None-Match: * with the PUT or CompleteMultipartUpload, so a race
///   with another writer ends in kAlreadyExists from Close() on servers that
///   support conditional writes (AWS S3 since 2024, moto 5).
/// - WriteAtomically() and WriteNew() are one PUT each (no temporary and
///   rename as on a local disk); WriteNew() is the way to create a name
///   exactly once (a commit by exclusive create).
/// - Rename() is a copy and a delete: NOT atomic. A reader can see both
///   names, a crash can leave both, and with `replace` false another writer can
///   create `to` between the check and the copy. Callers must not use Rename
///   to commit on S3; create the final name with CreateOutput(path, false).
/// - List(dir) lists keys under "dir/" with delimiter '/': objects as files,
///   common prefixes as folders. Exists() is true for an object, and for a
///   "folder" that has objects under it.
///
/// Thread-safe: one S3FileIO serves every thread; an InputFile may be read
/// from several threads; an OutputFile by one thread at a time.

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/io/resolving_file_io.h"
#include "floe/io/s3/s3_client.h"
#include "floe/io/s3/s3_options.h"

namespace floe::io::s3 {

class S3FileIO final : public FileIO {
 public:
  explicit S3FileIO(std::shared_ptr<S3Client> client);

  /// An S3FileIO configured from `properties` (S3OptionsFromProperties), on a
  /// libcurl transport.
  static Result<std::unique_ptr<S3FileIO>> Make(
      const std::map<std::string, std::string>& properties,
      const EnvLookup& env = ProcessEnvironment());

  /// The object's size comes from one HEAD. Reads within the last
  /// kTailBytes of the object (a Parquet footer and its length) are served
  /// from one GET of that tail, made on the first such read. ReadRanges
  /// coalesces nearby ranges (column chunks) into fewer GETs, sent in
  /// parallel.
  Result<std::unique_ptr<InputFile>> OpenInput(std::string_view path) override;
  Result<std::unique_ptr<OutputFile>> CreateOutput(std::string_view path,
                                                   bool overwrite = false) override;
  Status Delete(std::string_view path) override;
  Result<bool> Exists(std::string_view path) override;
  /// Copy, then delete: not atomic (see above). Objects up to 5 GiB.
  Status Rename(std::string_view from, std::string_view to, bool replace) override;
  Result<std::vector<FileInfo>> List(std::string_view dir) override;
  /// One PUT (multipart above part_size): atomic on S3, no temporary.
  Status WriteAtomically(std::string_view path, std::string_view bytes) override;
  /// One conditional PUT (If-None-Match: *), after a HEAD that refuses an
  /// existing key early (for servers that ignore the condition).
  /// kAlreadyExists if the key exists; `path` is then unchanged.
  Status WriteNew(std::string_view path, std::string_view bytes) override;
  bool SupportsSyncFiles() const override { return true; }
  Status SyncFiles(std::span<const std::string> paths) override { return Ok(); }

  S3Client& client() { return *client_; }

  /// Bytes at the end of an object fetched at once by the first read there.
  static constexpr uint64_t kTailBytes = 64 * 1024;
  /// InputFile::ReadRanges reads ranges less than this apart with one GET
  /// (reading the gap costs less than another request's round trip)...
  static constexpr uint64_t kCoalesceGapBytes = 1 << 20;
  /// ...of at most this many bytes; the GETs go max_parts_in_flight at a time.
  static constexpr uint64_t kMaxCoalescedBytes = 64ull << 20;
  /// Largest object Rename copies (S3's limit for one CopyObject).
  static constexpr uint64_t kMaxCopyBytes = 5ull << 30;

 private:
  std::shared_ptr<S3Client> client_;
};

/// The FileIO of a catalog (docs/s3.md, "One FileIO for a catalog"): local
/// paths and file:// URIs on the local file system, s3://, s3a:// and s3n://
/// through one S3FileIO made with S3FileIO::Make from the properties (and
/// `env`) in force at the first such path. No S3 setting is read before then.
std::unique_ptr<ResolvingFileIO> MakeResolvingFileIO(std::map<std::string, std::string> properties,
                                                     EnvLookup env = ProcessEnvironment());

}  // namespace floe::io::s3
