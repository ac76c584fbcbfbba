#pragma once
/// The pipeline file as a tree of strings, before it is given types: every
/// value remembers where it came from (file, line and column, or the
/// `--set` override that wrote it) so that errors found later can point at
/// it, and whether `${VAR}` substitution put text from the environment into
/// it (such values may be secrets; see PipelineDefinition::Describe).
///
/// Loading is the only place that calls yaml-cpp, which throws: every
/// exception is caught here and returned as kInvalidArgument. Input is
/// bounded: at most kMaxDocumentBytes of text, kMaxDocumentDepth levels of
/// nesting and kMaxDocumentValues values (aliases are expanded, so a file of
/// nested aliases cannot blow up memory).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/pipeline/environment.h"

namespace floe::pipeline {

inline constexpr size_t kMaxDocumentBytes = 1 << 20;
inline constexpr int kMaxDocumentDepth = 64;
inline constexpr size_t kMaxDocumentValues = 100000;

/// Where a value was written.
struct Origin {
  std::string file;
  int line = 0;    ///< 1-based; 0 when the value did not come from the file
  int column = 0;  ///< 1-based
  /// For a value written by an override: the override as given, "key=value".
  std::string override_text;

  /// "pipeline.yaml:12:3", "--set source.port=3307", or the file name alone.
  std::string ToString() const;
};

struct DocumentEntry;

/// One value of the tree.
struct DocumentValue {
  enum class Kind { kNull, kScalar, kMap, kList };
  Kind kind = Kind::kNull;
  std::string scalar;                  ///< kScalar: the text, after ${VAR} substitution
  std::vector<DocumentEntry> entries;  ///< kMap, in file order, keys unique
  std::vector<DocumentValue> items;    ///< kList
  Origin origin;
  /// True when ${VAR} substitution put environment text into `scalar`.
  bool from_environment = false;

  bool is_map() const { return kind == Kind::kMap; }
  bool is_list() const { return kind == Kind::kList; }
  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_null() const { return kind == Kind::kNull; }

  /// The entry with this exact key, or nullptr.
  const DocumentEntry* Find(std::string_view key) const;
  DocumentEntry* Find(std::string_view key);
};

/// "a mapping", "a list", "a value", "nothing": for messages.
std::string_view KindName(DocumentValue::Kind kind);

struct DocumentEntry {
  std::string key;
  Origin key_origin;
  DocumentValue value;
};

/// Parses YAML text into a tree. `${NAME}` in scalar values is replaced by
/// the variable from `env` (NAME: letters, digits, '_'; `$$` is a literal
/// `$`); keys are not substituted. The root must be a mapping (an empty file
/// gives an empty mapping).
/// Errors (kInvalidArgument, prefixed with "file:line:column"): YAML syntax,
/// an unset variable (naming it), an unclosed `${`, a duplicate key (naming
/// where it first appeared), a key that is not a plain value, text larger
/// than kMaxDocumentBytes, nesting deeper than kMaxDocumentDepth, more than
/// kMaxDocumentValues values.
Result<DocumentValue> LoadDocument(std::string_view yaml_text, std::string_view file_name,
                                   const Environment& env);

/// Applies one `--set key=value` override to a loaded tree. The key is a
/// dotted path: its first part names a top-level section (`source`,
/// `pipeline`, ...); the rest is matched against the keys present, preferring
/// an exact key (`source.scan.startup.mode` sets the key `scan.startup.mode`
/// of `source`), then descending into a mapping or list whose key is a
/// prefix (`sink.catalog.uri` sets `uri` inside a `catalog:` mapping;
/// `route.0.sink-table` sets a key of the first route). A path that matches
/// nothing adds the key, so an override can set a key the file leaves out;
/// whether the key is allowed is checked later, like the file's keys. The
/// value is taken literally (no ${VAR}: the shell has expanded it).
/// Errors (kInvalidArgument): no '=', an empty key, a list index that is not
/// a number or out of range.
Status ApplyOverride(DocumentValue& root, std::string_view override_text);

}  // namespace floe::pipeline
