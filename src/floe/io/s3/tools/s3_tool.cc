// floe_s3_tool: copies files between the local disk and S3 through FileIO
// (LocalFileIO, S3FileIO), for the interop tests (tests/interop/
// test_s3_interop.py) to check that other readers read what S3FileIO wrote
// and the reverse. Not installed; not part of the `floe` command line.
//
//   floe_s3_tool [-p KEY=VALUE]... cp SRC DST   # streams in 1 MiB writes
//   floe_s3_tool [-p KEY=VALUE]... ls s3://bucket/dir
//   floe_s3_tool [-p KEY=VALUE]... mb BUCKET
//
// -p sets an S3 property (s3.endpoint, s3.access-key-id, ...; docs/s3.md);
// the AWS_* environment and ~/.aws profiles fill in the rest. Errors go to
// standard error as "error: <message>", exit code 1; usage errors exit 2.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/io/s3/s3_file_io.h"
#include "floe/io/s3/s3_uri.h"

namespace {

using floe::Result;
using floe::Status;

int Usage() {
  std::fprintf(stderr, "usage: floe_s3_tool [-p KEY=VALUE]... cp SRC DST | ls URI | mb BUCKET\n");
  return 2;
}

int Fail(const floe::Error& e) {
  std::fprintf(stderr, "error: %s\n", e.message().c_str());
  return 1;
}

Status Copy(floe::io::FileIO& from_io, const std::string& from, floe::io::FileIO& to_io,
            const std::string& to) {
  FLOE_ASSIGN_OR_RETURN(auto in, from_io.OpenInput(from));
  FLOE_ASSIGN_OR_RETURN(auto out, to_io.CreateOutput(to, /*overwrite=*/true));
  std::vector<uint8_t> buffer(1 << 20);
  for (uint64_t at = 0; at < in->size();) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), in->size() - at));
    FLOE_RETURN_IF_ERROR(in->ReadAt(at, {buffer.data(), n}));
    FLOE_RETURN_IF_ERROR(out->Write({buffer.data(), n}));
    at += n;
  }
  FLOE_RETURN_IF_ERROR(out->Sync());
  return out->Close();
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> properties;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-p" && i + 1 < argc) {
      std::string kv = argv[++i];
      size_t eq = kv.find('=');
      if (eq == std::string::npos) return Usage();
      properties[kv.substr(0, eq)] = kv.substr(eq + 1);
    } else {
      args.push_back(a);
    }
  }
  if (args.empty()) return Usage();
  auto s3 = floe::io::s3::S3FileIO::Make(properties);
  if (!s3) return Fail(s3.error());
  floe::io::LocalFileIO local;
  auto io_for = [&](const std::string& path) -> floe::io::FileIO& {
    if (floe::io::s3::IsS3Uri(path)) return **s3;
    return local;
  };

  if (args[0] == "cp" && args.size() == 3) {
    Status st = Copy(io_for(args[1]), args[1], io_for(args[2]), args[2]);
    if (!st) return Fail(st.error());
    return 0;
  }
  if (args[0] == "ls" && args.size() == 2) {
    auto list = io_for(args[1]).List(args[1]);
    if (!list) return Fail(list.error());
    for (const auto& f : *list) {
      std::printf("%s%s\t%llu\n", f.path.c_str(), f.is_directory ? "/" : "",
                  static_cast<unsigned long long>(f.size));
    }
    return 0;
  }
  if (args[0] == "mb" && args.size() == 2) {
    Status st = (*s3)->client().CreateBucket(args[1]);
    if (!st && st.error().code() != floe::ErrorCode::kAlreadyExists) return Fail(st.error());
    return 0;
  }
  return Usage();
}
