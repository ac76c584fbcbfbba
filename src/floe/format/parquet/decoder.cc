#include "floe/format/parquet/decoder.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "floe/common/bytes.h"
#include "floe/format/parquet/rle_decoder.h"

namespace floe::format::parquet {

using types::Value;

namespace {

constexpr int64_t kMicrosPerDay = 86400LL * 1000 * 1000;
constexpr int64_t kJulianEpochDay = 2440588;  // Julian day of 1970-01-01

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
  int exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    f = mant == 0 ? INFINITY : NAN;
  } else {
    f = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  }
  uint32_t bits = std::bit_cast<uint32_t>(f) | sign;
  return std::bit_cast<float>(bits);
}

size_t FixedWidth(const ReaderLeaf& leaf) {
  switch (leaf.physical_type) {
    case Type::kInt32:
    case Type::kFloat:
      return 4;
    case Type::kInt64:
    case Type::kDouble:
      return 8;
    case Type::kInt96:
      return 12;
    case Type::kFixedLenByteArray:
      return static_cast<size_t>(leaf.type_length);
    default:
      return 0;
  }
}

}  // namespace

// ---------------------------------------------------------------- DELTA_BINARY_PACKED

Status DeltaBitPackedDecoder::Init(std::span<const uint8_t> data) {
  data_ = data;
  pos_ = 0;
  FLOE_ASSIGN_OR_RETURN(block_size_, ReadUleb128(data_, &pos_));
  FLOE_ASSIGN_OR_RETURN(miniblocks_, ReadUleb128(data_, &pos_));
  FLOE_ASSIGN_OR_RETURN(total_values_, ReadUleb128(data_, &pos_));
  FLOE_ASSIGN_OR_RETURN(uint64_t first, ReadUleb128(data_, &pos_));
  if (block_size_ == 0 || block_size_ % 128 != 0 || block_size_ > (1u << 20) || miniblocks_ == 0 ||
      miniblocks_ > 256 || block_size_ % miniblocks_ != 0 ||
      (block_size_ / miniblocks_) % 32 != 0) {
    return Corruption("DELTA_BINARY_PACKED: bad block size {} / miniblocks {}", block_size_,
                      miniblocks_);
  }
  values_per_miniblock_ = block_size_ / miniblocks_;
  last_ = static_cast<uint64_t>(ZigZagDecode(first));
  emitted_ = 0;
  in_block_ = false;
  return Ok();
}

Status DeltaBitPackedDecoder::StartBlock() {
  size_t start = pos_;
  FLOE_ASSIGN_OR_RETURN(uint64_t zz, ReadUleb128(data_, &pos_));
  min_delta_ = static_cast<uint64_t>(ZigZagDecode(zz));
  if (data_.size() - pos_ < miniblocks_) {
    return Corruption("DELTA_BINARY_PACKED: truncated block header at offset {}", start);
  }
  for (uint64_t i = 0; i < miniblocks_; ++i) widths_[i] = data_[pos_ + i];
  pos_ += miniblocks_;
  miniblock_ = 0;
  in_miniblock_ = 0;
  mini_loaded_ = false;
  in_block_ = true;
  return Ok();
}

Status DeltaBitPackedDecoder::Decode(int64_t* out, size_t n) {
  if (n > total_values_ - emitted_) {
    return Corruption("DELTA_BINARY_PACKED: {} values requested, {} remain", n,
                      total_values_ - emitted_);
  }
  size_t i = 0;
  if (n > 0 && emitted_ == 0) {
    out[i++] = static_cast<int64_t>(last_);
    ++emitted_;
  }
  while (i < n) {
    if (!in_block_) FLOE_RETURN_IF_ERROR(StartBlock());
    int width = widths_[miniblock_];
    if (!mini_loaded_) {
      if (width > 64) {
        return Corruption("DELTA_BINARY_PACKED: bit width {} at offset {}", width, pos_);
      }
      mini_start_ = pos_;
      uint64_t full = values_per_miniblock_ * static_cast<uint64_t>(width) / 8;
      mini_bytes_ = static_cast<size_t>(std::min<uint64_t>(full, data_.size() - pos_));
      pos_ += mini_bytes_;
      in_miniblock_ = 0;
      mini_loaded_ = true;
    }
    uint64_t bit = in_miniblock_ * static_cast<uint64_t>(width);
    if (bit + width > static_cast<uint64_t>(mini_bytes_) * 8) {
      return Corruption("DELTA_BINARY_PACKED: truncated miniblock at offset {}", mini_start_);
    }
    uint64_t delta = ReadPackedBits(data_.data() + mini_start_, mini_bytes_, bit, width);
    last_ += min_delta_ + delta;
    out[i++] = static_cast<int64_t>(last_);
    ++emitted_;
    if (++in_miniblock_ == values_per_miniblock_) {
      mini_loaded_ = false;
      if (++miniblock_ == miniblocks_) in_block_ = false;
    }
  }
  return Ok();
}

