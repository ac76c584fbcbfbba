#include "floe/format/avro/data_file.h"

#include <algorithm>
#include <cstring>

#include "floe/common/random.h"

namespace floe::format::avro {

namespace {

constexpr uint8_t kMagic[4] = {'O', 'b', 'j', 1};
constexpr size_t kSyncSize = 16;

}  // namespace

Status MemoryInputFile::ReadAt(uint64_t offset, std::span<uint8_t> out) const {
  if (offset > bytes_.size() || out.size() > bytes_.size() - offset) {
    return Corruption("{}: read of {} bytes at offset {} past the end ({} bytes)", path_,
                      out.size(), offset, bytes_.size());
  }
  if (!out.empty()) std::memcpy(out.data(), bytes_.data() + offset, out.size());
  return Ok();
}

Status MemoryOutputFile::Write(std::span<const uint8_t> bytes) {
  if (closed_) return IoError("{}: write after close", path_);
  sink_->append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return Ok();
}

// ---------------------------------------------------------------------------
// Writer

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Make(std::unique_ptr<io::OutputFile> file,
                                                             Schema schema, WriterOptions options) {
  for (const char* reserved : {"avro.schema", "avro.codec"}) {
    if (options.metadata.contains(reserved)) {
      return InvalidArgument("avro metadata key '{}' is reserved", reserved);
    }
  }
  std::unique_ptr<DataFileWriter> w(new DataFileWriter());
  w->file_ = std::move(file);
  w->schema_ = std::move(schema);
  w->options_ = std::move(options);
  if (w->options_.sync_marker) {
    w->sync_ = *w->options_.sync_marker;
  } else {
    // The marker only has to be unlikely to occur in the data: a generator
    // seeded once per thread serves (a random_device per file was a system
    // call per manifest).
    for (size_t i = 0; i < kSyncSize; i += 8) {
      uint64_t r = RandomU64();
      std::memcpy(w->sync_.data() + i, &r, 8);
    }
  }
  ByteBuffer& out = w->out_;
  out.Append(kMagic, sizeof(kMagic));
  FileMetadata entries = w->options_.metadata;
  entries["avro.schema"] = w->schema_.ToString();
  entries["avro.codec"] = std::string(CodecName(w->options_.codec));
  AppendVarLong(static_cast<int64_t>(entries.size()), &out);
  for (const auto& [key, value] : entries) {
    AppendLengthPrefixed(key, &out);
    AppendLengthPrefixed(value, &out);
  }
  AppendVarLong(0, &out);
  out.Append(w->sync_.data(), kSyncSize);
  FLOE_RETURN_IF_ERROR_CTX(w->file_->Write(out.span()), "writing avro header of {}",
                           w->file_->path());
  return w;
}

DataFileWriter::~DataFileWriter() = default;

Status DataFileWriter::Append(const Datum& datum) {
  if (closed_) return InvalidArgument("{}: append after close", file_->path());
  size_t before = block_.size();
  Status status = EncodeDatum(schema_.root(), datum, &block_);
  if (!status) {
    block_.Resize(before);
    return std::unexpected(std::move(status).error().WithContext(
        fmt::format("avro record {} of {}", records_, file_->path())));
  }
  ++block_records_;
  ++records_;
  if (block_.size() >= options_.block_size_bytes ||
      (options_.max_records_per_block > 0 && block_records_ >= options_.max_records_per_block)) {
    return Flush();
  }
  return Ok();
}

Status DataFileWriter::Flush() {
  if (block_records_ == 0) return Ok();
  compressed_.Clear();
  FLOE_RETURN_IF_ERROR(
      Compress(options_.codec, block_.view(), options_.compression_level, &compressed_));
  out_.Clear();
  AppendVarLong(static_cast<int64_t>(block_records_), &out_);
  AppendVarLong(static_cast<int64_t>(compressed_.size()), &out_);
  out_.Append(compressed_.span());
  out_.Append(sync_.data(), kSyncSize);
  FLOE_RETURN_IF_ERROR(file_->Write(out_.span()));
  block_.Clear();
  block_records_ = 0;
  return Ok();
}

Status DataFileWriter::Close() {
  if (closed_) return Ok();
  FLOE_RETURN_IF_ERROR(Flush());
  FLOE_RETURN_IF_ERROR(file_->Sync());
  FLOE_RETURN_IF_ERROR(file_->Close());
  closed_ = true;
  return Ok();
}

uint64_t DataFileWriter::length() const { return file_->position(); }

// ---------------------------------------------------------------------------
// Reader

Result<std::unique_ptr<DataFileReader>> DataFileReader::Open(std::unique_ptr<io::InputFile> file,
                                                             ReaderOptions options) {
  std::unique_ptr<DataFileReader> r(new DataFileReader());
  r->file_ = std::move(file);
  r->options_ = std::move(options);
  FLOE_RETURN_IF_ERROR(r->ReadHeader());
  if (r->options_.reader_schema) {
    FLOE_ASSIGN_OR_RETURN(
        r->reader_,
        DatumReader::Make(r->writer_schema_, *r->options_.reader_schema, r->options_.resolve));
  } else {
    FLOE_ASSIGN_OR_RETURN(r->reader_, DatumReader::Make(r->writer_schema_));
  }
  return r;
}

DataFileReader::~DataFileReader() = default;

Status DataFileReader::ReadHeader() {
  const std::string& path = file_->path();
  uint64_t size = file_->size();
  if (size < sizeof(kMagic)) {
    return Corruption("{} at offset 0: not an avro container file (only {} bytes)", path, size);
  }
  uint64_t limit = std::min<uint64_t>(size, options_.max_header_bytes);
  uint64_t chunk = std::min<uint64_t>(limit, 64 * 1024);
  while (true) {
    raw_.Resize(chunk);
    FLOE_RETURN_IF_ERROR(file_->ReadAt(0, {raw_.data(), chunk}));
    if (std::memcmp(raw_.data(), kMagic, sizeof(kMagic)) != 0) {
      return Corruption("{} at offset 0: not an avro container file (bad magic)", path);
    }
    BinaryDecoder d(raw_.span().subspan(sizeof(kMagic)), path, sizeof(kMagic));
    metadata_.clear();
    auto parse = [&]() -> Status {
      while (true) {
        uint64_t at = d.offset();
        FLOE_ASSIGN_OR_RETURN(int64_t count, d.ReadLong());
        if (count == 0) break;
        if (count < 0) {
          if (count == INT64_MIN) return d.Corrupt("bad metadata block count");
          count = -count;
          FLOE_RETURN_IF_ERROR(d.ReadLong());
        }
        if (static_cast<uint64_t>(count) > d.remaining() / 2) {
          return Corruption("{} at offset {}: metadata count {} with {} bytes left", path, at,
                            count, d.remaining());
        }
        for (int64_t i = 0; i < count; ++i) {
          FLOE_ASSIGN_OR_RETURN(std::string_view key, d.ReadLengthPrefixed());
          FLOE_ASSIGN_OR_RETURN(std::string_view value, d.ReadLengthPrefixed());
          metadata_[std::string(key)] = std::string(value);
        }
      }
      FLOE_ASSIGN_OR_RETURN(std::string_view sync, d.ReadRaw(kSyncSize));
      std::memcpy(sync_.data(), sync.data(), kSyncSize);
      return Ok();
    };
    Status status = parse();
    if (status) {
      next_block_offset_ = d.offset();
      break;
    }
    if (chunk >= limit) {
      if (limit < size && chunk == limit) {
        return Corruption("{}: avro header larger than {} bytes", path, options_.max_header_bytes);
      }
      return std::unexpected(std::move(status).error());
    }
    chunk = std::min<uint64_t>(limit, chunk * 4);
  }

  auto schema_it = metadata_.find("avro.schema");
  if (schema_it == metadata_.end()) {
    return Corruption("{}: avro header has no avro.schema", path);
  }
  auto schema = Schema::Parse(schema_it->second);
  if (!schema) {
    return Corruption("{}: bad avro.schema in header: {}", path, schema.error().message());
  }
  writer_schema_ = std::move(*schema);
  auto codec_it = metadata_.find("avro.codec");
  if (codec_it != metadata_.end() && !codec_it->second.empty()) {
    auto codec = ParseCodec(codec_it->second);
    if (!codec) {
      if (codec.error().code() == ErrorCode::kNotSupported) {
        return std::unexpected(std::move(codec).error().WithContext(path));
      }
      return Corruption("{}: {}", path, codec.error().message());
    }
    codec_ = *codec;
  }
  return Ok();
}

Status DataFileReader::LoadBlock() {
  const std::string& path = file_->path();
  uint64_t size = file_->size();
  uint64_t offset = next_block_offset_;
  uint8_t head[20];
  size_t head_size = static_cast<size_t>(std::min<uint64_t>(sizeof(head), size - offset));
  FLOE_RETURN_IF_ERROR(file_->ReadAt(offset, {head, head_size}));
  BinaryDecoder hd({head, head_size}, path, offset);
  FLOE_ASSIGN_OR_RETURN(int64_t count, hd.ReadLong());
  uint64_t size_at = hd.offset();
  FLOE_ASSIGN_OR_RETURN(int64_t block_size, hd.ReadLong());
  uint64_t data_offset = hd.offset();
  if (count < 0) return Corruption("{} at offset {}: negative block count {}", path, offset, count);
  if (block_size < 0 || static_cast<uint64_t>(block_size) > options_.max_block_bytes) {
    return Corruption("{} at offset {}: block size {} outside [0, {}]", path, size_at, block_size,
                      options_.max_block_bytes);
  }
  auto bytes = static_cast<uint64_t>(block_size);
  if (bytes + kSyncSize > size - data_offset) {
    return Corruption("{} at offset {}: block of {} bytes and sync marker past the end ({} bytes)",
                      path, size_at, bytes, size);
  }
  raw_.Resize(bytes + kSyncSize);
  FLOE_RETURN_IF_ERROR(file_->ReadAt(data_offset, {raw_.data(), raw_.size()}));
  if (std::memcmp(raw_.data() + bytes, sync_.data(), kSyncSize) != 0) {
    return Corruption("{} at offset {}: sync marker mismatch", path, data_offset + bytes);
  }
  std::string_view data(reinterpret_cast<const char*>(raw_.data()), bytes);
  if (codec_ == Codec::kNull) {
    block_source_ = path;
    decoder_.emplace(raw_.span().first(bytes), block_source_, data_offset);
  } else {
    block_source_ = fmt::format("{} block at offset {} (decompressed)", path, data_offset);
    FLOE_RETURN_IF_ERROR(Decompress(codec_, data, options_.max_block_bytes,
                                    fmt::format("{} at offset {}", path, data_offset), &block_));
    decoder_.emplace(block_.span(), block_source_, 0);
  }
  size_t min_record = writer_schema_.root().min_encoded_size();
  uint64_t decoded = decoder_->remaining();
  uint64_t max_count = min_record == 0 ? decoded + 65536 : decoded / min_record;
  if (static_cast<uint64_t>(count) > max_count) {
    return Corruption("{} at offset {}: block count {} for {} bytes of records", path, offset,
                      count, decoded);
  }
  block_records_left_ = count;
  next_block_offset_ = data_offset + bytes + kSyncSize;
  return Ok();
}

Result<bool> DataFileReader::Next(Datum* out) {
  while (block_records_left_ == 0) {
    if (decoder_ && !decoder_->at_end()) {
      return decoder_->Corrupt(
          fmt::format("{} bytes left over after the block's records", decoder_->remaining()));
    }
    decoder_.reset();
    if (next_block_offset_ >= file_->size()) return false;
    FLOE_RETURN_IF_ERROR(LoadBlock());
  }
  FLOE_RETURN_IF_ERROR(reader_.Read(&*decoder_, out));
  --block_records_left_;
  return true;
}

}  // namespace floe::format::avro
