// `floe avro schema|cat|write`: inspect Avro container files and make them
// from JSON Lines. JSON conventions are those of floe/format/avro/json.h.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "floe/cli/atomic_output.h"
#include "floe/cli/cli_values.h"
#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/common/json_dump.h"
#include "floe/common/line_reader.h"
#include "floe/format/avro/data_file.h"
#include "floe/format/avro/json.h"
#include "floe/io/file_io.h"

namespace floe::cli {
namespace {

Result<format::avro::Schema> ReadSchemaFile(const std::string& path) {
  io::LocalFileIO fs;
  FLOE_ASSIGN_OR_RETURN(std::string text, fs.ReadAll(path));
  auto schema = format::avro::Schema::Parse(text);
  if (!schema) return std::unexpected(std::move(schema).error().WithContext(path));
  return schema;
}

Result<std::unique_ptr<format::avro::DataFileReader>> OpenReader(
    const std::string& path, format::avro::ReaderOptions options) {
  io::LocalFileIO fs;
  FLOE_ASSIGN_OR_RETURN(auto file, fs.OpenInput(path));
  return format::avro::DataFileReader::Open(std::move(file), std::move(options));
}

Status RunSchema(const std::string& path, bool schema_only) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenReader(path, {}));
  std::string text;
  if (schema_only) {
    text = reader->writer_schema().ToString(2);
  } else {
    format::avro::Json out = format::avro::Json::object();
    out["schema"] = reader->writer_schema().ToJson();
    out["codec"] = format::avro::CodecName(reader->codec());
    format::avro::Json metadata = format::avro::Json::object();
    for (const auto& [key, value] : reader->metadata()) {
      if (key != "avro.schema") metadata[key] = value;
    }
    out["metadata"] = std::move(metadata);
    text = DumpJson(out, 2);
  }
  text.push_back('\n');
  std::fwrite(text.data(), 1, text.size(), stdout);
  return Ok();
}

struct CatArgs {
  std::string path;
  std::string reader_schema;
  int64_t limit = -1;
  bool raw = false;
};

Status RunCat(const CatArgs& args) {
  format::avro::ReaderOptions options;
  if (!args.reader_schema.empty()) {
    FLOE_ASSIGN_OR_RETURN(options.reader_schema, ReadSchemaFile(args.reader_schema));
  }
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenReader(args.path, std::move(options)));
  format::avro::JsonOptions json_options{.logical_types = !args.raw};
  const format::avro::Node& root = reader->schema().root();
  format::avro::Datum datum;
  std::string line;
  for (int64_t n = 0; args.limit < 0 || n < args.limit; ++n) {
    FLOE_ASSIGN_OR_RETURN(bool more, reader->Next(&datum));
    if (!more) break;
    line.clear();
    format::avro::AppendDatumJson(root, datum, json_options, &line);
    line.push_back('\n');
    if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size()) {
      return IoError("writing to standard output failed");
    }
  }
  return Ok();
}

struct WriteArgs {
  std::string schema_path;
  std::string codec = "null";
  std::vector<std::string> metadata;
  size_t block_size = 64 * 1024;
  std::string input;
  std::string output;
};

Status RunWrite(const WriteArgs& args) {
  FLOE_ASSIGN_OR_RETURN(format::avro::Schema schema, ReadSchemaFile(args.schema_path));
  format::avro::WriterOptions options;
  FLOE_ASSIGN_OR_RETURN(options.codec, format::avro::ParseCodec(args.codec));
  options.block_size_bytes = args.block_size;
  for (const std::string& kv : args.metadata) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) return InvalidArgument("--meta '{}' is not key=value", kv);
    options.metadata[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  int fd = 0;
  if (args.input != "-") {
    fd = ::open(args.input.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return NotFound("cannot open {}", args.input);
      return IoError("cannot open {}: {}", args.input, std::strerror(errno));
    }
  }
  struct FdCloser {
    int fd;
    ~FdCloser() {
      if (fd > 0) ::close(fd);
    }
  } closer{fd};
  io::LocalFileIO fs;
  AtomicOutput output(fs, args.output);
  FLOE_ASSIGN_OR_RETURN(auto out, output.Create());
  FLOE_ASSIGN_OR_RETURN(
      auto writer, format::avro::DataFileWriter::Make(std::move(out), schema, std::move(options)));
  LineReader reader(ReadFromFileDescriptor(fd, args.input));
  for (uint64_t line_no = 1;; ++line_no) {
    FLOE_ASSIGN_OR_RETURN(std::optional<LineReader::Line> next, reader.Next());
    if (!next) break;
    std::string_view line = next->text;
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    format::avro::Json json = format::avro::Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded())
      return InvalidArgument("{} line {}: invalid JSON", args.input, line_no);
    auto datum = format::avro::DatumFromJson(schema.root(), json);
    if (!datum) {
      return std::unexpected(
          std::move(datum).error().WithContext(fmt::format("{} line {}", args.input, line_no)));
    }
    FLOE_RETURN_IF_ERROR(writer->Append(*datum));
  }
  FLOE_RETURN_IF_ERROR(writer->Close());
  return output.Commit();
}

}  // namespace

void AddAvroCommands(CLI::App& app, int* exit_code) {
  CLI::App* avro = app.add_subcommand("avro", "Inspect and write Avro container files");
  avro->require_subcommand(1);

  auto schema_path = std::make_shared<std::string>();
  auto schema_only = std::make_shared<bool>(false);
  CLI::App* schema =
      avro->add_subcommand("schema", "Print a file's writer schema, codec and metadata as JSON");
  schema->add_option("FILE", *schema_path, "Avro container file")->required();
  schema->add_flag("--schema-only", *schema_only, "Print only the writer schema (an .avsc)");
  SetCommandBody(*schema, exit_code,
                 [=]() -> CommandStatus { return RunSchema(*schema_path, *schema_only); });

  auto cat_args = std::make_shared<CatArgs>();
  CLI::App* cat = avro->add_subcommand("cat", "Print records as JSON Lines");
  cat->add_option("FILE", cat_args->path, "Avro container file")->required();
  cat->add_option("--limit", cat_args->limit, "Print at most N records")
      ->check(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  cat->add_option("--reader-schema", cat_args->reader_schema,
                  "Resolve records to this schema (.avsc file)");
  cat->add_flag("--raw", cat_args->raw,
                "Print logical types as their underlying values (as `write` reads them)");
  SetCommandBody(*cat, exit_code, [=]() -> CommandStatus { return RunCat(*cat_args); });

  auto write_args = std::make_shared<WriteArgs>();
  CLI::App* write = avro->add_subcommand(
      "write", "Convert JSON Lines (bytes/fixed as base64) into an Avro container file");
  write->add_option("--schema", write_args->schema_path, "Avro schema (.avsc file)")->required();
  write->add_option("--codec", write_args->codec, "null, deflate, snappy or zstandard")
      ->check(OneOf({"null", "deflate", "snappy", "zstandard"}));
  write->add_option("--meta", write_args->metadata, "File metadata key=value (repeatable)")
      ->check(KeyValueText());
  write->add_option("--block-size", write_args->block_size, "Block size in bytes (64 KiB)")
      ->check(IntegerIn(1, int64_t{1} << 30));
  write->add_option("IN", write_args->input, "JSON Lines input, - for stdin")->required();
  write->add_option("OUT", write_args->output, "Avro file to create (replaced only when complete)")
      ->required();
  SetCommandBody(*write, exit_code, [=]() -> CommandStatus { return RunWrite(*write_args); });
}

}  // namespace floe::cli