// ---------------------------------------------------------------- ValueDecoder

Status ValueDecoder::Decode(Encoding encoding, std::span<const uint8_t> data, size_t n,
                            std::span<const Value> dictionary, Arena* scratch, Value* out) {
  if (n == 0) return Ok();
  switch (encoding) {
    case Encoding::kPlain:
      FLOE_RETURN_IF_ERROR(DecodePlain(data, n, out));
      return Convert(out, n);
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
      return DecodeDictionary(data, n, dictionary, out);
    case Encoding::kRle:
      if (leaf_->physical_type != Type::kBoolean) break;
      return DecodeRleBoolean(data, n, out);
    case Encoding::kDeltaBinaryPacked:
      if (leaf_->physical_type != Type::kInt32 && leaf_->physical_type != Type::kInt64) break;
      FLOE_RETURN_IF_ERROR(DecodeDeltaBinaryPacked(data, n, out));
      return Convert(out, n);
    case Encoding::kDeltaLengthByteArray: {
      if (leaf_->physical_type != Type::kByteArray) break;
      size_t consumed = 0;
      FLOE_RETURN_IF_ERROR(DecodeDeltaLengthByteArray(data, n, out, &consumed));
      return Convert(out, n);
    }
    case Encoding::kDeltaByteArray:
      if (leaf_->physical_type != Type::kByteArray &&
          leaf_->physical_type != Type::kFixedLenByteArray) {
        break;
      }
      FLOE_RETURN_IF_ERROR(DecodeDeltaByteArray(data, n, scratch, out));
      return Convert(out, n);
    case Encoding::kByteStreamSplit:
      FLOE_RETURN_IF_ERROR(DecodeByteStreamSplit(data, n, scratch, out));
      return Convert(out, n);
    default:
      return NotSupported("encoding {} is not supported", EncodingName(encoding));
  }
  return Corruption("encoding {} is not valid for {} values", EncodingName(encoding),
                    TypeName(leaf_->physical_type));
}

Status ValueDecoder::DecodeStatistic(std::string_view bytes, Value* out) {
  auto span =
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (leaf_->physical_type == Type::kByteArray) {
    *out = Value::Bytes(bytes);
  } else {
    size_t width = leaf_->physical_type == Type::kBoolean ? 1 : FixedWidth(*leaf_);
    if (bytes.size() != width) {
      return Corruption("statistic of {} bytes for a {} column", bytes.size(),
                        TypeName(leaf_->physical_type));
    }
    FLOE_RETURN_IF_ERROR(DecodePlain(span, 1, out));
  }
  return Convert(out, 1);
}

