// `floe table ...`: catalogs, namespaces and Iceberg tables from the command
// line (in the spirit of the PyIceberg CLI). `floe table scan` lives in
// table_scan_command.cc. Errors print `error: <message>` and exit 1; a wrong
// command line (bad option values, names that are not valid UTF-8) exits 2
// before the catalog is opened (cli_values.h).

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/cli/catalog_options.h"
#include "floe/cli/cli_values.h"
#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/common/arena.h"
#include "floe/common/json_dump.h"
#include "floe/common/printable.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/data/data_writer.h"
#include "floe/iceberg/data/delete_files.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/iceberg/expression/literal.h"
#include "floe/iceberg/json/metadata_json.h"
#include "floe/iceberg/json/partition_spec_json.h"
#include "floe/iceberg/json/sort_order_json.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/update/expire_snapshots.h"
#include "floe/iceberg/update/fast_append.h"
#include "floe/iceberg/update/table_metadata_builder.h"
#include "floe/iceberg/update/update_operations.h"
#include "floe/types/row_json.h"
#include "floe/types/schema_json.h"
#include "floe/types/temporal.h"

namespace floe::cli {
namespace {

using iceberg::Table;
using iceberg::TableIdentifier;

void Print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

/// Runs a subcommand body through the runner (command_runner.h).
template <typename F>
std::function<void()> Run(int* exit_code, F body) {
  return [exit_code, body]() {
    CommandStatus s = body();
    *exit_code = s ? 0 : ReportCommandError(s.error());
  };
}

/// --older-than: a duration or a timestamp or date.
CLI::Validator OlderThanText() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (ParseDuration(value) || types::ParseTimestamp(value) || types::ParseDate(value)) {
          return "";
        }
        return fmt::format(
            "'{}' is not a duration (7d, 12h, 30m, 45s, 500ms) or a timestamp "
            "(2024-01-01T00:00:00)",
            PrintableMessage(value));
      },
      "DURATION|TIMESTAMP");
}

Result<Table> LoadTable(iceberg::Catalog& catalog, const std::string& name) {
  FLOE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(name));
  return Table::Load(catalog, id);
}

std::string FormatTime(int64_t ms) {
  std::string out;
  types::AppendTimestamp(ms * 1000, true, &out);
  return out;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string PartitionText(const std::vector<iceberg::Literal>& partition) {
  std::string out = "{";
  for (size_t i = 0; i < partition.size(); ++i) {
    if (i) out += ", ";
    out += partition[i].ToString();
  }
  return out + "}";
}

// ------------------------------------------------------------------ create

struct CreateArgs {
  std::string table;
  std::string schema_file;
  std::string partition_by;
  std::string sort_by;
  std::vector<std::string> properties;
  std::string location;
};

Result<std::pair<std::string, std::string>> SplitProperty(const std::string& kv) {
  size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) {
    return InvalidArgument("property '{}' is not key=value", kv);
  }
  return std::make_pair(kv.substr(0, eq), kv.substr(eq + 1));
}

Status CreateTable(iceberg::Catalog& catalog, const CreateArgs& args) {
  FLOE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(args.table));
  FLOE_ASSIGN_OR_RETURN(types::Schema schema, types::ReadSchemaFile(args.schema_file));
  FLOE_RETURN_IF_ERROR_CTX(schema.Validate(), "schema {}", args.schema_file);
  FLOE_ASSIGN_OR_RETURN(auto builder, iceberg::TableMetadataBuilder::ForNewTable());
  FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::AddSchema{schema, std::nullopt}));
  FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::SetCurrentSchema{-1}));
  if (!args.partition_by.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto spec, iceberg::ParsePartitionSpecText(args.partition_by, schema));
    FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::AddPartitionSpec{spec, false}));
    FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::SetDefaultSpec{-1}));
  }
  if (!args.sort_by.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto order, iceberg::ParseSortOrderText(args.sort_by, schema));
    FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::AddSortOrder{order}));
    FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::SetDefaultSortOrder{-1}));
  }
  std::map<std::string, std::string> props;
  for (const auto& kv : args.properties) {
    FLOE_ASSIGN_OR_RETURN(auto p, SplitProperty(kv));
    props[p.first] = p.second;
  }
  if (!props.empty()) FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::SetProperties{props}));
  FLOE_RETURN_IF_ERROR(builder.Apply(iceberg::update::SetLocation{
      args.location.empty() ? catalog.DefaultTableLocation(id) : args.location}));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata, builder.Build());
  FLOE_ASSIGN_OR_RETURN(auto loaded, catalog.CreateTable(id, std::move(metadata)));
  Print(fmt::format("created table {} at {}\n", id.ToString(), loaded.metadata.location));
  return Ok();
}

// ------------------------------------------------------------------ describe

