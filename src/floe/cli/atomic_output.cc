#include "floe/cli/atomic_output.h"

#include <unistd.h>

#include <fmt/format.h>

namespace floe::cli {

AtomicOutput::AtomicOutput(io::FileIO& file_io, std::string_view final_path)
    : file_io_(file_io), final_path_(io::LocalPath(final_path)) {
  size_t slash = final_path_.rfind('/');
  std::string dir = slash == std::string::npos ? "" : final_path_.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? final_path_ : final_path_.substr(slash + 1);
  temp_path_ = fmt::format("{}.{}.floe-tmp-{}", dir, base, ::getpid());
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) (void)file_io_.Delete(temp_path_);
}

Result<std::unique_ptr<io::OutputFile>> AtomicOutput::Create() {
  return file_io_.CreateOutput(temp_path_, /*overwrite=*/true);
}

Status AtomicOutput::Commit() {
  FLOE_RETURN_IF_ERROR(file_io_.Rename(temp_path_, final_path_, /*replace=*/true));
  committed_ = true;
  return Ok();
}

}  // namespace floe::cli
