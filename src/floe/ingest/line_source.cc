#include "floe/ingest/line_source.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

namespace floe::ingest {

namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

}  // namespace

LineSource::LineSource(LineSourceOptions options, int fd, int64_t offset, int64_t line_number)
    : options_(std::move(options)),
      fd_(fd),
      reader_([this](std::span<char> into) { return Read(into); }, options_.buffer_size),
      consumed_offset_(offset),
      consumed_lines_(line_number) {}

LineSource::~LineSource() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<LineSource>> LineSource::Open(LineSourceOptions options, int64_t offset,
                                                     int64_t line_number) {
  if (offset < 0 || line_number < 0) {
    return InvalidArgument("{}: negative resume position {} (line {})", options.path, offset,
                           line_number);
  }
  if (options.path == kStandardInput) {
    if (offset != 0) {
      return InvalidArgument(
          "standard input cannot be resumed at offset {}: it is read from its start", offset);
    }
    return std::unique_ptr<LineSource>(new LineSource(std::move(options), STDIN_FILENO, 0, 0));
  }
  int fd = ::open(options.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return NotFound("input {}: no such file", options.path);
    return IoError("input {}: cannot open: {}", options.path, ErrnoText(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return IoError("input {}: cannot stat: {}", options.path, ErrnoText(err));
  }
  if (S_ISREG(st.st_mode)) {
    if (offset > st.st_size) {
      ::close(fd);
      return InvalidArgument(
          "input {}: file shorter ({} bytes) than the recorded position {}: the input was "
          "replaced or truncated since the checkpoint",
          options.path, st.st_size, offset);
    }
    if (offset > 0 && ::lseek(fd, offset, SEEK_SET) != offset) {
      int err = errno;
      ::close(fd);
      return IoError("input {}: cannot seek to {}: {}", options.path, offset, ErrnoText(err));
    }
  } else if (offset != 0) {
    ::close(fd);
    return InvalidArgument("input {}: not a regular file, cannot resume at offset {}", options.path,
                           offset);
  }
  auto source =
      std::unique_ptr<LineSource>(new LineSource(std::move(options), fd, offset, line_number));
  source->owns_fd_ = true;
  return source;
}

Result<size_t> LineSource::Read(std::span<char> into) {
  while (true) {
    ssize_t n = ::read(fd_, into.data(), into.size());
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    int err = errno;
    return IoError("input {}: read failed at offset {}: {}", options_.path,
                   consumed_offset_ + static_cast<int64_t>(reader_.buffered()), ErrnoText(err));
  }
}

Status LineSource::CheckNotTruncated() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return Ok();
  int64_t read_to = consumed_offset_ + static_cast<int64_t>(reader_.buffered());
  if (st.st_size < read_to) {
    return InvalidArgument(
        "input {}: the file shrank to {} bytes below the read position {} "
        "(truncated or replaced while followed)",
        options_.path, st.st_size, read_to);
  }
  return Ok();
}

bool LineSource::Consume(const LineReader::Line& taken, Line* line) {
  line->offset = consumed_offset_;
  line->number = ++consumed_lines_;
  consumed_offset_ += static_cast<int64_t>(taken.input_bytes);
  line->end_offset = consumed_offset_;
  line->text = taken.text;
  return !taken.text.empty();
}

bool LineSource::TakeLine(Line* line) {
  LineReader::Line taken;
  while (reader_.TakeLine(&taken)) {
    if (Consume(taken, line)) return true;
  }
  return false;
}

size_t LineSource::TakeBuffered(std::vector<Line>* out, size_t max_lines) {
  size_t taken = 0;
  Line line;
  while (taken < max_lines && TakeLine(&line)) {
    out->push_back(line);
    ++taken;
  }
  return taken;
}

Result<std::optional<Line>> LineSource::Next(std::chrono::milliseconds wait) {
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (true) {
    // A complete line in the buffer?
    Line complete;
    if (TakeLine(&complete)) return complete;
    if (at_end_) return std::nullopt;

    if (is_stdin()) {
      // A pipe or terminal: wait for data at most until the deadline, so a
      // caller polling with a budget is never blocked longer.
      auto now = std::chrono::steady_clock::now();
      int timeout_ms =
          now >= deadline
              ? 0
              : static_cast<int>(
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count());
      pollfd p{fd_, POLLIN, 0};
      int ready = ::poll(&p, 1, timeout_ms);
      if (ready < 0 && errno != EINTR) {
        return IoError("standard input: poll failed: {}", ErrnoText(errno));
      }
      if (ready <= 0) return std::nullopt;  // nothing now
    }
    FLOE_ASSIGN_OR_RETURN(size_t n, reader_.Fill());
    if (n > 0) continue;

    // End of file.
    if (!options_.follow || is_stdin()) {
      at_end_ = true;
      // A last line without newline is processed at the end.
      LineReader::Line rest;
      Line line;
      if (reader_.TakeRest(&rest) && Consume(rest, &line)) return line;
      return std::nullopt;
    }
    FLOE_RETURN_IF_ERROR(CheckNotTruncated());
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        options_.follow_poll_interval, deadline - now));
  }
}

}  // namespace floe::ingest
