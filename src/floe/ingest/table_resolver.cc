#include "floe/ingest/table_resolver.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_properties.h"
#include "floe/iceberg/update/schema_update.h"
#include "floe/iceberg/update/table_metadata_builder.h"
#include "floe/iceberg/update/table_update.h"
#include "floe/iceberg/update/transaction.h"
#include "floe/iceberg/update/update_operations.h"
#include "floe/ingest/schema_mirror.h"
#include "floe/ingest/type_fit.h"

namespace floe::ingest {

using iceberg::LoadedTable;
using iceberg::TableIdentifier;
using types::NestedField;
using types::Schema;
using types::Type;
using types::TypeId;
using types::TypePtr;

namespace {

/// Locations tried for a new table: the default, then "-2" ... "-N".
constexpr int kMaxLocationSuffix = 64;

// ------------------------------------------------------------ type comparison

using Fit = TypeFit;

/// How an event column of type `event` fits a table column of type `table`,
/// and the conversion that maps a narrower event value.
Fit Compare(const Type& table, const Type& event, RowMapping::Conversion* conversion) {
  *conversion = RowMapping::Conversion::kNone;
  Fit fit = FitOf(table, event);
  if (fit == Fit::kNarrower) {
    if (table.id() == TypeId::kLong && event.id() == TypeId::kInt) {
      *conversion = RowMapping::Conversion::kIntToLong;
    } else if (table.id() == TypeId::kDouble && event.id() == TypeId::kFloat) {
      *conversion = RowMapping::Conversion::kFloatToDouble;
    }
  }
  return fit;
}

// ------------------------------------------------------------ fresh field ids

TypePtr ReassignIds(const TypePtr& type, int32_t* next);

std::vector<NestedField> AssignFreshIds(const std::vector<NestedField>& fields, int32_t* next) {
  std::vector<NestedField> out = fields;
  for (auto& f : out) f.id = ++*next;
  for (auto& f : out) f.type = ReassignIds(f.type, next);
  return out;
}

TypePtr ReassignIds(const TypePtr& type, int32_t* next) {
  switch (type->id()) {
    case TypeId::kStruct:
      return Type::Struct(AssignFreshIds(type->fields(), next));
    case TypeId::kList: {
      int32_t id = ++*next;
      return Type::List(id, type->element().required, ReassignIds(type->element().type, next));
    }
    case TypeId::kMap: {
      int32_t key_id = ++*next;
      int32_t value_id = ++*next;
      TypePtr key = ReassignIds(type->key().type, next);
      return Type::Map(key_id, key, value_id, type->value().required,
                       ReassignIds(type->value().type, next));
    }
    default:
      return type;
  }
}

std::string JoinNames(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ","));
}

std::vector<std::string> IdentifierNames(const Schema& schema) {
  std::vector<std::string> names;
  for (int32_t id : schema.identifier_field_ids()) names.push_back(schema.FindColumnName(id));
  return names;
}

std::string ColumnList(const Schema& schema) {
  std::vector<std::string> names;
  for (const auto& f : schema.fields()) names.push_back(f.name);
  return JoinNames(names);
}

/// One change a row schema asks of a table.
struct Change {
  enum class Kind { kAdd, kWiden, kMakeOptional } kind;
  std::string name;
  TypePtr type;
};