Status Describe(iceberg::Catalog& catalog, const std::string& name, bool json) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, name));
  const auto& m = table.metadata();
  if (json) {
    Print(DumpJson(iceberg::TableMetadataToJson(m), 2) + "\n");
    return Ok();
  }
  std::string out;
  out += fmt::format("table            {}\n", table.name());
  out += fmt::format("metadata         {}\n", table.metadata_location());
  out += fmt::format("location         {}\n", m.location);
  out += fmt::format("uuid             {}\n", m.table_uuid);
  out += fmt::format("format version   {}\n", m.format_version);
  out += fmt::format("last updated     {}\n", FormatTime(m.last_updated_ms));
  if (const auto* s = m.CurrentSnapshot()) {
    out += fmt::format("current snapshot {} ({}, {})\n", s->snapshot_id, s->operation,
                       FormatTime(s->timestamp_ms));
  } else {
    out += "current snapshot none\n";
  }
  out += fmt::format("snapshots        {}\n", m.snapshots.size());
  if (const auto* schema = m.CurrentSchema()) {
    out += fmt::format("schema (id {}):\n", schema->schema_id());
    for (const auto& f : schema->fields()) {
      out += fmt::format("  {:>4}  {:<24} {:<9} {}\n", f.id, f.name,
                         f.required ? "required" : "optional", f.type->ToString());
    }
    if (!schema->identifier_field_ids().empty()) {
      out += "  identifier fields:";
      for (int32_t id : schema->identifier_field_ids()) out += " " + schema->FindColumnName(id);
      out += "\n";
    }
  }
  if (const auto* spec = m.DefaultSpec()) {
    out += fmt::format("partition spec   {}\n",
                       spec->is_unpartitioned() ? "unpartitioned" : spec->ToString());
  }
  if (const auto* order = m.SortOrderById(m.default_sort_order_id)) {
    out += fmt::format("sort order       {}\n",
                       order->fields().empty() ? "unsorted" : iceberg::SortOrderToJsonText(*order));
  }
  if (!m.properties.empty()) {
    out += "properties:\n";
    for (const auto& [k, v] : m.properties) out += fmt::format("  {} = {}\n", k, v);
  }
  Print(out);
  return Ok();
}

// ------------------------------------------------------------------ snapshots, files

Status Snapshots(iceberg::Catalog& catalog, const std::string& name, bool json) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, name));
  const auto& m = table.metadata();
  if (json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& s : m.snapshots) arr.push_back(iceberg::SnapshotToJson(s, m.format_version));
    Print(DumpJson(arr, 2) + "\n");
    return Ok();
  }
  std::string out =
      fmt::format("{:<20} {:<20} {:>5} {:<27} {:<9} {:>10} {:>10} {:>8}\n", "snapshot", "parent",
                  "seq", "timestamp", "operation", "+records", "records", "files");
  for (const auto& s : m.snapshots) {
    auto get = [&](std::string_view k) { return s.SummaryValue(k).value_or("-"); };
    out += fmt::format("{:<20} {:<20} {:>5} {:<27} {:<9} {:>10} {:>10} {:>8}{}\n", s.snapshot_id,
                       s.parent_snapshot_id ? std::to_string(*s.parent_snapshot_id) : "-",
                       s.sequence_number, FormatTime(s.timestamp_ms), s.operation,
                       get(iceberg::summary::kAddedRecords), get(iceberg::summary::kTotalRecords),
                       get(iceberg::summary::kTotalDataFiles),
                       m.current_snapshot_id == s.snapshot_id ? "  (current)" : "");
  }
  Print(out);
  return Ok();
}

Status Files(iceberg::Catalog& catalog, const std::string& name, std::optional<int64_t> snapshot,
             bool json) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, name));
  const auto& m = table.metadata();
  const iceberg::Snapshot* s = m.CurrentSnapshot();
  if (snapshot) {
    s = m.SnapshotById(*snapshot);
    if (s == nullptr) return NotFound("table {} has no snapshot {}", table.name(), *snapshot);
  }
  FLOE_ASSIGN_OR_RETURN(auto files, iceberg::ReadLiveFiles(table.io(), m, s));
  std::string out;
  for (const auto& f : files) {
    const auto& d = f.entry.data_file;
    if (json) {
      nlohmann::ordered_json j;
      j["content"] = iceberg::DataFileContentName(d.content);
      j["file_path"] = d.file_path;
      j["file_format"] = d.file_format;
      j["spec_id"] = f.spec_id;
      nlohmann::ordered_json part = nlohmann::ordered_json::array();
      for (const auto& l : d.partition) part.push_back(l.ToString());
      j["partition"] = part;
      j["record_count"] = d.record_count;
      j["file_size_in_bytes"] = d.file_size_in_bytes;
      if (f.entry.sequence_number) j["sequence_number"] = *f.entry.sequence_number;
      if (f.entry.file_sequence_number) j["file_sequence_number"] = *f.entry.file_sequence_number;
      if (f.entry.snapshot_id) j["snapshot_id"] = *f.entry.snapshot_id;
      if (d.referenced_data_file) j["referenced_data_file"] = *d.referenced_data_file;
      out += DumpJson(j) + "\n";
    } else {
      out += fmt::format("{:<16} {:>9} {:>10} seq {:<4} {} {}\n",
                         iceberg::DataFileContentName(d.content), d.record_count,
                         d.file_size_in_bytes, f.entry.sequence_number.value_or(0), d.file_path,
                         d.partition.empty() ? "" : PartitionText(d.partition));
    }
  }
  Print(out);
  return Ok();
}

