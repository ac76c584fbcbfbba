#include "floe/format/thrift/compact_protocol.h"

#include <bit>
#include <cstring>
#include <limits>

namespace floe::format::thrift {

// ---------------------------------------------------------------- writer

void CompactWriter::BeginStruct() {
  stack_.push_back(last_field_id_);
  last_field_id_ = 0;
}

void CompactWriter::EndStruct() {
  out_->PushByte(0);
  if (!stack_.empty()) {
    last_field_id_ = stack_.back();
    stack_.pop_back();
  } else {
    last_field_id_ = 0;
  }
}

void CompactWriter::FieldHeader(int16_t id, CompactType type) {
  int delta = id - last_field_id_;
  if (delta > 0 && delta <= 15) {
    out_->PushByte(static_cast<uint8_t>((delta << 4) | static_cast<uint8_t>(type)));
  } else {
    out_->PushByte(static_cast<uint8_t>(type));
    AppendVarint(out_, ZigZag(id));
  }
  last_field_id_ = id;
}

void CompactWriter::FieldBool(int16_t id, bool value) {
  FieldHeader(id, value ? CompactType::kBoolTrue : CompactType::kBoolFalse);
}
void CompactWriter::FieldI8(int16_t id, int8_t value) {
  FieldHeader(id, CompactType::kByte);
  WriteI8(value);
}
void CompactWriter::FieldI16(int16_t id, int16_t value) {
  FieldHeader(id, CompactType::kI16);
  WriteI16(value);
}
void CompactWriter::FieldI32(int16_t id, int32_t value) {
  FieldHeader(id, CompactType::kI32);
  WriteI32(value);
}
void CompactWriter::FieldI64(int16_t id, int64_t value) {
  FieldHeader(id, CompactType::kI64);
  WriteI64(value);
}
void CompactWriter::FieldDouble(int16_t id, double value) {
  FieldHeader(id, CompactType::kDouble);
  WriteDouble(value);
}
void CompactWriter::FieldBinary(int16_t id, std::string_view value) {
  FieldHeader(id, CompactType::kBinary);
  WriteBinary(value);
}
void CompactWriter::FieldStructBegin(int16_t id) {
  FieldHeader(id, CompactType::kStruct);
  BeginStruct();
}
void CompactWriter::FieldListBegin(int16_t id, CompactType element_type, uint32_t size) {
  FieldHeader(id, CompactType::kList);
  ListBegin(element_type, size);
}

void CompactWriter::ListBegin(CompactType element_type, uint32_t size) {
  // Lists of booleans use type code 1 for the elements (each a byte 1/2).
  uint8_t t = static_cast<uint8_t>(element_type == CompactType::kBoolFalse ? CompactType::kBoolTrue
                                                                           : element_type);
  if (size < 15) {
    out_->PushByte(static_cast<uint8_t>((size << 4) | t));
  } else {
    out_->PushByte(static_cast<uint8_t>(0xF0 | t));
    AppendVarint(out_, size);
  }
}

void CompactWriter::WriteBool(bool value) { out_->PushByte(value ? 1 : 2); }
void CompactWriter::WriteI8(int8_t value) { out_->PushByte(static_cast<uint8_t>(value)); }
void CompactWriter::WriteI16(int16_t value) { AppendVarint(out_, ZigZag(value)); }
void CompactWriter::WriteI32(int32_t value) { AppendVarint(out_, ZigZag(value)); }
void CompactWriter::WriteI64(int64_t value) { AppendVarint(out_, ZigZag(value)); }
void CompactWriter::WriteDouble(double value) {
  out_->AppendLittleEndian(std::bit_cast<uint64_t>(value));
}
void CompactWriter::WriteBinary(std::string_view value) {
  AppendVarint(out_, value.size());
  out_->Append(value);
}

// ---------------------------------------------------------------- reader

namespace {
bool IsKnownType(uint8_t t) { return t <= static_cast<uint8_t>(CompactType::kStruct); }

template <typename T>
Status Discard(Result<T> r) {
  if (!r) return std::unexpected(std::move(r).error());
  return Ok();
}
}  // namespace

Result<uint8_t> CompactReader::ReadByte() {
  if (pos_ >= data_.size()) {
    return Corruption("thrift: unexpected end of data at offset {}", pos_);
  }
  return data_[pos_++];
}

Result<uint64_t> CompactReader::ReadVarint() {
  uint64_t result = 0;
  size_t start = pos_;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= data_.size()) {
      return Corruption("thrift: truncated varint at offset {}", start);
    }
    uint8_t b = data_[pos_++];
    if (shift == 63 && (b & 0x7E) != 0) {
      return Corruption("thrift: varint overflows 64 bits at offset {}", start);
    }
    result |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) return result;
  }
  return Corruption("thrift: varint longer than 10 bytes at offset {}", start);
}

