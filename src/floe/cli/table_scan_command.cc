// `floe table scan NS.T [--where EXPR] [--columns a,b] [--snapshot ID |
// --as-of TIMESTAMP | --ref NAME] [--limit N] [--plan]`: reads a table (or
// one snapshot of it) with deletes applied and prints its rows as JSON Lines
// (docs/json-rows.md), the selected columns in the order asked; with --plan,
// prints the planned file tasks instead. Errors are reported by the runner
// (command_runner.h).

#include <charconv>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/cli/catalog_options.h"
#include "floe/cli/cli_values.h"
#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/common/arena.h"
#include "floe/common/json_dump.h"
#include "floe/iceberg/data/data_reader.h"
#include "floe/iceberg/data/table_scan.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/types/row_json.h"
#include "floe/types/temporal.h"

namespace floe::cli {
namespace {

struct ScanArgs {
  std::string table;
  std::string where;
  std::string columns;
  std::optional<int64_t> snapshot;
  std::string as_of;
  std::string ref;
  std::optional<int64_t> limit;
  bool plan = false;
};

void Write(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

nlohmann::ordered_json TaskJson(const iceberg::FileScanTask& task) {
  nlohmann::ordered_json j;
  j["file_path"] = task.data_file.file_path;
  j["file_format"] = task.data_file.file_format;
  j["spec_id"] = task.spec_id;
  nlohmann::ordered_json part = nlohmann::ordered_json::array();
  for (const auto& l : task.data_file.partition) part.push_back(l.ToString());
  j["partition"] = part;
  j["record_count"] = task.data_file.record_count;
  j["file_size_in_bytes"] = task.data_file.file_size_in_bytes;
  j["data_sequence_number"] = task.data_sequence_number;
  nlohmann::ordered_json deletes = nlohmann::ordered_json::array();
  for (const auto& d : task.deletes) {
    nlohmann::ordered_json dj;
    dj["content"] = iceberg::DataFileContentName(d->file.content);
    dj["file_path"] = d->file.file_path;
    dj["record_count"] = d->file.record_count;
    dj["data_sequence_number"] = d->data_sequence_number;
    if (!d->file.equality_ids.empty()) dj["equality_ids"] = d->file.equality_ids;
    if (d->file.referenced_data_file) dj["referenced_data_file"] = *d->file.referenced_data_file;
    if (d->file.content_offset) dj["content_offset"] = *d->file.content_offset;
    if (d->file.content_size_in_bytes) {
      dj["content_size_in_bytes"] = *d->file.content_size_in_bytes;
    }
    deletes.push_back(std::move(dj));
  }
  j["deletes"] = deletes;
  return j;
}

Status RunScan(const CLI::App& command, const ScanArgs& args) {
  FLOE_ASSIGN_OR_RETURN(OpenedCatalog opened, OpenCatalogFromOptions(CatalogOptionsFrom(command)));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableIdentifier id, iceberg::TableIdentifier::Parse(args.table));
  FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable loaded, opened.catalog->LoadTable(id));
  io::FileIO& io = opened.catalog->file_io();

  iceberg::TableScanOptions options;
  options.snapshot_id = args.snapshot;
  if (!args.as_of.empty()) {
    FLOE_ASSIGN_OR_RETURN(int64_t ms, ParseTimeMillis("--as-of", args.as_of));
    options.as_of_timestamp_ms = ms;
  }
  if (!args.ref.empty()) options.ref = args.ref;
  if (!args.where.empty()) {
    FLOE_ASSIGN_OR_RETURN(options.filter, iceberg::ParseFilter(args.where));
  }
  options.columns = SplitNames(args.columns);
  if (!args.columns.empty() && options.columns.empty()) {
    return InvalidArgument("--columns names no column");
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::TableScan scan,
                        iceberg::TableScan::Make(io, loaded.metadata, std::move(options)));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan.PlanFiles());

  if (args.plan) {
    std::string out;
    for (const auto& t : tasks) out += DumpJson(TaskJson(t)) + "\n";
    Write(out);
    return Ok();
  }

  const types::Schema& schema = scan.projected_schema();
  const size_t width = schema.fields().size();
  int64_t remaining = args.limit.value_or(-1);
  Arena arena;
  std::vector<types::Value> values;
  std::string out;
  for (const auto& task : tasks) {
    if (remaining == 0) break;
    FLOE_ASSIGN_OR_RETURN(auto reader, iceberg::DataReader::Open(io, task, scan.schema(), schema,
                                                                 scan.bound_filter()));
    while (remaining != 0) {
      arena.Reset();
      values.clear();
      FLOE_ASSIGN_OR_RETURN(size_t n, reader->ReadBatch(&arena, &values));
      if (n == 0) break;
      out.clear();
      for (size_t r = 0; r < n && remaining != 0; ++r) {
        types::AppendRowJson(schema, types::Row(values.data() + r * width, width), &out);
        out.push_back('\n');
        if (remaining > 0) --remaining;
      }
      Write(out);
    }
  }
  std::fflush(stdout);
  return Ok();
}

}  // namespace

void AddTableScanCommand(CLI::App& table, int* exit_code) {
  auto args = std::make_shared<ScanArgs>();
  CLI::App* cmd = table.add_subcommand(
      "scan", "print a table's rows as JSON Lines (deletes applied), or its planned files");
  cmd->add_option("table", args->table, "the table, NS.TABLE")->required();
  cmd->add_option("--where", args->where,
                  "row filter, e.g. \"id = 5 AND (ts >= '2024-01-01T00:00:00' OR name IS NULL)\"");
  cmd->add_option("--columns", args->columns, "columns to print, comma-separated, in this order");
  auto* snapshot = cmd->add_option("--snapshot", args->snapshot, "read this snapshot id");
  auto* as_of = cmd->add_option("--as-of", args->as_of,
                                "read the snapshot current at this time (ISO timestamp, date, "
                                "or epoch milliseconds)");
  auto* ref = cmd->add_option("--ref", args->ref, "read the snapshot of this branch or tag");
  snapshot->excludes(as_of)->excludes(ref);
  as_of->excludes(ref);
  cmd->add_option("--limit", args->limit, "print at most N rows")
      ->check(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  cmd->add_flag("--plan", args->plan,
                "print the planned file tasks (file, record count, deletes) as JSON Lines");
  SetCommandBody(*cmd, exit_code, [cmd, args]() -> CommandStatus { return RunScan(*cmd, *args); });
}

}  // namespace floe::cli
