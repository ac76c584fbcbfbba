#pragma once
/// Sort orders (spec "Sorting"): order id and fields (transform, source
/// column, direction, null order), and the parser of user sort orders such
/// as "id desc nulls last, day(ts)". JSON lives in sort_order_json.h.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/transform.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

enum class SortDirection : uint8_t { kAsc, kDesc };
enum class NullOrder : uint8_t { kNullsFirst, kNullsLast };

/// "asc"/"desc", "nulls-first"/"nulls-last" (the spec's JSON strings).
std::string_view SortDirectionName(SortDirection d);
std::string_view NullOrderName(NullOrder n);
Result<SortDirection> ParseSortDirection(std::string_view s);
Result<NullOrder> ParseNullOrder(std::string_view s);

struct SortField {
  Transform transform;
  int32_t source_id = 0;
  SortDirection direction = SortDirection::kAsc;
  NullOrder null_order = NullOrder::kNullsFirst;

  bool operator==(const SortField&) const = default;
};

class SortOrder {
 public:
  /// The unsorted order: id 0, no fields.
  SortOrder() = default;
  SortOrder(int32_t order_id, std::vector<SortField> fields)
      : order_id_(order_id), fields_(std::move(fields)) {}

  int32_t order_id() const { return order_id_; }
  const std::vector<SortField>& fields() const { return fields_; }
  bool is_unsorted() const { return fields_.empty(); }

  /// Every source column exists, is a primitive, and accepts the transform;
  /// order id 0 only for the unsorted order. Errors: kInvalidArgument.
  Status Validate(const types::Schema& schema) const;

  /// Whether data sorted by this order is also sorted by `other`: `other` is
  /// a prefix of this order, field by field, with equal directions and null
  /// orders and transforms that satisfy the other's.
  bool SatisfiesOrderOf(const SortOrder& other) const;

  /// Same fields, ignoring the order id.
  bool SameFieldsAs(const SortOrder& other) const { return fields_ == other.fields_; }

  /// "[id DESC NULLS LAST, day(4) ASC NULLS FIRST]" with source ids.
  std::string ToString() const;

  bool operator==(const SortOrder&) const = default;

 private:
  int32_t order_id_ = 0;
  std::vector<SortField> fields_;
};

/// Parses "id desc nulls last, day(ts), bucket(16, name) asc": terms as in
/// partition specs (partition_field.h), each optionally followed by ASC|DESC
/// and NULLS FIRST|NULLS LAST (case-insensitive). Defaults as Spark and
/// Iceberg Java: ASC, and NULLS FIRST for ASC, NULLS LAST for DESC. Blank
/// text gives the unsorted order. Errors: kInvalidArgument with the position.
Result<SortOrder> ParseSortOrderText(std::string_view text, const types::Schema& schema,
                                     int32_t order_id = 1);

}  // namespace floe::iceberg
