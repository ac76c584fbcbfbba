#include "floe/iceberg/json/sort_order_json.h"

namespace floe::iceberg {

Result<SortOrder> SortOrderFromJsonValue(const nlohmann::json& json, ErrorCode code) {
  if (!json.is_object()) return MakeError(code, "sort order is not an object");
  auto id = json.find("order-id");
  if (id == json.end() || !id->is_number_integer()) {
    return MakeError(code, "sort order: \"order-id\" is missing or not an integer");
  }
  int32_t order_id = id->get<int32_t>();
  auto fields = json.find("fields");
  if (fields == json.end() || !fields->is_array()) {
    return MakeError(code, "sort order {}: \"fields\" is missing or not an array", order_id);
  }
  std::vector<SortField> out;
  for (size_t i = 0; i < fields->size(); ++i) {
    const auto& f = (*fields)[i];
    if (!f.is_object())
      return MakeError(code, "sort order {}: field {} is not an object", order_id, i);
    SortField field;
    auto get_string = [&](const char* key) -> Result<std::string> {
      auto it = f.find(key);
      if (it == f.end() || !it->is_string()) {
        return MakeError(code, "sort order {} field {}: \"{}\" is missing or not a string",
                         order_id, i, key);
      }
      return it->get<std::string>();
    };
    FLOE_ASSIGN_OR_RETURN(std::string transform, get_string("transform"));
    auto t = Transform::Parse(transform);
    if (!t) return MakeError(code, "sort order {} field {}: {}", order_id, i, t.error().message());
    field.transform = *t;
    if (auto sid = f.find("source-id"); sid != f.end() && sid->is_number_integer()) {
      field.source_id = sid->get<int32_t>();
    } else if (auto ids = f.find("source-ids"); ids != f.end() && ids->is_array()) {
      if (ids->size() != 1 || !(*ids)[0].is_number_integer()) {
        return NotSupported("sort order {} field {}: multi-argument transforms are not supported",
                            order_id, i);
      }
      field.source_id = (*ids)[0].get<int32_t>();
    } else {
      return MakeError(code, "sort order {} field {}: \"source-id\" is missing", order_id, i);
    }
    FLOE_ASSIGN_OR_RETURN(std::string direction, get_string("direction"));
    auto d = ParseSortDirection(direction);
    if (!d) return MakeError(code, "sort order {} field {}: {}", order_id, i, d.error().message());
    field.direction = *d;
    FLOE_ASSIGN_OR_RETURN(std::string null_order, get_string("null-order"));
    auto n = ParseNullOrder(null_order);
    if (!n) return MakeError(code, "sort order {} field {}: {}", order_id, i, n.error().message());
    field.null_order = *n;
    out.push_back(std::move(field));
  }
  return SortOrder(order_id, std::move(out));
}

Result<SortOrder> ParseSortOrderJson(std::string_view text, ErrorCode code) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return MakeError(code, "sort order is not valid JSON");
  return SortOrderFromJsonValue(json, code);
}

nlohmann::ordered_json SortOrderToJsonValue(const SortOrder& order) {
  nlohmann::ordered_json j;
  j["order-id"] = order.order_id();
  auto fields = nlohmann::ordered_json::array();
  for (const auto& f : order.fields()) {
    nlohmann::ordered_json fj;
    fj["transform"] = f.transform.ToString();
    fj["source-id"] = f.source_id;
    fj["direction"] = std::string(SortDirectionName(f.direction));
    fj["null-order"] = std::string(NullOrderName(f.null_order));
    fields.push_back(std::move(fj));
  }
  j["fields"] = std::move(fields);
  return j;
}

std::string SortOrderToJsonText(const SortOrder& order) {
  return SortOrderToJsonValue(order).dump();
}

}  // namespace floe::iceberg
