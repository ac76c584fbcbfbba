#include "floe/format/parquet/column_reader.h"

#include <algorithm>
#include <bit>

#include "floe/format/parquet/compression.h"
#include "floe/format/parquet/rle_decoder.h"

namespace floe::format::parquet {

using types::Value;

namespace {

uint32_t LoadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

/// Hadoop's LZ4 framing: blocks of [u32 BE uncompressed][u32 BE compressed][lz4 block].
Status DecompressHadoopLz4(std::span<const uint8_t> in, size_t uncompressed_size, uint8_t* out) {
  size_t ip = 0, op = 0;
  while (ip < in.size()) {
    if (in.size() - ip < 8) return Corruption("LZ4 (Hadoop) frame header truncated");
    uint32_t usize = LoadBigEndian32(in.data() + ip);
    uint32_t csize = LoadBigEndian32(in.data() + ip + 4);
    ip += 8;
    if (csize > in.size() - ip || usize > uncompressed_size - op) {
      return Corruption("LZ4 (Hadoop) frame sizes out of range");
    }
    FLOE_RETURN_IF_ERROR(format::parquet::Decompress(CompressionCodec::kLz4Raw,
                                                     in.subspan(ip, csize), usize, out + op));
    ip += csize;
    op += usize;
  }
  if (op != uncompressed_size) return Corruption("LZ4 (Hadoop) frames decompress to {} bytes", op);
  return Ok();
}

/// A data page header's value count; kCorruption if it is negative or above
/// the limit.
Result<size_t> DataPageValues(int32_t num_values, const PageLimits& limits) {
  if (num_values < 0 || static_cast<uint64_t>(num_values) > limits.max_page_values) {
    return Corruption("data page with {} values (limit {})", num_values, limits.max_page_values);
  }
  return static_cast<size_t>(num_values);
}

}  // namespace

Status DecompressPage(CompressionCodec codec, std::span<const uint8_t> in, size_t uncompressed_size,
                      uint8_t* out) {
  if (codec == CompressionCodec::kLz4) {
    auto hadoop = DecompressHadoopLz4(in, uncompressed_size, out);
    if (hadoop) return Ok();
    return format::parquet::Decompress(CompressionCodec::kLz4Raw, in, uncompressed_size, out);
  }
  return format::parquet::Decompress(codec, in, uncompressed_size, out);
}

ColumnChunkReader::ColumnChunkReader(const ReaderLeaf* leaf, PageLimits limits)
    : leaf_(leaf), limits_(limits), decoder_(leaf) {}

Status ColumnChunkReader::Open(const io::InputFile& file, const ColumnChunk& chunk) {
  if (!chunk.meta_data) return Corruption("column chunk without meta_data");
  const ColumnMetaData& m = *chunk.meta_data;
  if (m.type != leaf_->physical_type) {
    return Corruption("column chunk type {} differs from the schema's {}", TypeName(m.type),
                      TypeName(leaf_->physical_type));
  }
  int64_t start = m.data_page_offset;
  if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 &&
      *m.dictionary_page_offset < start) {
    start = *m.dictionary_page_offset;
  }
  int64_t size = m.total_compressed_size;
  uint64_t file_size = file.size();
  if (start < 0 || size < 0 || static_cast<uint64_t>(start) > file_size ||
      static_cast<uint64_t>(size) > file_size - static_cast<uint64_t>(start)) {
    return Corruption("column chunk at offset {} of {} bytes lies outside the file ({} bytes)",
                      start, size, file_size);
  }
  if (m.num_values < 0) return Corruption("column chunk has {} values", m.num_values);
  codec_ = m.codec;
  chunk_values_ = m.num_values;
  values_seen_ = 0;
  chunk_offset_ = static_cast<uint64_t>(start);
  chunk_.resize(static_cast<size_t>(size));
  FLOE_RETURN_IF_ERROR(file.ReadAt(chunk_offset_, chunk_));
  pos_ = 0;
  has_dictionary_ = false;
  dictionary_.clear();
  page_levels_ = level_pos_ = value_pos_ = 0;
  return Ok();
}

Result<std::span<const uint8_t>> ColumnChunkReader::Decompress(std::span<const uint8_t> in,
                                                               size_t uncompressed_size,
                                                               ByteBuffer* buffer) {
  if (codec_ == CompressionCodec::kUncompressed) {
    if (in.size() < uncompressed_size) {
      return Corruption("uncompressed page of {} bytes claims {} bytes", in.size(),
                        uncompressed_size);
    }
    return in.subspan(0, uncompressed_size);
  }
  buffer->Resize(uncompressed_size);
  FLOE_RETURN_IF_ERROR(DecompressPage(codec_, in, uncompressed_size, buffer->data()));
  return buffer->span();
}

