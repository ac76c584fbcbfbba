#include "floe/iceberg/update/schema_update.h"

#include <algorithm>

namespace floe::iceberg {

using types::NestedField;
using types::Type;
using types::TypeId;
using types::TypePtr;

namespace {

constexpr const char* kPromotions =
    "allowed promotions: int -> long, float -> double, decimal(P,S) -> decimal(P',S) with P' > P";

bool IsAllowedPromotion(const Type& from, const Type& to) {
  if (from.Equals(to)) return true;
  if (from.id() == TypeId::kInt && to.id() == TypeId::kLong) return true;
  if (from.id() == TypeId::kFloat && to.id() == TypeId::kDouble) return true;
  if (from.id() == TypeId::kDecimal && to.id() == TypeId::kDecimal) {
    return from.scale() == to.scale() && to.precision() > from.precision();
  }
  return false;
}

/// A copy of `type` with every nested field id replaced by the next id.
TypePtr AssignIds(const TypePtr& type, int32_t* next) {
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<NestedField> fields = type->fields();
      for (auto& f : fields) f.id = ++*next;  // ids of one struct level first, as Java does
      for (auto& f : fields) f.type = AssignIds(f.type, next);
      return Type::Struct(std::move(fields));
    }
    case TypeId::kList: {
      int32_t id = ++*next;
      return Type::List(id, type->element().required, AssignIds(type->element().type, next));
    }
    case TypeId::kMap: {
      int32_t key_id = ++*next;
      int32_t value_id = ++*next;
      return Type::Map(key_id, AssignIds(type->key().type, next), value_id, type->value().required,
                       AssignIds(type->value().type, next));
    }
    default:
      return type;
  }
}

}  // namespace

UpdateSchema::UpdateSchema(const types::Schema& schema, int32_t last_column_id, Options options)
    : schema_(schema),
      last_column_id_(std::max(last_column_id, schema.highest_field_id())),
      options_(std::move(options)) {
  // Index the struct that holds each field: -1 for the top level, else the
  // id of the field whose struct (or list element / map value struct) it is in.
  std::vector<std::pair<int32_t, const std::vector<NestedField>*>> stack = {
      {-1, &schema_.fields()}};
  while (!stack.empty()) {
    auto [parent, fields] = stack.back();
    stack.pop_back();
    for (const auto& f : *fields) {
      parent_of_[f.id] = parent;
      if (f.type->is_nested()) stack.push_back({f.id, &f.type->fields()});
    }
  }
}

UpdateSchema UpdateSchema::ForTable(const TableMetadata& metadata) {
  Options options;
  options.format_version = metadata.format_version;
  for (const auto& spec : metadata.partition_specs) {
    for (const auto& f : spec.fields()) options.partition_source_ids.insert(f.source_id);
  }
  const types::Schema* schema = metadata.CurrentSchema();
  return UpdateSchema(schema ? *schema : types::Schema(), metadata.last_column_id,
                      std::move(options));
}

void UpdateSchema::Fail(Error error) {
  if (!error_) error_ = std::move(error);
}

const NestedField* UpdateSchema::Current(int32_t id) const {
  if (auto it = updates_.find(id); it != updates_.end()) return &it->second;
  return schema_.FindField(id);
}

int32_t UpdateSchema::ParentOf(int32_t id) const {
  if (auto it = parent_of_.find(id); it != parent_of_.end()) return it->second;
  if (auto it = added_parent_.find(id); it != added_parent_.end()) return it->second;
  return -1;
}

std::optional<int32_t> UpdateSchema::Resolve(std::string_view name, std::string_view op) {
  if (const NestedField* f = schema_.FindFieldByName(name)) {
    if (deletes_.contains(f->id)) {
      Fail(Error(ErrorCode::kInvalidArgument,
                 fmt::format("{} '{}': the column is being dropped", op, name)));
      return std::nullopt;
    }
    return f->id;
  }
  if (auto it = added_names_.find(std::string(name)); it != added_names_.end()) return it->second;
  Fail(Error(ErrorCode::kInvalidArgument, fmt::format("{} '{}': no such column", op, name)));
  return std::nullopt;
}

UpdateSchema& UpdateSchema::AddColumn(std::string name, TypePtr type, std::string doc) {
  if (name.find('.') != std::string::npos) {
    Fail(Error(ErrorCode::kInvalidArgument,
               fmt::format("add column '{}': a top-level name cannot contain '.'; give the "
                           "parent struct separately",
                           name)));
    return *this;
  }
  return AddColumn("", std::move(name), std::move(type), false, std::move(doc));
}

