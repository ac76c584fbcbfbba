#pragma once
/// Files the CLI writes for the user (`floe parquet write`, `floe avro write`)
/// appear under their final name only when complete: they are written to a
/// temporary beside the final path (same folder, so the rename stays on one
/// file system), then renamed over it. A failed or killed run leaves any
/// earlier file under the final name untouched; a killed run may leave the
/// temporary `.NAME.floe-tmp-PID` behind, never a partial file named NAME.

#include <memory>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/io/file_io.h"

namespace floe::cli {

class AtomicOutput {
 public:
  /// Nothing is created until Create(). `file_io` must outlive this object.
  AtomicOutput(io::FileIO& file_io, std::string_view final_path);
  /// Deletes the temporary unless Commit() succeeded.
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& final_path() const { return final_path_; }
  const std::string& temp_path() const { return temp_path_; }

  /// Creates (or truncates) the temporary. The writer that receives it must
  /// sync and close it before Commit().
  Result<std::unique_ptr<io::OutputFile>> Create();

  /// Renames the temporary over the final path, replacing any file there.
  /// Errors: those of FileIO::Rename (the temporary is then deleted).
  Status Commit();

 private:
  io::FileIO& file_io_;
  std::string final_path_;
  std::string temp_path_;
  bool committed_ = false;
};

}  // namespace floe::cli