Status CompactReader::BeginStruct() {
  if (depth_ >= options_.max_depth) {
    return Corruption("thrift: nesting deeper than {} at offset {}", options_.max_depth, pos_);
  }
  ++depth_;
  stack_.push_back(last_field_id_);
  last_field_id_ = 0;
  return Ok();
}

Status CompactReader::EndStruct() {
  if (stack_.empty()) {
    return Corruption("thrift: struct end without begin at offset {}", pos_);
  }
  --depth_;
  last_field_id_ = stack_.back();
  stack_.pop_back();
  return Ok();
}

Result<FieldHeader> CompactReader::ReadFieldBegin() {
  pending_bool_ = -1;
  size_t start = pos_;
  FLOE_ASSIGN_OR_RETURN(uint8_t b, ReadByte());
  uint8_t type = b & 0x0F;
  if (type == 0) {
    if (b != 0) return Corruption("thrift: bad stop byte 0x{:02x} at offset {}", b, start);
    return FieldHeader{CompactType::kStop, 0};
  }
  if (!IsKnownType(type)) {
    return Corruption("thrift: unknown field type {} at offset {}", type, start);
  }
  int16_t id;
  uint8_t delta = b >> 4;
  if (delta != 0) {
    int next = last_field_id_ + delta;
    if (next > INT16_MAX) return Corruption("thrift: field id overflow at offset {}", start);
    id = static_cast<int16_t>(next);
  } else {
    FLOE_ASSIGN_OR_RETURN(uint64_t raw, ReadVarint());
    int64_t v = ZigZagDecode(raw);
    if (v < INT16_MIN || v > INT16_MAX) {
      return Corruption("thrift: field id {} out of range at offset {}", v, start);
    }
    id = static_cast<int16_t>(v);
  }
  last_field_id_ = id;
  CompactType t = static_cast<CompactType>(type);
  if (t == CompactType::kBoolTrue || t == CompactType::kBoolFalse) {
    pending_bool_ = t == CompactType::kBoolTrue ? 1 : 0;
  }
  return FieldHeader{t, id};
}

Result<bool> CompactReader::ReadBool() {
  if (pending_bool_ >= 0) {
    bool v = pending_bool_ == 1;
    pending_bool_ = -1;
    return v;
  }
  FLOE_ASSIGN_OR_RETURN(uint8_t b, ReadByte());
  return b == 1;
}

Result<int8_t> CompactReader::ReadI8() {
  FLOE_ASSIGN_OR_RETURN(uint8_t b, ReadByte());
  return static_cast<int8_t>(b);
}

namespace {

/// A zigzag varint that must fit T (i16, i32): kCorruption naming `what` if not.
template <typename T>
Result<T> ReadNarrowInt(CompactReader& r, std::string_view what) {
  size_t start = r.position();
  FLOE_ASSIGN_OR_RETURN(uint64_t raw, r.ReadVarint());
  int64_t v = ZigZagDecode(raw);
  if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
    return Corruption("thrift: {} value {} out of range at offset {}", what, v, start);
  }
  return static_cast<T>(v);
}

}  // namespace

Result<int16_t> CompactReader::ReadI16() { return ReadNarrowInt<int16_t>(*this, "i16"); }

Result<int32_t> CompactReader::ReadI32() { return ReadNarrowInt<int32_t>(*this, "i32"); }

Result<int64_t> CompactReader::ReadI64() {
  FLOE_ASSIGN_OR_RETURN(uint64_t raw, ReadVarint());
  return ZigZagDecode(raw);
}

Result<double> CompactReader::ReadDouble() {
  if (remaining() < 8) return Corruption("thrift: truncated double at offset {}", pos_);
  uint64_t bits = LoadLittleEndian<uint64_t>(data_.data() + pos_);
  pos_ += 8;
  return std::bit_cast<double>(bits);
}

