#include "floe/iceberg/manifest/manifest.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/format/avro/data_file.h"
#include "floe/iceberg/json/partition_spec_json.h"
#include "floe/iceberg/manifest/manifest_avro_schema.h"
#include "floe/iceberg/single_value.h"
#include "floe/types/schema_json.h"

namespace floe::iceberg {

using format::avro::Datum;
using types::TypePtr;
namespace mf = manifest_field;

namespace {

// ---------------------------------------------------------------- writing

Datum OptLong(const std::optional<int64_t>& v) { return v ? Datum::Long(*v) : Datum::Null(); }
Datum OptInt(const std::optional<int32_t>& v) { return v ? Datum::Int(*v) : Datum::Null(); }

Datum IntLongMap(const std::map<int32_t, int64_t>& m) {
  if (m.empty()) return Datum::Null();
  std::vector<Datum> items;
  items.reserve(m.size());
  for (const auto& [k, v] : m) items.push_back(Datum::Record({Datum::Int(k), Datum::Long(v)}));
  return Datum::Array(std::move(items));
}

Datum IntBytesMap(const std::map<int32_t, std::string>& m) {
  if (m.empty()) return Datum::Null();
  std::vector<Datum> items;
  items.reserve(m.size());
  for (const auto& [k, v] : m) items.push_back(Datum::Record({Datum::Int(k), Datum::Bytes(v)}));
  return Datum::Array(std::move(items));
}

template <typename T>
Datum LongArray(const std::vector<T>& v, bool as_int) {
  if (v.empty()) return Datum::Null();
  std::vector<Datum> items;
  items.reserve(v.size());
  for (T x : v) {
    items.push_back(as_int ? Datum::Int(static_cast<int32_t>(x)) : Datum::Long(x));
  }
  return Datum::Array(std::move(items));
}

struct FieldSummaryState {
  bool contains_null = false;
  bool contains_nan = false;
  std::optional<Literal> lower;
  std::optional<Literal> upper;
};

class ManifestWriterImpl final : public ManifestWriter {
 public:
  ManifestWriterImpl(std::string path, int format_version, int32_t spec_id, ManifestContent content,
                     std::optional<SnapshotId> snapshot_id, TypePtr partition_type,
                     std::unique_ptr<format::avro::DataFileWriter> writer)
      : path_(std::move(path)),
        format_version_(format_version),
        spec_id_(spec_id),
        content_(content),
        snapshot_id_(snapshot_id),
        partition_type_(std::move(partition_type)),
        writer_(std::move(writer)),
        summaries_(partition_type_->fields().size()) {}

  Status Add(const ManifestEntry& entry) override;
  int64_t entry_count() const override { return entry_count_; }
  int64_t bytes_written() const override { return static_cast<int64_t>(writer_->length()); }
  Result<ManifestFile> Close() override;

 private:
  Result<std::vector<Literal>> CanonicalPartition(const DataFile& file) const;
  Result<Datum> EntryDatum(const ManifestEntry& e, const std::vector<Literal>& partition) const;
  void UpdateSummaries(const std::vector<Literal>& partition);

