#pragma once
/// ForwardingFileIO: the base of a FileIO that hands its calls on to other
/// FileIOs, the one For() picks for each path: ResolvingFileIO picks by the
/// path's scheme, DeferredSyncFileIO always its wrapped FileIO. The calls
/// below go to For(path) unchanged (an error of For is returned as it is); a
/// subclass overrides what it does differently and implements the rest of
/// FileIO (Rename at least).

#include <memory>
#include <string_view>
#include <vector>

#include "floe/io/file_io.h"

namespace floe::io {

class ForwardingFileIO : public FileIO {
 public:
  /// The FileIO that serves `path`; it must outlive the calls made on it.
  virtual Result<FileIO*> For(std::string_view path) = 0;

  Result<std::unique_ptr<InputFile>> OpenInput(std::string_view path) override;
  Result<std::unique_ptr<OutputFile>> CreateOutput(std::string_view path,
                                                   bool overwrite = false) override;
  Status Delete(std::string_view path) override;
  Result<bool> Exists(std::string_view path) override;
  Result<std::vector<FileInfo>> List(std::string_view dir) override;
  Status DeleteDirectory(std::string_view dir) override;
  Result<std::unique_ptr<AppendFile>> OpenAppend(std::string_view path) override;
};

}  // namespace floe::io