/// The changes that make `table` accept rows of `row`, or kSchemaIncompatible.
Result<std::vector<Change>> DiffSchemas(const std::string& table_name, const Schema& table,
                                        const Schema& row) {
  std::vector<Change> changes;
  std::set<int32_t> identifiers(table.identifier_field_ids().begin(),
                                table.identifier_field_ids().end());
  std::set<std::string_view> seen;
  for (const NestedField& e : row.fields()) {
    seen.insert(e.name);
    const NestedField* t = nullptr;
    for (const auto& f : table.fields()) {
      if (f.name == e.name) {
        t = &f;
        break;
      }
    }
    if (t == nullptr) {
      changes.push_back({Change::Kind::kAdd, e.name, e.type});
      continue;
    }
    RowMapping::Conversion conversion;
    switch (Compare(*t->type, *e.type, &conversion)) {
      case Fit::kSame:
      case Fit::kNarrower:
        break;
      case Fit::kWider:
        changes.push_back({Change::Kind::kWiden, e.name, e.type});
        break;
      case Fit::kIncompatible:
        return SchemaIncompatible(
            "table {}: column '{}' cannot change type from {} to {} (only int->long, "
            "float->double and a larger decimal precision are allowed)",
            table_name, e.name, t->type->ToString(), e.type->ToString());
    }
    if (t->required && !e.required && !identifiers.contains(t->id)) {
      changes.push_back({Change::Kind::kMakeOptional, t->name, nullptr});
    }
  }
  for (const auto& f : table.fields()) {
    if (f.required && !seen.contains(f.name) && !identifiers.contains(f.id)) {
      changes.push_back({Change::Kind::kMakeOptional, f.name, nullptr});
    }
  }
  return changes;
}

}  // namespace

// ------------------------------------------------------------ options, routes

Status ValidateTableResolverOptions(const TableResolverOptions& options) {
  int destinations = (options.table.has_value() ? 1 : 0) + (options.route.empty() ? 0 : 1) +
                     (options.route_function ? 1 : 0);
  if (destinations != 1) {
    return InvalidArgument("give exactly one of --table NS.T and --route TEMPLATE");
  }
  if (!options.route.empty()) {
    // Only {db} and {table} placeholders; a sample rendering must be valid.
    std::string_view r = options.route;
    for (size_t i = 0; i < r.size(); ++i) {
      if (r[i] == '{') {
        size_t close = r.find('}', i);
        if (close == std::string_view::npos) {
          return InvalidArgument("--route '{}': unclosed '{{' at position {}", r, i);
        }
        std::string_view name = r.substr(i + 1, close - i - 1);
        if (name != "db" && name != "table") {
          return InvalidArgument(
              "--route '{}': unknown placeholder '{{{}}}' (use {{db}} and "
              "{{table}})",
              r, name);
        }
        i = close;
      }
    }
    FLOE_RETURN_IF_ERROR_CTX(RenderRoute(options.route, "db", "table"), "--route '{}'",
                             options.route);
  }
  if (options.upsert.value_or(false) && options.overwrite) {
    return InvalidArgument("upsert and overwrite cannot be combined");
  }
  return Ok();
}

Result<TableIdentifier> RenderRoute(std::string_view route, std::string_view db,
                                    std::string_view table) {
  std::string out;
  for (size_t i = 0; i < route.size(); ++i) {
    if (route.substr(i, 4) == "{db}") {
      out += db;
      i += 3;
    } else if (route.substr(i, 7) == "{table}") {
      out += table;
      i += 6;
    } else {
      out += route[i];
    }
  }
  auto id = TableIdentifier::Parse(out);
  if (!id) {
    return InvalidArgument("route '{}' gives '{}' for db '{}' table '{}': {}", route, out, db,
                           table, id.error().message());
  }
  // A name that the file system cannot hold would fail every commit of the
  // table (and stop the run at the same event forever): the event's fault.
  auto too_long = [](std::string_view name) { return name.size() > kMaxRoutedNameBytes; };
  if (too_long(id->name) || std::any_of(id->ns.begin(), id->ns.end(), too_long)) {
    return InvalidArgument(
        "route '{}' gives a table name with a part longer than {} bytes for db '{:.64}' table "
        "'{:.64}'",
        route, kMaxRoutedNameBytes, db, table);
  }
  return id;
}

// ------------------------------------------------------------ RowMapping

std::string_view RowMapping::Map(types::Row in, std::span<types::Value> out,
                                 bool equality_only) const {
  const size_t n = columns_.size();
  for (size_t i = 0; i < n; ++i) {
    const Column& c = columns_[i];
    types::Value v;
    if (c.source >= 0 && static_cast<size_t>(c.source) < in.size()) {
      v = in[static_cast<size_t>(c.source)];
      if (!v.is_null()) {
        if (c.conversion == Conversion::kIntToLong && v.kind == types::Value::Kind::kInt32) {
          v = types::Value::Int64(v.i32);
        } else if (c.conversion == Conversion::kFloatToDouble &&
                   v.kind == types::Value::Kind::kFloat) {
          v = types::Value::Double(v.f32);
        }
      }
    }
    out[i] = v;
  }
  return Missing(out, equality_only);
}

