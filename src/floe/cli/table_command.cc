// `floe table ...`: catalogs, namespaces and Iceberg tables from the command
// line (in the spirit of the PyIceberg CLI). This file adds the command, its
// catalog options and the subcommands that only look (namespaces, list,
// describe, snapshots, files); table_change_command.cc adds those that change
// something, table_scan_command.cc `scan`. Errors are reported by the runner
// (command_runner.h): exit 1, or 2 for a wrong command line (bad option
// values, names that are not valid UTF-8) before the catalog is opened.

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/cli/catalog_options.h"
#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/cli/table_register_command.h"
#include "floe/cli/table_subcommands.h"
#include "floe/common/json_dump.h"
#include "floe/iceberg/json/metadata_json.h"
#include "floe/iceberg/json/sort_order_json.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/update/snapshot_producer.h"
#include "floe/types/temporal.h"

namespace floe::cli {
namespace {

using iceberg::Table;

std::string FormatTime(int64_t ms) {
  std::string out;
  types::AppendTimestamp(ms * 1000, true, &out);
  return out;
}

std::string PartitionText(const std::vector<iceberg::Literal>& partition) {
  std::string out = "{";
  for (size_t i = 0; i < partition.size(); ++i) {
    if (i) out += ", ";
    out += partition[i].ToString();
  }
  return out + "}";
}

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

// Every namespace of the catalog, at every level (the root excluded).
Result<std::vector<iceberg::Namespace>> AllNamespaces(iceberg::Catalog& c) {
  std::vector<iceberg::Namespace> all;
  std::vector<iceberg::Namespace> todo = {{}};
  while (!todo.empty()) {
    iceberg::Namespace parent = todo.back();
    todo.pop_back();
    FLOE_ASSIGN_OR_RETURN(auto children, c.ListNamespaces(parent));
    for (auto& ns : children) {
      all.push_back(ns);
      todo.push_back(ns);
    }
  }
  return all;
}

// Names sorted, as a JSON array or one a line.
void PrintSortedNames(std::vector<std::string> names, bool json) {
  std::sort(names.begin(), names.end());
  if (json) {
    Print(DumpJson(nlohmann::json(names)) + "\n");
  } else {
    for (const auto& n : names) Print(n + "\n");
  }
}

void AddNamespacesCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("namespaces", "list namespaces");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "print a JSON array");
  OnCatalog(*cmd, exit_code, [json](iceberg::Catalog& c) -> Status {
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::Namespace> namespaces, AllNamespaces(c));
    std::vector<std::string> names;
    for (const auto& ns : namespaces) names.push_back(iceberg::NamespaceToString(ns));
    PrintSortedNames(std::move(names), *json);
    return Ok();
  });
}

void AddListCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("list", "list tables (of one namespace, or all)");
  auto ns = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("namespace", *ns, "namespace");
  cmd->add_flag("--json", *json, "print a JSON array");
  OnCatalog(*cmd, exit_code, [ns, json](iceberg::Catalog& c) -> Status {
    std::vector<iceberg::Namespace> namespaces;
    if (!ns->empty()) {
      FLOE_ASSIGN_OR_RETURN(auto parsed, iceberg::ParseNamespace(*ns));
      namespaces.push_back(parsed);
    } else {
      FLOE_ASSIGN_OR_RETURN(namespaces, AllNamespaces(c));
    }
    std::vector<std::string> names;
    for (const auto& n : namespaces) {
      FLOE_ASSIGN_OR_RETURN(auto tables, c.ListTables(n));
      for (const auto& t : tables) names.push_back(t.ToString());
    }
    PrintSortedNames(std::move(names), *json);
    return Ok();
  });
}

// A subcommand that prints one table (NS.TABLE), as text or with --json as
// `json_help` says, through `print`.
void AddPrintTableCommand(CLI::App& table, int* exit_code, const std::string& name,
                          const std::string& description, const std::string& json_help,
                          Status (*print)(iceberg::Catalog&, const std::string&, bool)) {
  auto* cmd = table.add_subcommand(name, description);
  auto table_name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("table", *table_name, "NS.TABLE")->required();
  cmd->add_flag("--json", *json, json_help);
  OnCatalog(*cmd, exit_code, [table_name, json, print](iceberg::Catalog& c) {
    return print(c, *table_name, *json);
  });
}

void AddFilesCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("files", "list the live data and delete files");
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto snapshot = std::make_shared<std::optional<int64_t>>();
  cmd->add_option("table", *name, "NS.TABLE")->required();
  cmd->add_option("--snapshot", *snapshot, "snapshot id (default: current)");
  cmd->add_flag("--json", *json, "print one JSON object per file");
  OnCatalog(*cmd, exit_code, [name, json, snapshot](iceberg::Catalog& c) {
    return Files(c, *name, *snapshot, *json);
  });
}

}  // namespace

void Print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

Result<Table> LoadTable(iceberg::Catalog& catalog, const std::string& name) {
  FLOE_ASSIGN_OR_RETURN(iceberg::TableIdentifier id, iceberg::TableIdentifier::Parse(name));
  return Table::Load(catalog, id);
}

Result<std::pair<std::string, std::string>> SplitProperty(const std::string& kv) {
  size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) {
    return InvalidArgument("property '{}' is not key=value", kv);
  }
  return std::make_pair(kv.substr(0, eq), kv.substr(eq + 1));
}

void OnCatalog(CLI::App& command, int* exit_code, std::function<Status(iceberg::Catalog&)> body) {
  SetCommandBody(command, exit_code, [&command, body = std::move(body)]() -> CommandStatus {
    FLOE_ASSIGN_OR_RETURN(OpenedCatalog opened,
                          OpenCatalogFromOptions(CatalogOptionsFrom(command)));
    return body(*opened.catalog);
  });
}

void AddTableCommands(CLI::App& app, int* exit_code) {
  CLI::App* table = app.add_subcommand("table", "Iceberg catalogs, namespaces and tables");
  table->require_subcommand(1);
  table->fallthrough();
  AddSharedCatalogOptions(*table);
  AddNamespacesCommand(*table, exit_code);
  AddListCommand(*table, exit_code);
  AddPrintTableCommand(*table, exit_code, "describe", "show a table's schema, spec and properties",
                       "print the table metadata JSON", Describe);
  AddPrintTableCommand(*table, exit_code, "snapshots", "list a table's snapshots",
                       "print the snapshots as JSON", Snapshots);
  AddFilesCommand(*table, exit_code);
  AddTableChangeCommands(*table, exit_code);
  AddTableScanCommand(*table, exit_code);
  AddTableRegisterCommand(*table, exit_code);
}

}  // namespace floe::cli
