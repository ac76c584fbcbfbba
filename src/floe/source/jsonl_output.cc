#include "floe/source/jsonl_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

namespace floe::source {

JsonLinesOutput::JsonLinesOutput(JsonLinesOutputOptions options) : options_(std::move(options)) {}

Status JsonLinesOutput::Open(const engine::OperatorContext& context,
                             const engine::RestoredState& state) {
  if (!options_.regular_file) {
    if (state.own) {
      return InvalidArgument(
          "the output is not a regular file: a restored read cannot cut it back");
    }
    return Ok();
  }
  struct stat st {};
  if (::fstat(options_.fd, &st) != 0) return IoError("output: fstat: {}", std::strerror(errno));
  int64_t length = st.st_size;
  if (state.own) {
    nlohmann::json j = nlohmann::json::parse(*state.own, nullptr, false);
    if (!j.is_object() || !j.contains("bytes") || !j["bytes"].is_number_integer()) {
      return Corruption("output state '{}': expected {{\"bytes\":N,\"rows\":R}}", *state.own);
    }
    length = j["bytes"].get<int64_t>();
    rows_ = j.value("rows", int64_t{0});
    if (st.st_size < length) {
      return InvalidArgument(
          "the output file has {} bytes, fewer than the {} that checkpoint {} wrote: it is not the "
          "file this read wrote to (to go on, append to that same file, e.g. with >>, or start "
          "with a new --state-dir)",
          st.st_size, length, state.checkpoint_id);
    }
  } else if (options_.truncate_on_fresh_start) {
    length = 0;
  }
  if (length != st.st_size && ::ftruncate(options_.fd, length) != 0) {
    return IoError("output: truncating to {} bytes: {}", length, std::strerror(errno));
  }
  if (::lseek(options_.fd, length, SEEK_SET) < 0 && errno != ESPIPE) {
    return IoError("output: seek to {}: {}", length, std::strerror(errno));
  }
  bytes_ = length;
  if (options_.limit && rows_ >= *options_.limit) {
    limit_reached_ = true;
    if (options_.on_limit) options_.on_limit();
  }
  return Ok();
}

Status JsonLinesOutput::WriteAll(std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(options_.fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("writing the output: {}", std::strerror(errno));
    }
    text.remove_prefix(static_cast<size_t>(n));
    bytes_ += n;
  }
  return Ok();
}

Status JsonLinesOutput::Process(RowChunk chunk, engine::Collector<engine::Nothing>& out) {
  if (limit_reached_) return Ok();
  std::string_view text = chunk.text;
  int64_t rows = chunk.rows;
  if (options_.limit && rows_ + rows >= *options_.limit) {
    rows = *options_.limit - rows_;
    size_t end = 0;
    for (int64_t i = 0; i < rows; ++i) end = text.find('\n', end) + 1;
    text = text.substr(0, end);
    limit_reached_ = true;
  }
  FLOE_RETURN_IF_ERROR(WriteAll(text));
  rows_ += rows;
  if (limit_reached_ && options_.on_limit) options_.on_limit();
  return Ok();
}

Result<std::string> JsonLinesOutput::SnapshotState(engine::CheckpointId id,
                                                   engine::Collector<engine::Nothing>& out) {
  if (options_.regular_file && options_.sync && ::fsync(options_.fd) != 0) {
    return IoError("output: fsync: {}", std::strerror(errno));
  }
  nlohmann::json j;
  j["bytes"] = bytes_;
  j["rows"] = rows_;
  return j.dump();
}

}  // namespace floe::source