std::string_view RowMapping::Missing(types::Row row, bool equality_only) const {
  for (int p : equality_only ? equality_ : required_) {
    if (row[static_cast<size_t>(p)].is_null()) {
      return table_schema_->fields()[static_cast<size_t>(p)].name;
    }
  }
  return {};
}

// ------------------------------------------------------------ TableResolver

struct TableResolver::TableState {
  TableIdentifier id;
  std::string name;
  LoadedTable loaded;
  sink::TableTargetPtr target;
  /// Mappings for the current target, by event row schema (nullptr key: rows
  /// decoded with the table schema).
  std::unordered_map<const Schema*, std::shared_ptr<RowMapping>> mappings;
  const Schema* last_row_schema = nullptr;
  const RowMapping* last_mapping = nullptr;
};

TableResolver::TableResolver(TableResolverOptions options,
                             std::shared_ptr<iceberg::Catalog> catalog, IngestStats* stats)
    : options_(std::move(options)), catalog_(std::move(catalog)), stats_(stats) {}

TableResolver::~TableResolver() = default;

const sink::TableTargetPtr& TableResolver::TargetOf(const TableState* state) {
  return state->target;
}

const iceberg::TableMetadata& TableResolver::MetadataOf(const TableState* state) {
  return state->loaded.metadata;
}

const Schema& TableResolver::SchemaOf(const TableState* state) {
  return *state->target->metadata->CurrentSchema();
}

