#pragma once
/// JsonRowWriter: rows of one schema as JSON objects, the bytes AppendRowJson
/// (row_json.h) writes, for printing many rows: the members' names are
/// rendered once, and a row of primitive values is written into room made for
/// all of it at once, so `out` is grown only when it runs out of capacity
/// (nothing is allocated per row once it has a chunk's size).

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
    const Type* type = nullptr;
  };
  const Schema* schema_;
  std::vector<Field> fields_;
  std::vector<size_t> strings_;  ///< fields of type string (their room depends on the value)
  size_t fixed_room_ = 0;        ///< room for everything else
  bool primitive_ = true;        ///< no field is nested, binary or fixed
};

}  // namespace floe::types
