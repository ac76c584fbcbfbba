#pragma once
/// The key of a row (its equality field values) as bytes, and a hash map
/// from such keys to row positions, for the writers (docs/sink-writers.md).
///
/// Keys are encoded canonically under Iceberg's type promotions (int and long
/// both as 8-byte integers, float and double both as doubles, decimals as
/// their 128-bit unscaled value), so a key keeps its bytes across a schema
/// change that widens a key column within a checkpoint.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::sink {

class KeyEncoder {
 public:
  KeyEncoder() = default;
  /// An encoder of the top-level fields `equality_field_ids` of `schema`.
  /// Errors: kInvalidArgument naming `table` when an id is not a top-level
  /// primitive field.
  static Result<KeyEncoder> Make(const types::Schema& schema,
                                 const std::vector<int32_t>& equality_field_ids,
                                 std::string_view table);

  /// Appends the key of `row` (a row of the schema) to `*out` (not cleared).
  /// The row must have the schema's width. Allocates only when `*out` grows.
  void Encode(types::Row row, std::string* out) const;
  /// The index of the first key column whose value is null, or -1.
  int NullKeyColumn(types::Row row) const;
  /// Positions of the key columns in a row, in equality id order.
  const std::vector<size_t>& positions() const { return positions_; }
  /// Name of the key column at `positions()[i]`.
  const std::string& name(size_t i) const { return names_[i]; }

 private:
  std::vector<size_t> positions_;
  std::vector<std::string> names_;
};

/// Appends the canonical key bytes of one primitive value (as KeyEncoder).
void AppendValueKey(const types::Value& value, std::string* out);
/// Appends bytes whose memcmp order is the value's order (nulls first,
/// integers and decimals signed, doubles by value with -0 < +0, bytes
/// lexicographic), so that encoded tuples compare as the tuples do. Nested
/// values are encoded by their canonical key bytes (an arbitrary order).
void AppendOrderedKey(const types::Value& value, std::string* out);

/// A fast 64-bit hash of key bytes.
uint64_t HashKey(std::string_view key);

/// Open-addressing map from key bytes to (file id, row position). Keys of up
/// to 12 bytes (one integer column) are kept in their slot, longer ones copied
/// into one growing buffer; inserting allocates only when a buffer doubles.
/// Not thread-safe.
class KeyMap {
 public:
  struct Entry {
    uint32_t file = 0;
    int64_t pos = 0;
  };

  /// The entry of `key`, or nullptr.
  Entry* Find(std::string_view key, uint64_t hash);
  /// The entry of `key`, inserted (value {0, 0}) if absent; `*inserted` says which.
  Entry* Insert(std::string_view key, uint64_t hash, bool* inserted);
  /// Removes `key`; returns false if absent, else true with its entry in `*old`.
  bool Erase(std::string_view key, uint64_t hash, Entry* old);
  /// Forgets every key (keeps small buffers for reuse, frees large ones).
  void Clear();

  size_t size() const { return size_; }
  /// Bytes held (slots and key bytes).
  size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot) + keys_.capacity(); }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  static constexpr uint32_t kErased = 0xFFFFFFFEu;
  static constexpr size_t kInlineKeyBytes = 12;
  struct Slot {
    uint64_t hash = 0;
    uint64_t offset = 0;  ///< of the key in keys_; an inline key's bytes 0..7
    uint32_t length = kEmpty;
    uint32_t tail = 0;  ///< an inline key's bytes 8..11 (both zero-padded)
    Entry entry;
  };
  size_t Probe(std::string_view key, uint64_t hash) const;
  void Grow();

  std::vector<Slot> slots_;
  std::string keys_;
  size_t size_ = 0;
  size_t used_ = 0;  ///< live and erased slots
};

}  // namespace floe::sink