std::vector<std::string> TableResolver::TableNames() const {
  std::vector<std::string> names;
  for (const auto& [name, state] : tables_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

Result<sink::TableTargetPtr> TableResolver::MakeTarget(const LoadedTable& loaded) const {
  auto target = std::make_shared<sink::TableTarget>();
  target->id = loaded.id;
  target->key = loaded.id.ToString();
  target->metadata = std::make_shared<const iceberg::TableMetadata>(loaded.metadata);
  const Schema* schema = loaded.metadata.CurrentSchema();
  if (schema == nullptr) return Corruption("table {}: no current schema", target->key);
  target->equality_field_ids = schema->identifier_field_ids();
  target->upsert = options_.upsert.has_value()
                       ? *options_.upsert
                       : loaded.metadata.Property(iceberg::table_properties::kWriteUpsertEnabled,
                                                  "false") == "true";
  if (target->upsert) {
    if (options_.overwrite) {
      return InvalidArgument(
          "table {}: upsert (table property {}) cannot be combined with "
          "overwrite",
          target->key, iceberg::table_properties::kWriteUpsertEnabled);
    }
    if (target->equality_field_ids.empty()) {
      return InvalidArgument(
          "table {}: upsert needs identifier fields (a primary key); give --primary-key or set "
          "the table's identifier fields",
          target->key);
    }
    if (const auto* spec = loaded.metadata.DefaultSpec()) {
      for (const auto& field : spec->fields()) {
        if (std::find(target->equality_field_ids.begin(), target->equality_field_ids.end(),
                      field.source_id) == target->equality_field_ids.end()) {
          return InvalidArgument(
              "table {}: upsert needs every partition source column among the identifier "
              "fields; '{}' is not (identifier fields: {})",
              target->key, schema->FindColumnName(field.source_id),
              JoinNames(IdentifierNames(*schema)));
        }
      }
    }
  }
  return sink::TableTargetPtr(std::move(target));
}

Status TableResolver::EnsureNamespace(const iceberg::Namespace& ns) {
  for (size_t n = 1; n <= ns.size(); ++n) {
    iceberg::Namespace prefix(ns.begin(), ns.begin() + static_cast<ptrdiff_t>(n));
    auto s = catalog_->CreateNamespace(prefix);
    if (!s && s.error().code() != ErrorCode::kAlreadyExists) {
      return std::unexpected(std::move(s).error().WithContext(
          fmt::format("creating namespace {}", iceberg::NamespaceToString(prefix))));
    }
  }
  return Ok();
}

Status TableResolver::EnsurePrimaryKey(LoadedTable* loaded, bool* event_error) {
  if (primary_key_.empty()) return Ok();
  const Schema& schema = *loaded->metadata.CurrentSchema();
  std::vector<std::string> have = IdentifierNames(schema);
  std::vector<std::string> want = primary_key_;
  std::sort(have.begin(), have.end());
  std::sort(want.begin(), want.end());
  if (have == want) return Ok();
  std::string name = loaded->id.ToString();
  // A table that has identifier fields keeps them: --primary-key is for
  // tables created by ingest and for tables without any.
  if (!have.empty()) return Ok();
  iceberg::Table table(catalog_.get(), *loaded);
  auto op = table.NewUpdateSchema();
  std::vector<std::string> columns = primary_key_;
  op->Change([columns](iceberg::UpdateSchema& u) { u.SetIdentifierFields(columns); });
  if (auto s = op->Commit(); !s) {
    *event_error = false;
    return std::unexpected(std::move(s).error().WithContext(
        fmt::format("table {}: setting identifier fields from the primary key {}", name,
                    JoinNames(primary_key_))));
  }
  *loaded = table.loaded();
  return Ok();
}

Result<LoadedTable> TableResolver::LoadOrCreate(const TableIdentifier& id,
                                                const std::shared_ptr<const Schema>& row_schema,
                                                bool* event_error) {
  std::string name = id.ToString();
  auto loaded = catalog_->LoadTable(id);
  if (loaded) {
    FLOE_RETURN_IF_ERROR(EnsurePrimaryKey(&*loaded, event_error));
    return loaded;
  }
  if (loaded.error().code() != ErrorCode::kNotFound) {
    return std::unexpected(
        std::move(loaded).error().WithContext(fmt::format("loading table {}", name)));
  }
  const Schema* source = options_.schema ? options_.schema.get() : row_schema.get();
  if (source == nullptr) {
    *event_error = true;
    return NotFound(
        "table {} does not exist and cannot be created: the event has no schema block and no "
        "--schema was given",
        name);
  }

  // The new table's schema: fresh ids, primary key columns required.
  int32_t next_id = 0;
  std::vector<NestedField> fields = AssignFreshIds(source->fields(), &next_id);
  std::vector<int32_t> identifier_ids;
  for (const auto& column : primary_key_) {
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const NestedField& f) { return f.name == column; });
    if (it == fields.end()) {
      *event_error = !options_.schema;  // a fixed --schema makes it a configuration error
      return InvalidArgument("primary key column '{}' is not a column of table {} (columns: {})",
                             column, name, ColumnList(*source));
    }
    it->required = true;
    identifier_ids.push_back(it->id);
  }
  Schema schema(std::move(fields), 0, identifier_ids);
  if (auto s = schema.Validate(); !s) {
    *event_error = !options_.schema;
    return std::unexpected(
        std::move(s).error().WithContext(fmt::format("the schema of new table {}", name)));
  }

  auto create = [&](const std::string& location) -> Result<LoadedTable> {
    FLOE_ASSIGN_OR_RETURN(auto builder, iceberg::TableMetadataBuilder::ForNewTable());
    FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::AddSchema{schema, std::nullopt}));
    FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::SetCurrentSchema{-1}));
    const std::string* partition_by = &options_.partition_by;
    if (auto it = options_.partition_by_table.find(name); it != options_.partition_by_table.end()) {
      partition_by = &it->second;
    }
    if (!partition_by->empty()) {
      auto spec = iceberg::ParsePartitionSpecText(*partition_by, schema);
      if (!spec) {
        return std::unexpected(std::move(spec).error().WithContext(
            fmt::format("partition spec '{}' for table {}", *partition_by, name)));
      }
      FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::AddPartitionSpec{*spec, false}));
      FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::SetDefaultSpec{-1}));
    }
    if (!options_.table_properties.empty()) {
      FLOE_RETURN_IF_ERROR(
          builder.Apply(iceberg::update::SetProperties{options_.table_properties}));
    }
    FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::SetLocation{location}));
    FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata, builder.Build());
    return catalog_->CreateTable(id, std::move(metadata));
  };
  FLOE_RETURN_IF_ERROR(EnsureNamespace(id.ns));
  // The default location, or — when a renamed or dropped table still holds
  // it (a rename keeps its folder) — "<default>-2", "-3", ...
  const std::string default_location = catalog_->DefaultTableLocation(id);
  Result<LoadedTable> created = AlreadyExists("table {}: no free location", name);
  for (int n = 1; n <= kMaxLocationSuffix; ++n) {
    std::string location = n == 1 || default_location.empty()
                               ? default_location
                               : fmt::format("{}-{}", default_location, n);
    if (!location.empty()) {
      FLOE_ASSIGN_OR_RETURN(auto used, iceberg::LocationInUse(catalog_->file_io(), location));
      if (used) continue;
    }
    created = create(location);
    if (created || created.error().code() != ErrorCode::kAlreadyExists) break;
    auto again = catalog_->LoadTable(id);
    if (again) {  // created by someone else meanwhile: use theirs
      FLOE_RETURN_IF_ERROR(EnsurePrimaryKey(&*again, event_error));
      return again;
    }
    if (again.error().code() != ErrorCode::kNotFound || location.empty()) {
      return std::unexpected(
          std::move(again).error().WithContext(fmt::format("loading table {}", name)));
    }
    // The location belongs to another table of the catalog: the next one.
  }
  if (!created) {
    return std::unexpected(
        std::move(created).error().WithContext(fmt::format("creating table {}", name)));
  }
  if (stats_ != nullptr) stats_->tables_created.fetch_add(1);
  return created;
}