// ------------------------------------------------------------------ append

/// Top-level positions of `table_schema`'s fields in rows of `file_schema`
/// (-1: absent), after checking that the file's columns fit the table.
Result<std::vector<int>> MapParquetColumns(const types::Schema& table_schema,
                                           const types::Schema& file_schema,
                                           const std::string& path) {
  std::vector<int> source(table_schema.fields().size(), -1);
  for (size_t j = 0; j < file_schema.fields().size(); ++j) {
    const auto& ff = file_schema.fields()[j];
    bool found = false;
    for (size_t i = 0; i < table_schema.fields().size(); ++i) {
      const auto& tf = table_schema.fields()[i];
      if (tf.id != ff.id) continue;
      found = true;
      if (!tf.type->Equals(*ff.type)) {
        return SchemaIncompatible(
            "{}: column {} (field id {}) is {} in the file but {} in the table", path, ff.name,
            ff.id, ff.type->ToString(), tf.type->ToString());
      }
      if (tf.required && !ff.required) {
        return SchemaIncompatible("{}: column {} is optional in the file but required in the table",
                                  path, ff.name);
      }
      source[i] = static_cast<int>(j);
    }
    if (!found) {
      return SchemaIncompatible("{}: column {} (field id {}) is not in the table schema", path,
                                ff.name, ff.id);
    }
  }
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] < 0 && table_schema.fields()[i].required) {
      return SchemaIncompatible("{}: required column {} is missing", path,
                                table_schema.fields()[i].name);
    }
  }
  return source;
}

/// A Parquet file added as it is (unpartitioned tables): its metrics from the footer.
Result<iceberg::DataFile> ParquetAsDataFile(io::FileIO& io, const std::string& path,
                                            const types::Schema& table_schema) {
  FLOE_ASSIGN_OR_RETURN(auto input, io.OpenInput(path));
  uint64_t size = input->size();
  FLOE_ASSIGN_OR_RETURN(auto reader, format::parquet::ParquetReader::Open(std::move(input)));
  FLOE_RETURN_IF_ERROR(MapParquetColumns(table_schema, reader->schema(), path));
  iceberg::DataFile f;
  f.file_path = path;
  f.record_count = reader->num_rows();
  f.file_size_in_bytes = static_cast<int64_t>(size);
  std::map<int32_t, std::pair<std::optional<iceberg::Literal>, std::optional<iceberg::Literal>>>
      bounds;
  bool bounds_ok = true;
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    FLOE_ASSIGN_OR_RETURN(auto stats, reader->ReadRowGroupStats(g));
    for (const auto& c : stats.columns) {
      f.value_counts[c.field_id] += c.num_values;
      if (c.null_count) {
        f.null_value_counts[c.field_id] += *c.null_count;
      }
      const types::NestedField* field = nullptr;
      for (const auto& tf : table_schema.fields()) {
        if (tf.id == c.field_id && tf.type->is_primitive()) field = &tf;
      }
      if (field == nullptr) continue;
      auto& [lo, hi] = bounds[c.field_id];
      if (!c.min || !c.max || c.min->is_null() || c.max->is_null()) {
        if (stats.num_rows > 0 && (!c.null_count || *c.null_count < stats.num_rows)) {
          bounds_ok = false;
        }
        continue;
      }
      auto mn = iceberg::Literal::FromValue(field->type, *c.min);
      auto mx = iceberg::Literal::FromValue(field->type, *c.max);
      if (!mn || !mx) continue;
      if (!lo || iceberg::CompareValues(*field->type, mn->value(), lo->value()) < 0) lo = *mn;
      if (!hi || iceberg::CompareValues(*field->type, mx->value(), hi->value()) > 0) hi = *mx;
    }
  }
  if (bounds_ok) {
    for (const auto& [id, b] : bounds) {
      if (!b.first || !b.second) continue;
      auto lo = iceberg::SerializeSingleValue(*b.first->type(), b.first->value());
      auto hi = iceberg::SerializeSingleValue(*b.second->type(), b.second->value());
      if (lo && hi) {
        f.lower_bounds[id] = *lo;
        f.upper_bounds[id] = *hi;
      }
    }
  }
  // Column chunk statistics count nulls per leaf; values including nulls.
  return f;
}

