#pragma once
/// JsonRowWriter: rows of one schema as JSON objects, the bytes AppendRowJson
/// (row_json.h) writes, for printing many rows: the members' names are
/// rendered once, and a row of primitive values is written into room made for
/// all of it at once, so `out` is grown only when it runs out of capacity
/// (nothing is allocated per row once it has a chunk's size). The room has
/// slack for the whole words and blocks the formatters store past the end of
/// their text (a name is copied as one 32-byte block, numbers 8 digits at a
/// time); the slack is cut off before Append returns. A row's string bytes
/// are prefetched before its first member is written. Append is const and may
/// be called from several threads at once.

#include <cstdint>
#include <string>
#include <vector>

#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::types {

class JsonRowWriter {
 public:
  /// `schema` must outlive the writer.
  explicit JsonRowWriter(const Schema& schema);

  /// Appends one row as a JSON object (no newline) to `*out`.
  void Append(Row row, std::string* out) const;

 private:
  struct Field {
    std::string prefix;  ///< `{"name":` for the first field, `,"name":` after
    /// `prefix` padded with zeros when it fits (padded_size != 0), copied as
    /// one block; the padding is overwritten by the value that follows.
    char padded[32] = {};
    uint8_t padded_size = 0;
    const Type* type = nullptr;
    TypeId id = TypeId::kBoolean;  ///< type->id() and type->scale(), kept here
    int scale = 0;
  };
  const Schema* schema_;
  std::vector<Field> fields_;
  std::vector<size_t> strings_;  ///< fields of type string (their room depends on the value)
  size_t fixed_room_ = 0;        ///< room for everything else
  bool primitive_ = true;        ///< no field is nested, binary or fixed
};

}  // namespace floe::types