void TableResolver::NotePrimaryKey(std::string_view db, std::string_view table,
                                   std::vector<std::string> columns) {
  std::string key(db);
  key.push_back('\0');
  key.append(table);
  if (columns.empty()) {
    noted_keys_.erase(key);
  } else {
    noted_keys_[key] = NotedPrimaryKey{std::string(db), std::string(table), std::move(columns)};
  }
}

std::vector<NotedPrimaryKey> TableResolver::NotedPrimaryKeys() const {
  std::vector<NotedPrimaryKey> out;
  out.reserve(noted_keys_.size());
  for (const auto& [key, noted] : noted_keys_) out.push_back(noted);
  return out;
}

Result<TableResolver::TableState*> TableResolver::Resolve(
    std::string_view db, std::string_view table, const std::shared_ptr<const Schema>& row_schema,
    bool* event_error) {
  *event_error = false;
  key_buffer_.assign(db);
  key_buffer_.push_back('\0');
  key_buffer_.append(table);
  if (auto it = by_source_.find(key_buffer_); it != by_source_.end()) return it->second;

  auto routed = RouteOf(db, table);
  if (!routed) {
    *event_error = true;
    return std::unexpected(std::move(routed).error());
  }
  TableIdentifier id = std::move(*routed);
  std::string name = id.ToString();
  TableState* state = nullptr;
  if (auto it = tables_.find(name); it != tables_.end()) {
    state = it->second.get();
  } else {
    primary_key_ = options_.primary_key;
    if (primary_key_.empty()) {
      if (auto noted = noted_keys_.find(key_buffer_); noted != noted_keys_.end()) {
        primary_key_ = noted->second.columns;
      }
    }
    FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, LoadOrCreate(id, row_schema, event_error));
    FLOE_ASSIGN_OR_RETURN(sink::TableTargetPtr target, MakeTarget(loaded));
    auto owned = std::make_unique<TableState>();
    owned->id = id;
    owned->name = name;
    owned->loaded = std::move(loaded);
    owned->target = std::move(target);
    state = owned.get();
    tables_.emplace(name, std::move(owned));
  }
  by_source_.emplace(key_buffer_, state);
  return state;
}

Result<TableIdentifier> TableResolver::RouteOf(std::string_view db, std::string_view table) const {
  if (options_.table) return *options_.table;
  if (options_.route_function) return options_.route_function(db, table);
  return RenderRoute(options_.route, db, table);
}