/// Writes the rows of a Parquet file through `writer` (partitioned tables).
Status CopyParquetRows(io::FileIO& io, const std::string& path, const types::Schema& schema,
                       iceberg::DataWriter& writer, int64_t* rows) {
  FLOE_ASSIGN_OR_RETURN(auto input, io.OpenInput(path));
  FLOE_ASSIGN_OR_RETURN(auto reader, format::parquet::ParquetReader::Open(std::move(input)));
  FLOE_ASSIGN_OR_RETURN(auto source, MapParquetColumns(schema, reader->schema(), path));
  const size_t width = reader->schema().fields().size();
  Arena arena;
  std::vector<types::Value> values;
  std::vector<types::Value> row(schema.fields().size());
  while (true) {
    arena.Reset();
    values.clear();
    FLOE_ASSIGN_OR_RETURN(size_t n, reader->ReadBatch(&arena, 4096, &values));
    if (n == 0) break;
    for (size_t r = 0; r < n; ++r) {
      for (size_t i = 0; i < row.size(); ++i) {
        row[i] = source[i] < 0 ? types::Value::Null() : values[r * width + source[i]];
      }
      FLOE_RETURN_IF_ERROR_CTX(writer.Write(row), "{}: row {}", path, *rows);
      ++*rows;
    }
  }
  return Ok();
}

bool IsParquet(io::FileIO& io, const std::string& path) {
  auto in = io.OpenInput(path);
  if (!in || (*in)->size() < 8) return false;
  uint8_t magic[4];
  if (!(*in)->ReadAt(0, magic)) return false;
  return std::memcmp(magic, "PAR1", 4) == 0;
}

Status Append(iceberg::Catalog& catalog, const std::string& name,
              const std::vector<std::string>& paths) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, name));
  const auto& m = table.metadata();
  const types::Schema* schema = m.CurrentSchema();
  if (schema == nullptr) return InvalidArgument("table {} has no current schema", table.name());
  // Input files: local paths or s3:// URIs, through the catalog's FileIO.
  io::FileIO& inputs = catalog.file_io();
  FLOE_ASSIGN_OR_RETURN(auto options, iceberg::DataWriterOptions::FromProperties(m));
  FLOE_ASSIGN_OR_RETURN(auto writer, iceberg::DataWriter::Make(table.io(), m, options));
  auto append = table.NewAppend();
  const bool partitioned = !m.DefaultSpec()->fields().empty();
  int64_t rows = 0;
  int64_t files = 0;
  auto fail = [&](Error e) -> Status {
    writer->Abort();
    return std::unexpected(std::move(e));
  };
  types::JsonRowParser parser(*schema);
  Arena arena;
  for (const auto& path : paths) {
    if (IsParquet(inputs, path)) {
      if (partitioned) {
        if (auto s = CopyParquetRows(inputs, path, *schema, *writer, &rows); !s) {
          return fail(std::move(s).error());
        }
        continue;
      }
      auto file = ParquetAsDataFile(inputs, path, *schema);
      if (!file) return fail(std::move(file).error());
      // Added as it is: the table refers to the file where it lies.
      std::string absolute = path;
      if (!absolute.starts_with("/") && absolute.find("://") == std::string::npos) {
        char cwd[4096];
        if (getcwd(cwd, sizeof(cwd)) != nullptr) absolute = std::string(cwd) + "/" + path;
      }
      file->file_path = absolute;
      rows += file->record_count;
      ++files;
      append->AppendFile(std::move(*file));
      continue;
    }
    auto text = inputs.ReadAll(path);
    if (!text) return fail(std::move(text).error());
    std::string_view rest = *text;
    int64_t line_number = 0;
    while (!rest.empty()) {
      size_t nl = rest.find('\n');
      std::string_view line = rest.substr(0, nl);
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
      ++line_number;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      arena.Reset();
      auto row = parser.Parse(line, &arena);
      if (!row) {
        return fail(std::move(row).error().WithContext(fmt::format("{}:{}", path, line_number)));
      }
      if (auto s = writer->Write(*row); !s) {
        return fail(std::move(s).error().WithContext(fmt::format("{}:{}", path, line_number)));
      }
      ++rows;
    }
  }
  auto written = writer->Close();
  if (!written) return fail(std::move(written).error());
  for (auto& f : *written) {
    ++files;
    append->AppendFile(std::move(f), writer->spec_id());
  }
  if (files == 0) {
    Print(fmt::format("nothing to append to {}\n", table.name()));
    return Ok();
  }
  if (auto s = append->Commit(); !s) {
    if (s.error().code() != ErrorCode::kCommitStateUnknown) writer->Abort();
    return s;
  }
  Print(fmt::format("appended {} rows in {} files to {} (snapshot {})\n", rows, files, table.name(),
                    append->snapshot_id()));
  return Ok();
}