Status ValueDecoder::DecodePlain(std::span<const uint8_t> data, size_t n, Value* out) {
  const uint8_t* p = data.data();
  switch (leaf_->physical_type) {
    case Type::kBoolean: {
      if ((n + 7) / 8 > data.size()) {
        return Corruption("PLAIN booleans: {} values need {} bytes, {} present", n, (n + 7) / 8,
                          data.size());
      }
      for (size_t i = 0; i < n; ++i) out[i] = Value::Bool((p[i >> 3] >> (i & 7)) & 1);
      return Ok();
    }
    case Type::kByteArray: {
      size_t pos = 0;
      for (size_t i = 0; i < n; ++i) {
        if (data.size() - pos < 4) {
          return Corruption("PLAIN byte array {} truncated at offset {}", i, pos);
        }
        uint32_t len = LoadLittleEndian<uint32_t>(p + pos);
        pos += 4;
        if (len > data.size() - pos) {
          return Corruption("PLAIN byte array length {} exceeds the {} bytes left at offset {}",
                            len, data.size() - pos, pos - 4);
        }
        out[i] = Value::Bytes({reinterpret_cast<const char*>(p + pos), len});
        pos += len;
      }
      return Ok();
    }
    default:
      break;
  }
  size_t width = FixedWidth(*leaf_);
  if (width == 0) return Corruption("PLAIN: zero-width values");
  if (n > data.size() / width) {
    return Corruption("PLAIN: {} values of {} bytes exceed the {} bytes present", n, width,
                      data.size());
  }
  switch (leaf_->physical_type) {
    case Type::kInt32:
      for (size_t i = 0; i < n; ++i) out[i] = Value::Int32(LoadLittleEndian<int32_t>(p + 4 * i));
      break;
    case Type::kInt64:
      for (size_t i = 0; i < n; ++i) out[i] = Value::Int64(LoadLittleEndian<int64_t>(p + 8 * i));
      break;
    case Type::kFloat:
      for (size_t i = 0; i < n; ++i) out[i] = Value::Float(LoadLittleEndian<float>(p + 4 * i));
      break;
    case Type::kDouble:
      for (size_t i = 0; i < n; ++i) out[i] = Value::Double(LoadLittleEndian<double>(p + 8 * i));
      break;
    default:  // INT96, FIXED_LEN_BYTE_ARRAY
      for (size_t i = 0; i < n; ++i) {
        out[i] = Value::Bytes({reinterpret_cast<const char*>(p + width * i), width});
      }
      break;
  }
  return Ok();
}

Status ValueDecoder::DecodeDictionary(std::span<const uint8_t> data, size_t n,
                                      std::span<const Value> dictionary, Value* out) {
  if (data.empty()) return Corruption("dictionary indices: empty page data");
  int width = data[0];
  if (width > 32) return Corruption("dictionary indices: bit width {} above 32", width);
  if (dictionary.empty()) {
    return Corruption("dictionary-encoded page without a dictionary page");
  }
  if (indices_.size() < n) indices_.resize(n);
  RleBitPackedDecoder rle(data.subspan(1), width);
  FLOE_RETURN_IF_ERROR_CTX(rle.Decode(indices_.data(), n), "dictionary indices");
  for (size_t i = 0; i < n; ++i) {
    uint32_t idx = indices_[i];
    if (idx >= dictionary.size()) {
      return Corruption("dictionary index {} out of range (dictionary has {} values)", idx,
                        dictionary.size());
    }
    out[i] = dictionary[idx];
  }
  return Ok();
}

Status ValueDecoder::DecodeRleBoolean(std::span<const uint8_t> data, size_t n, Value* out) {
  if (data.size() < 4) return Corruption("RLE booleans: missing length prefix");
  uint32_t len = LoadLittleEndian<uint32_t>(data.data());
  if (len > data.size() - 4) {
    return Corruption("RLE booleans: length {} exceeds the {} bytes present", len, data.size() - 4);
  }
  if (indices_.size() < n) indices_.resize(n);
  RleBitPackedDecoder rle(data.subspan(4, len), 1);
  FLOE_RETURN_IF_ERROR_CTX(rle.Decode(indices_.data(), n), "RLE booleans");
  for (size_t i = 0; i < n; ++i) out[i] = Value::Bool(indices_[i] != 0);
  return Ok();
}

namespace {

/// Decodes `n` DELTA_BINARY_PACKED integers at the start of `data` into
/// `*out` (grown to at least `n`, its memory kept); returns the bytes they take.
Result<size_t> DecodeDeltaInts(std::span<const uint8_t> data, size_t n, std::vector<int64_t>* out) {
  DeltaBitPackedDecoder d;
  FLOE_RETURN_IF_ERROR(d.Init(data));
  if (out->size() < n) out->resize(n);
  FLOE_RETURN_IF_ERROR(d.Decode(out->data(), n));
  return d.position();
}

}  // namespace

Status ValueDecoder::DecodeDeltaBinaryPacked(std::span<const uint8_t> data, size_t n, Value* out) {
  FLOE_RETURN_IF_ERROR(DecodeDeltaInts(data, n, &ints_));
  if (leaf_->physical_type == Type::kInt32) {
    for (size_t i = 0; i < n; ++i) out[i] = Value::Int32(static_cast<int32_t>(ints_[i]));
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = Value::Int64(ints_[i]);
  }
  return Ok();
}