void TableResolver::Forget(std::string_view db, std::string_view table) {
  std::string key(db);
  key.push_back('\0');
  key.append(table);
  auto it = by_source_.find(key);
  if (it == by_source_.end()) return;
  TableState* state = it->second;
  for (auto b = by_source_.begin(); b != by_source_.end();) {
    b = b->second == state ? by_source_.erase(b) : std::next(b);
  }
  tables_.erase(state->name);
}

Result<TableResolver::MirrorOutcome> TableResolver::MirrorSchema(
    TableState* state, const std::shared_ptr<const Schema>& row_schema,
    const std::vector<ColumnRename>& renames, bool* event_error,
    const std::map<std::string, std::string>& properties) {
  *event_error = false;
  for (int attempt = 0;; ++attempt) {
    auto plan = PlanSchemaMirror(state->name, *state->loaded.metadata.CurrentSchema(), *row_schema,
                                 renames);
    if (!plan) {
      *event_error = true;
      return std::unexpected(std::move(plan).error());
    }
    MirrorOutcome outcome{plan->Describe(), plan->notes};
    bool properties_differ = false;
    for (const auto& [key, value] : properties) {
      auto it = state->loaded.metadata.properties.find(key);
      if (it == state->loaded.metadata.properties.end() || it->second != value)
        properties_differ = true;
    }
    if (plan->empty() && !properties_differ) return outcome;
    iceberg::Table table(catalog_.get(), state->loaded);
    iceberg::Transaction transaction(&table);
    if (!plan->empty()) {
      transaction.UpdateSchema().Change(
          [steps = *plan](iceberg::UpdateSchema& u) { steps.ApplyTo(u); });
    }
    if (properties_differ) {
      auto& update = transaction.UpdateProperties();
      for (const auto& [key, value] : properties) update.Set(key, value);
    }
    auto committed = transaction.Commit();
    if (committed) {
      state->loaded = table.loaded();
      FLOE_ASSIGN_OR_RETURN(state->target, MakeTarget(state->loaded));
      state->mappings.clear();
      state->last_row_schema = nullptr;
      state->last_mapping = nullptr;
      if (stats_ != nullptr) stats_->schema_changes.fetch_add(1);
      return outcome;
    }
    auto reloaded = catalog_->LoadTable(state->id);
    if (!reloaded || attempt >= 2) {
      *event_error = committed.error().code() == ErrorCode::kSchemaIncompatible;
      return std::unexpected(std::move(committed).error().WithContext(
          fmt::format("mirroring the schema of table {} ({})", state->name, outcome.applied)));
    }
    state->loaded = std::move(*reloaded);
  }
}

Status TableResolver::Evolve(TableState* state, const Schema& row_schema, bool* event_error) {
  for (int attempt = 0;; ++attempt) {
    const Schema& current = *state->loaded.metadata.CurrentSchema();
    auto changes = DiffSchemas(state->name, current, row_schema);
    if (!changes) {
      *event_error = true;
      return std::unexpected(std::move(changes).error());
    }
    if (changes->empty()) return Ok();
    iceberg::Table table(catalog_.get(), state->loaded);
    auto op = table.NewUpdateSchema();
    std::vector<Change> recorded = *changes;
    op->Change([recorded](iceberg::UpdateSchema& u) {
      for (const Change& c : recorded) {
        switch (c.kind) {
          case Change::Kind::kAdd:
            u.AddColumn(c.name, c.type);
            break;
          case Change::Kind::kWiden:
            u.UpdateColumn(c.name, c.type);
            break;
          case Change::Kind::kMakeOptional:
            u.MakeColumnOptional(c.name);
            break;
        }
      }
    });
    auto committed = op->Commit();
    if (committed) {
      state->loaded = table.loaded();
      if (stats_ != nullptr) stats_->schema_changes.fetch_add(1);
      return Ok();
    }
    // The commit failed, or its outcome is unknown, or the table changed
    // under us: reload and look again (the change may be there already).
    auto reloaded = catalog_->LoadTable(state->id);
    if (!reloaded || attempt >= 2) {
      *event_error = committed.error().code() == ErrorCode::kSchemaIncompatible;
      return std::unexpected(std::move(committed).error().WithContext(
          fmt::format("evolving the schema of table {}", state->name)));
    }
    state->loaded = std::move(*reloaded);
  }
}