Result<bool> ColumnChunkReader::LoadNextPage() {
  while (true) {
    if (values_seen_ >= chunk_values_ || pos_ >= chunk_.size()) return false;
    size_t page_start = pos_;
    auto fail = [&](Error e) -> Result<bool> {
      return std::unexpected(
          std::move(e).WithContext(fmt::format("page at offset {}", chunk_offset_ + page_start)));
    };
    size_t header_size = 0;
    auto header = ParsePageHeader(std::span<const uint8_t>(chunk_).subspan(pos_), &header_size);
    if (!header) return fail(std::move(header).error());
    const PageHeader& h = *header;
    if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0) {
      return fail(Error(ErrorCode::kCorruption, "negative page size"));
    }
    if (static_cast<uint64_t>(h.compressed_page_size) > chunk_.size() - pos_ - header_size) {
      return fail(Error(ErrorCode::kCorruption,
                        fmt::format("page of {} bytes runs past the end of the column chunk",
                                    h.compressed_page_size)));
    }
    if (static_cast<uint64_t>(h.uncompressed_page_size) > limits_.max_page_size) {
      return fail(Error(ErrorCode::kCorruption,
                        fmt::format("page claims {} uncompressed bytes, above the limit {}",
                                    h.uncompressed_page_size, limits_.max_page_size)));
    }
    std::span<const uint8_t> body(chunk_.data() + pos_ + header_size,
                                  static_cast<size_t>(h.compressed_page_size));
    pos_ += header_size + static_cast<size_t>(h.compressed_page_size);
    Status st;
    switch (h.type) {
      case PageType::kDictionaryPage:
        st = ReadDictionaryPage(h, body);
        if (!st) return fail(std::move(st).error());
        continue;
      case PageType::kDataPage:
        st = ReadDataPageV1(h, body);
        break;
      case PageType::kDataPageV2:
        st = ReadDataPageV2(h, body);
        break;
      default:
        continue;  // index pages and unknown page types are skipped
    }
    if (!st) return fail(std::move(st).error());
    values_seen_ += static_cast<int64_t>(page_levels_);
    if (page_levels_ > 0) return true;
  }
}

Status ColumnChunkReader::ReadDictionaryPage(const PageHeader& h, std::span<const uint8_t> body) {
  if (!h.dictionary_page_header) return Corruption("dictionary page without its header");
  if (has_dictionary_) return Corruption("second dictionary page in a column chunk");
  const auto& dh = *h.dictionary_page_header;
  if (dh.encoding != Encoding::kPlain && dh.encoding != Encoding::kPlainDictionary) {
    return Corruption("dictionary page encoding {}", EncodingName(dh.encoding));
  }
  if (dh.num_values < 0 || static_cast<uint64_t>(dh.num_values) > limits_.max_page_values) {
    return Corruption("dictionary page with {} values", dh.num_values);
  }
  size_t n = static_cast<size_t>(dh.num_values);
  // Every PLAIN value takes at least one bit.
  if (n > static_cast<uint64_t>(h.uncompressed_page_size) * 8) {
    return Corruption("dictionary page: {} values in {} bytes", n, h.uncompressed_page_size);
  }
  FLOE_ASSIGN_OR_RETURN(auto data, Decompress(body, static_cast<size_t>(h.uncompressed_page_size),
                                              &dictionary_bytes_));
  dictionary_.resize(n);
  dictionary_arena_.Reset();
  FLOE_RETURN_IF_ERROR_CTX(
      decoder_.Decode(Encoding::kPlain, data, n, {}, &dictionary_arena_, dictionary_.data()),
      "dictionary page");
  has_dictionary_ = true;
  return Ok();
}

Status ColumnChunkReader::DecodeLevels(Encoding encoding, int16_t max_level,
                                       std::span<const uint8_t> data, size_t n,
                                       bool length_prefixed, std::vector<int16_t>* out,
                                       size_t* consumed) {
  out->resize(n);
  int width = std::bit_width(static_cast<uint32_t>(max_level));
  if (encoding == Encoding::kBitPacked && length_prefixed) {
    FLOE_RETURN_IF_ERROR(DecodeLegacyBitPacked(data, width, out->data(), n, consumed));
  } else if (encoding == Encoding::kRle || !length_prefixed) {
    std::span<const uint8_t> runs = data;
    size_t prefix = 0;
    if (length_prefixed) {
      if (data.size() < 4) return Corruption("levels: missing length prefix");
      uint32_t len = LoadLittleEndian<uint32_t>(data.data());
      if (len > data.size() - 4) {
        return Corruption("levels: length {} exceeds the {} bytes present", len, data.size() - 4);
      }
      runs = data.subspan(4, len);
      prefix = 4;
    }
    RleBitPackedDecoder rle(runs, width);
    FLOE_RETURN_IF_ERROR_CTX(rle.Decode(out->data(), n), "levels");
    *consumed = prefix + runs.size();
  } else {
    return Corruption("level encoding {}", EncodingName(encoding));
  }
  for (size_t i = 0; i < n; ++i) {
    if ((*out)[i] > max_level || (*out)[i] < 0) {
      return Corruption("level {} above the maximum {}", (*out)[i], max_level);
    }
  }
  return Ok();
}

