// `floe table` subcommands that change catalogs and tables: create-namespace,
// create, append, add-files, delete, evolve, set-property, expire, drop and
// rename. Each parses its flags and calls the library (table_subcommands.h).

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/cli/cli_values.h"
#include "floe/cli/table_subcommands.h"
#include "floe/common/arena.h"
#include "floe/common/json_dump.h"
#include "floe/common/printable.h"
#include "floe/iceberg/data/data_writer.h"
#include "floe/iceberg/data/delete_files.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/iceberg/json/partition_spec_json.h"
#include "floe/iceberg/json/sort_order_json.h"
#include "floe/iceberg/update/add_files.h"
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

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct CreateArgs {
  std::string table;
  std::string schema_file;
  std::string partition_by;
  std::string sort_by;
  std::vector<std::string> properties;
  std::string location;
};

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

/// The table refers to a file added as it is where it lies: a relative local
/// path is made absolute.
std::string AbsolutePath(const std::string& path) {
  if (path.starts_with("/") || path.find("://") != std::string::npos) return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

/// Writes the rows of the JSON Lines file `path` through `writer`.
Status WriteJsonLines(io::FileIO& inputs, const std::string& path, types::JsonRowParser& parser,
                      iceberg::DataWriter& writer, int64_t* rows) {
  FLOE_ASSIGN_OR_RETURN(std::string text, inputs.ReadAll(path));
  std::string_view rest = text;
  int64_t line_number = 0;
  Arena arena;
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
      return std::unexpected(
          std::move(row).error().WithContext(fmt::format("{}:{}", path, line_number)));
    }
    FLOE_RETURN_IF_ERROR_CTX(writer.Write(*row), "{}:{}", path, line_number);
    ++*rows;
  }
  return Ok();
}

/// Appends JSON Lines and Parquet files in one snapshot: the rows of JSON
/// Lines files (and of Parquet files, in a partitioned table) are written as
/// new data files; in an unpartitioned table a Parquet file is added as it is
/// (iceberg::ParquetDataFile, update/add_files.h).
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
  types::JsonRowParser parser(*schema);
  auto add = [&](const std::string& path) -> Status {
    if (!iceberg::LooksLikeParquet(inputs, path)) {
      return WriteJsonLines(inputs, path, parser, *writer, &rows);
    }
    if (partitioned) return iceberg::CopyParquetRows(inputs, path, *schema, *writer, &rows);
    FLOE_ASSIGN_OR_RETURN(iceberg::DataFile file,
                          iceberg::ParquetDataFile(inputs, path, *schema, *m.DefaultSpec()));
    file.file_path = AbsolutePath(path);
    rows += file.record_count;
    ++files;
    append->AppendFile(std::move(file));
    return Ok();
  };
  for (const auto& path : paths) {
    if (auto s = add(path); !s) {
      writer->Abort();
      return s;
    }
  }
  auto written = writer->Close();
  if (!written) {
    writer->Abort();
    return std::unexpected(std::move(written).error());
  }
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

/// `floe table add-files`: iceberg::AddFiles with the paths made absolute.
Status AddFiles(iceberg::Catalog& catalog, const std::string& name,
                const std::vector<std::string>& paths, bool allow_duplicates) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, name));
  std::vector<std::string> absolute;
  for (const auto& path : paths) absolute.push_back(AbsolutePath(path));
  FLOE_ASSIGN_OR_RETURN(
      iceberg::AddFilesResult added,
      iceberg::AddFiles(table, absolute, {.check_duplicate_files = !allow_duplicates}));
  Print(fmt::format("added {} files ({} rows) to {} (snapshot {})\n", added.added_files,
                    added.added_records, table.name(), added.snapshot_id));
  return Ok();
}

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

void AddCreateNamespaceCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("create-namespace", "create a namespace");
  auto ns = std::make_shared<std::string>();
  auto props = std::make_shared<std::vector<std::string>>();
  cmd->add_option("namespace", *ns, "namespace, e.g. sales or sales.eu")
      ->required()
      ->check(Utf8Text());
  cmd->add_option("--property", *props, "namespace property key=value (repeatable)")
      ->check(KeyValueText());
  OnCatalog(*cmd, exit_code, [ns, props](iceberg::Catalog& c) -> Status {
    FLOE_ASSIGN_OR_RETURN(auto parsed, iceberg::ParseNamespace(*ns));
    iceberg::Properties properties;
    for (const auto& kv : *props) {
      FLOE_ASSIGN_OR_RETURN(auto p, SplitProperty(kv));
      properties[p.first] = p.second;
    }
    FLOE_RETURN_IF_ERROR(c.CreateNamespace(parsed, properties));
    Print(fmt::format("created namespace {}\n", *ns));
    return Ok();
  });
}

void AddCreateCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("create", "create a table");
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
  OnCatalog(*cmd, exit_code, [args](iceberg::Catalog& c) { return CreateTable(c, *args); });
}

void AddAppendCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("append", "append JSON Lines or Parquet files");
  auto name = std::make_shared<std::string>();
  auto paths = std::make_shared<std::vector<std::string>>();
  cmd->add_option("table", *name, "NS.TABLE")->required();
  cmd->add_option("files", *paths, "JSON Lines or Parquet files")->required();
  OnCatalog(*cmd, exit_code,
            [name, paths](iceberg::Catalog& c) { return Append(c, *name, *paths); });
}

void AddAddFilesCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand(
      "add-files", "add Parquet files to a table as they are, without rewriting them");
  auto name = std::make_shared<std::string>();
  auto paths = std::make_shared<std::vector<std::string>>();
  auto allow_duplicates = std::make_shared<bool>(false);
  cmd->add_option("table", *name, "NS.TABLE")->required();
  cmd->add_option("files", *paths, "Parquet files (the table refers to them where they lie)")
      ->required();
  cmd->add_flag("--allow-duplicates", *allow_duplicates,
                "add files the table already has (their rows then count twice)");
  OnCatalog(*cmd, exit_code, [name, paths, allow_duplicates](iceberg::Catalog& c) {
    return AddFiles(c, *name, *paths, *allow_duplicates);
  });
}

void AddDeleteCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("delete", "delete rows (merge-on-read position deletes)");
  auto name = std::make_shared<std::string>();
  auto where = std::make_shared<std::string>();
  cmd->add_option("table", *name, "NS.TABLE")->required();
  cmd->add_option("--where", *where, "filter, e.g. \"id = 5 OR name IS NULL\"")->required();
  OnCatalog(*cmd, exit_code,
            [name, where](iceberg::Catalog& c) { return Delete(c, *name, *where); });
}

void AddEvolveCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("evolve", "change the schema (one commit)");
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
  OnCatalog(*cmd, exit_code, [args](iceberg::Catalog& c) { return Evolve(c, *args); });
}

void AddSetPropertyCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("set-property", "set (or --remove) table properties");
  auto name = std::make_shared<std::string>();
  auto pairs = std::make_shared<std::vector<std::string>>();
  auto removes = std::make_shared<std::vector<std::string>>();
  cmd->add_option("table", *name, "NS.TABLE")->required();
  cmd->add_option("properties", *pairs, "key=value")->check(KeyValueText());
  cmd->add_option("--remove", *removes, "a property to remove");
  OnCatalog(*cmd, exit_code, [name, pairs, removes](iceberg::Catalog& c) {
    return SetProperties(c, *name, *pairs, *removes);
  });
}

void AddExpireCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("expire", "expire old snapshots and delete their files");
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
  OnCatalog(*cmd, exit_code, [name, older, retain, json, outside](iceberg::Catalog& c) {
    return Expire(c, *name, *older, *retain, *json, *outside);
  });
}

void AddDropCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("drop", "drop a table");
  auto name = std::make_shared<std::string>();
  auto purge = std::make_shared<bool>(false);
  cmd->add_option("table", *name, "NS.TABLE")->required();
  cmd->add_flag("--purge", *purge, "also delete the files its metadata references");
  auto outside = std::make_shared<iceberg::PurgeOptions>();
  cmd->add_flag("--delete-outside-location", outside->delete_outside_location,
                "with --purge, also delete referenced files outside the table's location");
  OnCatalog(*cmd, exit_code, [name, purge, outside](iceberg::Catalog& c) -> Status {
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
  });
}

void AddRenameCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("rename", "rename a table");
  auto from = std::make_shared<std::string>();
  auto to = std::make_shared<std::string>();
  cmd->add_option("from", *from, "NS.TABLE")->required();
  cmd->add_option("to", *to, "NS2.TABLE2")->required()->check(Utf8Text());
  OnCatalog(*cmd, exit_code, [from, to](iceberg::Catalog& c) -> Status {
    FLOE_ASSIGN_OR_RETURN(TableIdentifier a, TableIdentifier::Parse(*from));
    FLOE_ASSIGN_OR_RETURN(TableIdentifier b, TableIdentifier::Parse(*to));
    FLOE_RETURN_IF_ERROR(c.RenameTable(a, b));
    Print(fmt::format("renamed {} to {}\n", a.ToString(), b.ToString()));
    return Ok();
  });
}

}  // namespace

void AddTableChangeCommands(CLI::App& table, int* exit_code) {
  AddCreateNamespaceCommand(table, exit_code);
  AddCreateCommand(table, exit_code);
  AddAppendCommand(table, exit_code);
  AddAddFilesCommand(table, exit_code);
  AddDeleteCommand(table, exit_code);
  AddEvolveCommand(table, exit_code);
  AddSetPropertyCommand(table, exit_code);
  AddExpireCommand(table, exit_code);
  AddDropCommand(table, exit_code);
  AddRenameCommand(table, exit_code);
}

}  // namespace floe::cli
