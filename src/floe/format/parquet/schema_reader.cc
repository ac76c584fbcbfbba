#include "floe/format/parquet/schema_reader.h"

#include <algorithm>
#include <unordered_set>

#include "floe/types/schema_json.h"

namespace floe::format::parquet {

namespace {

// A type level is at most 2 Parquet levels (a list's or map's group and its
// repeated group), below the root: the depth floe's own files can reach.
constexpr int kMaxSchemaDepth = 2 * types::kMaxTypeDepth + 1;

using types::NestedField;
using types::TypePtr;

/// The Parquet tree, before the list/map rules are applied.
struct PNode {
  const SchemaElement* element = nullptr;
  int16_t def = 0;
  int16_t rep = 0;
  int leaf = -1;
  std::vector<PNode> children;
  bool is_group() const { return leaf < 0; }
  FieldRepetitionType repetition() const {
    return element->repetition_type.value_or(FieldRepetitionType::kRequired);
  }
};

Status BuildPTree(const std::vector<SchemaElement>& elements, size_t* pos, PNode* node, int depth,
                  std::vector<std::string>* path, std::vector<ReaderLeaf>* leaves) {
  if (depth > kMaxSchemaDepth) {
    return Corruption("parquet schema nests deeper than {} levels (types may nest {} levels)",
                      kMaxSchemaDepth, types::kMaxTypeDepth);
  }
  const SchemaElement& e = elements[*pos];
  node->element = &e;
  ++*pos;
  if (e.num_children.has_value() && (!e.type.has_value() || *e.num_children > 0)) {
    int32_t n = *e.num_children;
    if (n < 0 || static_cast<size_t>(n) > elements.size() - *pos) {
      return Corruption("parquet schema element '{}' claims {} children, {} elements remain",
                        e.name, n, elements.size() - *pos);
    }
    node->children.resize(n);
    for (int32_t i = 0; i < n; ++i) {
      // Grandchildren consume elements too: recheck before every child.
      if (*pos >= elements.size()) {
        return Corruption(
            "parquet schema element '{}' claims {} children, the schema ends after {}", e.name, n,
            i);
      }
      PNode& c = node->children[i];
      const SchemaElement& ce = elements[*pos];
      auto rep = ce.repetition_type.value_or(FieldRepetitionType::kRequired);
      if (rep != FieldRepetitionType::kRequired && rep != FieldRepetitionType::kOptional &&
          rep != FieldRepetitionType::kRepeated) {
        return Corruption("parquet schema element '{}' has repetition {}", ce.name,
                          static_cast<int>(rep));
      }
      c.def = static_cast<int16_t>(node->def + (rep != FieldRepetitionType::kRequired ? 1 : 0));
      c.rep = static_cast<int16_t>(node->rep + (rep == FieldRepetitionType::kRepeated ? 1 : 0));
      path->push_back(ce.name);
      FLOE_RETURN_IF_ERROR(BuildPTree(elements, pos, &c, depth + 1, path, leaves));
      path->pop_back();
    }
    return Ok();
  }
  if (!e.type.has_value()) {
    return Corruption("parquet schema element '{}' has neither a type nor children", e.name);
  }
  if (depth == 0) return Corruption("parquet schema root '{}' is not a group", e.name);
  ReaderLeaf leaf;
  leaf.column_index = static_cast<int>(leaves->size());
  leaf.physical_type = *e.type;
  leaf.type_length = e.type_length.value_or(0);
  leaf.max_def = node->def;
  leaf.max_rep = node->rep;
  leaf.path = *path;
  node->leaf = leaf.column_index;
  leaves->push_back(std::move(leaf));
  return Ok();
}

struct Mapped {
  TypePtr type;
  LeafConversion conversion;
};

Result<TypePtr> DecimalType(const SchemaElement& e, int32_t precision, int32_t scale) {
  if (precision > 38) {
    return NotSupported("parquet column '{}': decimal precision {} above 38", e.name, precision);
  }
  auto t = types::Type::Decimal(precision, scale);
  if (!t) {
    return Corruption("parquet column '{}': invalid decimal({}, {})", e.name, precision, scale);
  }
  return *t;
}

Result<Mapped> MapPrimitive(const SchemaElement& e) {
  using T = types::Type;
  using K = LogicalType::Kind;
  const auto& lt = e.logical_type;
  const auto ct = e.converted_type;
  auto is_ct = [&](ConvertedType c) { return !lt && ct == c; };
  bool is_decimal = (lt && lt->kind == K::kDecimal) || is_ct(ConvertedType::kDecimal);
  int32_t precision = lt && lt->kind == K::kDecimal ? lt->precision : e.precision.value_or(0);
  int32_t scale = lt && lt->kind == K::kDecimal ? lt->scale : e.scale.value_or(0);
  switch (*e.type) {
    case Type::kBoolean:
      return Mapped{T::Boolean(), LeafConversion::kBool};
    case Type::kInt32: {
      if (is_decimal) {
        FLOE_ASSIGN_OR_RETURN(auto t, DecimalType(e, precision, scale));
        return Mapped{t, LeafConversion::kDecimalInt32};
      }
      if ((lt && lt->kind == K::kDate) || is_ct(ConvertedType::kDate)) {
        return Mapped{T::Date(), LeafConversion::kInt32};
      }
      if ((lt && lt->kind == K::kTime) || is_ct(ConvertedType::kTimeMillis)) {
        return Mapped{T::Time(), LeafConversion::kTimeMillis};
      }
      if ((lt && lt->kind == K::kInteger && !lt->is_signed && lt->bit_width == 32) ||
          is_ct(ConvertedType::kUint32)) {
        return Mapped{T::Long(), LeafConversion::kUint32ToInt64};
      }
      return Mapped{T::Int(), LeafConversion::kInt32};
    }
    case Type::kInt64: {
      if (is_decimal) {
        FLOE_ASSIGN_OR_RETURN(auto t, DecimalType(e, precision, scale));
        return Mapped{t, LeafConversion::kDecimalInt64};
      }
      if (lt && lt->kind == K::kTimestamp) {
        auto conv = lt->unit == TimeUnit::kMillis  ? LeafConversion::kMillisToMicros
                    : lt->unit == TimeUnit::kNanos ? LeafConversion::kNanosToMicros
                                                   : LeafConversion::kInt64;
        return Mapped{lt->is_adjusted_to_utc ? T::TimestampTz() : T::Timestamp(), conv};
      }
      if (is_ct(ConvertedType::kTimestampMillis)) {
        return Mapped{T::TimestampTz(), LeafConversion::kMillisToMicros};
      }
      if (is_ct(ConvertedType::kTimestampMicros)) {
        return Mapped{T::TimestampTz(), LeafConversion::kInt64};
      }
      if (lt && lt->kind == K::kTime) {
        return Mapped{T::Time(), lt->unit == TimeUnit::kNanos ? LeafConversion::kNanosToMicros
                                                              : LeafConversion::kInt64};
      }
      if (is_ct(ConvertedType::kTimeMicros)) return Mapped{T::Time(), LeafConversion::kInt64};
      return Mapped{T::Long(), LeafConversion::kInt64};
    }
    case Type::kInt96:
      return Mapped{T::Timestamp(), LeafConversion::kInt96Timestamp};
    case Type::kFloat:
      return Mapped{T::Float(), LeafConversion::kFloat};
    case Type::kDouble:
      return Mapped{T::Double(), LeafConversion::kDouble};
    case Type::kByteArray: {
      if (is_decimal) {
        FLOE_ASSIGN_OR_RETURN(auto t, DecimalType(e, precision, scale));
        return Mapped{t, LeafConversion::kDecimalBytes};
      }
      bool is_string =
          (lt && (lt->kind == K::kString || lt->kind == K::kEnum || lt->kind == K::kJson)) ||
          is_ct(ConvertedType::kUtf8) || is_ct(ConvertedType::kEnum) || is_ct(ConvertedType::kJson);
      return Mapped{is_string ? T::String() : T::Binary(), LeafConversion::kBytes};
    }
    case Type::kFixedLenByteArray: {
      int32_t len = e.type_length.value_or(0);
      if (len <= 0) {
        return Corruption("parquet column '{}': FIXED_LEN_BYTE_ARRAY without a positive length",
                          e.name);
      }
      if (is_decimal) {
        FLOE_ASSIGN_OR_RETURN(auto t, DecimalType(e, precision, scale));
        return Mapped{t, LeafConversion::kDecimalBytes};
      }
      if (lt && lt->kind == K::kUuid && len == 16) return Mapped{T::Uuid(), LeafConversion::kBytes};
      if (lt && lt->kind == K::kFloat16 && len == 2) {
        return Mapped{T::Float(), LeafConversion::kFloat16};
      }
      FLOE_ASSIGN_OR_RETURN(auto t, T::Fixed(len));
      return Mapped{t, LeafConversion::kBytes};
    }
  }
  return Corruption("parquet column '{}': unknown physical type {}", e.name,
                    static_cast<int>(*e.type));
}

bool IsList(const SchemaElement& e) {
  return (e.logical_type && e.logical_type->kind == LogicalType::Kind::kList) ||
         e.converted_type == ConvertedType::kList;
}
bool IsMap(const SchemaElement& e) {
  return (e.logical_type && e.logical_type->kind == LogicalType::Kind::kMap) ||
         e.converted_type == ConvertedType::kMap || e.converted_type == ConvertedType::kMapKeyValue;
}

int32_t IdOf(const SchemaElement& e) { return e.field_id.value_or(-1); }

Status Convert(const PNode& p, bool as_element, std::vector<ReaderLeaf>* leaves, SchemaNode* out);

/// The node for a value that is present whenever the repeated node `p` has
/// an entry: `p` itself as a required value.
Status ConvertRepeatedAsElement(const PNode& p, std::vector<ReaderLeaf>* leaves, SchemaNode* out) {
  return Convert(p, /*as_element=*/true, leaves, out);
}

Status ConvertList(const PNode& p, std::vector<ReaderLeaf>* leaves, SchemaNode* out) {
  const SchemaElement& e = *p.element;
  if (p.children.size() != 1 || p.children[0].repetition() != FieldRepetitionType::kRepeated) {
    return Corruption("parquet list '{}' must have exactly one repeated child", e.name);
  }
  const PNode& r = p.children[0];
  out->kind = SchemaNode::Kind::kList;
  out->repeated_def = r.def;
  out->repeated_rep = r.rep;
  out->children.resize(1);
  const std::string& rname = r.element->name;
  bool two_level =
      !r.is_group() || r.children.size() != 1 || rname == "array" || rname == e.name + "_tuple";
  if (two_level) {
    FLOE_RETURN_IF_ERROR(ConvertRepeatedAsElement(r, leaves, &out->children[0]));
  } else {
    FLOE_RETURN_IF_ERROR(Convert(r.children[0], false, leaves, &out->children[0]));
  }
  out->children[0].name = "element";
  return Ok();
}

Status ConvertMap(const PNode& p, std::vector<ReaderLeaf>* leaves, SchemaNode* out) {
  const SchemaElement& e = *p.element;
  if (p.children.size() != 1 || p.children[0].repetition() != FieldRepetitionType::kRepeated ||
      !p.children[0].is_group() || p.children[0].children.size() != 2) {
    return Corruption("parquet map '{}' must have one repeated group of key and value", e.name);
  }
  const PNode& kv = p.children[0];
  out->kind = SchemaNode::Kind::kMap;
  out->repeated_def = kv.def;
  out->repeated_rep = kv.rep;
  out->children.resize(2);
  FLOE_RETURN_IF_ERROR(Convert(kv.children[0], false, leaves, &out->children[0]));
  FLOE_RETURN_IF_ERROR(Convert(kv.children[1], false, leaves, &out->children[1]));
  out->children[0].name = "key";
  out->children[1].name = "value";
  return Ok();
}

Status Convert(const PNode& p, bool as_element, std::vector<ReaderLeaf>* leaves, SchemaNode* out) {
  const SchemaElement& e = *p.element;
  out->name = e.name;
  out->field_id = IdOf(e);
  auto rep = p.repetition();
  out->def_level = p.def;
  if (rep == FieldRepetitionType::kRepeated && !as_element) {
    // A bare repeated field: a required list of required elements.
    out->kind = SchemaNode::Kind::kList;
    out->optional = false;
    out->def_level = static_cast<int16_t>(p.def - 1);
    out->repeated_def = p.def;
    out->repeated_rep = p.rep;
    out->children.resize(1);
    FLOE_RETURN_IF_ERROR(ConvertRepeatedAsElement(p, leaves, &out->children[0]));
    out->children[0].name = "element";
    out->children[0].field_id = -1;
    return Ok();
  }
  out->optional = rep == FieldRepetitionType::kOptional && !as_element;
  if (!p.is_group()) {
    out->kind = SchemaNode::Kind::kPrimitive;
    out->leaf = p.leaf;
    out->leader = p.leaf;
    ReaderLeaf& leaf = (*leaves)[p.leaf];
    FLOE_ASSIGN_OR_RETURN(Mapped m, MapPrimitive(e));
    leaf.type = m.type;
    leaf.conversion = m.conversion;
    bool is_unsigned = (e.logical_type && e.logical_type->kind == LogicalType::Kind::kInteger &&
                        !e.logical_type->is_signed) ||
                       (e.converted_type && *e.converted_type >= ConvertedType::kUint8 &&
                        *e.converted_type <= ConvertedType::kUint64);
    switch (leaf.physical_type) {
      case Type::kBoolean:
      case Type::kInt32:
      case Type::kInt64:
      case Type::kFloat:
      case Type::kDouble:
        leaf.legacy_stats_ok = !is_unsigned;
        break;
      default:
        leaf.legacy_stats_ok = false;
    }
    out->type = m.type;
    return Ok();
  }
  if (IsList(e)) return ConvertList(p, leaves, out);
  if (IsMap(e)) return ConvertMap(p, leaves, out);
  out->kind = SchemaNode::Kind::kStruct;
  out->children.resize(p.children.size());
  for (size_t i = 0; i < p.children.size(); ++i) {
    FLOE_RETURN_IF_ERROR(Convert(p.children[i], false, leaves, &out->children[i]));
  }
  if (p.children.empty()) {
    return NotSupported("parquet group '{}' has no fields", e.name);
  }
  return Ok();
}

void CollectIds(const SchemaNode& n, std::vector<int32_t>* ids) {
  if (n.field_id >= 0) ids->push_back(n.field_id);
  for (const auto& c : n.children) CollectIds(c, ids);
}

void AssignNested(SchemaNode* n, int32_t* next);

void AssignFields(std::vector<SchemaNode>* fields, int32_t* next) {
  for (auto& f : *fields) {
    if (f.field_id < 0) f.field_id = (*next)++;
  }
  for (auto& f : *fields) AssignNested(&f, next);
}

void AssignNested(SchemaNode* n, int32_t* next) {
  if (n->kind == SchemaNode::Kind::kPrimitive) return;
  AssignFields(&n->children, next);
}

/// Fills `type` bottom-up, the leaders, and each leaf's field id.
void Finish(SchemaNode* n, std::vector<ReaderLeaf>* leaves) {
  using T = types::Type;
  if (n->kind == SchemaNode::Kind::kPrimitive) {
    (*leaves)[n->leaf].field_id = n->field_id;
    n->leaf_end = n->leaf + 1;
    return;
  }
  for (auto& c : n->children) Finish(&c, leaves);
  n->leader = n->children.empty() ? -1 : n->children[0].leader;
  n->leaf_end = n->children.empty() ? -1 : n->children.back().leaf_end;
  switch (n->kind) {
    case SchemaNode::Kind::kStruct: {
      std::vector<NestedField> fields;
      for (const auto& c : n->children) {
        fields.push_back(NestedField{c.field_id, c.name, !c.optional, c.type, ""});
      }
      n->type = T::Struct(std::move(fields));
      break;
    }
    case SchemaNode::Kind::kList: {
      const auto& el = n->children[0];
      n->type = T::List(el.field_id, !el.optional, el.type);
      break;
    }
    case SchemaNode::Kind::kMap: {
      const auto& k = n->children[0];
      const auto& v = n->children[1];
      n->type = T::Map(k.field_id, k.type, v.field_id, !v.optional, v.type);
      break;
    }
    default:
      break;
  }
}

types::Schema MakeSchema(const SchemaNode& root) {
  std::vector<NestedField> fields;
  for (const auto& c : root.children) {
    fields.push_back(NestedField{c.field_id, c.name, !c.optional, c.type, ""});
  }
  return types::Schema(std::move(fields));
}

}  // namespace

Result<FileSchema> BuildFileSchema(const FileMetaData& metadata) {
  if (metadata.schema.empty()) return Corruption("parquet footer has an empty schema");
  FileSchema fs;
  PNode root;
  size_t pos = 0;
  std::vector<std::string> path;
  FLOE_RETURN_IF_ERROR(BuildPTree(metadata.schema, &pos, &root, 0, &path, &fs.leaves));
  if (pos != metadata.schema.size()) {
    return Corruption("parquet schema has {} elements after the root's subtree",
                      metadata.schema.size() - pos);
  }
  if (!root.is_group()) return Corruption("parquet schema root is not a group");
  fs.root.kind = SchemaNode::Kind::kStruct;
  fs.root.name = root.element->name;
  fs.root.children.resize(root.children.size());
  for (size_t i = 0; i < root.children.size(); ++i) {
    FLOE_RETURN_IF_ERROR(Convert(root.children[i], false, &fs.leaves, &fs.root.children[i]));
  }
  std::vector<int32_t> ids;
  for (const auto& c : fs.root.children) CollectIds(c, &ids);
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) {
    return Corruption("parquet schema repeats field id {}",
                      *std::adjacent_find(ids.begin(), ids.end()));
  }
  int32_t next = ids.empty() ? 1 : ids.back() + 1;
  if (!ids.empty() && ids.back() == INT32_MAX) return Corruption("parquet field id too large");
  AssignFields(&fs.root.children, &next);
  for (auto& c : fs.root.children) Finish(&c, &fs.leaves);
  fs.root.leader = fs.root.children.empty() ? -1 : fs.root.children[0].leader;
  fs.root.leaf_end = fs.root.children.empty() ? -1 : fs.root.children.back().leaf_end;
  fs.schema = MakeSchema(fs.root);
  if (Status depth = types::CheckTypeDepth(fs.schema); !depth) {
    return NotSupported("parquet schema: {}", depth.error().message());
  }
  return fs;
}

