#pragma once
/// LineSource: the lines of one input of `floe ingest` (a file, or standard
/// input), each with where it came from, so that a position can be recorded
/// in a checkpoint and an ingest restarted exactly after it (docs/ingest.md,
/// "Positions and restarts").
///
///   - A file is read from a byte offset; the position after a returned line
///     is the offset of the next byte to read. Reopening at that offset
///     continues with the next line.
///   - Standard input ("-") cannot be sought: a restart reads it from its
///     start again, so it has no exactly-once resume (positions are still
///     counted, for messages).
///   - Lines end with "\n"; a "\r" before it is dropped; empty (or
///     whitespace-only "\r") lines are skipped but counted in line numbers.
///     Lines of any length are read (the buffer grows to the longest line).
///   - Without `follow`, a last line without "\n" is returned at end of file.
///     With `follow`, at end of file the source waits for the file to grow
///     (like `tail -f`); a partial last line is not returned until its "\n"
///     arrives. A file that shrinks below the position is an error.
///
/// Not thread-safe.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/line_reader.h"
#include "floe/common/result.h"

namespace floe::ingest {

/// The name of standard input.
inline constexpr std::string_view kStandardInput = "-";

/// One line. `text` stays valid until the next call to LineSource::Next
/// (TakeBuffered does not invalidate it).
struct Line {
  std::string_view text;
  /// 1-based line number in the input.
  int64_t number = 0;
  /// Byte offset of the line's first byte.
  int64_t offset = 0;
  /// Byte offset after the line (and its newline): where a resume starts.
  int64_t end_offset = 0;
};

struct LineSourceOptions {
  /// A file path, or "-" for standard input.
  std::string path;
  /// Keep reading as the file grows (see the file comment).
  bool follow = false;
  /// How long `Next` sleeps between looks at a file that has not grown.
  std::chrono::milliseconds follow_poll_interval{50};
  /// Initial read buffer size (it grows for longer lines).
  size_t buffer_size = 1 << 20;
};

class LineSource {
 public:
  /// Opens `options.path` and positions it at `offset` (the `end_offset` of
  /// the last consumed line, 0 for the start), `line_number` being the number
  /// of lines before that offset. For standard input, offset and line number
  /// must be 0. Errors: kNotFound / kIo naming the file; kInvalidArgument for
  /// a resume offset beyond the end of the file ("file shorter than the
  /// recorded position": the input was replaced or truncated).
  static Result<std::unique_ptr<LineSource>> Open(LineSourceOptions options, int64_t offset = 0,
                                                  int64_t line_number = 0);
  ~LineSource();

  /// The next non-empty line, or nullopt when there is none now: at end of
  /// file (without follow: the end of the input, see at_end()), or with
  /// follow after waiting up to `wait` for the file to grow. Errors: kIo
  /// naming the file and offset; kInvalidArgument if a followed file shrank.
  Result<std::optional<Line>> Next(std::chrono::milliseconds wait = std::chrono::milliseconds(0));

  /// Appends to `*out` up to `max_lines` further non-empty lines that are
  /// already complete in the read buffer (ended by "\n"), without reading
  /// the input, waiting or moving the buffer; returns how many. Every line
  /// returned by Next or TakeBuffered since the last Next stays valid until
  /// the next call to Next, so a caller can hold a chunk of lines at once
  /// (`floe ingest`'s parallel decoding). Positions and line numbers advance
  /// as with Next. A last line without "\n" is returned by Next only. Never
  /// fails; allocates only if `*out` must grow.
  size_t TakeBuffered(std::vector<Line>* out, size_t max_lines);

  /// True once the input has ended (never with follow).
  bool at_end() const { return at_end_; }
  const std::string& path() const { return options_.path; }
  bool is_stdin() const { return options_.path == kStandardInput; }
  /// The offset after the last returned line.
  int64_t position() const { return consumed_offset_; }
  /// The number of lines up to position() (including skipped empty ones).
  int64_t line_number() const { return consumed_lines_; }
  /// Bytes read from the input so far (by this LineSource).
  int64_t bytes_read() const { return reader_.bytes_read(); }

 private:
  LineSource(LineSourceOptions options, int fd, int64_t offset, int64_t line_number);
  /// Reads into `into` from the input: the bytes read, 0 at end of file.
  Result<size_t> Read(std::span<char> into);
  Status CheckNotTruncated();
  /// Takes the next complete line out of the reader's buffer into `*line`
  /// (empty lines are consumed and skipped); false when the buffer holds none.
  bool TakeLine(Line* line);
  /// Counts `taken` as consumed and fills `*line` with it; false if it is
  /// empty (skipped).
  bool Consume(const LineReader::Line& taken, Line* line);

  LineSourceOptions options_;
  int fd_ = -1;
  bool owns_fd_ = false;
  LineReader reader_;
  int64_t consumed_offset_ = 0;  ///< input offset of the first byte not taken
  int64_t consumed_lines_ = 0;
  bool at_end_ = false;
};

}  // namespace floe::ingest