UpdateSchema& UpdateSchema::AddColumn(std::string_view parent, std::string name, TypePtr type,
                                      bool required, std::string doc) {
  std::string full = parent.empty() ? name : fmt::format("{}.{}", parent, name);
  if (name.empty() || !type) {
    Fail(Error(ErrorCode::kInvalidArgument,
               fmt::format("add column '{}': empty name or type", full)));
    return *this;
  }
  int32_t parent_id = -1;
  const std::vector<NestedField>* siblings = &schema_.fields();
  if (!parent.empty()) {
    auto id = Resolve(parent, "add column: parent");
    if (!id) return *this;
    const NestedField* p = schema_.FindField(*id);
    if (p == nullptr) {
      Fail(Error(
          ErrorCode::kInvalidArgument,
          fmt::format("add column '{}': cannot add into a column added in the same change", full)));
      return *this;
    }
    if (p->type->id() == TypeId::kList) p = &p->type->element();
    if (p->type->id() == TypeId::kMap) p = &p->type->value();
    if (p->type->id() != TypeId::kStruct) {
      Fail(Error(ErrorCode::kSchemaIncompatible,
                 fmt::format("add column '{}': parent '{}' is a {}, not a struct", full, parent,
                             p->type->ToString())));
      return *this;
    }
    parent_id = p->id;
    siblings = &p->type->fields();
  }
  for (const auto& s : *siblings) {
    if (s.name == name && !deletes_.contains(s.id)) {
      Fail(Error(ErrorCode::kSchemaIncompatible,
                 fmt::format("add column '{}': a column with that name exists", full)));
      return *this;
    }
  }
  if (added_names_.contains(full)) {
    Fail(Error(ErrorCode::kSchemaIncompatible,
               fmt::format("add column '{}': the column is added twice", full)));
    return *this;
  }
  if (required) {
    if (options_.format_version < 3) {
      Fail(Error(ErrorCode::kSchemaIncompatible,
                 fmt::format("add column '{}': a required column cannot be added to a v{} table "
                             "(existing rows have no value for it); add it as optional",
                             full, options_.format_version)));
    } else {
      Fail(Error(ErrorCode::kNotSupported,
                 fmt::format("add column '{}': a required column needs an initial-default in v3, "
                             "and adding a column with a default is not supported yet (floe's "
                             "writers do not fill write-default either); add it as optional",
                             full)));
    }
    return *this;
  }
  int32_t id = ++last_column_id_;
  NestedField field{id, std::move(name), false, AssignIds(type, &last_column_id_), std::move(doc)};
  added_names_[full] = id;
  added_parent_[id] = parent_id;
  adds_[parent_id].push_back(std::move(field));
  return *this;
}

UpdateSchema& UpdateSchema::DeleteColumn(std::string_view name) {
  auto id = Resolve(name, "drop column");
  if (!id) return *this;
  if (added_parent_.contains(*id)) {
    Fail(Error(ErrorCode::kInvalidArgument,
               fmt::format("drop column '{}': the column is added in the same change", name)));
    return *this;
  }
  const auto& identifiers = schema_.identifier_field_ids();
  if (std::find(identifiers.begin(), identifiers.end(), *id) != identifiers.end() &&
      !identifier_names_) {
    Fail(Error(ErrorCode::kSchemaIncompatible,
               fmt::format("drop column '{}': it is an identifier field; change the identifier "
                           "fields first",
                           name)));
    return *this;
  }
  // Dropping a struct drops the identifier fields inside it (Iceberg Java
  // refuses this too).
  const std::string dropped = schema_.FindColumnName(*id);
  for (int32_t identifier : identifiers) {
    const std::string nested = schema_.FindColumnName(identifier);
    if (!identifier_names_ && !dropped.empty() && nested.starts_with(dropped + ".")) {
      Fail(Error(ErrorCode::kSchemaIncompatible,
                 fmt::format("drop column '{}': it holds identifier field '{}'; change the "
                             "identifier fields first",
                             name, nested)));
      return *this;
    }
  }
  if (options_.partition_source_ids.contains(*id)) {
    Fail(Error(ErrorCode::kSchemaIncompatible,
               fmt::format("drop column '{}': a partition spec reads it; drop the partition "
                           "field first",
                           name)));
    return *this;
  }
  if (updates_.contains(*id)) {
    Fail(Error(ErrorCode::kInvalidArgument,
               fmt::format("drop column '{}': the column is also changed in this update", name)));
    return *this;
  }
  deletes_.insert(*id);
  return *this;
}