namespace {

/// Copies the subtree of `n` into `out` keeping fields selected by `ids`
/// (or everything below a selected node). Returns false if nothing is kept.
bool Prune(const SchemaNode& n, const std::unordered_set<int32_t>& ids, bool selected,
           std::vector<int>* columns, SchemaNode* out) {
  selected = selected || ids.contains(n.field_id);
  if (n.kind == SchemaNode::Kind::kPrimitive) {
    if (!selected) return false;
    *out = n;
    out->leaf = static_cast<int>(columns->size());
    out->leader = out->leaf;
    out->leaf_end = out->leaf + 1;
    columns->push_back(n.leaf);
    return true;
  }
  if (n.kind != SchemaNode::Kind::kStruct && !selected) {
    // A list or map is selected as a whole or by its element/key/value ids:
    // selecting any part keeps the whole collection.
    std::vector<int32_t> inner;
    CollectIds(n, &inner);
    bool any = false;
    for (int32_t id : inner) any = any || ids.contains(id);
    if (!any) return false;
    selected = true;
  }
  out->kind = n.kind;
  out->name = n.name;
  out->field_id = n.field_id;
  out->optional = n.optional;
  out->def_level = n.def_level;
  out->repeated_def = n.repeated_def;
  out->repeated_rep = n.repeated_rep;
  out->children.clear();
  for (const auto& c : n.children) {
    SchemaNode pc;
    if (Prune(c, ids, selected, columns, &pc)) out->children.push_back(std::move(pc));
  }
  if (out->children.empty()) return false;
  out->leader = out->children[0].leader;
  out->leaf_end = out->children.back().leaf_end;
  // Rebuild the struct type with the kept fields.
  if (n.kind == SchemaNode::Kind::kStruct) {
    std::vector<NestedField> fields;
    for (const auto& c : out->children) {
      fields.push_back(NestedField{c.field_id, c.name, !c.optional, c.type, ""});
    }
    out->type = types::Type::Struct(std::move(fields));
  } else {
    out->type = n.type;
  }
  return true;
}

}  // namespace

Result<ProjectedSchema> ProjectSchema(const FileSchema& file,
                                      const std::vector<int32_t>& field_ids) {
  std::unordered_set<int32_t> ids(field_ids.begin(), field_ids.end());
  for (int32_t id : field_ids) {
    if (file.schema.FindField(id) == nullptr) {
      return InvalidArgument("field id {} is not in the parquet file's schema", id);
    }
  }
  ProjectedSchema p;
  p.root.kind = SchemaNode::Kind::kStruct;
  p.root.name = file.root.name;
  for (const auto& c : file.root.children) {
    SchemaNode pc;
    if (Prune(c, ids, field_ids.empty(), &p.columns, &pc)) p.root.children.push_back(std::move(pc));
  }
  p.root.leader = p.root.children.empty() ? -1 : p.root.children[0].leader;
  p.root.leaf_end = p.root.children.empty() ? -1 : p.root.children.back().leaf_end;
  p.schema = MakeSchema(p.root);
  return p;
}

}  // namespace floe::format::parquet
