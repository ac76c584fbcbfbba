#pragma once
/// DeferredSyncFileIO: a FileIO whose output files are made durable together,
/// at a barrier, instead of one by one.
///
/// A writer that completes many small files per checkpoint (one data file,
/// one delete file and their manifests for each of thousands of tables) pays
/// one device flush per file when each file is synced on its own. Through this
/// wrapper, OutputFile::Sync() only records the file; SyncDeferred() then makes
/// every recorded file durable with one FileIO::SyncFiles call (for local
/// files: one syncfs per file system when there are many). Nothing a caller
/// relies on changes except *when* the files become durable: a file is
/// durable once SyncDeferred() that follows its Sync() returned Ok, so the
/// caller must call SyncDeferred() before it hands out anything that needs
/// the files to survive a crash (a checkpoint's state).
///
/// When the wrapped FileIO cannot sync files together (SupportsSyncFiles()
/// false), Sync() syncs at once and RenameThenDefer is a durable Rename, as
/// the wrapped FileIO would do.
///
/// Thread-safe: files may be written and synced from many threads;
/// SyncDeferred() covers every Sync() that returned before it was called.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/io/forwarding_file_io.h"

namespace floe::io {

class DeferredSyncFileIO final : public ForwardingFileIO {
 public:
  /// Wraps `inner`, which must outlive this object.
  explicit DeferredSyncFileIO(FileIO& inner);

  /// Makes every file recorded by Sync() since the last successful call
  /// durable. On error the files stay recorded (a later call tries again)
  /// and the error names what failed.
  Status SyncDeferred();
  /// Files recorded and not yet made durable.
  size_t deferred_files() const;
  /// Renames `from` (which the caller has made durable, e.g. by a
  /// SyncDeferred after its Sync) to `to` without syncing the folders: they
  /// are recorded, and the next SyncDeferred makes the new name durable.
  Status RenameThenDefer(std::string_view from, std::string_view to, bool replace);

  /// The wrapped FileIO, for every path: OpenInput, Delete, Exists, List,
  /// DeleteDirectory and OpenAppend go to it unchanged (ForwardingFileIO). An
  /// append file's Sync() therefore syncs at once (a log is synced when its
  /// records must survive, not at a barrier).
  Result<FileIO*> For(std::string_view /*path*/) override { return &inner_; }

  /// The wrapped FileIO's output file, whose Sync() records the file for
  /// SyncDeferred() (when the wrapped FileIO supports SyncFiles).
  Result<std::unique_ptr<OutputFile>> CreateOutput(std::string_view path,
                                                   bool overwrite = false) override;
  /// Syncs `from` first if its Sync() was deferred, then renames (durably).
  Status Rename(std::string_view from, std::string_view to, bool replace) override;
  bool SupportsSyncFiles() const override { return inner_.SupportsSyncFiles(); }
  Status SyncFiles(std::span<const std::string> paths) override { return inner_.SyncFiles(paths); }

 private:
  class DeferredOutputFile;
  void Record(const std::string& path);

  FileIO& inner_;
  mutable std::mutex mu_;
  std::vector<std::string> deferred_;
};

}  // namespace floe::io
