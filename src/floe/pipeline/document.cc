#include "floe/pipeline/document.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <charconv>
#include <exception>
#include <unordered_map>

namespace floe::pipeline {
namespace {

Origin MakeOrigin(std::string_view file, const YAML::Mark& mark) {
  Origin origin;
  origin.file = std::string(file);
  if (mark.line >= 0) {
    origin.line = mark.line + 1;
    origin.column = mark.column + 1;
  }
  return origin;
}

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

/// Replaces ${NAME} with the variable's value and $$ with $.
Result<std::string> Substitute(const std::string& text, const Origin& origin,
                               const Environment& env, bool* substituted) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '$' || i + 1 == text.size()) {
      out += c;
      continue;
    }
    if (text[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (text[i + 1] != '{') {
      out += c;
      continue;
    }
    size_t end = text.find('}', i + 2);
    if (end == std::string::npos) {
      return InvalidArgument("{}: unclosed '${{' in a value (write $$ for a literal '$')",
                             origin.ToString());
    }
    std::string name = text.substr(i + 2, end - i - 2);
    bool valid = !name.empty() && std::isdigit(static_cast<unsigned char>(name[0])) == 0;
    for (char n : name) valid = valid && IsNameChar(n);
    if (!valid) {
      return InvalidArgument(
          "{}: '${{{}}}' is not a variable name (letters, digits and '_', not starting with a "
          "digit)",
          origin.ToString(), name);
    }
    std::optional<std::string> value = env.Get(name);
    if (!value) {
      return InvalidArgument("{}: the environment variable {} is not set (used as ${{{}}})",
                             origin.ToString(), name, name);
    }
    out += *value;
    *substituted = true;
    i = end;
  }
  return out;
}

class Converter {
 public:
  Converter(std::string_view file, const Environment& env) : file_(file), env_(env) {}

  Result<DocumentValue> Convert(const YAML::Node& node, int depth) {
    DocumentValue value;
    value.origin = MakeOrigin(file_, node.Mark());
    if (depth > kMaxDocumentDepth) {
      return InvalidArgument("{}: nested deeper than {} levels", value.origin.ToString(),
                             kMaxDocumentDepth);
    }
    if (++count_ > kMaxDocumentValues) {
      return InvalidArgument("{}: more than {} values (aliases count each time they are used)",
                             value.origin.ToString(), kMaxDocumentValues);
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        value.kind = DocumentValue::Kind::kNull;
        return value;
      case YAML::NodeType::Scalar: {
        value.kind = DocumentValue::Kind::kScalar;
        FLOE_ASSIGN_OR_RETURN(
            value.scalar, Substitute(node.Scalar(), value.origin, env_, &value.from_environment));
        return value;
      }
      case YAML::NodeType::Sequence:
        value.kind = DocumentValue::Kind::kList;
        for (const auto& item : node) {
          FLOE_ASSIGN_OR_RETURN(DocumentValue converted, Convert(item, depth + 1));
          value.items.push_back(std::move(converted));
        }
        return value;
      case YAML::NodeType::Map:
        value.kind = DocumentValue::Kind::kMap;
        std::unordered_map<std::string, int> first_lines;  // key -> line, for duplicates
        for (const auto& kv : node) {
          Origin key_origin = MakeOrigin(file_, kv.first.Mark());
          if (!kv.first.IsScalar()) {
            return InvalidArgument("{}: a key must be a plain name, not {}", key_origin.ToString(),
                                   kv.first.IsNull() ? "empty" : "a mapping or list");
          }
          std::string key = kv.first.Scalar();
          auto [first, inserted] = first_lines.emplace(key, key_origin.line);
          if (!inserted) {
            return InvalidArgument("{}: key '{}' appears twice (first at line {})",
                                   key_origin.ToString(), key, first->second);
          }
          FLOE_ASSIGN_OR_RETURN(DocumentValue converted, Convert(kv.second, depth + 1));
          value.entries.push_back(
              DocumentEntry{std::move(key), std::move(key_origin), std::move(converted)});
        }
        return value;
    }
    return InternalError("{}: unknown YAML node type", value.origin.ToString());
  }

 private:
  std::string_view file_;
  const Environment& env_;
  size_t count_ = 0;
};

Result<size_t> ParseIndex(std::string_view text, std::string_view override_text) {
  size_t index = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument("--set {}: '{}' is not a list index (0, 1, ...)", override_text, text);
  }
  return index;
}

