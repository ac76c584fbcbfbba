#pragma once
/// Avro object container files: a header (magic "Obj\x01", metadata map with
/// "avro.schema" and "avro.codec", 16-byte sync marker) then blocks of
/// records, each followed by the sync marker. See docs/avro.md.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "floe/common/bytes.h"
#include "floe/common/result.h"
#include "floe/format/avro/binary.h"
#include "floe/format/avro/codec.h"
#include "floe/format/avro/datum.h"
#include "floe/format/avro/schema.h"
#include "floe/io/file_io.h"

namespace floe::format::avro {

using SyncMarker = std::array<uint8_t, 16>;

/// Metadata of a container file, e.g. Iceberg's "schema", "partition-spec",
/// "format-version", "content". Values are bytes (usually UTF-8 text).
using FileMetadata = std::map<std::string, std::string>;

struct WriterOptions {
  /// Block compression. Default: null (none).
  Codec codec = Codec::kNull;
  /// Codec level; < 0 means the codec's default (deflate 6, zstandard 3).
  int compression_level = -1;
  /// User metadata written to the header. Keys starting with "avro." are
  /// reserved: "avro.schema" and "avro.codec" here are kInvalidArgument.
  FileMetadata metadata;
  /// The sync marker; random if not set (set it for byte-identical output).
  std::optional<SyncMarker> sync_marker;
  /// A block is written once its encoded records reach this many bytes. Default 64 KiB.
  size_t block_size_bytes = 64 * 1024;
  /// ... or this many records (0: no limit). Default 0.
  size_t max_records_per_block = 0;
};

/// Writes records to a container file. Not thread-safe. Call order:
/// Make, Append*, Close. Without Close the file is incomplete.
class DataFileWriter {
 public:
  /// Writes the header to `file` (which the writer owns from now on).
  /// Errors: kInvalidArgument for reserved metadata keys; I/O errors of the file.
  static Result<std::unique_ptr<DataFileWriter>> Make(std::unique_ptr<io::OutputFile> file,
                                                      Schema schema, WriterOptions options = {});
  ~DataFileWriter();

  /// Encodes one record; writes a block when the block is full.
  /// Errors: kInvalidArgument if the datum does not fit the schema (nothing of
  /// it is kept; the writer stays usable); I/O errors.
  Status Append(const Datum& datum);
  /// Writes the records appended so far as a block (no-op if there are none).
  Status Flush();
  /// Flushes, syncs and closes the file. Idempotent after success.
  Status Close();

  const Schema& schema() const { return schema_; }
  uint64_t records_written() const { return records_; }
  /// Bytes in the file so far (after Close: the file length).
  uint64_t length() const;

 private:
  DataFileWriter() = default;
  std::unique_ptr<io::OutputFile> file_;
  Schema schema_;
  WriterOptions options_;
  SyncMarker sync_{};
  ByteBuffer block_;
  ByteBuffer compressed_;
  ByteBuffer out_;
  size_t block_records_ = 0;
  uint64_t records_ = 0;
  bool closed_ = false;
};

struct ReaderOptions {
  /// Resolve records to this schema (see DatumReader). Default: the writer schema.
  std::optional<Schema> reader_schema;
  ResolveOptions resolve;
  /// Largest block accepted, compressed or decompressed. Default 256 MiB.
  size_t max_block_bytes = 256u << 20;
  /// Largest header (metadata) accepted. Default 64 MiB.
  size_t max_header_bytes = 64u << 20;
};

/// Reads records from a container file, block by block. Not thread-safe.
class DataFileReader {
 public:
  /// Reads and checks the header. Errors: kCorruption naming the file and
  /// offset (bad magic, bad metadata, truncation, unknown codec, bad schema
  /// JSON), kNotSupported (bzip2/xz), kSchemaIncompatible (reader schema).
  static Result<std::unique_ptr<DataFileReader>> Open(std::unique_ptr<io::InputFile> file,
                                                      ReaderOptions options = {});
  ~DataFileReader();

  const Schema& writer_schema() const { return writer_schema_; }
  /// The schema of the records Next produces.
  const Schema& schema() const { return reader_.schema(); }
  /// All header metadata, including "avro.schema" and "avro.codec".
  const FileMetadata& metadata() const { return metadata_; }
  Codec codec() const { return codec_; }
  const SyncMarker& sync_marker() const { return sync_; }
  const std::string& path() const { return file_->path(); }

  /// Decodes the next record into `*out` (reusing its memory). Returns false
  /// at the end of the file. Errors: kCorruption naming the file and offset
  /// (bad block header, sync mismatch, bad compressed data, bad record
  /// bytes), kSchemaIncompatible for a value the reader schema cannot take.
  /// After an error the reader should not be used further.
  Result<bool> Next(Datum* out);

 private:
  DataFileReader() = default;
  Status ReadHeader();
  Status LoadBlock();

  std::unique_ptr<io::InputFile> file_;
  ReaderOptions options_;
  Schema writer_schema_;
  DatumReader reader_;
  FileMetadata metadata_;
  Codec codec_ = Codec::kNull;
  SyncMarker sync_{};
  uint64_t next_block_offset_ = 0;
  ByteBuffer raw_;
  ByteBuffer block_;
  std::string block_source_;
  std::optional<BinaryDecoder> decoder_;
  int64_t block_records_left_ = 0;
};

/// A read-only InputFile over bytes held in memory (tests, fuzzing, files
/// already read whole). Keeps its own copy.
class MemoryInputFile final : public io::InputFile {
 public:
  MemoryInputFile(std::string path, std::string bytes)
      : path_(std::move(path)), bytes_(std::move(bytes)) {}
  const std::string& path() const override { return path_; }
  uint64_t size() const override { return bytes_.size(); }
  Status ReadAt(uint64_t offset, std::span<uint8_t> out) const override;

 private:
  std::string path_;
  std::string bytes_;
};

/// An OutputFile that appends everything written to `*sink`, which the caller
/// owns and keeps alive while the file is in use.
class MemoryOutputFile final : public io::OutputFile {
 public:
  MemoryOutputFile(std::string path, std::string* sink) : path_(std::move(path)), sink_(sink) {}
  const std::string& path() const override { return path_; }
  using io::OutputFile::Write;
  /// kIo after Close.
  Status Write(std::span<const uint8_t> bytes) override;
  uint64_t position() const override { return sink_->size(); }
  Status Sync() override { return Ok(); }
  Status Close() override {
    closed_ = true;
    return Ok();
  }

 private:
  std::string path_;
  std::string* sink_;
  bool closed_ = false;
};

}  // namespace floe::format::avro
