#include "floe/iceberg/json/metadata_json_util.h"

#include <limits>

namespace floe::iceberg::internal {

using nlohmann::json;

std::string IndexPath(std::string_view path, size_t index) {
  return fmt::format("{}[{}]", path, index);
}

std::optional<int64_t> AsLong(const json& value) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned()) {
      uint64_t u = value.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
      return static_cast<int64_t>(u);
    }
    return value.get<int64_t>();
  }
  return std::nullopt;
}

Status JsonObjectReader::CheckObject() const {
  if (!object_.is_object()) {
    return std::unexpected(
        Error(code_, fmt::format("{}: expected object", path_.empty() ? "metadata" : path_)));
  }
  return Ok();
}

std::string JsonObjectReader::PathOf(std::string_view member) const {
  if (path_.empty()) return std::string(member);
  return fmt::format("{}.{}", path_, member);
}

std::unexpected<Error> JsonObjectReader::Fail(std::string_view member,
                                              std::string_view message) const {
  return std::unexpected(Error(code_, fmt::format("{}: {}", PathOf(member), message)));
}

const json* JsonObjectReader::Find(std::string_view member) const {
  if (!object_.is_object()) return nullptr;
  auto it = object_.find(member);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<const json*> JsonObjectReader::Required(std::string_view member) const {
  const json* v = Find(member);
  if (v == nullptr) return Fail(member, "missing");
  return v;
}

Result<int64_t> JsonObjectReader::Long(std::string_view member) const {
  FLOE_ASSIGN_OR_RETURN(const json* v, Required(member));
  auto l = AsLong(*v);
  if (!l) return Fail(member, "expected integer");
  return *l;
}

Result<std::optional<int64_t>> JsonObjectReader::OptLong(std::string_view member) const {
  if (!Has(member)) return std::optional<int64_t>();
  FLOE_ASSIGN_OR_RETURN(int64_t v, Long(member));
  return std::optional<int64_t>(v);
}

Result<int32_t> JsonObjectReader::Int(std::string_view member) const {
  FLOE_ASSIGN_OR_RETURN(int64_t v, Long(member));
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Fail(member, fmt::format("{} is out of int range", v));
  }
  return static_cast<int32_t>(v);
}

Result<std::optional<int32_t>> JsonObjectReader::OptInt(std::string_view member) const {
  if (!Has(member)) return std::optional<int32_t>();
  FLOE_ASSIGN_OR_RETURN(int32_t v, Int(member));
  return std::optional<int32_t>(v);
}

Result<bool> JsonObjectReader::Bool(std::string_view member) const {
  FLOE_ASSIGN_OR_RETURN(const json* v, Required(member));
  if (!v->is_boolean()) return Fail(member, "expected boolean");
  return v->get<bool>();
}

Result<std::string> JsonObjectReader::String(std::string_view member) const {
  FLOE_ASSIGN_OR_RETURN(const json* v, Required(member));
  if (!v->is_string()) return Fail(member, "expected string");
  return v->get<std::string>();
}

Result<std::optional<std::string>> JsonObjectReader::OptString(std::string_view member) const {
  if (!Has(member)) return std::optional<std::string>();
  FLOE_ASSIGN_OR_RETURN(std::string v, String(member));
  return std::optional<std::string>(std::move(v));
}

Result<const json*> JsonObjectReader::Array(std::string_view member) const {
  FLOE_ASSIGN_OR_RETURN(const json* v, Required(member));
  if (!v->is_array()) return Fail(member, "expected array");
  return v;
}

Result<const json*> JsonObjectReader::OptArray(std::string_view member) const {
  if (!Has(member)) return static_cast<const json*>(nullptr);
  return Array(member);
}

Result<const json*> JsonObjectReader::Object(std::string_view member) const {
  FLOE_ASSIGN_OR_RETURN(const json* v, Required(member));
  if (!v->is_object()) return Fail(member, "expected object");
  return v;
}

Result<std::map<std::string, std::string>> JsonObjectReader::StringMap(
    std::string_view member) const {
  std::map<std::string, std::string> out;
  const json* v = Find(member);
  if (v == nullptr) return out;
  if (!v->is_object()) return Fail(member, "expected object");
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it.value().is_string()) {
      return Fail(fmt::format("{}.{}", member, it.key()), "expected string");
    }
    out.emplace(it.key(), it.value().get<std::string>());
  }
  return out;
}

Result<std::vector<int64_t>> JsonObjectReader::LongList(std::string_view member) const {
  std::vector<int64_t> out;
  FLOE_ASSIGN_OR_RETURN(const json* v, OptArray(member));
  if (v == nullptr) return out;
  out.reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    auto l = AsLong((*v)[i]);
    if (!l) return Fail(IndexPath(member, i), "expected integer");
    out.push_back(*l);
  }
  return out;
}

Result<std::vector<std::string>> JsonObjectReader::StringList(std::string_view member) const {
  std::vector<std::string> out;
  FLOE_ASSIGN_OR_RETURN(const json* v, OptArray(member));
  if (v == nullptr) return out;
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) return Fail(IndexPath(member, i), "expected string");
    out.push_back((*v)[i].get<std::string>());
  }
  return out;
}

}  // namespace floe::iceberg::internal
