// `floe parquet schema|meta|cat`: inspect Parquet files and print their rows
// as JSON Lines (conventions of floe/types/row_json.h). `floe parquet write`
// lives in parquet_write_command.cc.

#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "floe/cli/cli_values.h"
#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/common/ascii.h"
#include "floe/common/json_dump.h"
#include "floe/common/printable.h"
#include "floe/format/parquet/reader.h"
#include "floe/io/file_io.h"
#include "floe/types/row_json.h"
#include "floe/types/schema_json.h"

namespace floe::cli {
namespace {

using format::parquet::ParquetReader;

void Print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

Result<std::unique_ptr<ParquetReader>> OpenReader(const std::string& path) {
  io::LocalFileIO fs;
  FLOE_ASSIGN_OR_RETURN(auto file, fs.OpenInput(path));
  return ParquetReader::Open(std::move(file));
}

/// Prints the flat schema as a tree, parquet-mr's "message" style:
///   optional fixed_len_byte_array(16) u (UUID) = 7;
void PrintSchemaElements(const std::vector<format::parquet::SchemaElement>& elements, size_t* pos,
                         int indent, int depth, std::string* out) {
  if (*pos >= elements.size() || depth > 2 * types::kMaxTypeDepth + 1) return;
  const auto& e = elements[(*pos)++];
  std::string pad(indent, ' ');
  bool group = !e.type.has_value();
  if (depth == 0) {
    *out += fmt::format("message {} {{\n", EscapeControlCharacters(e.name));
  } else {
    std::string rep = e.repetition_type
                          ? AsciiLower(format::parquet::RepetitionName(*e.repetition_type))
                          : std::string("required");
    std::string type = group ? "group" : AsciiLower(format::parquet::TypeName(*e.type));
    if (!group && *e.type == format::parquet::Type::kFixedLenByteArray) {
      type += fmt::format("({})", e.type_length.value_or(0));
    }
    std::string annotation;
    if (e.logical_type) {
      annotation = format::parquet::LogicalTypeToString(*e.logical_type);
    } else if (e.converted_type) {
      annotation = format::parquet::ConvertedTypeName(*e.converted_type);
      if (*e.converted_type == format::parquet::ConvertedType::kDecimal) {
        annotation += fmt::format("({},{})", e.precision.value_or(0), e.scale.value_or(0));
      }
    }
    *out += fmt::format("{}{} {} {}", pad, rep, type, EscapeControlCharacters(e.name));
    if (!annotation.empty()) *out += fmt::format(" ({})", annotation);
    if (e.field_id) *out += fmt::format(" = {}", *e.field_id);
    *out += group ? " {\n" : ";\n";
  }
  if (group) {
    int32_t n = e.num_children.value_or(0);
    for (int32_t i = 0; i < n && *pos < elements.size(); ++i) {
      PrintSchemaElements(elements, pos, indent + 2, depth + 1, out);
    }
    *out += pad + "}\n";
  }
}

Status RunSchema(const std::string& path, bool iceberg_only) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenReader(path));
  std::string out;
  // Column names are the file's bytes: DumpJson escapes any that are not UTF-8.
  std::string json = DumpJson(types::SchemaToJson(reader->parquet_schema().schema), 2);
  if (iceberg_only) {
    out = json + "\n";
  } else {
    size_t pos = 0;
    PrintSchemaElements(reader->metadata().schema, &pos, 0, 0, &out);
    out += "\nIceberg schema:\n" + json + "\n";
  }
  Print(out);
  return Ok();
}

std::string StatText(const types::Type& type, const std::optional<types::Value>& v) {
  if (!v) return "-";
  std::string s;
  types::AppendValueJson(type, *v, &s);
  return s;
}

template <typename T>
std::string Opt(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : std::string("-");
}