// ------------------------------------------------------------------ delete, evolve, properties

Status Delete(iceberg::Catalog& catalog, const std::string& name, const std::string& where) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, name));
  FLOE_ASSIGN_OR_RETURN(iceberg::ExprPtr filter, iceberg::ParseFilter(where));
  FLOE_ASSIGN_OR_RETURN(auto result, iceberg::DeleteRows(table, filter));
  if (!result.committed) {
    Print(fmt::format("no rows of {} match {}\n", table.name(), where));
    return Ok();
  }
  Print(
      fmt::format("deleted {} rows from {}: {} data files removed, {} position delete files "
                  "written (snapshot {})\n",
                  result.deleted_rows, table.name(), result.removed_data_files,
                  result.position_delete_files, table.metadata().current_snapshot_id.value_or(-1)));
  return Ok();
}

struct EvolveArgs {
  std::string table;
  std::vector<std::string> add, drop, rename, widen, optional;
};

Result<std::pair<std::string, types::TypePtr>> NameAndType(const std::string& text,
                                                           std::string_view option) {
  size_t sp = text.find_last_of(' ');
  if (sp == std::string::npos) {
    return InvalidArgument("{} '{}': expected \"name type\"", option, text);
  }
  std::string name = text.substr(0, sp);
  while (!name.empty() && name.back() == ' ') name.pop_back();
  FLOE_ASSIGN_OR_RETURN(types::TypePtr type, types::Type::ParsePrimitive(text.substr(sp + 1)));
  return std::make_pair(name, type);
}

Status Evolve(iceberg::Catalog& catalog, const EvolveArgs& args) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, args.table));
  std::vector<std::pair<std::string, types::TypePtr>> adds, widens;
  std::vector<std::pair<std::string, std::string>> renames;
  for (const auto& a : args.add) {
    FLOE_ASSIGN_OR_RETURN(auto p, NameAndType(a, "--add"));
    adds.push_back(std::move(p));
  }
  for (const auto& w : args.widen) {
    FLOE_ASSIGN_OR_RETURN(auto p, NameAndType(w, "--widen"));
    widens.push_back(std::move(p));
  }
  for (const auto& r : args.rename) {
    size_t eq = r.find('=');
    if (eq == std::string::npos) return InvalidArgument("--rename '{}': expected old=new", r);
    renames.emplace_back(r.substr(0, eq), r.substr(eq + 1));
  }
  if (adds.empty() && widens.empty() && renames.empty() && args.drop.empty() &&
      args.optional.empty()) {
    return InvalidArgument(
        "nothing to change: give --add, --drop, --rename, --widen or --optional");
  }
  auto op = table.NewUpdateSchema();
  op->Change([&](iceberg::UpdateSchema& u) {
    for (const auto& [n, t] : adds) u.AddColumn(n, t);
    for (const auto& d : args.drop) u.DeleteColumn(d);
    for (const auto& [from, to] : renames) u.RenameColumn(from, to);
    for (const auto& [n, t] : widens) u.UpdateColumn(n, t);
    for (const auto& o : args.optional) u.MakeColumnOptional(o);
  });
  FLOE_RETURN_IF_ERROR(op->Commit());
  Print(fmt::format("evolved {}: schema {}\n", table.name(), table.metadata().current_schema_id));
  return Ok();
}

Status SetProperties(iceberg::Catalog& catalog, const std::string& name,
                     const std::vector<std::string>& pairs,
                     const std::vector<std::string>& removes) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, name));
  auto op = table.NewUpdateProperties();
  for (const auto& kv : pairs) {
    FLOE_ASSIGN_OR_RETURN(auto p, SplitProperty(kv));
    op->Set(p.first, p.second);
  }
  for (const auto& k : removes) op->Remove(k);
  FLOE_RETURN_IF_ERROR(op->Commit());
  Print(fmt::format("updated properties of {}\n", table.name()));
  return Ok();
}

