#include "floe/iceberg/partition_spec.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace floe::iceberg {

using types::NestedField;
using types::Schema;
using types::Type;
using types::TypePtr;
using types::Value;

namespace {

// The source column of a partition field, nested only in structs.
Result<ResolvedColumn> FindSource(const Schema& schema, int32_t source_id,
                                  std::string_view field_name) {
  const NestedField* field = schema.FindField(source_id);
  if (field == nullptr) {
    return InvalidArgument("partition field '{}': source column id {} is not in the schema",
                           field_name, source_id);
  }
  std::string name = schema.FindColumnName(source_id);
  auto resolved = ResolveColumn(schema, name, /*case_sensitive=*/true);
  if (!resolved || resolved->field_id != source_id) {
    return InvalidArgument(
        "partition field '{}': source column '{}' (id {}) is inside a list or map", field_name,
        name, source_id);
  }
  return resolved;
}

}  // namespace

bool PartitionSpec::is_unpartitioned() const {
  return std::all_of(fields_.begin(), fields_.end(),
                     [](const PartitionField& f) { return f.transform.is_void(); });
}

int32_t PartitionSpec::last_assigned_field_id() const {
  int32_t last = kFirstPartitionFieldId - 1;
  for (const auto& f : fields_) last = std::max(last, f.field_id);
  return last;
}

Status PartitionSpec::Validate(const Schema& schema) const {
  std::set<int32_t> ids;
  std::set<std::string> names;
  std::set<std::pair<int32_t, std::string>> source_transforms;
  for (const auto& f : fields_) {
    if (f.name.empty()) {
      return InvalidArgument("partition field {} has an empty name", f.field_id);
    }
    if (!ids.insert(f.field_id).second) {
      return InvalidArgument("partition field id {} is used twice (field '{}')", f.field_id,
                             f.name);
    }
    if (!names.insert(f.name).second) {
      return InvalidArgument("partition field name '{}' is used twice", f.name);
    }
    if (f.transform.is_unknown()) continue;
    FLOE_ASSIGN_OR_RETURN(ResolvedColumn source, FindSource(schema, f.source_id, f.name));
    const TypePtr& type = source.field->type;
    if (!type->is_primitive() && !f.transform.is_void()) {
      return InvalidArgument("partition field '{}': source column '{}' is not a primitive ({})",
                             f.name, source.name, type->ToString());
    }
    if (!f.transform.CanTransform(*type)) {
      return InvalidArgument(
          "partition field '{}': transform {} cannot be applied to column '{}' of type {}", f.name,
          f.transform.ToString(), source.name, type->ToString());
    }
    if (!f.transform.is_void() &&
        !source_transforms.insert({f.source_id, f.transform.ToString()}).second) {
      return InvalidArgument("partition field '{}': column '{}' already has a {} partition", f.name,
                             source.name, f.transform.ToString());
    }
    // A partition name may shadow a column name only as that column's identity.
    if (const NestedField* same = schema.FindFieldByName(f.name)) {
      if (!(f.transform.is_identity() && same->id == f.source_id)) {
        return InvalidArgument(
            "partition field name '{}' conflicts with a schema column; only an identity "
            "partition of that column may use its name",
            f.name);
      }
    }
  }
  return Ok();
}

Result<TypePtr> PartitionSpec::PartitionType(const Schema& schema) const {
  std::vector<NestedField> out;
  out.reserve(fields_.size());
  for (const auto& f : fields_) {
    NestedField nf;
    nf.id = f.field_id;
    nf.name = f.name;
    nf.required = false;
    if (f.transform.is_unknown()) {
      nf.type = Type::String();
    } else {
      const NestedField* source = schema.FindField(f.source_id);
      if (source == nullptr) {
        return InvalidArgument("partition field '{}': source column id {} is not in the schema",
                               f.name, f.source_id);
      }
      FLOE_ASSIGN_OR_RETURN(nf.type, f.transform.ResultType(source->type));
    }
    out.push_back(std::move(nf));
  }
  return Type::Struct(std::move(out));
}

