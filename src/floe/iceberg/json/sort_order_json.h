#pragma once
/// JSON form of sort orders (spec Appendix C "Sort Orders"):
///   {"order-id": 1, "fields": [{"transform": "identity", "source-id": 2,
///                               "direction": "asc", "null-order": "nulls-first"}]}

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/sort_order.h"

namespace floe::iceberg {

/// Errors: `code` (kCorruption by default) naming the field and index;
/// kNotSupported for multi-argument transforms.
Result<SortOrder> SortOrderFromJsonValue(const nlohmann::json& json,
                                         ErrorCode code = ErrorCode::kCorruption);
Result<SortOrder> ParseSortOrderJson(std::string_view text,
                                     ErrorCode code = ErrorCode::kCorruption);
nlohmann::ordered_json SortOrderToJsonValue(const SortOrder& order);
std::string SortOrderToJsonText(const SortOrder& order);

}  // namespace floe::iceberg