Status ValueDecoder::DecodeDeltaLengthByteArray(std::span<const uint8_t> data, size_t n, Value* out,
                                                size_t* consumed) {
  auto lengths_end = DecodeDeltaInts(data, n, &ints_);
  FLOE_RETURN_IF_ERROR_CTX(lengths_end, "DELTA_LENGTH_BYTE_ARRAY lengths");
  size_t pos = *lengths_end;
  for (size_t i = 0; i < n; ++i) {
    int64_t len = ints_[i];
    if (len < 0 || static_cast<uint64_t>(len) > data.size() - pos) {
      return Corruption("DELTA_LENGTH_BYTE_ARRAY: length {} of value {} exceeds the {} bytes left",
                        len, i, data.size() - pos);
    }
    out[i] =
        Value::Bytes({reinterpret_cast<const char*>(data.data() + pos), static_cast<size_t>(len)});
    pos += static_cast<size_t>(len);
  }
  *consumed = pos;
  return Ok();
}

Status ValueDecoder::DecodeDeltaByteArray(std::span<const uint8_t> data, size_t n, Arena* scratch,
                                          Value* out) {
  auto prefixes_end = DecodeDeltaInts(data, n, &prefixes_);
  FLOE_RETURN_IF_ERROR_CTX(prefixes_end, "DELTA_BYTE_ARRAY prefix lengths");
  size_t consumed = 0;
  FLOE_RETURN_IF_ERROR(DecodeDeltaLengthByteArray(data.subspan(*prefixes_end), n, out, &consumed));
  std::string_view prev;
  for (size_t i = 0; i < n; ++i) {
    int64_t prefix = prefixes_[i];
    std::string_view suffix = out[i].as_bytes();
    if (prefix < 0 || static_cast<uint64_t>(prefix) > prev.size()) {
      return Corruption(
          "DELTA_BYTE_ARRAY: prefix length {} of value {} exceeds the previous "
          "value's {} bytes",
          prefix, i, prev.size());
    }
    size_t total = static_cast<size_t>(prefix) + suffix.size();
    if (total > UINT32_MAX) return Corruption("DELTA_BYTE_ARRAY: value {} too long", i);
    char* buf = static_cast<char*>(scratch->Allocate(total == 0 ? 1 : total, 1));
    if (prefix > 0) std::memcpy(buf, prev.data(), static_cast<size_t>(prefix));
    if (!suffix.empty()) std::memcpy(buf + prefix, suffix.data(), suffix.size());
    prev = std::string_view(buf, total);
    out[i] = Value::Bytes(prev);
  }
  if (leaf_->physical_type == Type::kFixedLenByteArray) {
    for (size_t i = 0; i < n; ++i) {
      if (out[i].size != static_cast<uint32_t>(leaf_->type_length)) {
        return Corruption(
            "DELTA_BYTE_ARRAY: value {} has {} bytes, the column's fixed length is {}", i,
            out[i].size, leaf_->type_length);
      }
    }
  }
  return Ok();
}

Status ValueDecoder::DecodeByteStreamSplit(std::span<const uint8_t> data, size_t n, Arena* scratch,
                                           Value* out) {
  size_t width = FixedWidth(*leaf_);
  if (width == 0 || leaf_->physical_type == Type::kInt96) {
    return Corruption("BYTE_STREAM_SPLIT is not valid for {}", TypeName(leaf_->physical_type));
  }
  size_t stride = data.size() / width;
  if (stride < n) {
    return Corruption("BYTE_STREAM_SPLIT: {} values of {} bytes exceed the {} bytes present", n,
                      width, data.size());
  }
  const uint8_t* p = data.data();
  uint8_t tmp[8];
  switch (leaf_->physical_type) {
    case Type::kInt32:
    case Type::kFloat:
    case Type::kInt64:
    case Type::kDouble:
      for (size_t i = 0; i < n; ++i) {
        for (size_t k = 0; k < width; ++k) tmp[k] = p[k * stride + i];
        switch (leaf_->physical_type) {
          case Type::kInt32:
            out[i] = Value::Int32(LoadLittleEndian<int32_t>(tmp));
            break;
          case Type::kFloat:
            out[i] = Value::Float(LoadLittleEndian<float>(tmp));
            break;
          case Type::kInt64:
            out[i] = Value::Int64(LoadLittleEndian<int64_t>(tmp));
            break;
          default:
            out[i] = Value::Double(LoadLittleEndian<double>(tmp));
            break;
        }
      }
      return Ok();
    default: {  // FIXED_LEN_BYTE_ARRAY
      char* buf = static_cast<char*>(scratch->Allocate(n * width, 1));
      for (size_t i = 0; i < n; ++i) {
        for (size_t k = 0; k < width; ++k)
          buf[i * width + k] = static_cast<char>(p[k * stride + i]);
        out[i] = Value::Bytes({buf + i * width, width});
      }
      return Ok();
    }
  }
}