Status Expire(iceberg::Catalog& catalog, const std::string& name, const std::string& older_than,
              std::optional<int> retain_last, bool json, bool outside) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, name));
  auto op = table.NewExpireSnapshots();
  if (!older_than.empty()) {
    if (auto d = ParseDuration(older_than)) {
      op->ExpireOlderThan(NowMs() - *d);
    } else if (auto ts = types::ParseTimestamp(older_than)) {
      op->ExpireOlderThan(*ts / 1000);
    } else if (auto date = types::ParseDate(older_than)) {
      op->ExpireOlderThan(int64_t{*date} * 24 * 3600 * 1000);
    } else {
      return InvalidArgument(
          "--older-than '{}': expected a duration (7d, 12h, 30m, 45s, 500ms) or a timestamp "
          "(2024-01-01T00:00:00)",
          older_than);
    }
  }
  if (retain_last) op->RetainLast(*retain_last);
  op->DeleteOutsideLocation(outside);
  FLOE_ASSIGN_OR_RETURN(auto result, op->Commit());
  for (const auto& path : result.skipped_outside_location) {
    std::fprintf(stderr,
                 "warning: kept %s: outside the table's location "
                 "(--delete-outside-location deletes it)\n",
                 PrintableMessage(path).c_str());
  }
  if (json) {
    nlohmann::ordered_json j;
    j["expired_snapshot_ids"] = result.expired_snapshot_ids;
    j["deleted_manifest_lists"] = result.deleted_manifest_lists;
    j["deleted_manifests"] = result.deleted_manifests;
    j["deleted_data_files"] = result.deleted_data_files;
    j["deleted_delete_files"] = result.deleted_delete_files;
    Print(DumpJson(j) + "\n");
    return Ok();
  }
  Print(fmt::format(
      "expired {} snapshots of {}; deleted {} manifest lists, {} manifests, {} data "
      "files, {} delete files\n",
      result.expired_snapshot_ids.size(), table.name(), result.deleted_manifest_lists,
      result.deleted_manifests, result.deleted_data_files, result.deleted_delete_files));
  return Ok();
}

}  // namespace

