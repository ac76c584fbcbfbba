#pragma once
/// The Thrift compact protocol (thrift/doc/specs/thrift-compact-protocol.md),
/// the encoding of Parquet's footer and page headers.
///
/// `CompactWriter` appends to a ByteBuffer and cannot fail. `CompactReader`
/// reads from a byte span it does not own; every read is bounds-checked, and
/// every error is kCorruption naming the byte offset ("thrift: varint too long
/// at offset 17"). Callers add the file name as context.
///
/// Typical struct read loop:
///   FLOE_RETURN_IF_ERROR(r.BeginStruct());
///   while (true) {
///     FLOE_ASSIGN_OR_RETURN(auto h, r.ReadFieldBegin());
///     if (h.type == CompactType::kStop) break;
///     switch (h.id) { case 1: ...; default: FLOE_RETURN_IF_ERROR(r.Skip(h.type)); }
///   }
///   FLOE_RETURN_IF_ERROR(r.EndStruct());

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "floe/common/bytes.h"
#include "floe/common/result.h"

namespace floe::format::thrift {

/// Compact-protocol type codes (the low nibble of a field header).
enum class CompactType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

/// Appends compact-protocol bytes to a buffer. Field ids within one struct
/// should be written in increasing order (short form); any order is valid.
class CompactWriter {
 public:
  explicit CompactWriter(ByteBuffer* out) : out_(out) {}

  /// Starts a top-level struct (or a struct that is a list element).
  void BeginStruct();
  /// Writes the stop byte and returns to the enclosing struct.
  void EndStruct();

  void FieldBool(int16_t id, bool value);
  void FieldI8(int16_t id, int8_t value);
  void FieldI16(int16_t id, int16_t value);
  void FieldI32(int16_t id, int32_t value);
  void FieldI64(int16_t id, int64_t value);
  void FieldDouble(int16_t id, double value);
  void FieldBinary(int16_t id, std::string_view value);
  /// Writes the header of a struct field and begins it; close with EndStruct().
  void FieldStructBegin(int16_t id);
  /// Writes the header of a list field; then write `size` elements.
  void FieldListBegin(int16_t id, CompactType element_type, uint32_t size);

  /// A list header outside a field (e.g. a list of lists).
  void ListBegin(CompactType element_type, uint32_t size);
  // List elements.
  void WriteBool(bool value);
  void WriteI8(int8_t value);
  void WriteI16(int16_t value);
  void WriteI32(int32_t value);
  void WriteI64(int64_t value);
  void WriteDouble(double value);
  void WriteBinary(std::string_view value);

  /// The protocol's integer encodings: raw varints (unsigned LEB128) and
  /// zigzag, as floe/common/bytes.h writes them.
  static void AppendVarint(ByteBuffer* out, uint64_t value) { floe::AppendVarint(out, value); }
  static uint64_t ZigZag(int64_t value) { return ZigZagEncode(value); }

 private:
  void FieldHeader(int16_t id, CompactType type);

  ByteBuffer* out_;
  int16_t last_field_id_ = 0;
  std::vector<int16_t> stack_;
};

/// Limits a reader enforces against hostile input.
struct CompactReaderOptions {
  /// Maximum nesting of structs/lists/maps. Default 64.
  int max_depth = 64;
  /// Maximum length of one string/binary. Default 256 MiB (also always
  /// limited by the bytes remaining).
  uint64_t max_string_size = 256u << 20;
  /// Maximum element count of one list/set/map. Default 64 Mi (also always
  /// limited by the bytes remaining: each element takes at least one byte).
  uint64_t max_container_size = 64u << 20;
};

/// A field header: `type == kStop` ends the struct.
struct FieldHeader {
  CompactType type = CompactType::kStop;
  int16_t id = 0;
};

/// A list or set header.
struct ListHeader {
  CompactType element_type = CompactType::kStop;
  uint32_t size = 0;
};

/// Reads compact-protocol values from a span (not owned; must outlive the
/// reader and any string_view it returns).
class CompactReader {
 public:
  explicit CompactReader(std::span<const uint8_t> data, CompactReaderOptions options = {})
      : data_(data), options_(options) {}

  /// Enters a struct. kCorruption if nesting exceeds `max_depth`.
  Status BeginStruct();
  /// Leaves a struct (after ReadFieldBegin returned kStop).
  Status EndStruct();
  /// Reads a field header. For boolean fields the value is in the header and is
  /// returned by the next ReadBool(). kCorruption on an unknown type code.
  Result<FieldHeader> ReadFieldBegin();

  /// A boolean: from the last field header, or one byte as a list element.
  Result<bool> ReadBool();
  Result<int8_t> ReadI8();
  Result<int16_t> ReadI16();
  Result<int32_t> ReadI32();
  Result<int64_t> ReadI64();
  Result<double> ReadDouble();
  /// A string/binary, pointing into the input.
  Result<std::string_view> ReadBinary();
  /// A list/set header. The size is checked against the bytes remaining and
  /// `max_container_size`; the caller must call ListEnd() after the elements.
  Result<ListHeader> ReadListBegin();
  void ListEnd() { --depth_; }

  /// Skips a value of any type (including nested structs, lists, sets, maps),
  /// so fields added by newer writers are ignored.
  Status Skip(CompactType type);

  /// Raw unsigned varint (at most 10 bytes). kCorruption if longer or truncated.
  Result<uint64_t> ReadVarint();
  /// The inverse of CompactWriter::ZigZag (ZigZagDecode of floe/common/bytes.h).
  static int64_t UnZigZag(uint64_t value) { return ZigZagDecode(value); }

  /// Bytes consumed so far.
  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }

 private:
  Result<uint8_t> ReadByte();
  Status EnterContainer();
  Status SkipDepth(CompactType type);

  std::span<const uint8_t> data_;
  CompactReaderOptions options_;
  size_t pos_ = 0;
  int depth_ = 0;
  int16_t last_field_id_ = 0;
  std::vector<int16_t> stack_;
  int pending_bool_ = -1;  ///< -1 none, else 0/1 from the last bool field header
};

}  // namespace floe::format::thrift
