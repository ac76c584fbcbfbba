#include "floe/common/line_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace floe {

namespace {

/// `bytes` without one "\r" at its end.
std::string_view WithoutCarriageReturn(const char* bytes, size_t length) {
  if (length > 0 && bytes[length - 1] == '\r') --length;
  return std::string_view(bytes, length);
}

}  // namespace

LineReader::LineReader(ReadFunction read, size_t initial_buffer_size)
    : read_(std::move(read)), capacity_(std::max<size_t>(initial_buffer_size, 64)) {
  buffer_ = std::make_unique<char[]>(capacity_);
}

Result<size_t> LineReader::Fill() {
  // Make room: move the bytes not taken to the front, grow if still full.
  if (begin_ > 0 && (end_ == capacity_ || begin_ >= capacity_ / 2)) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == capacity_) {
    size_t grown = capacity_ * 2;
    auto bigger = std::make_unique<char[]>(grown);
    std::memcpy(bigger.get(), buffer_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    buffer_ = std::move(bigger);
    capacity_ = grown;
  }
  FLOE_ASSIGN_OR_RETURN(size_t n, read_(std::span<char>(buffer_.get() + end_, capacity_ - end_)));
  end_ += n;
  bytes_read_ += static_cast<int64_t>(n);
  return n;
}

bool LineReader::TakeRest(Line* line) {
  if (end_ == begin_) return false;
  size_t length = end_ - begin_;
  line->text = WithoutCarriageReturn(buffer_.get() + begin_, length);
  line->input_bytes = length;
  begin_ = end_;
  scan_ = 0;
  return true;
}

Result<std::optional<LineReader::Line>> LineReader::Next() {
  Line line;
  while (!TakeLine(&line)) {
    FLOE_ASSIGN_OR_RETURN(size_t n, Fill());
    if (n == 0) {
      if (TakeRest(&line)) return line;
      return std::nullopt;
    }
  }
  return line;
}

LineReader::ReadFunction ReadFromFileDescriptor(int fd, std::string name) {
  return [fd, name = std::move(name)](std::span<char> into) -> Result<size_t> {
    while (true) {
      ssize_t n = ::read(fd, into.data(), into.size());
      if (n >= 0) return static_cast<size_t>(n);
      if (errno == EINTR) continue;
      return IoError("{}: read failed: {}", name, std::strerror(errno));
    }
  };
}

}  // namespace floe