  std::string path_;
  int format_version_;
  int32_t spec_id_;
  ManifestContent content_;
  std::optional<SnapshotId> snapshot_id_;
  TypePtr partition_type_;
  std::unique_ptr<format::avro::DataFileWriter> writer_;
  std::vector<FieldSummaryState> summaries_;
  bool closed_ = false;
  int64_t entry_count_ = 0;
  int32_t added_files_ = 0;
  int32_t existing_files_ = 0;
  int32_t deleted_files_ = 0;
  int64_t added_rows_ = 0;
  int64_t existing_rows_ = 0;
  int64_t deleted_rows_ = 0;
  std::optional<int64_t> min_sequence_number_;
};

Result<std::vector<Literal>> ManifestWriterImpl::CanonicalPartition(const DataFile& file) const {
  const auto& fields = partition_type_->fields();
  if (file.partition.size() != fields.size()) {
    return InvalidArgument(
        "manifest {}: data file {} has {} partition values, spec {} has {} fields", path_,
        file.file_path, file.partition.size(), spec_id_, fields.size());
  }
  std::vector<Literal> out;
  out.reserve(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const Literal& l = file.partition[i];
    const TypePtr& type = fields[i].type;
    if (l.is_null()) {
      out.push_back(Literal::Null(type));
      continue;
    }
    if (l.type() && l.type()->Equals(*type)) {
      out.push_back(l);
      continue;
    }
    // A literal of another type (an int for a long field, for example) is
    // converted when no information is lost.
    auto converted = l.To(type);
    if (!converted || converted->special() != Literal::Special::kNone) {
      return InvalidArgument(
          "manifest {}: data file {}: partition field '{}' ({}): value {} is not a {}", path_,
          file.file_path, fields[i].name, fields[i].id, l.ToString(), type->ToString());
    }
    out.push_back(std::move(*converted));
  }
  return out;
}

Result<Datum> ManifestWriterImpl::EntryDatum(const ManifestEntry& e,
                                             const std::vector<Literal>& partition) const {
  const DataFile& f = e.data_file;
  const auto& pfields = partition_type_->fields();
  std::vector<Datum> pvalues;
  pvalues.reserve(pfields.size());
  for (size_t i = 0; i < pfields.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(
        Datum d, PartitionValueToDatum(*pfields[i].type, partition[i],
                                       fmt::format("partition field '{}'", pfields[i].name)));
    pvalues.push_back(std::move(d));
  }
  const bool v1 = format_version_ == 1;
  std::vector<Datum> df;
  df.reserve(24);
  if (!v1) df.push_back(Datum::Int(static_cast<int32_t>(f.content)));
  df.push_back(Datum::String(f.file_path));
  // Upper case as Iceberg Java and PyIceberg write it; readers ignore case.
  std::string format = f.file_format;
  for (char& c : format) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  df.push_back(Datum::String(std::move(format)));
  df.push_back(Datum::Record(std::move(pvalues)));
  df.push_back(Datum::Long(f.record_count));
  df.push_back(Datum::Long(f.file_size_in_bytes));
  if (v1) df.push_back(Datum::Long(kV1DefaultBlockSize));
  df.push_back(IntLongMap(f.column_sizes));
  df.push_back(IntLongMap(f.value_counts));
  df.push_back(IntLongMap(f.null_value_counts));
  df.push_back(IntLongMap(f.nan_value_counts));
  df.push_back(IntBytesMap(f.lower_bounds));
  df.push_back(IntBytesMap(f.upper_bounds));
  df.push_back(OptionalBytesDatum(f.key_metadata));
  df.push_back(LongArray(f.split_offsets, /*as_int=*/false));
  if (!v1) df.push_back(LongArray(f.equality_ids, /*as_int=*/true));
  df.push_back(OptInt(f.sort_order_id));
  if (format_version_ >= 3) {
    df.push_back(OptLong(f.first_row_id));
    df.push_back(f.referenced_data_file ? Datum::String(*f.referenced_data_file) : Datum::Null());
    df.push_back(OptLong(f.content_offset));
    df.push_back(OptLong(f.content_size_in_bytes));
  }
  std::vector<Datum> fields;
  fields.reserve(5);
  fields.push_back(Datum::Int(static_cast<int32_t>(e.status)));
  fields.push_back(OptLong(e.snapshot_id));
  if (!v1) {
    fields.push_back(OptLong(e.sequence_number));
    fields.push_back(OptLong(e.file_sequence_number));
  }
  fields.push_back(Datum::Record(std::move(df)));
  return Datum::Record(std::move(fields));
}

void ManifestWriterImpl::UpdateSummaries(const std::vector<Literal>& partition) {
  const auto& pfields = partition_type_->fields();
  for (size_t i = 0; i < pfields.size(); ++i) {
    FieldSummaryState& s = summaries_[i];
    const Literal& l = partition[i];
    if (l.is_null()) {
      s.contains_null = true;
      continue;
    }
    if (IsNaN(l.value())) {
      s.contains_nan = true;
      continue;
    }
    const types::Type& type = *pfields[i].type;
    if (!s.lower || CompareValues(type, l.value(), s.lower->value()) < 0) s.lower = l;
    if (!s.upper || CompareValues(type, l.value(), s.upper->value()) > 0) s.upper = l;
  }
}

Status ManifestWriterImpl::Add(const ManifestEntry& in) {
  if (closed_) return InvalidArgument("manifest {}: Add after Close", path_);
  ManifestEntry e = in;
  const DataFile& f = e.data_file;
  const bool delete_manifest = content_ == ManifestContent::kDeletes;
  if (f.is_delete() != delete_manifest) {
    return InvalidArgument("manifest {}: a {} manifest cannot hold {} file {}", path_,
                           delete_manifest ? "deletes" : "data", DataFileContentName(f.content),
                           f.file_path);
  }
  if (e.status != ManifestEntryStatus::kExisting && !e.snapshot_id) e.snapshot_id = snapshot_id_;
  if (format_version_ == 1 && !e.snapshot_id) {
    return InvalidArgument("manifest {}: v1 entry for {} needs a snapshot id", path_, f.file_path);
  }
  if (format_version_ >= 2 && e.status != ManifestEntryStatus::kAdded && !e.sequence_number) {
    return InvalidArgument(
        "manifest {}: {} entry for {} needs its data sequence number (spec: only ADDED entries "
        "inherit)",
        path_, e.status == ManifestEntryStatus::kExisting ? "EXISTING" : "DELETED", f.file_path);
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<Literal> partition, CanonicalPartition(f));
  auto datum = EntryDatum(e, partition);
  if (!datum) {
    return std::unexpected(
        std::move(datum).error().WithContext(fmt::format("manifest {}: {}", path_, f.file_path)));
  }
  FLOE_RETURN_IF_ERROR_CTX(writer_->Append(*datum), "manifest {}: {}", path_, f.file_path);

  ++entry_count_;
  switch (e.status) {
    case ManifestEntryStatus::kAdded:
      ++added_files_;
      added_rows_ += f.record_count;
      break;
    case ManifestEntryStatus::kExisting:
      ++existing_files_;
      existing_rows_ += f.record_count;
      break;
    case ManifestEntryStatus::kDeleted:
      ++deleted_files_;
      deleted_rows_ += f.record_count;
      break;
  }
  if (e.status != ManifestEntryStatus::kDeleted && e.sequence_number) {
    if (!min_sequence_number_ || *e.sequence_number < *min_sequence_number_) {
      min_sequence_number_ = *e.sequence_number;
    }
  }
  UpdateSummaries(partition);
  return Ok();
}

Result<ManifestFile> ManifestWriterImpl::Close() {
  if (closed_) return InvalidArgument("manifest {}: closed twice", path_);
  FLOE_RETURN_IF_ERROR_CTX(writer_->Close(), "closing manifest {}", path_);
  closed_ = true;
  ManifestFile m;
  m.manifest_path = path_;
  m.manifest_length = static_cast<int64_t>(writer_->length());
  m.partition_spec_id = spec_id_;
  m.content = content_;
  m.sequence_number = kUnassignedSequenceNumber;
  m.min_sequence_number = min_sequence_number_.value_or(kUnassignedSequenceNumber);
  m.added_snapshot_id = snapshot_id_.value_or(0);
  m.added_files_count = added_files_;
  m.existing_files_count = existing_files_;
  m.deleted_files_count = deleted_files_;
  m.added_rows_count = added_rows_;
  m.existing_rows_count = existing_rows_;
  m.deleted_rows_count = deleted_rows_;
  const auto& pfields = partition_type_->fields();
  m.partitions.reserve(pfields.size());
  for (size_t i = 0; i < pfields.size(); ++i) {
    const FieldSummaryState& s = summaries_[i];
    PartitionFieldSummary out;
    out.contains_null = s.contains_null;
    out.contains_nan = s.contains_nan;
    if (s.lower) {
      FLOE_ASSIGN_OR_RETURN(out.lower_bound,
                            SerializeSingleValue(*pfields[i].type, s.lower->value()));
    }
    if (s.upper) {
      FLOE_ASSIGN_OR_RETURN(out.upper_bound,
                            SerializeSingleValue(*pfields[i].type, s.upper->value()));
    }
    m.partitions.push_back(std::move(out));
  }
  return m;
}

// ---------------------------------------------------------------- reading

/// Where each field the reader wants sits in the writer's records.
struct EntryPlan {
  int status = -1, snapshot_id = -1, sequence_number = -1, file_sequence_number = -1;
  int data_file = -1;
  // data_file fields
  int content = -1, file_path = -1, file_format = -1, partition = -1, record_count = -1,
      file_size = -1, column_sizes = -1, value_counts = -1, null_value_counts = -1,
      nan_value_counts = -1, lower_bounds = -1, upper_bounds = -1, key_metadata = -1,
      split_offsets = -1, equality_ids = -1, sort_order_id = -1, first_row_id = -1,
      referenced_data_file = -1, content_offset = -1, content_size = -1;
  /// For each partition field of the spec, the writer's partition field index or -1.
  std::vector<int> partition_fields;
};

Result<EntryPlan> MakeEntryPlan(const format::avro::Schema& writer,
                                const types::Type& partition_type, const std::string& path) {
  EntryPlan p;
  const format::avro::Node* root = UnwrapRecord(&writer.root());
  if (root == nullptr) return Corruption("manifest {}: the Avro schema is not a record", path);
  p.status = FieldIndexById(*root, mf::kStatus);
  p.snapshot_id = FieldIndexById(*root, mf::kSnapshotId);
  p.sequence_number = FieldIndexById(*root, mf::kSequenceNumber);
  p.file_sequence_number = FieldIndexById(*root, mf::kFileSequenceNumber);
  p.data_file = FieldIndexById(*root, mf::kDataFile);
  if (p.status < 0 || p.data_file < 0) {
    return Corruption("manifest {}: not a manifest (no field-id {} status or {} data_file)", path,
                      mf::kStatus, mf::kDataFile);
  }
  const format::avro::Node* df =
      UnwrapRecord(root->fields()[static_cast<size_t>(p.data_file)].type);
  if (df == nullptr) return Corruption("manifest {}: data_file is not a record", path);
  p.content = FieldIndexById(*df, mf::kContent);
  p.file_path = FieldIndexById(*df, mf::kFilePath);
  p.file_format = FieldIndexById(*df, mf::kFileFormat);
  p.partition = FieldIndexById(*df, mf::kPartition);
  p.record_count = FieldIndexById(*df, mf::kRecordCount);
  p.file_size = FieldIndexById(*df, mf::kFileSizeInBytes);
  p.column_sizes = FieldIndexById(*df, mf::kColumnSizes);
  p.value_counts = FieldIndexById(*df, mf::kValueCounts);
  p.null_value_counts = FieldIndexById(*df, mf::kNullValueCounts);
  p.nan_value_counts = FieldIndexById(*df, mf::kNanValueCounts);
  p.lower_bounds = FieldIndexById(*df, mf::kLowerBounds);
  p.upper_bounds = FieldIndexById(*df, mf::kUpperBounds);
  p.key_metadata = FieldIndexById(*df, mf::kKeyMetadata);
  p.split_offsets = FieldIndexById(*df, mf::kSplitOffsets);
  p.equality_ids = FieldIndexById(*df, mf::kEqualityIds);
  p.sort_order_id = FieldIndexById(*df, mf::kSortOrderId);
  p.first_row_id = FieldIndexById(*df, mf::kFirstRowId);
  p.referenced_data_file = FieldIndexById(*df, mf::kReferencedDataFile);
  p.content_offset = FieldIndexById(*df, mf::kContentOffset);
  p.content_size = FieldIndexById(*df, mf::kContentSizeInBytes);
  for (auto [index, id] : {std::pair{p.file_path, mf::kFilePath},
                           {p.file_format, mf::kFileFormat},
                           {p.record_count, mf::kRecordCount},
                           {p.file_size, mf::kFileSizeInBytes}}) {
    if (index < 0) return Corruption("manifest {}: data_file has no field-id {}", path, id);
  }
  const auto& pfields = partition_type.fields();
  p.partition_fields.assign(pfields.size(), -1);
  if (!pfields.empty()) {
    if (p.partition < 0) return Corruption("manifest {}: data_file has no partition", path);
    const format::avro::Node* part =
        UnwrapRecord(df->fields()[static_cast<size_t>(p.partition)].type);
    if (part == nullptr)
      return Corruption("manifest {}: data_file.partition is not a record", path);
    bool any_ids = false;
    for (const auto& f : part->fields()) any_ids = any_ids || f.field_id.has_value();
    for (size_t i = 0; i < pfields.size(); ++i) {
      int idx = FieldIndexById(*part, pfields[i].id);
      if (idx < 0 && !any_ids) {
        // Old v1 writers: no partition field ids; match by name, then by position.
        auto by_name = part->FieldIndex(AvroSafeName(pfields[i].name));
        if (by_name) {
          idx = static_cast<int>(*by_name);
        } else if (i < part->fields().size()) {
          idx = static_cast<int>(i);
        }
      }
      p.partition_fields[i] = idx;
    }
  }
  return p;
}

/// Reads a map<int, long> or map<int, bytes> written as an array of key/value
/// records (or, leniently, as an Avro map with decimal keys).
template <typename V, typename Convert>
Status ReadIntMap(const Datum* d, std::string_view what, std::map<int32_t, V>* out,
                  Convert convert) {
  out->clear();
  if (d == nullptr) return Ok();
  if (d->type() == format::avro::Type::kArray) {
    for (const Datum& item : d->children()) {
      if (item.type() != format::avro::Type::kRecord || item.children().size() < 2) {
        return Corruption("{}: map entry is not a key/value record", what);
      }
      FLOE_ASSIGN_OR_RETURN(int32_t key, DatumInt32(item.children()[0], what));
      FLOE_ASSIGN_OR_RETURN(V value, convert(item.children()[1], what));
      (*out)[key] = std::move(value);
    }
    return Ok();
  }
  if (d->type() == format::avro::Type::kMap) {
    for (size_t i = 0; i < d->keys().size(); ++i) {
      const std::string& k = d->keys()[i];
      int32_t key = 0;
      auto [ptr, ec] = std::from_chars(k.data(), k.data() + k.size(), key);
      if (ec != std::errc() || ptr != k.data() + k.size()) {
        return Corruption("{}: map key '{}' is not a field id", what, k);
      }
      FLOE_ASSIGN_OR_RETURN(V value, convert(d->children()[i], what));
      (*out)[key] = std::move(value);
    }
    return Ok();
  }
  return Corruption("{}: expected a map, found Avro {}", what, format::avro::TypeName(d->type()));
}

Status DecodeEntry(const Datum& record, const EntryPlan& p, const types::Type& partition_type,
                   ManifestEntry* e) {
  if (record.type() != format::avro::Type::kRecord) return Corruption("entry is not a record");
  const Datum* status = FieldOrNull(record, p.status);
  if (status == nullptr) return Corruption("status is null");
  FLOE_ASSIGN_OR_RETURN(int32_t st, DatumInt32(*status, "status"));
  if (st < 0 || st > 2) return Corruption("status {} is not 0, 1 or 2", st);
  e->status = static_cast<ManifestEntryStatus>(st);
  e->snapshot_id.reset();
  e->sequence_number.reset();
  e->file_sequence_number.reset();
  if (const Datum* d = FieldOrNull(record, p.snapshot_id)) {
    FLOE_ASSIGN_OR_RETURN(e->snapshot_id, DatumInteger(*d, "snapshot_id"));
  }
  if (const Datum* d = FieldOrNull(record, p.sequence_number)) {
    FLOE_ASSIGN_OR_RETURN(e->sequence_number, DatumInteger(*d, "sequence_number"));
  }
  if (const Datum* d = FieldOrNull(record, p.file_sequence_number)) {
    FLOE_ASSIGN_OR_RETURN(e->file_sequence_number, DatumInteger(*d, "file_sequence_number"));
  }
  const Datum* dfd = FieldOrNull(record, p.data_file);
  if (dfd == nullptr || dfd->type() != format::avro::Type::kRecord) {
    return Corruption("data_file is null or not a record");
  }
  DataFile& f = e->data_file;
  f = DataFile{};
  if (const Datum* d = FieldOrNull(*dfd, p.content)) {
    FLOE_ASSIGN_OR_RETURN(int32_t c, DatumInt32(*d, "content"));
    if (c < 0 || c > 2) return Corruption("data_file.content {} is not 0, 1 or 2", c);
    f.content = static_cast<DataFileContent>(c);
  }
  const Datum* path = FieldOrNull(*dfd, p.file_path);
  if (path == nullptr) return Corruption("data_file.file_path is null");
  FLOE_ASSIGN_OR_RETURN(f.file_path, DatumText(*path, "file_path"));
  const Datum* format = FieldOrNull(*dfd, p.file_format);
  if (format == nullptr) return Corruption("{}: file_format is null", f.file_path);
  FLOE_ASSIGN_OR_RETURN(f.file_format, DatumText(*format, "file_format"));
  for (char& c : f.file_format) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

  const auto& pfields = partition_type.fields();
  f.partition.clear();
  f.partition.reserve(pfields.size());
  const Datum* part = FieldOrNull(*dfd, p.partition);
  if (!pfields.empty() && (part == nullptr || part->type() != format::avro::Type::kRecord)) {
    return Corruption("{}: partition is null or not a record", f.file_path);
  }
  for (size_t i = 0; i < pfields.size(); ++i) {
    const Datum* v = FieldOrNull(*part, p.partition_fields[i]);
    std::string what =
        fmt::format("{}: partition field '{}' ({})", f.file_path, pfields[i].name, pfields[i].id);
    FLOE_ASSIGN_OR_RETURN(Literal l,
                          PartitionValueFromDatum(pfields[i].type, v ? *v : Datum::Null(), what));
    f.partition.push_back(std::move(l));
  }

  const Datum* rc = FieldOrNull(*dfd, p.record_count);
  const Datum* fs = FieldOrNull(*dfd, p.file_size);
  if (rc == nullptr || fs == nullptr) {
    return Corruption("{}: record_count or file_size_in_bytes is null", f.file_path);
  }
  FLOE_ASSIGN_OR_RETURN(f.record_count, DatumInteger(*rc, "record_count"));
  FLOE_ASSIGN_OR_RETURN(f.file_size_in_bytes, DatumInteger(*fs, "file_size_in_bytes"));

  auto as_long = [](const Datum& d, std::string_view what) { return DatumInteger(d, what); };
  auto as_bytes = [](const Datum& d, std::string_view what) { return DatumText(d, what); };
  FLOE_RETURN_IF_ERROR(
      ReadIntMap(FieldOrNull(*dfd, p.column_sizes), "column_sizes", &f.column_sizes, as_long));
  FLOE_RETURN_IF_ERROR(
      ReadIntMap(FieldOrNull(*dfd, p.value_counts), "value_counts", &f.value_counts, as_long));
  FLOE_RETURN_IF_ERROR(ReadIntMap(FieldOrNull(*dfd, p.null_value_counts), "null_value_counts",
                                  &f.null_value_counts, as_long));
  FLOE_RETURN_IF_ERROR(ReadIntMap(FieldOrNull(*dfd, p.nan_value_counts), "nan_value_counts",
                                  &f.nan_value_counts, as_long));
  FLOE_RETURN_IF_ERROR(
      ReadIntMap(FieldOrNull(*dfd, p.lower_bounds), "lower_bounds", &f.lower_bounds, as_bytes));
  FLOE_RETURN_IF_ERROR(
      ReadIntMap(FieldOrNull(*dfd, p.upper_bounds), "upper_bounds", &f.upper_bounds, as_bytes));
  if (const Datum* d = FieldOrNull(*dfd, p.key_metadata)) {
    FLOE_ASSIGN_OR_RETURN(f.key_metadata, DatumText(*d, "key_metadata"));
  }
  if (const Datum* d = FieldOrNull(*dfd, p.split_offsets)) {
    if (d->type() != format::avro::Type::kArray) return Corruption("split_offsets is not an array");
    for (const Datum& x : d->children()) {
      FLOE_ASSIGN_OR_RETURN(int64_t v, DatumInteger(x, "split_offsets"));
      f.split_offsets.push_back(v);
    }
  }
  if (const Datum* d = FieldOrNull(*dfd, p.equality_ids)) {
    if (d->type() != format::avro::Type::kArray) return Corruption("equality_ids is not an array");
    for (const Datum& x : d->children()) {
      FLOE_ASSIGN_OR_RETURN(int32_t v, DatumInt32(x, "equality_ids"));
      f.equality_ids.push_back(v);
    }
  }
  if (const Datum* d = FieldOrNull(*dfd, p.sort_order_id)) {
    FLOE_ASSIGN_OR_RETURN(f.sort_order_id, DatumInt32(*d, "sort_order_id"));
  }
  if (const Datum* d = FieldOrNull(*dfd, p.first_row_id)) {
    FLOE_ASSIGN_OR_RETURN(f.first_row_id, DatumInteger(*d, "first_row_id"));
  }
  if (const Datum* d = FieldOrNull(*dfd, p.referenced_data_file)) {
    FLOE_ASSIGN_OR_RETURN(f.referenced_data_file, DatumText(*d, "referenced_data_file"));
  }
  if (const Datum* d = FieldOrNull(*dfd, p.content_offset)) {
    FLOE_ASSIGN_OR_RETURN(f.content_offset, DatumInteger(*d, "content_offset"));
  }
  if (const Datum* d = FieldOrNull(*dfd, p.content_size)) {
    FLOE_ASSIGN_OR_RETURN(f.content_size_in_bytes, DatumInteger(*d, "content_size_in_bytes"));
  }
  return Ok();
}

std::optional<int64_t> MetadataInt(const format::avro::FileMetadata& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end()) return std::nullopt;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

/// Turns errors of reading a manifest into kCorruption naming it (kNotFound
/// and I/O errors keep their code).
Error AsManifestError(Error e, const std::string& path) {
  return AsManifestFileError(std::move(e), "manifest", path);
}

/// The partition type to read a manifest with: the spec over the table's
/// current schema, else over the schema the manifest was written with.
Result<TypePtr> ReadPartitionType(const PartitionSpec& spec, const TableMetadata& metadata,
                                  const format::avro::FileMetadata& file_meta,
                                  const std::string& path) {
  if (const types::Schema* current = metadata.CurrentSchema()) {
    if (auto t = spec.PartitionType(*current)) return *t;
  }
  if (auto id = MetadataInt(file_meta, "schema-id")) {
    if (const types::Schema* s = metadata.SchemaById(static_cast<int32_t>(*id))) {
      if (auto t = spec.PartitionType(*s)) return *t;
    }
  }
  auto it = file_meta.find("schema");
  if (it != file_meta.end()) {
    auto json = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
    if (!json.is_discarded()) {
      if (auto s = types::SchemaFromJson(json, /*corruption=*/true)) {
        if (auto t = spec.PartitionType(*s)) return *t;
      }
    }
  }
  return Corruption("manifest {}: no schema has the source columns of partition spec {} ({})", path,
                    spec.spec_id(), spec.ToString());
}

}  // namespace

Result<std::unique_ptr<ManifestWriter>> ManifestWriter::Open(
    io::FileIO& io, std::string path, int format_version, const types::Schema& schema,
    const PartitionSpec& spec, ManifestContent content, std::optional<SnapshotId> snapshot_id) {
  if (format_version < kMinFormatVersion || format_version > kMaxFormatVersion) {
    return InvalidArgument("manifest {}: format version {} is not supported", path, format_version);
  }
  if (format_version == 1 && content == ManifestContent::kDeletes) {
    return InvalidArgument("manifest {}: format version 1 has no delete manifests", path);
  }
  FLOE_RETURN_IF_ERROR_CTX(spec.Validate(schema), "manifest {}", path);
  FLOE_ASSIGN_OR_RETURN(TypePtr partition_type, spec.PartitionType(schema));
  FLOE_ASSIGN_OR_RETURN(format::avro::Schema avro_schema,
                        ManifestEntryAvroSchema(format_version, *partition_type));
  format::avro::WriterOptions options;
  options.codec = format::avro::Codec::kDeflate;
  options.metadata["schema"] = types::SchemaToJson(schema).dump();
  options.metadata["schema-id"] = std::to_string(schema.schema_id());
  options.metadata["partition-spec"] = PartitionFieldsToJsonValue(spec).dump();
  options.metadata["partition-spec-id"] = std::to_string(spec.spec_id());
  options.metadata["format-version"] = std::to_string(format_version);
  if (format_version >= 2) {
    options.metadata["content"] = content == ManifestContent::kData ? "data" : "deletes";
  }
  FLOE_ASSIGN_OR_RETURN(auto file, io.CreateOutput(path, /*overwrite=*/false));
  auto writer = format::avro::DataFileWriter::Make(std::move(file), std::move(avro_schema),
                                                   std::move(options));
  if (!writer) return std::unexpected(std::move(writer).error().WithContext("manifest " + path));
  return std::make_unique<ManifestWriterImpl>(std::move(path), format_version, spec.spec_id(),
                                              content, snapshot_id, std::move(partition_type),
                                              std::move(*writer));
}

Result<std::vector<ManifestEntry>> ReadManifest(io::FileIO& io, const ManifestFile& manifest,
                                                const TableMetadata& metadata) {
  const std::string& path = manifest.manifest_path;
  auto input = io.OpenInput(path);
  if (!input) return std::unexpected(AsManifestError(std::move(input).error(), path));
  auto reader = format::avro::DataFileReader::Open(std::move(*input));
  if (!reader) return std::unexpected(AsManifestError(std::move(reader).error(), path));
  const format::avro::FileMetadata& meta = (*reader)->metadata();

  const PartitionSpec* spec = metadata.SpecById(manifest.partition_spec_id);
  PartitionSpec file_spec;
  if (spec == nullptr) {
    auto it = meta.find("partition-spec");
    if (it == meta.end()) {
      return Corruption("manifest {}: partition spec {} is neither in the table nor in the file",
                        path, manifest.partition_spec_id);
    }
    auto parsed = ParsePartitionSpecJson(it->second, manifest.partition_spec_id);
    if (!parsed) return std::unexpected(AsManifestError(std::move(parsed).error(), path));
    file_spec = std::move(*parsed);
    spec = &file_spec;
  }
  FLOE_ASSIGN_OR_RETURN(TypePtr partition_type, ReadPartitionType(*spec, metadata, meta, path));
  auto plan = MakeEntryPlan((*reader)->writer_schema(), *partition_type, path);
  if (!plan) return std::unexpected(std::move(plan).error());

  int version = 0;
  if (auto v = MetadataInt(meta, "format-version")) {
    version = static_cast<int>(*v);
  } else {
    version = plan->sequence_number >= 0 ? 2 : 1;
  }
  if (version > kMaxFormatVersion) {
    return NotSupported("manifest {}: format version {}", path, version);
  }

  return DecodeRecords<ManifestEntry>(
      **reader, "manifest", path, [&](const Datum& record, ManifestEntry* e) -> Status {
        FLOE_RETURN_IF_ERROR(DecodeEntry(record, *plan, *partition_type, e));
        return e->InheritFrom(manifest.added_snapshot_id, manifest.sequence_number, version);
      });
}

Result<std::vector<ManifestFile>> SnapshotManifests(io::FileIO& io, const Snapshot& snapshot,
                                                    int format_version) {
  if (!snapshot.manifest_list.empty()) {
    return ReadManifestList(io, snapshot.manifest_list, format_version);
  }
  std::vector<ManifestFile> out;
  for (const std::string& path : snapshot.manifests) {
    auto input = io.OpenInput(path);
    if (!input) return std::unexpected(AsManifestError(std::move(input).error(), path));
    ManifestFile m;
    m.manifest_path = path;
    m.manifest_length = static_cast<int64_t>((*input)->size());
    auto reader = format::avro::DataFileReader::Open(std::move(*input));
    if (!reader) return std::unexpected(AsManifestError(std::move(reader).error(), path));
    m.partition_spec_id =
        static_cast<int32_t>(MetadataInt((*reader)->metadata(), "partition-spec-id").value_or(0));
    m.content = ManifestContent::kData;
    m.sequence_number = 0;
    m.min_sequence_number = 0;
    m.added_snapshot_id = snapshot.snapshot_id;
    // Counts are unknown without reading the entries (the spec: null means "not zero").
    m.added_files_count = m.existing_files_count = m.deleted_files_count = kUnknownCount;
    m.added_rows_count = m.existing_rows_count = m.deleted_rows_count = kUnknownCount;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace floe::iceberg