bool PartitionSpec::EquivalentTo(const PartitionSpec& other) const {
  if (fields_.size() != other.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const auto& a = fields_[i];
    const auto& b = other.fields_[i];
    if (a.source_id != b.source_id || a.name != b.name || !(a.transform == b.transform)) {
      return false;
    }
  }
  return true;
}

std::string UrlEncodePathPart(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '*' || c == '_') {
      out.push_back(static_cast<char>(c));
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

Result<std::string> PartitionSpec::PartitionPath(const Schema& schema,
                                                 std::span<const Value> partition) const {
  if (partition.size() != fields_.size()) {
    return InvalidArgument("partition tuple has {} values, spec {} has {} fields", partition.size(),
                           spec_id_, fields_.size());
  }
  std::string out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const auto& f = fields_[i];
    const NestedField* source = schema.FindField(f.source_id);
    if (source == nullptr) {
      return InvalidArgument("partition field '{}': source column id {} is not in the schema",
                             f.name, f.source_id);
    }
    if (i > 0) out.push_back('/');
    out += UrlEncodePathPart(f.name);
    out.push_back('=');
    out += UrlEncodePathPart(f.transform.ToHumanString(*source->type, partition[i]));
  }
  return out;
}

std::string PartitionSpec::ToString() const {
  std::vector<std::string> fields;
  for (const auto& f : fields_) {
    fields.push_back(
        fmt::format("{}: {}: {}({})", f.field_id, f.name, f.transform.ToString(), f.source_id));
  }
  return fmt::format("[{}]", fmt::join(fields, ", "));
}

Result<PartitionTransformer> PartitionTransformer::Make(const PartitionSpec& spec,
                                                        const Schema& schema) {
  FLOE_RETURN_IF_ERROR(spec.Validate(schema));
  PartitionTransformer out;
  for (const auto& f : spec.fields()) {
    if (f.transform.is_unknown()) {
      return NotSupported("partition field '{}' uses unknown transform '{}'; cannot write with it",
                          f.name, f.transform.ToString());
    }
    FLOE_ASSIGN_OR_RETURN(ResolvedColumn source, FindSource(schema, f.source_id, f.name));
    out.fields_.push_back({std::move(source.positions), source.field->type, f.transform});
  }
  return out;
}

Status PartitionTransformer::Apply(types::Row row, Value* out) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    const Field& f = fields_[i];
    Value v;
    std::span<const Value> level = row;
    for (size_t d = 0; d < f.positions.size(); ++d) {
      size_t p = static_cast<size_t>(f.positions[d]);
      if (p >= level.size()) {
        return InvalidArgument("row has {} values where the schema needs more than {}",
                               level.size(), p);
      }
      v = level[p];
      if (d + 1 < f.positions.size()) {
        if (v.is_null()) break;
        if (v.kind != Value::Kind::kStruct) {
          return InvalidArgument("expected a struct value at depth {}", d);
        }
        level = v.as_children();
      }
    }
    FLOE_ASSIGN_OR_RETURN(out[i], f.transform.Apply(*f.source_type, v));
  }
  return Ok();
}