Status RunMeta(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenReader(path));
  const auto& m = reader->metadata();
  const auto& leaves = reader->parquet_schema().leaves;
  std::string out;
  out += fmt::format("file: {}\n", path);
  out += fmt::format("version: {}\n", m.version);
  out += fmt::format("created_by: {}\n", m.created_by.value_or("-"));
  out += fmt::format("num_rows: {}\n", m.num_rows);
  out += fmt::format("row_groups: {}\n", m.row_groups.size());
  out += fmt::format("columns: {}\n", leaves.size());
  if (m.key_value_metadata) {
    out += "key_value_metadata:\n";
    for (const auto& kv : *m.key_value_metadata) {
      std::string value = kv.value.value_or("");
      if (value.size() > 200)
        value = value.substr(0, 200) + fmt::format("... ({} bytes)", value.size());
      for (char& c : value) {
        if (c == '\n' || c == '\r') c = ' ';
      }
      out += fmt::format("  {}: {}\n", kv.key, value);
    }
  }
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    const auto& rg = m.row_groups[g];
    out += fmt::format("row group {}: {} rows, total_byte_size {}, total_compressed_size {}\n", g,
                       rg.num_rows, rg.total_byte_size, Opt(rg.total_compressed_size));
    FLOE_ASSIGN_OR_RETURN(auto stats, reader->ReadRowGroupStats(g));
    for (size_t c = 0; c < rg.columns.size() && c < leaves.size(); ++c) {
      const auto& leaf = leaves[c];
      out += fmt::format("  column {} ({}) field_id {} type {}\n", fmt::join(leaf.path, "."),
                         format::parquet::TypeName(leaf.physical_type), leaf.field_id,
                         leaf.type ? leaf.type->ToString() : "?");
      const auto& md = rg.columns[c].meta_data;
      if (!md) {
        out += "    (no column metadata)\n";
        continue;
      }
      std::vector<std::string> encodings;
      for (auto e : md->encodings) encodings.push_back(format::parquet::EncodingName(e));
      out += fmt::format("    codec {}, encodings {}, values {}\n",
                         format::parquet::CodecName(md->codec), fmt::join(encodings, ","),
                         md->num_values);
      out += fmt::format(
          "    compressed {} bytes, uncompressed {} bytes, data_page_offset {}, "
          "dictionary_page_offset {}\n",
          md->total_compressed_size, md->total_uncompressed_size, md->data_page_offset,
          Opt(md->dictionary_page_offset));
      if (md->statistics) {
        const auto& cs = stats.columns[c];
        const auto& s = *md->statistics;
        out += fmt::format("    statistics: min {}, max {}, null_count {}, distinct_count {}",
                           leaf.type ? StatText(*leaf.type, cs.min) : "-",
                           leaf.type ? StatText(*leaf.type, cs.max) : "-", Opt(s.null_count),
                           Opt(s.distinct_count));
        if (s.is_min_value_exact || s.is_max_value_exact) {
          out += fmt::format(", exact min {} max {}", Opt(s.is_min_value_exact),
                             Opt(s.is_max_value_exact));
        }
        out += "\n";
      }
    }
  }
  Print(out);
  return Ok();
}

struct CatArgs {
  std::string path;
  int64_t limit = -1;
  std::vector<int32_t> field_ids;
};

Status RunCat(const CatArgs& args) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenReader(args.path));
  if (!args.field_ids.empty()) FLOE_RETURN_IF_ERROR(reader->Project(args.field_ids));
  const types::Schema& schema = reader->schema();
  size_t width = schema.fields().size();
  Arena arena;
  std::vector<types::Value> values;
  std::string out;
  int64_t printed = 0;
  while (args.limit < 0 || printed < args.limit) {
    arena.Reset();
    values.clear();
    size_t want = 1024;
    if (args.limit >= 0) want = static_cast<size_t>(std::min<int64_t>(1024, args.limit - printed));
    FLOE_ASSIGN_OR_RETURN(size_t n, reader->ReadBatch(&arena, want, &values));
    if (n == 0) break;
    out.clear();
    for (size_t i = 0; i < n; ++i) {
      types::AppendRowJson(schema, types::Row(values.data() + i * width, width), &out);
      out.push_back('\n');
    }
    Print(out);
    printed += static_cast<int64_t>(n);
  }
  std::fflush(stdout);
  return Ok();
}

}  // namespace

void AddParquetCommands(CLI::App& app, int* exit_code) {
  CLI::App* parquet = app.add_subcommand("parquet", "Inspect, read and write Parquet files");
  parquet->require_subcommand(1);

  auto schema_path = std::make_shared<std::string>();
  auto iceberg_only = std::make_shared<bool>(false);
  CLI::App* schema = parquet->add_subcommand(
      "schema", "Print the Parquet schema tree and the Iceberg schema floe reads it as");
  schema->add_option("file", *schema_path, "Parquet file")->required();
  schema->add_flag("--iceberg", *iceberg_only, "Print only the Iceberg schema JSON");
  SetCommandBody(*schema, exit_code,
                 [=]() -> CommandStatus { return RunSchema(*schema_path, *iceberg_only); });

  auto meta_path = std::make_shared<std::string>();
  CLI::App* meta = parquet->add_subcommand(
      "meta", "Print the footer: row groups, column chunks, encodings, codecs, statistics");
  meta->add_option("file", *meta_path, "Parquet file")->required();
  SetCommandBody(*meta, exit_code, [=]() -> CommandStatus { return RunMeta(*meta_path); });

  auto cat_args = std::make_shared<CatArgs>();
  CLI::App* cat = parquet->add_subcommand("cat", "Print rows as JSON Lines");
  cat->add_option("file", cat_args->path, "Parquet file")->required();
  cat->add_option("--limit", cat_args->limit, "Print at most N rows")
      ->check(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  cat->add_option("--field-id", cat_args->field_ids,
                  "Print only these fields (Iceberg field ids, repeatable)");
  SetCommandBody(*cat, exit_code, [=]() -> CommandStatus { return RunCat(*cat_args); });

  AddParquetWriteCommand(*parquet, exit_code);
}

}  // namespace floe::cli
