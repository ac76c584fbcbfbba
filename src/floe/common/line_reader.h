#pragma once
/// LineReader: splits a byte stream into lines through one buffer, without
/// copying them out.
///
///   - A line ends with "\n"; one "\r" before it is not part of the line.
///   - A last line without "\n" is a line too, once the input has ended
///     (TakeRest, or Next).
///   - Lines of any length are read: the buffer grows to the longest line.
///   - Empty lines are lines: a caller that skips them still counts them.
///
/// The reader does not know where its bytes come from: `read` fills a span
/// and says how many bytes it wrote (0 at the end of the input). Not
/// thread-safe.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "floe/common/result.h"

namespace floe {

class LineReader {
 public:
  /// Writes up to `into.size()` bytes of input into `into`; returns how many,
  /// 0 at the end of the input (for now: a followed file may grow later).
  using ReadFunction = std::function<Result<size_t>(std::span<char> into)>;

  /// One line taken out of the buffer.
  struct Line {
    /// The line without its "\n" and the "\r" before it. Valid until the
    /// next call to Fill or Next.
    std::string_view text;
    /// The bytes the line took in the input, with its line end.
    size_t input_bytes = 0;
  };

  /// `initial_buffer_size`: the buffer's first size (at least 64 bytes); it
  /// doubles when a line does not fit.
  explicit LineReader(ReadFunction read, size_t initial_buffer_size = 1 << 20);

  /// Takes the next line ended by "\n" that is already in the buffer into
  /// `*line`, without reading; false when the buffer holds no complete line.
  /// Lines taken since the last Fill stay valid together.
  bool TakeLine(Line* line);

  /// Reads more input behind the bytes not taken yet, moving them to the
  /// front of the buffer or growing it when needed (which invalidates the
  /// lines taken before). Returns the bytes read, 0 at the end of the input.
  /// Errors: those of the read function.
  Result<size_t> Fill();

  /// Takes the bytes not ended by "\n" (a last line without newline) into
  /// `*line`; false when there are none. For a caller that knows the input
  /// has ended.
  bool TakeRest(Line* line);

  /// The next line, reading as needed; nullopt at the end of the input
  /// (after the last line, ended by "\n" or not). Errors: those of the read
  /// function.
  Result<std::optional<Line>> Next();

  /// Bytes read but not taken as lines yet.
  size_t buffered() const { return end_ - begin_; }
  /// Bytes read from the input so far.
  int64_t bytes_read() const { return bytes_read_; }

 private:
  ReadFunction read_;
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  size_t begin_ = 0;  ///< first byte not taken
  size_t end_ = 0;    ///< end of the bytes read
  size_t scan_ = 0;   ///< bytes after begin_ already known to hold no "\n"
  int64_t bytes_read_ = 0;
};

/// A read function over an open file descriptor (standard input, a pipe, a
/// file): read(2), retried when interrupted. The descriptor stays the
/// caller's. Errors: kIo naming `name` and the system's reason.
LineReader::ReadFunction ReadFromFileDescriptor(int fd, std::string name);

// TakeLine runs once a line: defined here so that callers inline it.
inline bool LineReader::TakeLine(Line* line) {
  const char* start = buffer_.get() + begin_;
  size_t available = end_ - begin_;
  if (scan_ >= available) return false;
  const char* nl = static_cast<const char*>(std::memchr(start + scan_, '\n', available - scan_));
  if (nl == nullptr) {
    scan_ = available;
    return false;
  }
  size_t length = static_cast<size_t>(nl - start);
  begin_ += length + 1;
  scan_ = 0;
  line->input_bytes = length + 1;
  if (length > 0 && start[length - 1] == '\r') --length;
  line->text = std::string_view(start, length);
  return true;
}

}  // namespace floe