UpdateSchema& UpdateSchema::RenameColumn(std::string_view name, std::string new_name) {
  auto id = Resolve(name, "rename column");
  if (!id) return *this;
  if (new_name.empty()) {
    Fail(Error(ErrorCode::kInvalidArgument,
               fmt::format("rename column '{}': empty new name", name)));
    return *this;
  }
  if (added_parent_.contains(*id)) {
    Fail(Error(ErrorCode::kInvalidArgument,
               fmt::format("rename column '{}': the column is added in the same change", name)));
    return *this;
  }
  // The new name must be free in the same struct.
  int32_t parent = ParentOf(*id);
  const std::vector<NestedField>* siblings = &schema_.fields();
  if (parent != -1) siblings = &schema_.FindField(parent)->type->fields();
  for (const auto& s : *siblings) {
    const NestedField* cur = Current(s.id);
    if (s.id != *id && cur->name == new_name && !deletes_.contains(s.id)) {
      Fail(Error(ErrorCode::kSchemaIncompatible,
                 fmt::format("rename column '{}' to '{}': a column with that name exists", name,
                             new_name)));
      return *this;
    }
  }
  NestedField f = *Current(*id);
  f.name = std::move(new_name);
  updates_[*id] = std::move(f);
  return *this;
}

UpdateSchema& UpdateSchema::UpdateColumn(std::string_view name, TypePtr new_type) {
  auto id = Resolve(name, "change column type");
  if (!id) return *this;
  const NestedField* cur = Current(*id);
  if (cur == nullptr || !new_type) return *this;
  if (!cur->type->is_primitive() || !new_type->is_primitive()) {
    Fail(Error(ErrorCode::kSchemaIncompatible,
               fmt::format("change column '{}' from {} to {}: only primitive types can be "
                           "promoted; {}",
                           name, cur->type->ToString(), new_type->ToString(), kPromotions)));
    return *this;
  }
  if (!IsAllowedPromotion(*cur->type, *new_type)) {
    Fail(Error(ErrorCode::kSchemaIncompatible,
               fmt::format("change column '{}' from {} to {}: not a valid type promotion; {}", name,
                           cur->type->ToString(), new_type->ToString(), kPromotions)));
    return *this;
  }
  NestedField f = *cur;
  f.type = std::move(new_type);
  updates_[*id] = std::move(f);
  return *this;
}

UpdateSchema& UpdateSchema::UpdateColumnDoc(std::string_view name, std::string doc) {
  auto id = Resolve(name, "update column doc");
  if (!id) return *this;
  NestedField f = *Current(*id);
  f.doc = std::move(doc);
  updates_[*id] = std::move(f);
  return *this;
}

UpdateSchema& UpdateSchema::MakeColumnOptional(std::string_view name) {
  auto id = Resolve(name, "make column optional");
  if (!id) return *this;
  const auto& identifiers = schema_.identifier_field_ids();
  if (std::find(identifiers.begin(), identifiers.end(), *id) != identifiers.end() &&
      !identifier_names_) {
    Fail(Error(ErrorCode::kSchemaIncompatible,
               fmt::format("make column '{}' optional: identifier fields must be required", name)));
    return *this;
  }
  NestedField f = *Current(*id);
  f.required = false;
  updates_[*id] = std::move(f);
  return *this;
}

UpdateSchema& UpdateSchema::RequireColumn(std::string_view name) {
  auto id = Resolve(name, "make column required");
  if (!id) return *this;
  if (Current(*id)->required) return *this;
  Fail(Error(ErrorCode::kSchemaIncompatible,
             fmt::format("make column '{}' required: an optional column cannot become required "
                         "(existing rows may hold nulls)",
                         name)));
  return *this;
}

UpdateSchema& UpdateSchema::AddMove(std::string_view name, Move::Kind kind,
                                    std::string_view reference) {
  auto id = Resolve(name, "move column");
  if (!id) return *this;
  int32_t ref_id = 0;
  if (kind != Move::Kind::kFirst) {
    auto ref = Resolve(reference, "move column: reference");
    if (!ref) return *this;
    if (*ref == *id) {
      Fail(Error(ErrorCode::kInvalidArgument,
                 fmt::format("move column '{}': cannot move a column relative to itself", name)));
      return *this;
    }
    if (ParentOf(*ref) != ParentOf(*id)) {
      Fail(Error(ErrorCode::kSchemaIncompatible,
                 fmt::format("move column '{}' next to '{}': columns can only be reordered within "
                             "one struct",
                             name, reference)));
      return *this;
    }
    ref_id = *ref;
  }
  moves_[ParentOf(*id)].push_back({*id, kind, ref_id});
  return *this;
}

