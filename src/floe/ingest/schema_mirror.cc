#include "floe/ingest/schema_mirror.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "floe/ingest/type_fit.h"

namespace floe::ingest {

using types::NestedField;
using types::Schema;

namespace {

const NestedField* FieldNamed(const Schema& schema, std::string_view name) {
  for (const auto& f : schema.fields()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> NamesOf(const Schema& schema, const std::vector<int32_t>& ids) {
  std::vector<std::string> names;
  for (int32_t id : ids) names.push_back(schema.FindColumnName(id));
  return names;
}

Error KeyColumnNotRequired(std::string_view table_name, std::string_view column) {
  return Error(ErrorCode::kSchemaIncompatible,
               fmt::format("table {}: the source's primary key now includes column '{}', which is "
                           "optional in Iceberg (it was nullable when the table was created, or "
                           "added later); Iceberg identifier fields must be required columns, and "
                           "an optional column cannot become required. Ways out: route the table "
                           "to a new sink table (it is created with the new key), or use "
                           "schema.change.behavior try_evolve or lenient and keep the old key",
                           table_name, column));
}

}  // namespace

Result<SchemaMirrorPlan> PlanSchemaMirror(std::string_view table_name, const Schema& table,
                                          const Schema& source, std::string_view renamed_from,
                                          std::string_view renamed_to) {
  std::vector<ColumnRename> renames;
  if (!renamed_from.empty())
    renames.push_back({std::string(renamed_from), std::string(renamed_to)});
  return PlanSchemaMirror(table_name, table, source, renames);
}

Result<SchemaMirrorPlan> PlanSchemaMirror(std::string_view table_name, const Schema& table,
                                          const Schema& source,
                                          const std::vector<ColumnRename>& renames) {
  using Kind = MirrorStep::Kind;
  SchemaMirrorPlan plan;
  const std::vector<std::string> key = NamesOf(source, source.identifier_field_ids());
  const std::set<std::string> key_set(key.begin(), key.end());

  // Each source column's table column (by name, or the renamed one), as the
  // name UpdateSchema resolves ("reference"): the old name of an existing
  // column, the new name of an added one.
  std::vector<std::string> reference(source.fields().size());
  std::set<int32_t> kept;
  for (size_t i = 0; i < source.fields().size(); ++i) {
    const NestedField& s = source.fields()[i];
    const NestedField* t = FieldNamed(table, s.name);
    for (const ColumnRename& rename : renames) {
      if (t != nullptr) break;
      if (s.name == rename.to && FieldNamed(source, rename.from) == nullptr) {
        t = FieldNamed(table, rename.from);
        if (t != nullptr) plan.steps.push_back({Kind::kRename, t->name, s.name, nullptr, {}});
      }
    }
    if (t == nullptr) {
      plan.steps.push_back({Kind::kAdd, s.name, "", s.type, {}});
      reference[i] = s.name;
      if (s.required && !key_set.contains(s.name)) {
        plan.notes.push_back(fmt::format(
            "column '{}' is NOT NULL in the source and optional in Iceberg (a required column "
            "cannot be added to a table)",
            s.name));
      }
      if (key_set.contains(s.name))
        return std::unexpected(KeyColumnNotRequired(table_name, s.name));
      continue;
    }
    kept.insert(t->id);
    reference[i] = t->name;
    switch (FitOf(*t->type, *s.type)) {
      case TypeFit::kSame:
        break;
      case TypeFit::kNarrower:
        plan.notes.push_back(
            fmt::format("column '{}' keeps type {} (the source's {} fits in it; "
                        "Iceberg cannot narrow a column)",
                        s.name, t->type->ToString(), s.type->ToString()));
        break;
      case TypeFit::kWider:
        plan.steps.push_back({Kind::kWiden, t->name, "", s.type, {}});
        break;
      case TypeFit::kIncompatible:
        return SchemaIncompatible(
            "table {}: column '{}' cannot change type from {} to {} in Iceberg (only int -> long, "
            "float -> double and a larger decimal precision are allowed); ways out: exclude the "
            "table, route it to a new sink table, or use schema.change.behavior try_evolve or "
            "lenient and keep the column as it is",
            table_name, s.name, t->type->ToString(), s.type->ToString());
    }
    if (key_set.contains(s.name)) {
      if (!t->required) return std::unexpected(KeyColumnNotRequired(table_name, s.name));
    } else if (t->required && !s.required) {
      plan.steps.push_back({Kind::kMakeOptional, t->name, "", nullptr, {}});
    } else if (!t->required && s.required) {
      plan.notes.push_back(fmt::format(
          "column '{}' is NOT NULL in the source and stays optional in Iceberg", s.name));
    }
  }
  const std::vector<std::string> table_key = NamesOf(table, table.identifier_field_ids());
  // Identifier fields before deletes: a dropped key column must have left the key.
  std::vector<std::string> new_key_names;  // by the names after the change
  for (const auto& k : key) new_key_names.push_back(k);
  std::vector<std::string> table_key_after;  // the table's key under new names
  for (const auto& k : table_key) {
    std::string name = k;
    for (const ColumnRename& rename : renames) {
      if (k == rename.from && FieldNamed(source, rename.from) == nullptr) name = rename.to;
    }
    table_key_after.push_back(name);
  }
  bool key_changes = new_key_names != table_key_after;
  for (const auto& f : table.fields()) {
    if (!kept.contains(f.id)) plan.steps.push_back({Kind::kDelete, f.name, "", nullptr, {}});
  }
  // Column order: the table's kept columns in their order, then the added
  // ones; moves only when that differs from the source's order.
  std::vector<std::string> order;
  for (const auto& f : table.fields()) {
    if (!kept.contains(f.id)) continue;
    for (size_t i = 0; i < source.fields().size(); ++i) {
      if (reference[i] == f.name) order.push_back(f.name);
    }
  }
  for (const auto& step : plan.steps) {
    if (step.kind == Kind::kAdd) order.push_back(step.name);
  }
  if (order != reference) {
    plan.steps.push_back({Kind::kMoveFirst, reference[0], "", nullptr, {}});
    for (size_t i = 1; i < reference.size(); ++i) {
      plan.steps.push_back({Kind::kMoveAfter, reference[i], reference[i - 1], nullptr, {}});
    }
  }
  // First: UpdateSchema refuses to drop (or make optional) an identifier
  // field unless the identifier fields were replaced before that step.
  if (key_changes) {
    plan.steps.insert(plan.steps.begin(), {Kind::kSetIdentifiers, "", "", nullptr, new_key_names});
  }
  return plan;
}

void SchemaMirrorPlan::ApplyTo(iceberg::UpdateSchema& u) const {
  using Kind = MirrorStep::Kind;
  for (const MirrorStep& s : steps) {
    switch (s.kind) {
      case Kind::kRename:
        u.RenameColumn(s.name, s.to);
        break;
      case Kind::kDelete:
        u.DeleteColumn(s.name);
        break;
      case Kind::kAdd:
        u.AddColumn(s.name, s.type);
        break;
      case Kind::kWiden:
        u.UpdateColumn(s.name, s.type);
        break;
      case Kind::kMakeOptional:
        u.MakeColumnOptional(s.name);
        break;
      case Kind::kMoveFirst:
        u.MoveFirst(s.name);
        break;
      case Kind::kMoveAfter:
        u.MoveAfter(s.name, s.to);
        break;
      case Kind::kSetIdentifiers:
        u.SetIdentifierFields(s.identifiers);
        break;
    }
  }
}

std::string SchemaMirrorPlan::Describe() const {
  using Kind = MirrorStep::Kind;
  std::vector<std::string> parts;
  bool moved = false;
  for (const MirrorStep& s : steps) {
    switch (s.kind) {
      case Kind::kRename:
        parts.push_back(fmt::format("rename {} to {}", s.name, s.to));
        break;
      case Kind::kDelete:
        parts.push_back(fmt::format("drop {}", s.name));
        break;
      case Kind::kAdd:
        parts.push_back(fmt::format("add {} {}", s.name, s.type->ToString()));
        break;
      case Kind::kWiden:
        parts.push_back(fmt::format("widen {} to {}", s.name, s.type->ToString()));
        break;
      case Kind::kMakeOptional:
        parts.push_back(fmt::format("make {} optional", s.name));
        break;
      case Kind::kMoveFirst:
      case Kind::kMoveAfter:
        if (!moved) parts.push_back("reorder columns");
        moved = true;
        break;
      case Kind::kSetIdentifiers:
        parts.push_back(fmt::format("identifier fields ({})", fmt::join(s.identifiers, ",")));
        break;
    }
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace floe::ingest
