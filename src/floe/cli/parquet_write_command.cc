// `floe parquet write`: converts JSON Lines into one Parquet file.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "floe/cli/atomic_output.h"
#include "floe/cli/cli_values.h"
#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/common/arena.h"
#include "floe/common/line_reader.h"
#include "floe/format/parquet/compression.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file_io.h"
#include "floe/types/row_json.h"
#include "floe/types/schema_json.h"

namespace floe::cli {
namespace {

struct WriteArgs {
  std::string schema_path;
  std::string codec = "zstd";
  int compression_level = 0;
  uint64_t row_group_size = 128u << 20;
  uint64_t page_size = 1u << 20;
  uint64_t dict_size = 2u << 20;
  bool no_dictionary = false;
  int page_version = 1;
  std::string input;
  std::string output;
};

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

// Converts; on an error in a line, sets *where to "FILE:LINE".
Result<format::parquet::DataFileMetrics> Convert(const WriteArgs& args, AtomicOutput& output,
                                                 std::string* where) {
  FLOE_ASSIGN_OR_RETURN(types::Schema schema, types::ReadSchemaFile(args.schema_path));
  format::parquet::WriterOptions options;
  FLOE_ASSIGN_OR_RETURN(options.codec, format::parquet::ParseCodecName(args.codec));
  options.compression_level = args.compression_level;
  options.row_group_size_bytes = args.row_group_size;
  options.page_size_bytes = args.page_size;
  options.dict_size_bytes = args.dict_size;
  options.dictionary_enabled = !args.no_dictionary;
  options.data_page_version = args.page_version;

  int fd = 0;
  if (args.input != "-") {
    fd = ::open(args.input.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return IoError("cannot open {}: {}", args.input, std::strerror(errno));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() {
      if (fd > 0) ::close(fd);
    }
  } closer{fd};

  FLOE_ASSIGN_OR_RETURN(auto out, output.Create());
  FLOE_ASSIGN_OR_RETURN(auto writer,
                        format::parquet::ParquetWriter::Open(std::move(out), schema, options));
  types::JsonRowParser parser(schema);
  Arena arena(1 << 20);
  LineReader reader(ReadFromFileDescriptor(fd, args.input), 4u << 20);
  uint64_t line_number = 0;
  uint64_t rows_since_reset = 0;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<LineReader::Line> next, reader.Next());
    if (!next) break;
    std::string_view line = next->text;
    ++line_number;
    if (IsBlank(line)) continue;
    auto row = parser.Parse(line, &arena);
    if (!row) {
      *where = fmt::format("{}:{}", args.input, line_number);
      return std::unexpected(std::move(row).error());
    }
    auto status = writer->Append(*row);
    if (!status) {
      *where = fmt::format("{}:{}", args.input, line_number);
      return std::unexpected(std::move(status).error());
    }
    if (++rows_since_reset == 4096) {
      arena.Reset();
      rows_since_reset = 0;
    }
  }
  return writer->Close();
}

CommandStatus RunWrite(const WriteArgs& args) {
  io::LocalFileIO fio;
  AtomicOutput output(fio, args.output);
  std::string where;
  auto metrics = Convert(args, output, &where);
  if (!metrics) {
    if (where.empty()) return std::unexpected(std::move(metrics).error());
    return std::unexpected(std::move(metrics).error().WithContext(where));
  }
  FLOE_RETURN_IF_ERROR(output.Commit());
  fmt::print("wrote {} rows to {} ({} bytes, {} row groups)\n", metrics->record_count,
             output.final_path(), metrics->file_size_in_bytes, metrics->split_offsets.size());
  return {};
}

}  // namespace

void AddParquetWriteCommand(CLI::App& parquet, int* exit_code) {
  auto args = std::make_shared<WriteArgs>();
  CLI::App* cmd = parquet.add_subcommand(
      "write", "Convert JSON Lines (one row per line, floe's JSON row form) to a Parquet file");
  cmd->add_option("--schema", args->schema_path, "Iceberg schema JSON file")->required();
  cmd->add_option("--codec", args->codec, "zstd (default), snappy, gzip, lz4_raw, uncompressed")
      ->check(OneOf({"zstd", "snappy", "gzip", "lz4_raw", "lz4", "uncompressed", "none"}));
  cmd->add_option("--compression-level", args->compression_level,
                  "codec level; 0 = codec default (zstd 1, gzip 6)")
      ->check(IntegerIn(0, 22));
  cmd->add_option("--row-group-size", args->row_group_size,
                  "row group size in bytes (default 134217728)")
      ->check(IntegerIn(1, int64_t{1} << 40));
  cmd->add_option("--page-size", args->page_size, "page size in bytes (default 1048576)")
      ->check(IntegerIn(1, int64_t{1} << 30));
  cmd->add_option("--dict-size", args->dict_size,
                  "dictionary size limit in bytes before falling back to PLAIN (default 2097152)")
      ->check(IntegerIn(0, int64_t{1} << 30));
  cmd->add_flag("--no-dictionary", args->no_dictionary, "PLAIN encoding only");
  cmd->add_option("--page-version", args->page_version, "data page version, 1 (default) or 2")
      ->check(CLI::IsMember({1, 2}));
  cmd->add_option("input", args->input, "JSON Lines file, or - for standard input")->required();
  cmd->add_option("output", args->output, "Parquet file to write")->required();
  SetCommandBody(*cmd, exit_code, [args] { return RunWrite(*args); });
}

}  // namespace floe::cli
