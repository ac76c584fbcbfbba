#pragma once
/// Internal helpers for reading Iceberg JSON (table metadata, table updates and
/// requirements) with errors that name the JSON path of the bad member:
/// "snapshots[2].timestamp-ms: expected integer". Not part of the public API.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/common/result.h"

namespace floe::iceberg::internal {

/// Reads members of one JSON object. `code` is the error code of every error
/// (kCorruption for files, kInvalidArgument for requests).
class JsonObjectReader {
 public:
  JsonObjectReader(const nlohmann::json& object, std::string path, ErrorCode code)
      : object_(object), path_(std::move(path)), code_(code) {}

  /// Fails unless the value this reader was made for is a JSON object.
  Status CheckObject() const;

  /// "path.member" (or "member" at the top).
  std::string PathOf(std::string_view member) const;
  /// A present, non-null member, or nullptr.
  const nlohmann::json* Find(std::string_view member) const;
  bool Has(std::string_view member) const { return Find(member) != nullptr; }

  Result<int64_t> Long(std::string_view member) const;
  Result<std::optional<int64_t>> OptLong(std::string_view member) const;
  Result<int32_t> Int(std::string_view member) const;
  Result<std::optional<int32_t>> OptInt(std::string_view member) const;
  Result<bool> Bool(std::string_view member) const;
  Result<std::string> String(std::string_view member) const;
  Result<std::optional<std::string>> OptString(std::string_view member) const;
  /// A required array (nullptr never returned on success).
  Result<const nlohmann::json*> Array(std::string_view member) const;
  /// An optional array: nullptr when absent or null.
  Result<const nlohmann::json*> OptArray(std::string_view member) const;
  /// A required object.
  Result<const nlohmann::json*> Object(std::string_view member) const;
  /// An object of string values; empty when absent.
  Result<std::map<std::string, std::string>> StringMap(std::string_view member) const;
  /// An array of integers; empty when absent.
  Result<std::vector<int64_t>> LongList(std::string_view member) const;
  Result<std::vector<std::string>> StringList(std::string_view member) const;

  /// An error "path.member: message".
  std::unexpected<Error> Fail(std::string_view member, std::string_view message) const;
  const std::string& path() const { return path_; }
  ErrorCode code() const { return code_; }

 private:
  Result<const nlohmann::json*> Required(std::string_view member) const;

  const nlohmann::json& object_;
  std::string path_;
  ErrorCode code_;
};

/// "path[i]".
std::string IndexPath(std::string_view path, size_t index);

/// Reads an integer JSON value within int64 range.
std::optional<int64_t> AsLong(const nlohmann::json& value);

}  // namespace floe::iceberg::internal
