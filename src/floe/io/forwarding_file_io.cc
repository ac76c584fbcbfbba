#include "floe/io/forwarding_file_io.h"

namespace floe::io {

Result<std::unique_ptr<InputFile>> ForwardingFileIO::OpenInput(std::string_view path) {
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(path));
  return io->OpenInput(path);
}

Result<std::unique_ptr<OutputFile>> ForwardingFileIO::CreateOutput(std::string_view path,
                                                                   bool overwrite) {
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(path));
  return io->CreateOutput(path, overwrite);
}

Status ForwardingFileIO::Delete(std::string_view path) {
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(path));
  return io->Delete(path);
}

Result<bool> ForwardingFileIO::Exists(std::string_view path) {
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(path));
  return io->Exists(path);
}

Result<std::vector<FileInfo>> ForwardingFileIO::List(std::string_view dir) {
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(dir));
  return io->List(dir);
}

Status ForwardingFileIO::DeleteDirectory(std::string_view dir) {
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(dir));
  return io->DeleteDirectory(dir);
}

Result<std::unique_ptr<AppendFile>> ForwardingFileIO::OpenAppend(std::string_view path) {
  FLOE_ASSIGN_OR_RETURN(FileIO * io, For(path));
  return io->OpenAppend(path);
}

}  // namespace floe::io