UpdateSchema& UpdateSchema::MoveFirst(std::string_view name) {
  return AddMove(name, Move::Kind::kFirst, "");
}
UpdateSchema& UpdateSchema::MoveBefore(std::string_view name, std::string_view before) {
  return AddMove(name, Move::Kind::kBefore, before);
}
UpdateSchema& UpdateSchema::MoveAfter(std::string_view name, std::string_view after) {
  return AddMove(name, Move::Kind::kAfter, after);
}

UpdateSchema& UpdateSchema::SetIdentifierFields(std::vector<std::string> names) {
  identifier_names_ = std::move(names);
  return *this;
}

TypePtr UpdateSchema::RebuildType(const TypePtr& type) const {
  switch (type->id()) {
    case TypeId::kList: {
      const NestedField& e = type->element();
      TypePtr element = e.type->id() == TypeId::kStruct
                            ? Type::Struct(Rebuild(e.id, e.type->fields()))
                            : RebuildType(e.type);
      return Type::List(e.id, e.required, std::move(element));
    }
    case TypeId::kMap: {
      const NestedField& v = type->value();
      TypePtr value = v.type->id() == TypeId::kStruct
                          ? Type::Struct(Rebuild(v.id, v.type->fields()))
                          : RebuildType(v.type);
      return Type::Map(type->key().id, type->key().type, v.id, v.required, std::move(value));
    }
    default:
      return type;
  }
}

std::vector<NestedField> UpdateSchema::Rebuild(int32_t parent_id,
                                               const std::vector<NestedField>& fields) const {
  std::vector<NestedField> out;
  for (const auto& f : fields) {
    if (deletes_.contains(f.id)) continue;
    NestedField nf = *Current(f.id);
    if (nf.type->id() == TypeId::kStruct) {
      nf.type = Type::Struct(Rebuild(nf.id, nf.type->fields()));
    } else {
      nf.type = RebuildType(nf.type);
    }
    out.push_back(std::move(nf));
  }
  if (auto it = adds_.find(parent_id); it != adds_.end()) {
    out.insert(out.end(), it->second.begin(), it->second.end());
  }
  if (auto it = moves_.find(parent_id); it != moves_.end()) {
    for (const Move& m : it->second) {
      auto pos = std::find_if(out.begin(), out.end(),
                              [&](const NestedField& f) { return f.id == m.field_id; });
      if (pos == out.end()) continue;
      NestedField moving = std::move(*pos);
      out.erase(pos);
      auto at = out.begin();
      if (m.kind != Move::Kind::kFirst) {
        at = std::find_if(out.begin(), out.end(),
                          [&](const NestedField& f) { return f.id == m.reference_id; });
        if (at != out.end() && m.kind == Move::Kind::kAfter) ++at;
      }
      out.insert(at, std::move(moving));
    }
  }
  return out;
}

floe::Result<UpdateSchema::Result> UpdateSchema::Apply() const {
  if (error_) return std::unexpected(*error_);
  std::vector<NestedField> fields = Rebuild(-1, schema_.fields());
  std::vector<int32_t> identifiers = schema_.identifier_field_ids();
  types::Schema candidate(fields, 0, {});
  if (identifier_names_) {
    identifiers.clear();
    for (const auto& name : *identifier_names_) {
      const NestedField* f = candidate.FindFieldByName(name);
      if (f == nullptr) {
        return InvalidArgument("set identifier fields: no such column '{}'", name);
      }
      if (f->type->id() == TypeId::kFloat || f->type->id() == TypeId::kDouble) {
        return SchemaIncompatible(
            "set identifier fields: '{}' is a {}; float and double columns cannot identify rows",
            name, f->type->ToString());
      }
      identifiers.push_back(f->id);
    }
  }
  types::Schema schema(std::move(fields), 0, std::move(identifiers));
  if (auto s = schema.Validate(); !s) {
    return SchemaIncompatible("the evolved schema is not valid: {}", s.error().message());
  }
  return Result{std::move(schema), last_column_id_};
}

}  // namespace floe::iceberg