Result<PartitionSpec> ParsePartitionSpecText(std::string_view text, const Schema& schema,
                                             int32_t spec_id, int32_t last_partition_id) {
  TermParser parser(text);
  std::vector<PartitionField> fields;
  if (parser.AtEnd()) return PartitionSpec(spec_id, {});
  int32_t next_id = last_partition_id;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(TransformTerm term, parser.ParseTerm());
    auto exact = ResolveColumn(schema, term.column, /*case_sensitive=*/true);
    Result<ResolvedColumn> column =
        exact ? std::move(exact) : ResolveColumn(schema, term.column, false);
    if (!column) {
      return InvalidArgument("partition spec at position {}: {}", term.position + 1,
                             column.error().message());
    }
    const TypePtr& type = column->field->type;
    if (!term.transform.CanTransform(*type)) {
      return InvalidArgument(
          "partition spec at position {}: transform {} cannot be applied to column '{}' of type {}",
          term.position + 1, term.transform.ToString(), column->name, type->ToString());
    }
    PartitionField field;
    field.source_id = column->field_id;
    field.field_id = ++next_id;
    field.name =
        term.alias.empty() ? DefaultPartitionFieldName(column->name, term.transform) : term.alias;
    field.transform = term.transform;
    fields.push_back(std::move(field));
    if (parser.AtEnd()) break;
    if (!parser.EatChar(',')) {
      return InvalidArgument("partition spec: expected ',' or end {}", parser.Where());
    }
  }
  PartitionSpec spec(spec_id, std::move(fields));
  FLOE_RETURN_IF_ERROR(spec.Validate(schema));
  return spec;
}

Result<EvolvedPartitionSpec> EvolvePartitionSpec(
    const Schema& schema, const std::vector<PartitionSpec>& existing_specs, int32_t default_spec_id,
    int32_t last_partition_id, const std::vector<UnassignedPartitionField>& fields,
    int format_version) {
  int32_t max_spec_id = -1;
  const PartitionSpec* current = nullptr;
  for (const auto& s : existing_specs) {
    max_spec_id = std::max(max_spec_id, s.spec_id());
    if (s.spec_id() == default_spec_id) current = &s;
  }
  EvolvedPartitionSpec out;
  out.last_partition_id = last_partition_id;
  std::vector<PartitionField> result;
  std::set<int32_t> used_ids;

  auto same = [](const PartitionField& f, const UnassignedPartitionField& u) {
    return f.source_id == u.source_id && f.transform == u.transform;
  };

  if (format_version <= 1 && current != nullptr) {
    std::vector<bool> taken(fields.size(), false);
    for (const auto& old : current->fields()) {
      bool kept = false;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (!taken[i] && same(old, fields[i])) {
          taken[i] = true;
          kept = true;
          result.push_back({old.source_id, old.field_id, fields[i].name, old.transform});
          break;
        }
      }
      if (!kept) {
        std::string name =
            old.transform.is_void() ? old.name : fmt::format("{}_{}", old.name, old.field_id);
        result.push_back({old.source_id, old.field_id, name, Transform::Void()});
      }
      used_ids.insert(old.field_id);
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      if (taken[i]) continue;
      result.push_back(
          {fields[i].source_id, ++out.last_partition_id, fields[i].name, fields[i].transform});
    }
  } else {
    for (const auto& u : fields) {
      int32_t id = 0;
      // Reuse the id of an equal field of the current spec first, then of any spec.
      auto find_in = [&](const PartitionSpec& s) {
        for (const auto& f : s.fields()) {
          if (same(f, u) && !used_ids.count(f.field_id)) return f.field_id;
        }
        return 0;
      };
      if (current != nullptr) id = find_in(*current);
      for (size_t i = 0; id == 0 && i < existing_specs.size(); ++i) id = find_in(existing_specs[i]);
      if (id == 0) id = ++out.last_partition_id;
      used_ids.insert(id);
      result.push_back({u.source_id, id, u.name, u.transform});
    }
  }

  PartitionSpec candidate(max_spec_id + 1, std::move(result));
  FLOE_RETURN_IF_ERROR_CTX(candidate.Validate(schema), "evolving the partition spec");
  for (const auto& s : existing_specs) {
    if (s.EquivalentTo(candidate)) {
      out.spec = s;
      out.is_existing = true;
      out.last_partition_id = last_partition_id;
      return out;
    }
  }
  out.last_partition_id = std::max(out.last_partition_id, candidate.last_assigned_field_id());
  out.spec = std::move(candidate);
  return out;
}

}  // namespace floe::iceberg