Result<std::string_view> CompactReader::ReadBinary() {
  size_t start = pos_;
  FLOE_ASSIGN_OR_RETURN(uint64_t n, ReadVarint());
  if (n > remaining() || n > options_.max_string_size) {
    return Corruption("thrift: binary length {} exceeds the {} bytes remaining at offset {}", n,
                      remaining(), start);
  }
  std::string_view v(reinterpret_cast<const char*>(data_.data() + pos_), n);
  pos_ += n;
  return v;
}

Status CompactReader::EnterContainer() {
  if (depth_ >= options_.max_depth) {
    return Corruption("thrift: nesting deeper than {} at offset {}", options_.max_depth, pos_);
  }
  ++depth_;
  return Ok();
}

Result<ListHeader> CompactReader::ReadListBegin() {
  pending_bool_ = -1;
  size_t start = pos_;
  FLOE_ASSIGN_OR_RETURN(uint8_t b, ReadByte());
  uint8_t type = b & 0x0F;
  uint64_t size = b >> 4;
  if (size == 15) {
    FLOE_ASSIGN_OR_RETURN(size, ReadVarint());
  }
  if (type == 0 || !IsKnownType(type)) {
    return Corruption("thrift: unknown list element type {} at offset {}", type, start);
  }
  // Every element takes at least one byte.
  if (size > remaining() || size > options_.max_container_size) {
    return Corruption("thrift: list of {} elements exceeds the {} bytes remaining at offset {}",
                      size, remaining(), start);
  }
  FLOE_RETURN_IF_ERROR(EnterContainer());
  CompactType t = static_cast<CompactType>(type);
  if (t == CompactType::kBoolFalse) t = CompactType::kBoolTrue;
  return ListHeader{t, static_cast<uint32_t>(size)};
}

Status CompactReader::Skip(CompactType type) { return SkipDepth(type); }

Status CompactReader::SkipDepth(CompactType type) {
  switch (type) {
    case CompactType::kBoolTrue:
    case CompactType::kBoolFalse:
      return Discard(ReadBool());
    case CompactType::kByte:
      return Discard(ReadByte());
    case CompactType::kI16:
    case CompactType::kI32:
    case CompactType::kI64:
      return Discard(ReadVarint());
    case CompactType::kDouble:
      return Discard(ReadDouble());
    case CompactType::kBinary:
      return Discard(ReadBinary());
    case CompactType::kList:
    case CompactType::kSet: {
      FLOE_ASSIGN_OR_RETURN(ListHeader h, ReadListBegin());
      for (uint32_t i = 0; i < h.size; ++i) {
        pending_bool_ = -1;
        FLOE_RETURN_IF_ERROR(SkipDepth(h.element_type));
      }
      ListEnd();
      return Ok();
    }
    case CompactType::kMap: {
      size_t start = pos_;
      FLOE_ASSIGN_OR_RETURN(uint64_t size, ReadVarint());
      if (size == 0) return Ok();
      FLOE_ASSIGN_OR_RETURN(uint8_t kv, ReadByte());
      uint8_t kt = kv >> 4, vt = kv & 0x0F;
      if (kt == 0 || vt == 0 || !IsKnownType(kt) || !IsKnownType(vt)) {
        return Corruption("thrift: bad map types 0x{:02x} at offset {}", kv, start);
      }
      if (size > remaining() / 2 || size > options_.max_container_size) {
        return Corruption("thrift: map of {} entries exceeds the {} bytes remaining at offset {}",
                          size, remaining(), start);
      }
      FLOE_RETURN_IF_ERROR(EnterContainer());
      for (uint64_t i = 0; i < size; ++i) {
        pending_bool_ = -1;
        FLOE_RETURN_IF_ERROR(SkipDepth(static_cast<CompactType>(kt)));
        pending_bool_ = -1;
        FLOE_RETURN_IF_ERROR(SkipDepth(static_cast<CompactType>(vt)));
      }
      --depth_;
      return Ok();
    }
    case CompactType::kStruct: {
      FLOE_RETURN_IF_ERROR(BeginStruct());
      while (true) {
        FLOE_ASSIGN_OR_RETURN(FieldHeader h, ReadFieldBegin());
        if (h.type == CompactType::kStop) break;
        FLOE_RETURN_IF_ERROR(SkipDepth(h.type));
      }
      return EndStruct();
    }
    case CompactType::kStop:
      break;
  }
  return Corruption("thrift: cannot skip type {} at offset {}", static_cast<int>(type), pos_);
}

}  // namespace floe::format::thrift