Status ValueDecoder::Convert(Value* values, size_t n) {
  switch (leaf_->conversion) {
    case LeafConversion::kBool:
    case LeafConversion::kInt32:
    case LeafConversion::kInt64:
    case LeafConversion::kFloat:
    case LeafConversion::kDouble:
      return Ok();
    case LeafConversion::kBytes:
      if (leaf_->physical_type == Type::kByteArray && leaf_->type &&
          leaf_->type->id() == types::TypeId::kUuid) {
        for (size_t i = 0; i < n; ++i) {
          if (values[i].size != 16) return Corruption("uuid value of {} bytes", values[i].size);
        }
      }
      return Ok();
    case LeafConversion::kUint32ToInt64:
      for (size_t i = 0; i < n; ++i) {
        values[i] = Value::Int64(static_cast<uint32_t>(values[i].i32));
      }
      return Ok();
    case LeafConversion::kTimeMillis:
      for (size_t i = 0; i < n; ++i) values[i] = Value::Int64(int64_t{values[i].i32} * 1000);
      return Ok();
    case LeafConversion::kMillisToMicros:
      for (size_t i = 0; i < n; ++i) {
        values[i] = Value::Int64(static_cast<int64_t>(static_cast<uint64_t>(values[i].i64) * 1000));
      }
      return Ok();
    case LeafConversion::kNanosToMicros:
      for (size_t i = 0; i < n; ++i) values[i] = Value::Int64(FloorDiv(values[i].i64, 1000));
      return Ok();
    case LeafConversion::kInt96Timestamp:
      for (size_t i = 0; i < n; ++i) {
        const char* b = values[i].bytes;
        int64_t nanos = LoadLittleEndian<int64_t>(b);
        int32_t julian = LoadLittleEndian<int32_t>(b + 8);
        // Wrapping arithmetic: out-of-range days give a wrong value, never UB.
        uint64_t days = static_cast<uint64_t>(static_cast<int64_t>(julian) - kJulianEpochDay);
        uint64_t micros = days * static_cast<uint64_t>(kMicrosPerDay) +
                          static_cast<uint64_t>(FloorDiv(nanos, 1000));
        values[i] = Value::Int64(static_cast<int64_t>(micros));
      }
      return Ok();
    case LeafConversion::kDecimalInt32:
      for (size_t i = 0; i < n; ++i) values[i] = Value::Decimal(values[i].i32);
      return Ok();
    case LeafConversion::kDecimalInt64:
      for (size_t i = 0; i < n; ++i) values[i] = Value::Decimal(values[i].i64);
      return Ok();
    case LeafConversion::kDecimalBytes:
      for (size_t i = 0; i < n; ++i) {
        std::string_view b = values[i].as_bytes();
        if (b.size() > 16) {
          // Allow sign-extension bytes beyond 16.
          size_t extra = b.size() - 16;
          uint8_t fill = (static_cast<uint8_t>(b[extra]) & 0x80) ? 0xff : 0x00;
          for (size_t k = 0; k < extra; ++k) {
            if (static_cast<uint8_t>(b[k]) != fill) {
              return Corruption("decimal value of {} bytes does not fit 128 bits", b.size());
            }
          }
          b.remove_prefix(extra);
        }
        unsigned __int128 u = 0;
        if (!b.empty() && (static_cast<uint8_t>(b[0]) & 0x80))
          u = ~static_cast<unsigned __int128>(0);
        for (char c : b) u = (u << 8) | static_cast<uint8_t>(c);
        values[i] = Value::Decimal(static_cast<types::int128_t>(u));
      }
      return Ok();
    case LeafConversion::kFloat16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h = LoadLittleEndian<uint16_t>(values[i].bytes);
        values[i] = Value::Float(HalfToFloat(h));
      }
      return Ok();
  }
  return Ok();
}

}  // namespace floe::format::parquet