Status TableResolver::CheckFits(TableState* state, const Schema& row_schema, bool* event_error) {
  const Schema& table = *state->loaded.metadata.CurrentSchema();
  for (const NestedField& e : row_schema.fields()) {
    const NestedField* t = table.FindFieldByName(e.name);
    if (t == nullptr) continue;
    Fit fit = FitOf(*t->type, *e.type);
    if (fit == Fit::kWider || fit == Fit::kIncompatible) {
      *event_error = true;
      return SchemaIncompatible(
          "table {}: column '{}' is {} in the source and {} in the table, and schema changes "
          "are ignored (schema.change.behavior: ignore); the rows no longer fit",
          state->name, e.name, e.type->ToString(), t->type->ToString());
    }
  }
  return Ok();
}

Result<std::shared_ptr<RowMapping>> TableResolver::BuildMapping(
    TableState* state, const std::shared_ptr<const Schema>& row_schema) {
  const Schema& table = *state->target->metadata->CurrentSchema();
  auto mapping = std::make_shared<RowMapping>();
  mapping->target_ = state->target;
  mapping->table_schema_ = &table;
  mapping->row_schema_ = row_schema;
  const auto& columns = table.fields();
  mapping->columns_.resize(columns.size());
  std::set<int32_t> equality(state->target->equality_field_ids.begin(),
                             state->target->equality_field_ids.end());
  for (size_t i = 0; i < columns.size(); ++i) {
    const NestedField& column = columns[i];
    RowMapping::Column& c = mapping->columns_[i];
    if (column.required) mapping->required_.push_back(static_cast<int>(i));
    if (equality.contains(column.id)) mapping->equality_.push_back(static_cast<int>(i));
    if (!row_schema) {
      c.source = static_cast<int>(i);
      continue;
    }
    const auto& fields = row_schema->fields();
    for (size_t j = 0; j < fields.size(); ++j) {
      if (fields[j].name != column.name) continue;
      Fit fit = Compare(*column.type, *fields[j].type, &c.conversion);
      if (fit == Fit::kSame || fit == Fit::kNarrower) c.source = static_cast<int>(j);
      break;
    }
  }
  mapping->row_width_ = row_schema ? row_schema->fields().size() : columns.size();
  mapping->direct_ = mapping->row_width_ == columns.size();
  for (size_t i = 0; i < columns.size(); ++i) {
    const RowMapping::Column& c = mapping->columns_[i];
    if (c.source != static_cast<int>(i) || c.conversion != RowMapping::Conversion::kNone) {
      mapping->direct_ = false;
    }
  }
  return mapping;
}

Result<const RowMapping*> TableResolver::MappingFor(TableState* state,
                                                    const std::shared_ptr<const Schema>& row_schema,
                                                    bool* event_error) {
  *event_error = false;
  const Schema* key = row_schema.get();
  if (state->last_mapping != nullptr && state->last_row_schema == key) return state->last_mapping;
  if (auto it = state->mappings.find(key); it != state->mappings.end()) {
    state->last_row_schema = key;
    state->last_mapping = it->second.get();
    return state->last_mapping;
  }
  if (row_schema && !options_.evolve_schemas) {
    FLOE_RETURN_IF_ERROR(CheckFits(state, *row_schema, event_error));
  } else if (row_schema) {
    int64_t before = state->loaded.metadata.current_schema_id;
    std::string before_location = state->loaded.metadata_location;
    FLOE_RETURN_IF_ERROR(Evolve(state, *row_schema, event_error));
    if (state->loaded.metadata_location != before_location ||
        state->loaded.metadata.current_schema_id != before) {
      // A new table version: a new target; earlier mappings are for the old one.
      FLOE_ASSIGN_OR_RETURN(state->target, MakeTarget(state->loaded));
      state->mappings.clear();
    }
  }
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<RowMapping> mapping, BuildMapping(state, row_schema));
  // Keep the event schema alive while its pointer is a key.
  state->last_row_schema = key;
  state->last_mapping = mapping.get();
  state->mappings[key] = std::move(mapping);
  return state->last_mapping;
}

}  // namespace floe::ingest