Status SetPath(DocumentValue& node, std::string_view path, const DocumentValue& scalar,
               std::string_view override_text) {
  if (node.is_list()) {
    size_t dot = path.find('.');
    FLOE_ASSIGN_OR_RETURN(size_t index, ParseIndex(path.substr(0, dot), override_text));
    if (index > node.items.size()) {
      return InvalidArgument("--set {}: index {} is out of range (the list has {} items)",
                             override_text, index, node.items.size());
    }
    if (dot == std::string_view::npos) {
      if (index == node.items.size())
        node.items.push_back(scalar);
      else
        node.items[index] = scalar;
      return Ok();
    }
    if (index == node.items.size()) {
      DocumentValue item;
      item.kind = DocumentValue::Kind::kMap;
      item.origin = scalar.origin;
      node.items.push_back(std::move(item));
    }
    DocumentValue& item = node.items[index];
    if (!item.is_map() && !item.is_list()) {
      return InvalidArgument("--set {}: item {} is {}, not a mapping", override_text, index,
                             KindName(item.kind));
    }
    return SetPath(item, path.substr(dot + 1), scalar, override_text);
  }
  if (!node.is_map()) {
    node = DocumentValue();
    node.kind = DocumentValue::Kind::kMap;
    node.origin = scalar.origin;
  }
  if (DocumentEntry* exact = node.Find(path)) {
    exact->value = scalar;
    return Ok();
  }
  DocumentEntry* prefix = nullptr;
  for (auto& entry : node.entries) {
    if ((entry.value.is_map() || entry.value.is_list()) && path.size() > entry.key.size() &&
        path.starts_with(entry.key) && path[entry.key.size()] == '.' &&
        (prefix == nullptr || entry.key.size() > prefix->key.size())) {
      prefix = &entry;
    }
  }
  if (prefix != nullptr) {
    return SetPath(prefix->value, path.substr(prefix->key.size() + 1), scalar, override_text);
  }
  node.entries.push_back(DocumentEntry{std::string(path), scalar.origin, scalar});
  return Ok();
}

}  // namespace

std::string Origin::ToString() const {
  if (!override_text.empty()) return "--set " + override_text;
  if (line == 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

const DocumentEntry* DocumentValue::Find(std::string_view key) const {
  for (const auto& entry : entries) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

DocumentEntry* DocumentValue::Find(std::string_view key) {
  for (auto& entry : entries) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

std::string_view KindName(DocumentValue::Kind kind) {
  switch (kind) {
    case DocumentValue::Kind::kNull:
      return "nothing";
    case DocumentValue::Kind::kScalar:
      return "a value";
    case DocumentValue::Kind::kMap:
      return "a mapping";
    case DocumentValue::Kind::kList:
      return "a list";
  }
  return "?";
}

Result<DocumentValue> LoadDocument(std::string_view yaml_text, std::string_view file_name,
                                   const Environment& env) {
  if (yaml_text.size() > kMaxDocumentBytes) {
    return InvalidArgument("{}: {} bytes is larger than the {} bytes a pipeline file may have",
                           file_name, yaml_text.size(), kMaxDocumentBytes);
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    Origin origin = MakeOrigin(file_name, e.mark);
    return InvalidArgument("{}: not valid YAML: {}", origin.ToString(), e.msg);
  } catch (const std::exception& e) {
    return InvalidArgument("{}: not valid YAML: {}", file_name, e.what());
  }
  try {
    if (root.IsNull() || !root.IsDefined()) {
      DocumentValue empty;
      empty.kind = DocumentValue::Kind::kMap;
      empty.origin.file = std::string(file_name);
      return empty;
    }
    if (!root.IsMap()) {
      Origin origin = MakeOrigin(file_name, root.Mark());
      return InvalidArgument(
          "{}: a pipeline file must be a mapping of sections (source:, sink:, "
          "route:, pipeline:), not {}",
          origin.ToString(), root.IsSequence() ? "a list" : "a single value");
    }
    Converter converter(file_name, env);
    return converter.Convert(root, 1);
  } catch (const std::exception& e) {
    return InvalidArgument("{}: {}", file_name, e.what());
  }
}

Status ApplyOverride(DocumentValue& root, std::string_view override_text) {
  size_t eq = override_text.find('=');
  if (eq == std::string_view::npos) {
    return InvalidArgument("--set {}: expected KEY=VALUE, e.g. source.port=3307", override_text);
  }
  std::string_view path = override_text.substr(0, eq);
  while (!path.empty() && path.back() == ' ') path.remove_suffix(1);
  while (!path.empty() && path.front() == ' ') path.remove_prefix(1);
  if (path.empty() || path.front() == '.' || path.back() == '.') {
    return InvalidArgument("--set {}: expected KEY=VALUE with a dotted key such as source.port",
                           override_text);
  }
  DocumentValue scalar;
  scalar.kind = DocumentValue::Kind::kScalar;
  scalar.scalar = std::string(override_text.substr(eq + 1));
  scalar.origin.override_text = std::string(override_text);
  if (!root.is_map()) {
    root = DocumentValue();
    root.kind = DocumentValue::Kind::kMap;
  }
  size_t dot = path.find('.');
  std::string_view section = path.substr(0, dot);
  DocumentEntry* entry = root.Find(section);
  if (dot == std::string_view::npos) {
    if (entry != nullptr)
      entry->value = scalar;
    else
      root.entries.push_back(DocumentEntry{std::string(section), scalar.origin, scalar});
    return Ok();
  }
  if (entry == nullptr) {
    DocumentValue map;
    map.kind = DocumentValue::Kind::kMap;
    map.origin = scalar.origin;
    root.entries.push_back(DocumentEntry{std::string(section), scalar.origin, std::move(map)});
    entry = &root.entries.back();
  }
  return SetPath(entry->value, path.substr(dot + 1), scalar, override_text);
}

}  // namespace floe::pipeline
