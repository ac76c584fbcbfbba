#include "floe/format/avro/schema.h"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <utility>

#include "floe/common/json_scan.h"

namespace floe::format::avro {

namespace {

/// Every type with its spec name; the primitive types come first.
constexpr std::pair<Type, std::string_view> kTypeNames[] = {
    {Type::kNull, "null"},   {Type::kBoolean, "boolean"}, {Type::kInt, "int"},
    {Type::kLong, "long"},   {Type::kFloat, "float"},     {Type::kDouble, "double"},
    {Type::kBytes, "bytes"}, {Type::kString, "string"},   {Type::kRecord, "record"},
    {Type::kEnum, "enum"},   {Type::kArray, "array"},     {Type::kMap, "map"},
    {Type::kUnion, "union"}, {Type::kFixed, "fixed"},
};
constexpr size_t kPrimitiveTypes = 8;

}  // namespace

std::string_view TypeName(Type type) {
  for (const auto& [t, name] : kTypeNames) {
    if (t == type) return name;
  }
  return "?";
}

std::string Node::fullname() const {
  if (namespace_.empty()) return name_;
  return namespace_ + "." + name_;
}

std::optional<size_t> Node::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<size_t> Node::SymbolIndex(std::string_view symbol) const {
  for (size_t i = 0; i < symbols_.size(); ++i) {
    if (symbols_[i] == symbol) return i;
  }
  return std::nullopt;
}

std::optional<size_t> Node::NullBranch() const {
  for (size_t i = 0; i < branches_.size(); ++i) {
    if (branches_[i]->type() == Type::kNull) return i;
  }
  return std::nullopt;
}

std::optional<int64_t> Node::IntProperty(std::string_view key) const {
  auto it = properties_.find(std::string(key));
  if (it == properties_.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

struct Schema::Graph {
  std::vector<std::unique_ptr<Node>> nodes;
  /// The compact JSON text of the schema rooted in this graph, made once on
  /// first use (every Avro file written with the schema carries it).
  mutable std::once_flag compact_once;
  mutable std::string compact_text;
};

namespace {

std::optional<Type> PrimitiveType(std::string_view name) {
  for (const auto& [t, n] : std::span(kTypeNames).first<kPrimitiveTypes>()) {
    if (n == name) return t;
  }
  return std::nullopt;
}

size_t SaturatingAdd(size_t a, size_t b) {
  return a > std::numeric_limits<size_t>::max() - b ? std::numeric_limits<size_t>::max() : a + b;
}

int JsonValueDepth(const Json& json, int limit) {
  if (limit <= 0) return 1;
  if (!json.is_structured()) return 0;
  int max_child = 0;
  for (const auto& child : json) {
    max_child = std::max(max_child, JsonValueDepth(child, limit - 1));
  }
  return max_child + 1;
}

}  // namespace

class SchemaBuilder {
 public:
  Result<Schema> Build(const Json& json) {
    if (JsonValueDepth(json, Schema::kMaxDepth + 2) > Schema::kMaxDepth) {
      return InvalidArgument("avro schema nests deeper than {} levels", Schema::kMaxDepth);
    }
    graph_ = std::make_shared<Schema::Graph>();
    FLOE_ASSIGN_OR_RETURN(const Node* root, ParseType(json, "", 0));
    Schema schema;
    schema.root_ = root;
    schema.graph_ = std::move(graph_);
    return schema;
  }

 private:
  Result<Node*> NewNode(Type type) {
    if (graph_->nodes.size() >= Schema::kMaxNodes) {
      return InvalidArgument("avro schema has more than {} types", Schema::kMaxNodes);
    }
    graph_->nodes.push_back(std::make_unique<Node>());
    Node* node = graph_->nodes.back().get();
    node->type_ = type;
    return node;
  }

  static Result<std::string> GetString(const Json& object, const char* key, bool required) {
    auto it = object.find(key);
    if (it == object.end()) {
      if (required)
        return InvalidArgument("avro schema: missing \"{}\" in {}", key, Snippet(object));
      return std::string();
    }
    if (!it->is_string()) {
      return InvalidArgument("avro schema: \"{}\" must be a string in {}", key, Snippet(object));
    }
    return it->get<std::string>();
  }

  static std::string Snippet(const Json& json) {
    std::string text = json.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (text.size() > 120) text = text.substr(0, 117) + "...";
    return text;
  }

  static Result<std::vector<std::string>> GetAliases(const Json& object) {
    std::vector<std::string> out;
    auto it = object.find("aliases");
    if (it == object.end()) return out;
    if (!it->is_array()) return InvalidArgument("avro schema: \"aliases\" must be an array");
    for (const auto& a : *it) {
      if (!a.is_string()) return InvalidArgument("avro schema: aliases must be strings");
      out.push_back(a.get<std::string>());
    }
    return out;
  }

  // Splits a possibly dotted name and resolves its namespace.
  static void SplitName(const std::string& name, const std::string& ns, std::string* short_name,
                        std::string* out_ns) {
    auto dot = name.rfind('.');
    if (dot != std::string::npos) {
      *short_name = name.substr(dot + 1);
      *out_ns = name.substr(0, dot);
    } else {
      *short_name = name;
      *out_ns = ns;
    }
  }

  Result<const Node*> Lookup(const std::string& name, const std::string& ns) {
    if (name.find('.') == std::string::npos && !ns.empty()) {
      auto it = named_.find(ns + "." + name);
      if (it != named_.end()) return it->second;
    }
    auto it = named_.find(name);
    if (it != named_.end()) return it->second;
    return InvalidArgument("avro schema: unknown type \"{}\"", name);
  }

  Status DefineName(Node* node, const Json& object, const std::string& ns) {
    FLOE_ASSIGN_OR_RETURN(std::string name, GetString(object, "name", true));
    if (name.empty()) return InvalidArgument("avro schema: empty type name");
    std::string effective_ns = ns;
    auto ns_it = object.find("namespace");
    if (ns_it != object.end()) {
      if (!ns_it->is_string() && !ns_it->is_null()) {
        return InvalidArgument("avro schema: \"namespace\" must be a string");
      }
      effective_ns = ns_it->is_string() ? ns_it->get<std::string>() : std::string();
      node->explicit_namespace_ = true;
    }
    SplitName(name, effective_ns, &node->name_, &node->namespace_);
    if (name.find('.') != std::string::npos) node->explicit_namespace_ = true;
    if (node->name_.empty()) return InvalidArgument("avro schema: bad type name \"{}\"", name);
    if (PrimitiveType(node->name_) && node->namespace_.empty()) {
      return InvalidArgument("avro schema: cannot redefine primitive type \"{}\"", name);
    }
    std::string full = node->fullname();
    if (!named_.emplace(full, node).second) {
      return InvalidArgument("avro schema: type \"{}\" defined twice", full);
    }
    FLOE_ASSIGN_OR_RETURN(node->aliases_, GetAliases(object));
    FLOE_ASSIGN_OR_RETURN(node->doc_, GetString(object, "doc", false));
    return Ok();
  }

  Status ParseLogical(Node* node, const Json& object) {
    auto it = object.find("logicalType");
    if (it == object.end()) return Ok();
    if (!it->is_string()) return InvalidArgument("avro schema: \"logicalType\" must be a string");
    node->logical_type_ = it->get<std::string>();
    if (node->logical_type_ == "decimal") {
      auto p = object.find("precision");
      auto s = object.find("scale");
      bool ok = p != object.end() && p->is_number_integer();
      if (ok) {
        int64_t precision = p->get<int64_t>();
        int64_t scale = 0;
        if (s != object.end()) {
          ok = s->is_number_integer();
          if (ok) scale = s->get<int64_t>();
        }
        ok = ok && precision > 0 && precision <= 1000 && scale >= 0 && scale <= precision;
        if (ok) {
          node->precision_ = static_cast<int32_t>(precision);
          node->scale_ = static_cast<int32_t>(scale);
        }
      }
      // The spec says an invalid logical type falls back to the underlying type.
      if (!ok) node->logical_type_.clear();
    }
    return Ok();
  }

  // Copies every attribute not in `known` into the node's properties.
  static void KeepProperties(const Json& object, std::initializer_list<std::string_view> known,
                             Json* properties) {
    for (auto it = object.begin(); it != object.end(); ++it) {
      bool is_known = std::find(known.begin(), known.end(), it.key()) != known.end();
      if (!is_known) (*properties)[it.key()] = it.value();
    }
  }

  Result<const Node*> ParseType(const Json& json, const std::string& ns, int depth) {
    if (depth > Schema::kMaxDepth) {
      return InvalidArgument("avro schema nests deeper than {} levels", Schema::kMaxDepth);
    }
    if (json.is_string()) {
      const std::string& name = json.get_ref<const std::string&>();
      if (auto prim = PrimitiveType(name)) {
        FLOE_ASSIGN_OR_RETURN(Node * node, NewNode(*prim));
        node->bare_ = true;
        node->min_size_ = PrimitiveMinSize(*prim);
        return node;
      }
      return Lookup(name, ns);
    }
    if (json.is_array()) return ParseUnion(json, ns, depth);
    if (!json.is_object()) {
      return InvalidArgument("avro schema: expected a type, got {}", Snippet(json));
    }
    auto type_it = json.find("type");
    if (type_it == json.end()) {
      return InvalidArgument("avro schema: missing \"type\" in {}", Snippet(json));
    }
    if (!type_it->is_string()) {
      // {"type": {...}} or {"type": [...]}: a wrapped type; its siblings have no meaning.
      return ParseType(*type_it, ns, depth + 1);
    }
    const std::string& type_name = type_it->get_ref<const std::string&>();
    if (auto prim = PrimitiveType(type_name)) {
      FLOE_ASSIGN_OR_RETURN(Node * node, NewNode(*prim));
      node->min_size_ = PrimitiveMinSize(*prim);
      FLOE_RETURN_IF_ERROR(ParseLogical(node, json));
      KeepProperties(json, {"type", "logicalType", "precision", "scale"}, &node->properties_);
      if (node->logical_type_.empty() && json.contains("logicalType")) {
        // An invalid decimal: keep its attributes verbatim.
        for (const char* key : {"logicalType", "precision", "scale"}) {
          if (json.contains(key)) node->properties_[key] = json[key];
        }
      }
      return node;
    }
    if (type_name == "record" || type_name == "error") return ParseRecord(json, ns, depth);
    if (type_name == "enum") return ParseEnum(json, ns);
    if (type_name == "fixed") return ParseFixed(json, ns);
    if (type_name == "array" || type_name == "map") {
      bool is_array = type_name == "array";
      FLOE_ASSIGN_OR_RETURN(Node * node, NewNode(is_array ? Type::kArray : Type::kMap));
      const char* child_key = is_array ? "items" : "values";
      auto child = json.find(child_key);
      if (child == json.end()) {
        return InvalidArgument("avro schema: {} without \"{}\"", type_name, child_key);
      }
      FLOE_ASSIGN_OR_RETURN(node->items_, ParseType(*child, ns, depth + 1));
      node->min_size_ = 1;
      FLOE_RETURN_IF_ERROR(ParseLogical(node, json));
      KeepProperties(json, {"type", "logicalType", child_key}, &node->properties_);
      return node;
    }
    // {"type": "SomeNamedType"}: a reference.
    return Lookup(type_name, ns);
  }

  static size_t PrimitiveMinSize(Type type) {
    switch (type) {
      case Type::kNull:
        return 0;
      case Type::kFloat:
        return 4;
      case Type::kDouble:
        return 8;
      default:
        return 1;
    }
  }

  Result<const Node*> ParseUnion(const Json& json, const std::string& ns, int depth) {
    FLOE_ASSIGN_OR_RETURN(Node * node, NewNode(Type::kUnion));
    if (json.empty()) return InvalidArgument("avro schema: empty union");
    std::set<std::string> seen;
    for (const auto& branch_json : json) {
      FLOE_ASSIGN_OR_RETURN(const Node* branch, ParseType(branch_json, ns, depth + 1));
      if (branch->type() == Type::kUnion) {
        return InvalidArgument("avro schema: a union may not contain a union");
      }
      bool named = branch->type() == Type::kRecord || branch->type() == Type::kEnum ||
                   branch->type() == Type::kFixed;
      std::string key = named ? branch->fullname() : std::string(TypeName(branch->type()));
      if (!seen.insert(key).second) {
        return InvalidArgument("avro schema: union has two branches of type {}", key);
      }
      node->branches_.push_back(branch);
    }
    node->min_size_ = 1;
    return node;
  }

  Result<const Node*> ParseRecord(const Json& json, const std::string& ns, int depth) {
    FLOE_ASSIGN_OR_RETURN(Node * node, NewNode(Type::kRecord));
    FLOE_RETURN_IF_ERROR(DefineName(node, json, ns));
    auto fields = json.find("fields");
    if (fields == json.end() || !fields->is_array()) {
      return InvalidArgument("avro schema: record {} needs a \"fields\" array", node->fullname());
    }
    std::set<std::string> names;
    size_t min_size = 0;
    for (const auto& field_json : *fields) {
      if (!field_json.is_object()) {
        return InvalidArgument("avro schema: record {}: a field must be an object",
                               node->fullname());
      }
      Field field;
      FLOE_ASSIGN_OR_RETURN(field.name, GetString(field_json, "name", true));
      if (!names.insert(field.name).second) {
        return InvalidArgument("avro schema: record {} has two fields named \"{}\"",
                               node->fullname(), field.name);
      }
      auto type_it = field_json.find("type");
      if (type_it == field_json.end()) {
        return InvalidArgument("avro schema: field {}.{} has no \"type\"", node->fullname(),
                               field.name);
      }
      FLOE_ASSIGN_OR_RETURN(field.type, ParseType(*type_it, node->namespace_, depth + 1));
      FLOE_ASSIGN_OR_RETURN(field.doc, GetString(field_json, "doc", false));
      FLOE_ASSIGN_OR_RETURN(field.order, GetString(field_json, "order", false));
      FLOE_ASSIGN_OR_RETURN(field.aliases, GetAliases(field_json));
      if (auto d = field_json.find("default"); d != field_json.end()) field.default_value = *d;
      KeepProperties(field_json, {"name", "type", "doc", "order", "aliases", "default"},
                     &field.properties);
      if (auto id = field_json.find("field-id");
          id != field_json.end() && id->is_number_integer()) {
        int64_t v = id->get<int64_t>();
        if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
          field.field_id = static_cast<int32_t>(v);
        }
      }
      min_size = SaturatingAdd(min_size, field.type->min_encoded_size());
      node->fields_.push_back(std::move(field));
    }
    node->min_size_ = min_size;
    FLOE_RETURN_IF_ERROR(ParseLogical(node, json));
    KeepProperties(json, {"type", "name", "namespace", "aliases", "doc", "fields", "logicalType"},
                   &node->properties_);
    return node;
  }

  Result<const Node*> ParseEnum(const Json& json, const std::string& ns) {
    FLOE_ASSIGN_OR_RETURN(Node * node, NewNode(Type::kEnum));
    FLOE_RETURN_IF_ERROR(DefineName(node, json, ns));
    auto symbols = json.find("symbols");
    if (symbols == json.end() || !symbols->is_array()) {
      return InvalidArgument("avro schema: enum {} needs a \"symbols\" array", node->fullname());
    }
    std::set<std::string> seen;
    for (const auto& s : *symbols) {
      if (!s.is_string()) return InvalidArgument("avro schema: enum symbols must be strings");
      if (!seen.insert(s.get<std::string>()).second) {
        return InvalidArgument("avro schema: enum {} repeats symbol {}", node->fullname(),
                               s.get<std::string>());
      }
      node->symbols_.push_back(s.get<std::string>());
    }
    if (auto d = json.find("default"); d != json.end()) {
      if (!d->is_string() || !seen.contains(d->get<std::string>())) {
        return InvalidArgument("avro schema: enum {} default is not one of its symbols",
                               node->fullname());
      }
      node->enum_default_ = d->get<std::string>();
    }
    node->min_size_ = 1;
    FLOE_RETURN_IF_ERROR(ParseLogical(node, json));
    KeepProperties(
        json, {"type", "name", "namespace", "aliases", "doc", "symbols", "default", "logicalType"},
        &node->properties_);
    return node;
  }

  Result<const Node*> ParseFixed(const Json& json, const std::string& ns) {
    FLOE_ASSIGN_OR_RETURN(Node * node, NewNode(Type::kFixed));
    FLOE_RETURN_IF_ERROR(DefineName(node, json, ns));
    auto size = json.find("size");
    if (size == json.end() || !size->is_number_integer() || size->get<int64_t>() < 0 ||
        size->get<int64_t>() > (int64_t{1} << 30)) {
      return InvalidArgument("avro schema: fixed {} needs a \"size\" in [0, 2^30]",
                             node->fullname());
    }
    node->fixed_size_ = size->get<size_t>();
    node->min_size_ = node->fixed_size_;
    FLOE_RETURN_IF_ERROR(ParseLogical(node, json));
    KeepProperties(json,
                   {"type", "name", "namespace", "aliases", "doc", "size", "logicalType",
                    "precision", "scale"},
                   &node->properties_);
    if (node->logical_type_.empty() && json.contains("logicalType")) {
      for (const char* key : {"logicalType", "precision", "scale"}) {
        if (json.contains(key)) node->properties_[key] = json[key];
      }
    }
    return node;
  }

  std::shared_ptr<Schema::Graph> graph_;
  std::map<std::string, const Node*> named_;
};

Result<Schema> Schema::Parse(std::string_view json_text) {
  if (MaxJsonDepth(json_text) > kMaxDepth) {
    return InvalidArgument("avro schema nests deeper than {} levels", kMaxDepth);
  }
  Json json = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return InvalidArgument("avro schema is not valid JSON");
  return FromJson(json);
}

Result<Schema> Schema::FromJson(const Json& json) {
  try {
    return SchemaBuilder().Build(json);
  } catch (const std::exception& e) {
    return InvalidArgument("avro schema: {}", e.what());
  }
}

namespace {

class Serializer {
 public:
  Json Write(const Node& node, const std::string& ns) {
    switch (node.type()) {
      case Type::kRecord:
      case Type::kEnum:
      case Type::kFixed: {
        std::string full = node.fullname();
        if (defined_.contains(full)) {
          return node.name_space() == ns ? Json(node.name()) : Json(full);
        }
        defined_.insert(full);
        return WriteNamed(node, ns);
      }
      case Type::kUnion: {
        Json out = Json::array();
        for (const Node* branch : node.branches()) out.push_back(Write(*branch, ns));
        return out;
      }
      case Type::kArray:
      case Type::kMap: {
        Json out = Json::object();
        out["type"] = TypeName(node.type());
        out[node.type() == Type::kArray ? "items" : "values"] = Write(*node.items(), ns);
        AddLogical(node, &out);
        AddProperties(node.properties(), &out);
        return out;
      }
      default:
        break;
    }
    if (IsBare(node)) return Json(TypeName(node.type()));
    Json out = Json::object();
    out["type"] = TypeName(node.type());
    AddLogical(node, &out);
    AddProperties(node.properties(), &out);
    return out;
  }

 private:
  static bool IsBare(const Node& node) {
    return node.logical_type().empty() && node.properties().empty() && node.written_bare();
  }

  static void AddLogical(const Node& node, Json* out) {
    if (node.logical_type().empty()) return;
    (*out)["logicalType"] = node.logical_type();
    if (node.logical_type() == "decimal") {
      (*out)["precision"] = node.precision();
      (*out)["scale"] = node.scale();
    }
  }

  static void AddProperties(const Json& properties, Json* out) {
    for (auto it = properties.begin(); it != properties.end(); ++it) {
      if (!out->contains(it.key())) (*out)[it.key()] = it.value();
    }
  }

  Json WriteNamed(const Node& node, const std::string& ns) {
    Json out = Json::object();
    out["type"] = TypeName(node.type());
    out["name"] = node.name();
    if (node.name_space() != ns) out["namespace"] = node.name_space();
    if (!node.doc().empty()) out["doc"] = node.doc();
    if (!node.aliases().empty()) out["aliases"] = node.aliases();
    if (node.type() == Type::kRecord) {
      Json fields = Json::array();
      for (const Field& field : node.fields()) {
        Json f = Json::object();
        f["name"] = field.name;
        f["type"] = Write(*field.type, node.name_space());
        if (!field.doc.empty()) f["doc"] = field.doc;
        if (field.default_value) f["default"] = *field.default_value;
        if (!field.order.empty()) f["order"] = field.order;
        if (!field.aliases.empty()) f["aliases"] = field.aliases;
        AddProperties(field.properties, &f);
        fields.push_back(std::move(f));
      }
      out["fields"] = std::move(fields);
    } else if (node.type() == Type::kEnum) {
      out["symbols"] = node.symbols();
      if (node.enum_default()) out["default"] = *node.enum_default();
    } else {
      out["size"] = node.fixed_size();
    }
    AddLogical(node, &out);
    AddProperties(node.properties(), &out);
    return out;
  }

  std::set<std::string> defined_;
};

}  // namespace

Json Schema::ToJson() const { return Serializer().Write(*root_, ""); }

std::string Schema::ToString(int indent) const {
  if (indent < 0 && graph_ != nullptr) return CompactText();
  return ToJson().dump(indent, ' ', false, Json::error_handler_t::replace);
}

const std::string& Schema::CompactText() const {
  std::call_once(graph_->compact_once, [this] {
    graph_->compact_text = ToJson().dump(-1, ' ', false, Json::error_handler_t::replace);
  });
  return graph_->compact_text;
}

}  // namespace floe::format::avro