void AddTableCommands(CLI::App& app, int* exit_code) {
  CLI::App* table = app.add_subcommand("table", "Iceberg catalogs, namespaces and tables");
  table->require_subcommand(1);
  table->fallthrough();
  auto catalog_options = std::make_shared<CatalogOptions>();
  AddCatalogOptions(*table, catalog_options.get());

  // Opens the catalog and runs `body(catalog)`.
  auto with_catalog = [catalog_options](auto body) {
    return [catalog_options, body]() -> Status {
      FLOE_ASSIGN_OR_RETURN(OpenedCatalog opened, OpenCatalogFromOptions(*catalog_options));
      return body(*opened.catalog);
    };
  };

  {
    auto* cmd = table->add_subcommand("namespaces", "list namespaces");
    auto json = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "print a JSON array");
    cmd->callback(Run(exit_code, with_catalog([json](iceberg::Catalog& c) -> Status {
                        std::vector<std::string> names;
                        std::vector<iceberg::Namespace> todo = {{}};
                        while (!todo.empty()) {
                          iceberg::Namespace parent = todo.back();
                          todo.pop_back();
                          FLOE_ASSIGN_OR_RETURN(auto children, c.ListNamespaces(parent));
                          for (auto& ns : children) {
                            names.push_back(iceberg::NamespaceToString(ns));
                            todo.push_back(ns);
                          }
                        }
                        std::sort(names.begin(), names.end());
                        if (*json) {
                          Print(DumpJson(nlohmann::json(names)) + "\n");
                        } else {
                          for (const auto& n : names) Print(n + "\n");
                        }
                        return Ok();
                      })));
  }
  {
    auto* cmd = table->add_subcommand("create-namespace", "create a namespace");
    auto ns = std::make_shared<std::string>();
    auto props = std::make_shared<std::vector<std::string>>();
    cmd->add_option("namespace", *ns, "namespace, e.g. sales or sales.eu")
        ->required()
        ->check(Utf8Text());
    cmd->add_option("--property", *props, "namespace property key=value (repeatable)")
        ->check(KeyValueText());
    cmd->callback(Run(exit_code, with_catalog([ns, props](iceberg::Catalog& c) -> Status {
                        FLOE_ASSIGN_OR_RETURN(auto parsed, iceberg::ParseNamespace(*ns));
                        iceberg::Properties properties;
                        for (const auto& kv : *props) {
                          FLOE_ASSIGN_OR_RETURN(auto p, SplitProperty(kv));
                          properties[p.first] = p.second;
                        }
                        FLOE_RETURN_IF_ERROR(c.CreateNamespace(parsed, properties));
                        Print(fmt::format("created namespace {}\n", *ns));
                        return Ok();
                      })));
  }
  {
    auto* cmd = table->add_subcommand("list", "list tables (of one namespace, or all)");
    auto ns = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("namespace", *ns, "namespace");
    cmd->add_flag("--json", *json, "print a JSON array");
    cmd->callback(Run(exit_code, with_catalog([ns, json](iceberg::Catalog& c) -> Status {
                        std::vector<iceberg::Namespace> namespaces;
                        if (!ns->empty()) {
                          FLOE_ASSIGN_OR_RETURN(auto parsed, iceberg::ParseNamespace(*ns));
                          namespaces.push_back(parsed);
                        } else {
                          std::vector<iceberg::Namespace> todo = {{}};
                          while (!todo.empty()) {
                            iceberg::Namespace parent = todo.back();
                            todo.pop_back();
                            FLOE_ASSIGN_OR_RETURN(auto children, c.ListNamespaces(parent));
                            for (auto& n : children) {
                              namespaces.push_back(n);
                              todo.push_back(n);
                            }
                          }
                        }
                        std::vector<std::string> names;
                        for (const auto& n : namespaces) {
                          FLOE_ASSIGN_OR_RETURN(auto tables, c.ListTables(n));
                          for (const auto& t : tables) names.push_back(t.ToString());
                        }
                        std::sort(names.begin(), names.end());
                        if (*json) {
                          Print(DumpJson(nlohmann::json(names)) + "\n");
                        } else {
                          for (const auto& n : names) Print(n + "\n");
                        }
                        return Ok();
                      })));
  }
  {
    auto* cmd = table->add_subcommand("create", "create a table");
    auto args = std::make_shared<CreateArgs>();
    cmd->add_option("table", args->table, "NS.TABLE")->required()->check(Utf8Text());
    cmd->add_option("--schema", args->schema_file, "Iceberg schema JSON file")->required();
    cmd->add_option("--partition-by", args->partition_by,
                    "partition spec, e.g. \"bucket(16, id), day(ts)\"")
        ->check(Utf8Text());
    cmd->add_option("--sort-by", args->sort_by, "sort order, e.g. \"id desc nulls last\"")
        ->check(Utf8Text());
    cmd->add_option("--property", args->properties, "table property key=value (repeatable)")
        ->check(KeyValueText());
    cmd->add_option("--location", args->location, "table location (default: the catalog's)")
        ->check(Utf8Text());
    cmd->callback(Run(exit_code,
                      with_catalog([args](iceberg::Catalog& c) { return CreateTable(c, *args); })));
  }
  {
    auto* cmd = table->add_subcommand("describe", "show a table's schema, spec and properties");
    auto name = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("table", *name, "NS.TABLE")->required();
    cmd->add_flag("--json", *json, "print the table metadata JSON");
    cmd->callback(Run(exit_code, with_catalog([name, json](iceberg::Catalog& c) {
                        return Describe(c, *name, *json);
                      })));
  }
  {
    auto* cmd = table->add_subcommand("snapshots", "list a table's snapshots");
    auto name = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("table", *name, "NS.TABLE")->required();
    cmd->add_flag("--json", *json, "print the snapshots as JSON");
    cmd->callback(Run(exit_code, with_catalog([name, json](iceberg::Catalog& c) {
                        return Snapshots(c, *name, *json);
                      })));
  }
  {
    auto* cmd = table->add_subcommand("files", "list the live data and delete files");
    auto name = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto snapshot = std::make_shared<std::optional<int64_t>>();
    cmd->add_option("table", *name, "NS.TABLE")->required();
    cmd->add_option("--snapshot", *snapshot, "snapshot id (default: current)");
    cmd->add_flag("--json", *json, "print one JSON object per file");
    cmd->callback(Run(exit_code, with_catalog([name, json, snapshot](iceberg::Catalog& c) {
                        return Files(c, *name, *snapshot, *json);
                      })));
  }
  {
    auto* cmd = table->add_subcommand("append", "append JSON Lines or Parquet files");
    auto name = std::make_shared<std::string>();
    auto paths = std::make_shared<std::vector<std::string>>();
    cmd->add_option("table", *name, "NS.TABLE")->required();
    cmd->add_option("files", *paths, "JSON Lines or Parquet files")->required();
    cmd->callback(Run(exit_code, with_catalog([name, paths](iceberg::Catalog& c) {
                        return Append(c, *name, *paths);
                      })));
  }
  {
    auto* cmd = table->add_subcommand("delete", "delete rows (merge-on-read position deletes)");
    auto name = std::make_shared<std::string>();
    auto where = std::make_shared<std::string>();
    cmd->add_option("table", *name, "NS.TABLE")->required();
    cmd->add_option("--where", *where, "filter, e.g. \"id = 5 OR name IS NULL\"")->required();
    cmd->callback(Run(exit_code, with_catalog([name, where](iceberg::Catalog& c) {
                        return Delete(c, *name, *where);
                      })));
  }
  {
    auto* cmd = table->add_subcommand("evolve", "change the schema (one commit)");
    auto args = std::make_shared<EvolveArgs>();
    cmd->add_option("table", args->table, "NS.TABLE")->required();
    cmd->add_option("--add", args->add, "add an optional column: \"name type\"")->check(Utf8Text());
    cmd->add_option("--drop", args->drop, "drop a column");
    cmd->add_option("--rename", args->rename, "rename a column: old=new")
        ->check(KeyValueText("old=new"));
    cmd->add_option("--widen", args->widen, "widen a column's type: \"name type\"");
    cmd->add_option("--optional", args->optional, "make a required column optional");
    cmd->parse_complete_callback([args] {
      if (args->add.empty() && args->drop.empty() && args->rename.empty() && args->widen.empty() &&
          args->optional.empty()) {
        throw CLI::ValidationError(
            "nothing to change: give --add, --drop, --rename, --widen or --optional");
      }
    });
    cmd->callback(
        Run(exit_code, with_catalog([args](iceberg::Catalog& c) { return Evolve(c, *args); })));
  }
  {
    auto* cmd = table->add_subcommand("set-property", "set (or --remove) table properties");
    auto name = std::make_shared<std::string>();
    auto pairs = std::make_shared<std::vector<std::string>>();
    auto removes = std::make_shared<std::vector<std::string>>();
    cmd->add_option("table", *name, "NS.TABLE")->required();
    cmd->add_option("properties", *pairs, "key=value")->check(KeyValueText());
    cmd->add_option("--remove", *removes, "a property to remove");
    cmd->callback(Run(exit_code, with_catalog([name, pairs, removes](iceberg::Catalog& c) {
                        return SetProperties(c, *name, *pairs, *removes);
                      })));
  }
  {
    auto* cmd = table->add_subcommand("expire", "expire old snapshots and delete their files");
    auto name = std::make_shared<std::string>();
    auto older = std::make_shared<std::string>();
    auto retain = std::make_shared<std::optional<int>>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("table", *name, "NS.TABLE")->required();
    cmd->add_option("--older-than", *older,
                    "a duration (7d, 12h, 30m, 45s) or a timestamp (default: 5 days)")
        ->check(OlderThanText());
    cmd->add_option("--retain-last", *retain, "snapshots to keep on each branch (default 1)")
        ->check(IntegerIn(1, 1'000'000));
    cmd->add_flag("--json", *json, "print the outcome as JSON");
    auto outside = std::make_shared<bool>(false);
    cmd->add_flag("--delete-outside-location", *outside,
                  "also delete files outside the table's location");
    cmd->callback(
        Run(exit_code, with_catalog([name, older, retain, json, outside](iceberg::Catalog& c) {
              return Expire(c, *name, *older, *retain, *json, *outside);
            })));
  }
  {
    auto* cmd = table->add_subcommand("drop", "drop a table");
    auto name = std::make_shared<std::string>();
    auto purge = std::make_shared<bool>(false);
    cmd->add_option("table", *name, "NS.TABLE")->required();
    cmd->add_flag("--purge", *purge, "also delete the files its metadata references");
    auto outside = std::make_shared<iceberg::PurgeOptions>();
    cmd->add_flag("--delete-outside-location", outside->delete_outside_location,
                  "with --purge, also delete referenced files outside the table's location");
    cmd->callback(Run(
        exit_code, with_catalog([name, purge, outside](iceberg::Catalog& c) -> Status {
          FLOE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(*name));
          if (!*purge) FLOE_RETURN_IF_ERROR(c.DropTable(id, false));
          if (*purge) {
            FLOE_ASSIGN_OR_RETURN(auto purged, iceberg::DropAndPurgeTable(c, id, *outside));
            for (const auto& p : purged.skipped_outside_location) {
              std::fprintf(stderr, "warning: kept %s: outside the table's location\n",
                           PrintableMessage(p).c_str());
            }
            for (const auto& e : purged.errors) {
              std::fprintf(stderr, "warning: %s\n", PrintableMessage(e).c_str());
            }
          }
          Print(fmt::format("dropped table {}{}\n", id.ToString(), *purge ? " and its files" : ""));
          return Ok();
        })));
  }
  {
    auto* cmd = table->add_subcommand("rename", "rename a table");
    auto from = std::make_shared<std::string>();
    auto to = std::make_shared<std::string>();
    cmd->add_option("from", *from, "NS.TABLE")->required();
    cmd->add_option("to", *to, "NS2.TABLE2")->required()->check(Utf8Text());
    cmd->callback(Run(exit_code, with_catalog([from, to](iceberg::Catalog& c) -> Status {
                        FLOE_ASSIGN_OR_RETURN(TableIdentifier a, TableIdentifier::Parse(*from));
                        FLOE_ASSIGN_OR_RETURN(TableIdentifier b, TableIdentifier::Parse(*to));
                        FLOE_RETURN_IF_ERROR(c.RenameTable(a, b));
                        Print(fmt::format("renamed {} to {}\n", a.ToString(), b.ToString()));
                        return Ok();
                      })));
  }
  AddTableScanCommand(*table, exit_code);
}

}  // namespace floe::cli
