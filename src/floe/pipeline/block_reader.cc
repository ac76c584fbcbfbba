#include "floe/pipeline/block_reader.h"

#include <algorithm>

#include "floe/pipeline/values.h"

namespace floe::pipeline {

BlockReader::BlockReader(const DocumentValue& map, std::string path)
    : map_(map), path_(std::move(path)) {}

Result<BlockReader> BlockReader::OfMapping(const DocumentValue& value, std::string path,
                                           std::string_view expected) {
  if (!value.is_map()) {
    return InvalidArgument("{}: {}: expected {}, found {}", value.origin.ToString(), path, expected,
                           KindName(value.kind));
  }
  return BlockReader(value, std::move(path));
}

std::string BlockReader::KeyPath(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::unexpected<Error> BlockReader::FailAt(const Origin& origin, std::string_view key,
                                           const std::string& message) const {
  return InvalidArgument("{}: {}: {}", origin.ToString(), KeyPath(key), message);
}

std::unexpected<Error> BlockReader::FailBlock(const std::string& message) const {
  return InvalidArgument("{}: {}: {}", map_.origin.ToString(), path_, message);
}

const DocumentEntry* BlockReader::Get(std::string_view key) {
  known_.emplace_back(key);
  const DocumentEntry* entry = map_.Find(key);
  if (entry == nullptr || entry->value.is_null()) return nullptr;
  return entry;
}

std::vector<const DocumentEntry*> BlockReader::GetPrefixed(std::string_view prefix) {
  prefixes_.emplace_back(prefix);
  std::vector<const DocumentEntry*> out;
  for (const auto& entry : map_.entries) {
    if (entry.key.size() > prefix.size() && entry.key.starts_with(prefix)) out.push_back(&entry);
  }
  return out;
}

Result<std::optional<std::string>> BlockReader::String(std::string_view key) {
  const DocumentEntry* entry = Get(key);
  if (entry == nullptr) return std::nullopt;
  if (!entry->value.is_scalar()) {
    return Fail(*entry, "expected a single value, found {}", KindName(entry->value.kind));
  }
  return entry->value.scalar;
}

Result<std::optional<std::string>> BlockReader::StringOrList(std::string_view key) {
  const DocumentEntry* entry = Get(key);
  if (entry == nullptr) return std::nullopt;
  if (entry->value.is_scalar()) return entry->value.scalar;
  if (!entry->value.is_list()) {
    return Fail(*entry, "expected a value or a list of values, found {}",
                KindName(entry->value.kind));
  }
  std::string joined;
  for (const auto& item : entry->value.items) {
    if (!item.is_scalar()) {
      return FailAt(item.origin, key,
                    fmt::format("expected a list of values, found {} in it", KindName(item.kind)));
    }
    joined += (joined.empty() ? "" : ", ") + item.scalar;
  }
  return joined;
}

Result<std::optional<int64_t>> BlockReader::Integer(std::string_view key, int64_t min,
                                                    int64_t max) {
  return Parsed(key, [&](std::string_view text) { return ParseInteger(text, min, max); });
}

Result<std::optional<bool>> BlockReader::Bool(std::string_view key) {
  return Parsed(key, ParseBool);
}

Result<std::optional<std::chrono::milliseconds>> BlockReader::Duration(
    std::string_view key, std::chrono::milliseconds min) {
  FLOE_ASSIGN_OR_RETURN(auto value, Parsed(key, ParseDuration));
  if (value && *value < min) {
    const DocumentEntry& entry = *map_.Find(key);
    return Fail(entry, "{} is too short (at least {})", entry.value.scalar, FormatDuration(min));
  }
  return value;
}

Result<std::optional<size_t>> BlockReader::Choice(std::string_view key,
                                                  const std::vector<std::string>& names) {
  FLOE_ASSIGN_OR_RETURN(std::optional<std::string> text, String(key));
  if (!text) return std::nullopt;
  auto it = std::find(names.begin(), names.end(), *text);
  if (it == names.end()) {
    return Fail(*map_.Find(key), "'{}' is not allowed (expected one of: {}){}", *text,
                JoinNames(names), DidYouMean(*text, names));
  }
  return static_cast<size_t>(it - names.begin());
}

void BlockReader::Declare(const std::vector<std::string>& keys,
                          const std::vector<std::string>& prefixes) {
  known_.insert(known_.end(), keys.begin(), keys.end());
  prefixes_.insert(prefixes_.end(), prefixes.begin(), prefixes.end());
}

Status BlockReader::Refuse(const std::vector<std::string>& keys,
                           const std::vector<std::string>& prefixes, std::string_view why) {
  for (const auto& entry : map_.entries) {
    bool hit = std::find(keys.begin(), keys.end(), entry.key) != keys.end();
    for (const auto& prefix : prefixes) hit = hit || entry.key.starts_with(prefix);
    if (hit) {
      return NotSupported("{}: {}: not supported yet: {}", entry.key_origin.ToString(),
                          KeyPath(entry.key), why);
    }
  }
  return Ok();
}

Status BlockReader::Finish() const {
  for (const auto& entry : map_.entries) {
    if (std::find(known_.begin(), known_.end(), entry.key) != known_.end()) continue;
    bool in_family = false;
    for (const auto& prefix : prefixes_) {
      in_family = in_family || (entry.key.size() > prefix.size() && entry.key.starts_with(prefix));
    }
    if (in_family) continue;
    // Candidates: the known keys, and each family with the rest of this key
    // after as many dotted parts as the family's prefix has.
    std::vector<std::string> candidates = known_;
    std::vector<std::string> listed = known_;
    for (const auto& prefix : prefixes_) {
      listed.push_back(prefix + "*");
      size_t parts = static_cast<size_t>(std::count(prefix.begin(), prefix.end(), '.'));
      size_t pos = 0;
      for (size_t i = 0; i < parts && pos != std::string::npos; ++i) {
        pos = entry.key.find('.', pos);
        if (pos != std::string::npos) ++pos;
      }
      if (pos != std::string::npos && pos < entry.key.size()) {
        candidates.push_back(prefix + entry.key.substr(pos));
      }
    }
    std::sort(listed.begin(), listed.end());
    listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
    return InvalidArgument("{}: {}: unknown key{} (known keys: {})", entry.key_origin.ToString(),
                           KeyPath(entry.key), DidYouMean(entry.key, candidates),
                           JoinNames(listed));
  }
  return Ok();
}

}  // namespace floe::pipeline
