#pragma once
/// ResolvingFileIO: one FileIO for every kind of path a catalog holds, chosen
/// by each path's scheme, as Iceberg Java's ResolvingFileIO and PyIceberg's
/// scheme table do (docs/s3.md, "One FileIO for a catalog"):
///
/// | scheme                        | FileIO                                   |
/// |-------------------------------|------------------------------------------|
/// | none (a plain path), `file`   | LocalFileIO                              |
/// | `s3`, `s3a`, `s3n`            | the one made by the factory for "s3"     |
/// | anything else (`gs`, `abfs`)  | kNotSupported naming the scheme and path |
///
/// The FileIO of an object-store scheme is made on the first path of that
/// scheme, by the factory given at construction, from the properties in
/// force then (the `s3.*` settings of the catalog's section in .floe.yaml; for a
/// rest catalog also the server's config, see SetProperties). A catalog that
/// never touches S3 therefore needs no S3 settings and no credentials. When
/// the factory fails (no credentials, a malformed setting), every call on a
/// path of that scheme returns its error with the path as context, and the
/// next such call tries again.
///
/// Settings per location (SetLocationProperties): a rest catalog's server may
/// hand out settings for one table (the `config` of a load-table answer, e.g.
/// vended S3 keys) or for a location prefix (`storage-credentials`). Paths
/// under such a location get their own object-store FileIO, made from the
/// catalog's properties overlaid with the location's, as PyIceberg makes one
/// FileIO per table; the longest location that holds the path wins.
///
/// Each call keeps the contract of the FileIO that serves the path
/// (file_io.h, s3_file_io.h): on S3 nothing is visible before Close(),
/// Sync() promises nothing before Close(), and Rename is a copy and a delete,
/// not atomic. Rename between two schemes is kNotSupported. SyncFiles() hands
/// each path to the FileIO of its scheme (closed S3 objects are durable
/// already: nothing to do); SupportsSyncFiles() is true, as both FileIOs
/// support it, so DeferredSyncFileIO over this defers local syncs and costs
/// nothing on S3.
///
/// Thread-safe: calls may come from many threads; the object-store FileIO is
/// made once, under a lock, and then shared.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/io/forwarding_file_io.h"

namespace floe::io {

class ResolvingFileIO final : public ForwardingFileIO {
 public:
  using Properties = std::map<std::string, std::string>;
  /// Makes the FileIO for an object-store scheme ("s3" for s3, s3a and s3n)
  /// from the properties in force. kNotSupported for a scheme it does not know.
  using Factory =
      std::function<Result<std::unique_ptr<FileIO>>(std::string_view scheme, const Properties&)>;

  /// `factory` may be empty: then every object-store path is kNotSupported.
  ResolvingFileIO(Properties properties, Factory factory);

  /// Replaces the properties an object-store FileIO is made from. Meant for
  /// the time between creating this and the first object-store path (a rest
  /// catalog merges the server's config after connecting). kInvalidArgument
  /// if an object-store FileIO was made already with other properties (it
  /// would keep the old ones); Ok if they are equal.
  Status SetProperties(Properties properties);
  /// The properties in force.
  Properties properties() const;

  /// Paths at or under `location` (an object-store URI such as
  /// "s3://bucket/ns/table"; a trailing '/' is ignored) use a FileIO made from
  /// properties() overlaid with `overrides`. Setting a location again with
  /// other overrides (refreshed keys) makes a new FileIO for later calls;
  /// files already open keep theirs. Local locations and empty overrides are
  /// ignored.
  void SetLocationProperties(std::string_view location, const Properties& overrides);

  /// The scheme a path is served by: "" for local paths and file:// URIs,
  /// "s3" for s3://, s3a:// and s3n://, else the path's own scheme.
  static std::string SchemeOf(std::string_view path);

  /// The FileIO serving `path` (made now if it is the first path of its
  /// scheme). The errors above for an unknown scheme or a failed factory.
  /// OpenInput, CreateOutput, Delete, Exists, List, DeleteDirectory and
  /// OpenAppend go to it (ForwardingFileIO): local paths can be appended to,
  /// object-store paths are kNotSupported.
  Result<FileIO*> For(std::string_view path) override;

  /// kNotSupported between two schemes.
  Status Rename(std::string_view from, std::string_view to, bool replace) override;
  Status RenameUnsynced(std::string_view from, std::string_view to, bool replace) override;
  bool SupportsSyncFiles() const override { return true; }
  Status SyncFiles(std::span<const std::string> paths) override;
  Status WriteAtomically(std::string_view path, std::string_view bytes) override;
  Status WriteNew(std::string_view path, std::string_view bytes) override;

 private:
  LocalFileIO local_;
  Factory factory_;
  mutable std::mutex mu_;
  Properties properties_;
  /// Object-store FileIOs by SchemeOf, made on first use; never removed.
  std::map<std::string, std::unique_ptr<FileIO>, std::less<>> made_;
  struct Location {
    Properties overrides;
    std::unique_ptr<FileIO> io;  ///< made on first use
  };
  /// By location without a trailing '/'.
  std::map<std::string, Location, std::less<>> locations_;
  /// FileIOs replaced by SetLocationProperties, kept while a call may still
  /// use them.
  std::vector<std::unique_ptr<FileIO>> retired_;
};

}  // namespace floe::io