Status ColumnChunkReader::DecodeValues(Encoding encoding, std::span<const uint8_t> data,
                                       size_t num_levels) {
  size_t n = 0;
  if (leaf_->max_def == 0) {
    n = num_levels;
  } else {
    for (size_t i = 0; i < num_levels; ++i) n += defs_[i] == leaf_->max_def;
  }
  values_.resize(n);
  page_arena_.Reset();
  std::span<const Value> dict(dictionary_);
  FLOE_RETURN_IF_ERROR_CTX(decoder_.Decode(encoding, data, n, dict, &page_arena_, values_.data()),
                           "{} values", EncodingName(encoding));
  page_levels_ = num_levels;
  level_pos_ = 0;
  value_pos_ = 0;
  return Ok();
}

Status ColumnChunkReader::ReadDataPageV1(const PageHeader& h, std::span<const uint8_t> body) {
  if (!h.data_page_header) return Corruption("data page without its header");
  const auto& dh = *h.data_page_header;
  FLOE_ASSIGN_OR_RETURN(size_t n, DataPageValues(dh.num_values, limits_));
  page_levels_ = level_pos_ = value_pos_ = 0;
  FLOE_ASSIGN_OR_RETURN(
      auto data, Decompress(body, static_cast<size_t>(h.uncompressed_page_size), &page_bytes_));
  size_t pos = 0;
  if (leaf_->max_rep > 0) {
    size_t used = 0;
    FLOE_RETURN_IF_ERROR_CTX(
        DecodeLevels(dh.repetition_level_encoding, leaf_->max_rep, data, n, true, &reps_, &used),
        "repetition levels");
    pos += used;
  } else {
    reps_.clear();
  }
  if (leaf_->max_def > 0) {
    size_t used = 0;
    FLOE_RETURN_IF_ERROR_CTX(DecodeLevels(dh.definition_level_encoding, leaf_->max_def,
                                          data.subspan(pos), n, true, &defs_, &used),
                             "definition levels");
    pos += used;
  } else {
    defs_.assign(n, 0);
  }
  return DecodeValues(dh.encoding, data.subspan(pos), n);
}

Status ColumnChunkReader::ReadDataPageV2(const PageHeader& h, std::span<const uint8_t> body) {
  if (!h.data_page_header_v2) return Corruption("data page v2 without its header");
  const auto& dh = *h.data_page_header_v2;
  FLOE_ASSIGN_OR_RETURN(size_t n, DataPageValues(dh.num_values, limits_));
  page_levels_ = level_pos_ = value_pos_ = 0;
  int64_t rep_len = dh.repetition_levels_byte_length;
  int64_t def_len = dh.definition_levels_byte_length;
  if (rep_len < 0 || def_len < 0 || rep_len + def_len > static_cast<int64_t>(body.size()) ||
      rep_len + def_len > h.uncompressed_page_size) {
    return Corruption("data page v2 level lengths {} + {} exceed the page", rep_len, def_len);
  }
  size_t used = 0;
  if (leaf_->max_rep > 0) {
    FLOE_RETURN_IF_ERROR_CTX(DecodeLevels(Encoding::kRle, leaf_->max_rep, body.subspan(0, rep_len),
                                          n, false, &reps_, &used),
                             "repetition levels");
  } else {
    reps_.clear();
  }
  if (leaf_->max_def > 0) {
    FLOE_RETURN_IF_ERROR_CTX(DecodeLevels(Encoding::kRle, leaf_->max_def,
                                          body.subspan(rep_len, def_len), n, false, &defs_, &used),
                             "definition levels");
  } else {
    defs_.assign(n, 0);
  }
  auto values = body.subspan(static_cast<size_t>(rep_len + def_len));
  size_t values_size = static_cast<size_t>(h.uncompressed_page_size - rep_len - def_len);
  std::span<const uint8_t> data;
  if (dh.is_compressed.value_or(true) && codec_ != CompressionCodec::kUncompressed) {
    page_bytes_.Resize(values_size);
    FLOE_RETURN_IF_ERROR(DecompressPage(codec_, values, values_size, page_bytes_.data()));
    data = page_bytes_.span();
  } else {
    data = values.subspan(0, std::min(values.size(), values_size));
  }
  return DecodeValues(dh.encoding, data, n);
}

}  // namespace floe::format::parquet
