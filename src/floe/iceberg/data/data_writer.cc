#include "floe/iceberg/data/data_writer.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "floe/format/parquet/compression.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/table_properties.h"
#include "floe/iceberg/update/table_metadata_builder.h"

namespace floe::iceberg {

namespace {

std::string TrimSlash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

DataFile ToDataFile(std::string path, std::vector<Literal> partition,
                    format::parquet::DataFileMetrics metrics) {
  DataFile f;
  static_cast<format::parquet::DataFileMetrics&>(f) = std::move(metrics);
  f.content = DataFileContent::kData;
  f.file_path = std::move(path);
  f.file_format = std::string(kFormatParquet);
  f.partition = std::move(partition);
  return f;
}

/// The folder of a partition's files: `<location>/data[/<partition path>]`.
std::string PartitionDir(const std::string& location, const PartitionSpec& spec,
                         const types::Schema& schema, std::span<const types::Value> values) {
  std::string dir = TrimSlash(location) + "/data";
  if (!spec.fields().empty()) {
    if (auto path = spec.PartitionPath(schema, values); path && !path->empty()) {
      dir += "/" + *path;
    }
  }
  return dir;
}

}  // namespace

Result<DataWriterOptions> DataWriterOptions::FromProperties(const TableMetadata& m) {
  DataWriterOptions o;
  o.target_file_size_bytes = std::max<int64_t>(
      1, m.PropertyAsInt(table_properties::kWriteTargetFileSizeBytes, o.target_file_size_bytes));
  auto codec = format::parquet::ParseCodecName(
      m.Property(table_properties::kWriteParquetCompressionCodec, "zstd"));
  if (!codec) {
    return InvalidArgument("table property {}: {}", table_properties::kWriteParquetCompressionCodec,
                           codec.error().message());
  }
  o.parquet.codec = *codec;
  o.parquet.compression_level =
      static_cast<int>(m.PropertyAsInt(table_properties::kWriteParquetCompressionLevel, 0));
  o.parquet.row_group_size_bytes = static_cast<size_t>(std::max<int64_t>(
      1024, m.PropertyAsInt(table_properties::kWriteParquetRowGroupSizeBytes, 128LL << 20)));
  o.parquet.page_size_bytes = static_cast<size_t>(std::max<int64_t>(
      64, m.PropertyAsInt(table_properties::kWriteParquetPageSizeBytes, 1 << 20)));
  o.parquet.page_row_limit = static_cast<size_t>(
      std::max<int64_t>(1, m.PropertyAsInt(table_properties::kWriteParquetPageRowLimit, 20000)));
  o.parquet.dict_size_bytes = static_cast<size_t>(
      std::max<int64_t>(0, m.PropertyAsInt(table_properties::kWriteParquetDictSizeBytes, 2 << 20)));
  std::string metrics = m.Property(table_properties::kWriteMetadataMetricsDefault, "");
  if (!metrics.empty()) {
    FLOE_ASSIGN_OR_RETURN(o.parquet.metrics, format::parquet::MetricsConfig::Parse(metrics));
  }
  return o;
}

struct DataWriter::OpenFile {
  std::vector<Literal> partition;
  std::string dir;
  std::string path;
  std::unique_ptr<format::parquet::ParquetWriter> writer;
  size_t file_index = 0;  // in paths_
};

DataWriter::DataWriter(io::FileIO& io, std::string location, types::Schema schema,
                       PartitionSpec spec, DataWriterOptions options,
                       PartitionTransformer transformer, types::TypePtr partition_type)
    : io_(io),
      location_(std::move(location)),
      schema_(std::move(schema)),
      spec_(std::move(spec)),
      options_(std::move(options)),
      transformer_(std::move(transformer)),
      partition_type_(std::move(partition_type)),
      partition_values_(transformer_.num_fields()) {}

DataWriter::~DataWriter() = default;

Result<std::unique_ptr<DataWriter>> DataWriter::Make(io::FileIO& io, const TableMetadata& metadata,
                                                     DataWriterOptions options) {
  const types::Schema* schema = metadata.CurrentSchema();
  const PartitionSpec* spec = metadata.DefaultSpec();
  if (schema == nullptr || spec == nullptr) {
    return InvalidArgument("table has no current schema or default partition spec");
  }
  return Make(io, metadata.location, *schema, *spec, std::move(options));
}

Result<std::unique_ptr<DataWriter>> DataWriter::Make(io::FileIO& io, std::string location,
                                                     types::Schema schema, PartitionSpec spec,
                                                     DataWriterOptions options) {
  FLOE_ASSIGN_OR_RETURN(auto transformer, PartitionTransformer::Make(spec, schema));
  FLOE_ASSIGN_OR_RETURN(auto partition_type, spec.PartitionType(schema));
  return std::unique_ptr<DataWriter>(
      new DataWriter(io, std::move(location), std::move(schema), std::move(spec),
                     std::move(options), std::move(transformer), std::move(partition_type)));
}

Status DataWriter::Write(types::Row row) {
  RowLocation location;
  return Write(row, &location);
}

Status DataWriter::Write(types::Row row, RowLocation* location) {
  FLOE_RETURN_IF_ERROR(transformer_.Apply(row, partition_values_.data()));
  key_.clear();
  const auto& pfields = partition_type_->fields();
  for (size_t i = 0; i < partition_values_.size(); ++i) {
    const types::Value& v = partition_values_[i];
    if (v.is_null()) {
      key_ += '\0';
      continue;
    }
    key_ += '\1';
    size_t at = key_.size();
    key_.append(4, '\0');
    FLOE_RETURN_IF_ERROR(AppendSingleValue(*pfields[i].type, v, &key_));
    uint32_t n = static_cast<uint32_t>(key_.size() - at - 4);
    std::memcpy(key_.data() + at, &n, 4);
  }
  auto it = open_.find(key_);
  if (it == open_.end()) {
    auto file = std::make_unique<OpenFile>();
    for (size_t i = 0; i < partition_values_.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(Literal l, Literal::FromValue(pfields[i].type, partition_values_[i]));
      file->partition.push_back(std::move(l));
    }
    file->dir = PartitionDir(location_, spec_, schema_, partition_values_);
    it = open_.emplace(key_, std::move(file)).first;
  }
  OpenFile& file = *it->second;
  if (!file.writer) {
    file.path = file.dir + "/" + GenerateUuid() + ".parquet";
    FLOE_ASSIGN_OR_RETURN(auto out, io_.CreateOutput(file.path));
    paths_.push_back(file.path);
    partitions_.push_back(file.partition);
    file.file_index = paths_.size() - 1;
    format::parquet::WriterOptions parquet = options_.parquet;
    parquet.file_size_watch = static_cast<uint64_t>(options_.target_file_size_bytes);
    FLOE_ASSIGN_OR_RETURN(file.writer, format::parquet::ParquetWriter::Open(std::move(out), schema_,
                                                                            std::move(parquet)));
  }
  int64_t pos = file.writer->num_rows();
  FLOE_RETURN_IF_ERROR(file.writer->Append(row));
  location->file_index = file.file_index;
  location->pos = pos;
  ++rows_;
  if (static_cast<int64_t>(file.writer->estimated_size()) >= options_.target_file_size_bytes) {
    FLOE_RETURN_IF_ERROR(Roll(file));
  }
  return Ok();
}

Status DataWriter::Roll(OpenFile& file) {
  if (!file.writer) return Ok();
  auto metrics = file.writer->Close();
  file.writer.reset();
  if (!metrics) {
    return std::unexpected(
        std::move(metrics).error().WithContext(fmt::format("writing data file {}", file.path)));
  }
  done_.push_back(ToDataFile(file.path, file.partition, *std::move(metrics)));
  return Ok();
}

size_t DataWriter::buffered_bytes() const {
  size_t total = 0;
  for (const auto& [key, file] : open_) {
    if (file->writer) total += file->writer->buffered_bytes();
  }
  return total;
}

Status DataWriter::Flush() {
  for (auto& [key, file] : open_) {
    if (!file->writer) continue;
    FLOE_RETURN_IF_ERROR_CTX(file->writer->Flush(), "writing data file {}", file->path);
  }
  return Ok();
}

Status DataWriter::CloseFiles() {
  for (auto& [key, file] : open_) FLOE_RETURN_IF_ERROR(Roll(*file));
  return Ok();
}

size_t DataWriter::num_open_files() const {
  size_t n = 0;
  for (const auto& [key, file] : open_) n += file->writer ? 1 : 0;
  return n;
}

Result<std::vector<DataFile>> DataWriter::Close() {
  for (auto& [key, file] : open_) FLOE_RETURN_IF_ERROR(Roll(*file));
  open_.clear();
  return std::move(done_);
}

void DataWriter::Abort() {
  open_.clear();
  for (const auto& p : paths_) (void)io_.Delete(p);
  paths_.clear();
  partitions_.clear();
  done_.clear();
}

const types::Schema& PositionDeleteSchema() {
  static const types::Schema* schema = new types::Schema(std::vector<types::NestedField>{
      {2147483546, "file_path", true, types::Type::String(), ""},
      {2147483545, "pos", true, types::Type::Long(), ""},
  });
  return *schema;
}

Result<DataFile> WritePositionDeletes(io::FileIO& io, const TableMetadata& metadata,
                                      int32_t spec_id, const std::vector<Literal>& partition,
                                      std::vector<PositionDelete> deletes,
                                      const DataWriterOptions& options) {
  // Each distinct path once, the deletes by ordinal.
  std::unordered_map<std::string_view, uint32_t> ordinals;
  std::vector<std::string_view> paths;
  std::vector<PositionDeleteRef> refs;
  refs.reserve(deletes.size());
  for (const PositionDelete& d : deletes) {
    auto [it, inserted] = ordinals.try_emplace(d.file_path, static_cast<uint32_t>(paths.size()));
    if (inserted) paths.push_back(d.file_path);
    refs.push_back(PositionDeleteRef{it->second, d.pos});
  }
  return WritePositionDeletes(io, metadata, spec_id, partition, paths, std::move(refs), options);
}

Result<DataFile> WritePositionDeletes(io::FileIO& io, const TableMetadata& metadata,
                                      int32_t spec_id, const std::vector<Literal>& partition,
                                      std::span<const std::string_view> file_paths,
                                      std::vector<PositionDeleteRef> deletes,
                                      const DataWriterOptions& options) {
  const PartitionSpec* spec = metadata.SpecById(spec_id);
  const types::Schema* schema = metadata.CurrentSchema();
  if (spec == nullptr || schema == nullptr) {
    return InvalidArgument("position deletes for unknown partition spec {}", spec_id);
  }
  if (deletes.empty()) return InvalidArgument("no position deletes to write");

  // Rank the files the deletes name by path (a few files for many deletes);
  // ordinals of equal paths share a rank.
  constexpr uint32_t kUnranked = UINT32_MAX;
  std::vector<uint32_t> rank(file_paths.size(), kUnranked);
  std::vector<uint32_t> named;  // distinct ordinals
  int64_t max_pos = 0;
  for (const PositionDeleteRef& d : deletes) {
    if (d.file >= file_paths.size()) {
      return InvalidArgument("position delete names data file {} of {}", d.file, file_paths.size());
    }
    if (d.pos < 0) return InvalidArgument("position delete at negative position {}", d.pos);
    if (rank[d.file] == kUnranked) {
      rank[d.file] = 0;
      named.push_back(d.file);
    }
    max_pos = std::max(max_pos, d.pos);
  }
  std::sort(named.begin(), named.end(),
            [&](uint32_t a, uint32_t b) { return file_paths[a] < file_paths[b]; });
  std::vector<std::string_view> ranked;  // path of each rank
  for (uint32_t file : named) {
    if (ranked.empty() || ranked.back() != file_paths[file]) ranked.push_back(file_paths[file]);
    rank[file] = static_cast<uint32_t>(ranked.size() - 1);
  }

  std::vector<types::Value> values;
  for (const auto& l : partition) values.push_back(l.value());
  std::string path = PartitionDir(metadata.location, *spec, *schema, values) + "/" +
                     GenerateUuid() + "-deletes.parquet";
  FLOE_ASSIGN_OR_RETURN(auto out, io.CreateOutput(path));
  // Full bounds: readers match file_path bounds against data file paths.
  format::parquet::WriterOptions parquet_options = options.parquet;
  parquet_options.metrics.mode = format::parquet::MetricsConfig::Mode::kFull;
  FLOE_ASSIGN_OR_RETURN(auto writer, format::parquet::ParquetWriter::Open(
                                         std::move(out), PositionDeleteSchema(), parquet_options));
  types::Value row[2];
  auto append = [&](uint32_t file_rank, int64_t pos) -> Status {
    row[0] = types::Value::Bytes(ranked[file_rank]);
    row[1] = types::Value::Int64(pos);
    return writer->Append(types::Row(row, 2));
  };
  Status written = Ok();
  // Sorted as one integer each (rank above the position) when both fit,
  // else as (rank, position) pairs.
  constexpr int kPosBits = 40;
  if (max_pos < (int64_t{1} << kPosBits) && ranked.size() <= (size_t{1} << (64 - kPosBits))) {
    std::vector<uint64_t> keys(deletes.size());
    for (size_t i = 0; i < deletes.size(); ++i) {
      keys[i] = static_cast<uint64_t>(rank[deletes[i].file]) << kPosBits |
                static_cast<uint64_t>(deletes[i].pos);
    }
    std::sort(keys.begin(), keys.end());
    constexpr uint64_t kPosMask = (uint64_t{1} << kPosBits) - 1;
    for (size_t i = 0; i < keys.size() && written; ++i) {
      written = append(static_cast<uint32_t>(keys[i] >> kPosBits),
                       static_cast<int64_t>(keys[i] & kPosMask));
    }
  } else {
    for (PositionDeleteRef& d : deletes) d.file = rank[d.file];
    std::sort(deletes.begin(), deletes.end(),
              [](const PositionDeleteRef& a, const PositionDeleteRef& b) {
                return a.file != b.file ? a.file < b.file : a.pos < b.pos;
              });
    for (size_t i = 0; i < deletes.size() && written; ++i) {
      written = append(deletes[i].file, deletes[i].pos);
    }
  }
  if (!written) {
    (void)io.Delete(path);
    return std::unexpected(std::move(written).error().WithContext(fmt::format("writing {}", path)));
  }
  auto metrics = writer->Close();
  if (!metrics) {
    (void)io.Delete(path);
    return std::unexpected(std::move(metrics).error().WithContext(fmt::format("writing {}", path)));
  }
  DataFile f = ToDataFile(path, partition, *std::move(metrics));
  f.content = DataFileContent::kPositionDeletes;
  if (ranked.size() == 1) f.referenced_data_file = std::string(ranked.front());
  return f;
}

}  // namespace floe::iceberg
