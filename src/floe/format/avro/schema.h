#pragma once
/// Avro schemas (https://avro.apache.org/docs/1.11.1/specification/), parsed
/// from and serialized to JSON with every attribute preserved: properties floe
/// does not know (Iceberg's "field-id", "element-id", "key-id", "value-id",
/// custom logical types, anything else) round-trip unchanged. See docs/avro.md.
///
/// A `Schema` owns a graph of `Node`s. Named types (record, enum, fixed) may be
/// referenced by (full)name after their definition, so the graph can be
/// recursive; `Node` pointers stay valid as long as any copy of the Schema
/// lives. Schemas are immutable once built and safe to share across threads.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/common/result.h"

namespace floe::format::avro {

/// JSON with insertion order kept, so properties print in the order they came.
using Json = nlohmann::ordered_json;

enum class Type : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

/// The spec's name of a type: "null", "record", "union", ...
std::string_view TypeName(Type type);

class Node;

/// A record field.
struct Field {
  std::string name;
  std::vector<std::string> aliases;
  std::string doc;
  const Node* type = nullptr;
  /// The "default" attribute, if present (JSON null is a present default).
  std::optional<Json> default_value;
  /// The "order" attribute if present ("ascending", "descending", "ignore").
  std::string order;
  /// Iceberg's "field-id", if present and an integer.
  std::optional<int32_t> field_id;
  /// Every other attribute, in source order (including "field-id").
  Json properties = Json::object();
};

/// One node of a schema graph.
class Node {
 public:
  Type type() const { return type_; }

  /// Named types: the short name, the namespace ("" for none) and the fullname.
  const std::string& name() const { return name_; }
  const std::string& name_space() const { return namespace_; }
  std::string fullname() const;
  const std::vector<std::string>& aliases() const { return aliases_; }
  const std::string& doc() const { return doc_; }

  /// "logicalType" ("" if none), and a decimal's precision and scale.
  const std::string& logical_type() const { return logical_type_; }
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }

  /// kRecord.
  const std::vector<Field>& fields() const { return fields_; }
  /// The index of the field named `name` (not aliases), if any.
  std::optional<size_t> FieldIndex(std::string_view name) const;
  /// kEnum.
  const std::vector<std::string>& symbols() const { return symbols_; }
  /// kEnum: the "default" symbol used when resolving an unknown writer symbol.
  const std::optional<std::string>& enum_default() const { return enum_default_; }
  /// The index of `symbol`, if any.
  std::optional<size_t> SymbolIndex(std::string_view symbol) const;
  /// kFixed.
  size_t fixed_size() const { return fixed_size_; }
  /// kArray: the item type. kMap: the value type.
  const Node* items() const { return items_; }
  const Node* values() const { return items_; }
  /// kUnion.
  const std::vector<const Node*>& branches() const { return branches_; }
  /// kUnion: the index of the "null" branch, if any.
  std::optional<size_t> NullBranch() const;

  /// Attributes floe does not interpret (e.g. "element-id"), in source order.
  const Json& properties() const { return properties_; }
  /// An integer property such as "element-id", "key-id", "value-id".
  std::optional<int64_t> IntProperty(std::string_view key) const;

  /// The fewest bytes one value of this type takes in binary encoding (a lower
  /// bound for recursive types). Used to bound counts read from files.
  size_t min_encoded_size() const { return min_size_; }
  /// True for a primitive written as a bare name ("int" rather than {"type":"int"}).
  bool written_bare() const { return bare_; }

 private:
  friend class SchemaBuilder;
  Type type_ = Type::kNull;
  std::string name_;
  std::string namespace_;
  bool explicit_namespace_ = false;
  std::vector<std::string> aliases_;
  std::string doc_;
  std::string logical_type_;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  std::vector<Field> fields_;
  std::vector<std::string> symbols_;
  std::optional<std::string> enum_default_;
  size_t fixed_size_ = 0;
  const Node* items_ = nullptr;
  std::vector<const Node*> branches_;
  Json properties_ = Json::object();
  size_t min_size_ = 0;
  bool bare_ = false;
};

/// An immutable Avro schema. Cheap to copy (shared).
class Schema {
 public:
  /// Limits on what Parse accepts.
  static constexpr int kMaxDepth = 128;         ///< Nesting of JSON and of types.
  static constexpr size_t kMaxNodes = 1 << 20;  ///< Type nodes in one schema.

  /// Parses schema JSON text. Errors: kInvalidArgument for bad JSON or a bad
  /// schema (unknown type name, duplicate names, missing attributes, bad
  /// defaults are accepted as written but checked when used), nesting deeper
  /// than kMaxDepth.
  static Result<Schema> Parse(std::string_view json_text);
  /// Builds from parsed JSON. Same errors as Parse.
  static Result<Schema> FromJson(const Json& json);

  /// The schema as JSON: named types are defined at first use and referenced
  /// by name afterwards; every property is kept.
  Json ToJson() const;
  /// ToJson().dump(indent); indent < 0 gives compact text.
  std::string ToString(int indent = -1) const;

  const Node& root() const { return *root_; }

 private:
  friend class SchemaBuilder;
  /// ToString() of a parsed schema, computed once per schema graph.
  const std::string& CompactText() const;
  struct Graph;
  std::shared_ptr<const Graph> graph_;
  const Node* root_ = nullptr;
};

}  // namespace floe::format::avro
