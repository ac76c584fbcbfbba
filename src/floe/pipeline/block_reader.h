#pragma once
/// Reads the keys of one mapping of a pipeline file (a section, a route, an
/// inline catalog) with types, ranges and defaults, and reports the keys
/// nobody asked for, suggesting the nearest known key. Internal to the
/// parser.
///
/// Every error is kInvalidArgument (kNotSupported for Refuse) prefixed with
/// where the value was written and its full key path:
///   "pipeline.yaml:7:9: source.port: 'abc' is not an integer (expected 1..65535)".
/// A key whose value is empty (`port:`) counts as absent.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "floe/common/result.h"
#include "floe/pipeline/document.h"

namespace floe::pipeline {

class BlockReader {
 public:
  /// A reader of `value`, whose key path is `path` ("source", "route[2]");
  /// `value` must outlive the reader. Errors: kInvalidArgument when `value`
  /// is not a mapping, "<where>: <path>: expected <expected>, found <kind>",
  /// e.g. `expected` "a mapping (source-table: ..., sink-table: ...)".
  static Result<BlockReader> OfMapping(const DocumentValue& value, std::string path,
                                       std::string_view expected);

  const std::string& path() const { return path_; }
  /// "source.port".
  std::string KeyPath(std::string_view key) const;

  /// The entry of a known key, or nullptr when absent or empty.
  const DocumentEntry* Get(std::string_view key);
  /// Every entry whose key starts with `prefix` ("table.properties."), in
  /// file order; `prefix` + "*" becomes a known key family.
  std::vector<const DocumentEntry*> GetPrefixed(std::string_view prefix);

  /// A single value. Errors: a list or mapping.
  Result<std::optional<std::string>> String(std::string_view key);
  /// A single value, or a list of values joined with ", ".
  Result<std::optional<std::string>> StringOrList(std::string_view key);
  Result<std::optional<int64_t>> Integer(std::string_view key, int64_t min, int64_t max);
  Result<std::optional<bool>> Bool(std::string_view key);
  /// Errors: a bad duration, or one shorter than `min`.
  Result<std::optional<std::chrono::milliseconds>> Duration(std::string_view key,
                                                            std::chrono::milliseconds min);
  /// A single value read by `parse` (a function from std::string_view to a
  /// Result). Errors: String's, and parse's message at the value.
  template <typename Parse>
  auto Parsed(std::string_view key, Parse&& parse) -> Result<
      std::optional<typename std::invoke_result_t<Parse&, std::string_view>::value_type>> {
    FLOE_ASSIGN_OR_RETURN(std::optional<std::string> text, String(key));
    if (!text) return std::nullopt;
    auto value = parse(std::string_view(*text));
    if (!value) return Fail(*map_.Find(key), "{}", value.error().message());
    return std::move(*value);
  }
  /// One of `names` (exact, lower case); returns its index.
  Result<std::optional<size_t>> Choice(std::string_view key, const std::vector<std::string>& names);

  /// An error about the value of `entry`.
  template <typename... Args>
  std::unexpected<Error> Fail(const DocumentEntry& entry, fmt::format_string<Args...> format,
                              Args&&... args) const {
    return FailAt(entry.value.origin, entry.key, fmt::format(format, std::forward<Args>(args)...));
  }
  std::unexpected<Error> FailAt(const Origin& origin, std::string_view key,
                                const std::string& message) const;
  /// kInvalidArgument "<where the mapping is>: <path>: <message>".
  std::unexpected<Error> FailBlock(const std::string& message) const;

  /// Declares the keys and key families (prefixes such as
  /// "table.properties.") of the mapping, so that Finish can run before the
  /// values are read: a typo is then reported as a typo, not as a missing key.
  void Declare(const std::vector<std::string>& keys, const std::vector<std::string>& prefixes);
  /// kNotSupported for the first present key among `keys` or starting with a
  /// `prefixes` entry: "<where>: <path>.<key>: <why>".
  Status Refuse(const std::vector<std::string>& keys, const std::vector<std::string>& prefixes,
                std::string_view why);
  /// kInvalidArgument for the first key (in file order) that is neither
  /// declared nor asked for, with the nearest known key and the known keys.
  Status Finish() const;

 private:
  BlockReader(const DocumentValue& map, std::string path);

  const DocumentValue& map_;
  std::string path_;
  std::vector<std::string> known_;
  std::vector<std::string> prefixes_;
};

}  // namespace floe::pipeline
