#include <algorithm>
#include <charconv>
#include <type_traits>

#include <fmt/format.h>

#include "floe/format/avro/data_file.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/manifest/manifest_avro_schema.h"

namespace floe::iceberg {

using format::avro::Datum;
namespace lf = manifest_list_field;

namespace {

Datum SummariesDatum(const std::vector<PartitionFieldSummary>& summaries) {
  std::vector<Datum> items;
  items.reserve(summaries.size());
  for (const auto& s : summaries) {
    items.push_back(
        Datum::Record({Datum::Boolean(s.contains_null),
                       s.contains_nan ? Datum::Boolean(*s.contains_nan) : Datum::Null(),
                       OptionalBytesDatum(s.lower_bound), OptionalBytesDatum(s.upper_bound)}));
  }
  return Datum::Array(std::move(items));
}

Datum Count(int64_t v, bool v1, bool as_int) {
  if (v1 && v < 0) return Datum::Null();
  return as_int ? Datum::Int(static_cast<int32_t>(v)) : Datum::Long(v);
}

Error AsListError(Error e, const std::string& path) {
  return AsManifestFileError(std::move(e), "manifest list", path);
}

struct ListPlan {
  int path = -1, length = -1, spec_id = -1, content = -1, sequence_number = -1,
      min_sequence_number = -1, added_snapshot_id = -1, added_files = -1, existing_files = -1,
      deleted_files = -1, added_rows = -1, existing_rows = -1, deleted_rows = -1, partitions = -1,
      key_metadata = -1, first_row_id = -1;
  // field_summary fields, in the element record of `partitions`
  int contains_null = -1, contains_nan = -1, lower_bound = -1, upper_bound = -1;
};

Result<ListPlan> MakeListPlan(const format::avro::Schema& writer, const std::string& path) {
  const format::avro::Node* root = UnwrapRecord(&writer.root());
  if (root == nullptr) return Corruption("manifest list {}: the Avro schema is not a record", path);
  ListPlan p;
  p.path = FieldIndexById(*root, lf::kManifestPath);
  p.length = FieldIndexById(*root, lf::kManifestLength);
  p.spec_id = FieldIndexById(*root, lf::kPartitionSpecId);
  p.content = FieldIndexById(*root, lf::kContent);
  p.sequence_number = FieldIndexById(*root, lf::kSequenceNumber);
  p.min_sequence_number = FieldIndexById(*root, lf::kMinSequenceNumber);
  p.added_snapshot_id = FieldIndexById(*root, lf::kAddedSnapshotId);
  p.added_files = FieldIndexById(*root, lf::kAddedFilesCount);
  p.existing_files = FieldIndexById(*root, lf::kExistingFilesCount);
  p.deleted_files = FieldIndexById(*root, lf::kDeletedFilesCount);
  p.added_rows = FieldIndexById(*root, lf::kAddedRowsCount);
  p.existing_rows = FieldIndexById(*root, lf::kExistingRowsCount);
  p.deleted_rows = FieldIndexById(*root, lf::kDeletedRowsCount);
  p.partitions = FieldIndexById(*root, lf::kPartitions);
  p.key_metadata = FieldIndexById(*root, lf::kKeyMetadata);
  p.first_row_id = FieldIndexById(*root, lf::kFirstRowId);
  for (auto [index, name] : {std::pair{p.path, "manifest_path (500)"},
                             {p.length, "manifest_length (501)"},
                             {p.spec_id, "partition_spec_id (502)"},
                             {p.added_snapshot_id, "added_snapshot_id (503)"}}) {
    if (index < 0) return Corruption("manifest list {}: no field {}", path, name);
  }
  if (p.partitions >= 0) {
    const format::avro::Node* list = root->fields()[static_cast<size_t>(p.partitions)].type;
    if (list->type() == format::avro::Type::kUnion) {
      for (const format::avro::Node* b : list->branches()) {
        if (b->type() == format::avro::Type::kArray) list = b;
      }
    }
    const format::avro::Node* element =
        list->type() == format::avro::Type::kArray ? UnwrapRecord(list->items()) : nullptr;
    if (element == nullptr) {
      return Corruption("manifest list {}: partitions is not an array of records", path);
    }
    p.contains_null = FieldIndexById(*element, lf::kContainsNull);
    p.contains_nan = FieldIndexById(*element, lf::kContainsNan);
    p.lower_bound = FieldIndexById(*element, lf::kLowerBound);
    p.upper_bound = FieldIndexById(*element, lf::kUpperBound);
  }
  return p;
}

// A file or row count, which v1 writers may leave out: kUnknownCount when
// absent; the file counts are Avro ints, the row counts longs.
template <typename Count>
Status ReadCount(const Datum& r, int index, std::string_view name, Count* out) {
  *out = kUnknownCount;
  const Datum* d = FieldOrNull(r, index);
  if (d == nullptr) return Ok();
  if constexpr (std::is_same_v<Count, int32_t>) {
    FLOE_ASSIGN_OR_RETURN(*out, DatumInt32(*d, name));
  } else {
    FLOE_ASSIGN_OR_RETURN(*out, DatumInteger(*d, name));
  }
  return Ok();
}

Status DecodeManifestFile(const Datum& r, const ListPlan& p, ManifestFile* m) {
  if (r.type() != format::avro::Type::kRecord) return Corruption("entry is not a record");
  const Datum* path = FieldOrNull(r, p.path);
  if (path == nullptr) return Corruption("manifest_path is null");
  FLOE_ASSIGN_OR_RETURN(m->manifest_path, DatumText(*path, "manifest_path"));
  auto required = [&](int index, std::string_view what) -> Result<const Datum*> {
    const Datum* d = FieldOrNull(r, index);
    if (d == nullptr) return Corruption("{}: {} is null", m->manifest_path, what);
    return d;
  };
  FLOE_ASSIGN_OR_RETURN(const Datum* length, required(p.length, "manifest_length"));
  FLOE_ASSIGN_OR_RETURN(m->manifest_length, DatumInteger(*length, "manifest_length"));
  FLOE_ASSIGN_OR_RETURN(const Datum* spec_id, required(p.spec_id, "partition_spec_id"));
  FLOE_ASSIGN_OR_RETURN(m->partition_spec_id, DatumInt32(*spec_id, "partition_spec_id"));
  FLOE_ASSIGN_OR_RETURN(const Datum* snap, required(p.added_snapshot_id, "added_snapshot_id"));
  FLOE_ASSIGN_OR_RETURN(m->added_snapshot_id, DatumInteger(*snap, "added_snapshot_id"));
  m->content = ManifestContent::kData;
  if (const Datum* d = FieldOrNull(r, p.content)) {
    FLOE_ASSIGN_OR_RETURN(int32_t c, DatumInt32(*d, "content"));
    if (c != 0 && c != 1) return Corruption("{}: content {} is not 0 or 1", m->manifest_path, c);
    m->content = static_cast<ManifestContent>(c);
  }
  m->sequence_number = 0;
  m->min_sequence_number = 0;
  if (const Datum* d = FieldOrNull(r, p.sequence_number)) {
    FLOE_ASSIGN_OR_RETURN(m->sequence_number, DatumInteger(*d, "sequence_number"));
  }
  if (const Datum* d = FieldOrNull(r, p.min_sequence_number)) {
    FLOE_ASSIGN_OR_RETURN(m->min_sequence_number, DatumInteger(*d, "min_sequence_number"));
  }
  FLOE_RETURN_IF_ERROR(ReadCount(r, p.added_files, "added_files_count", &m->added_files_count));
  FLOE_RETURN_IF_ERROR(
      ReadCount(r, p.existing_files, "existing_files_count", &m->existing_files_count));
  FLOE_RETURN_IF_ERROR(
      ReadCount(r, p.deleted_files, "deleted_files_count", &m->deleted_files_count));
  FLOE_RETURN_IF_ERROR(ReadCount(r, p.added_rows, "added_rows_count", &m->added_rows_count));
  FLOE_RETURN_IF_ERROR(
      ReadCount(r, p.existing_rows, "existing_rows_count", &m->existing_rows_count));
  FLOE_RETURN_IF_ERROR(ReadCount(r, p.deleted_rows, "deleted_rows_count", &m->deleted_rows_count));
  m->partitions.clear();
  if (const Datum* d = FieldOrNull(r, p.partitions)) {
    if (d->type() != format::avro::Type::kArray) return Corruption("partitions is not an array");
    for (const Datum& item : d->children()) {
      if (item.type() != format::avro::Type::kRecord)
        return Corruption("field_summary is not a record");
      PartitionFieldSummary s;
      if (const Datum* x = FieldOrNull(item, p.contains_null)) {
        if (x->type() != format::avro::Type::kBoolean)
          return Corruption("contains_null is not a boolean");
        s.contains_null = x->boolean();
      }
      if (const Datum* x = FieldOrNull(item, p.contains_nan)) {
        if (x->type() != format::avro::Type::kBoolean)
          return Corruption("contains_nan is not a boolean");
        s.contains_nan = x->boolean();
      }
      if (const Datum* x = FieldOrNull(item, p.lower_bound)) {
        FLOE_ASSIGN_OR_RETURN(s.lower_bound, DatumText(*x, "lower_bound"));
      }
      if (const Datum* x = FieldOrNull(item, p.upper_bound)) {
        FLOE_ASSIGN_OR_RETURN(s.upper_bound, DatumText(*x, "upper_bound"));
      }
      m->partitions.push_back(std::move(s));
    }
  }
  m->key_metadata.reset();
  if (const Datum* d = FieldOrNull(r, p.key_metadata)) {
    FLOE_ASSIGN_OR_RETURN(m->key_metadata, DatumText(*d, "key_metadata"));
  }
  m->first_row_id.reset();
  if (const Datum* d = FieldOrNull(r, p.first_row_id)) {
    FLOE_ASSIGN_OR_RETURN(m->first_row_id, DatumInteger(*d, "first_row_id"));
  }
  return Ok();
}

}  // namespace

Status WriteManifestList(io::FileIO& io, const std::string& path, int format_version,
                         SnapshotId snapshot_id, std::optional<SnapshotId> parent_snapshot_id,
                         int64_t sequence_number, const std::vector<ManifestFile>& manifests,
                         std::optional<int64_t> first_row_id, std::vector<ManifestFile>* as_read) {
  if (format_version < kMinFormatVersion || format_version > kMaxFormatVersion) {
    return InvalidArgument("manifest list {}: format version {} is not supported", path,
                           format_version);
  }
  const bool v1 = format_version == 1;
  FLOE_ASSIGN_OR_RETURN(format::avro::Schema schema, ManifestListAvroSchema(format_version));
  format::avro::WriterOptions options;
  options.codec = format::avro::Codec::kDeflate;
  options.metadata["snapshot-id"] = std::to_string(snapshot_id);
  options.metadata["parent-snapshot-id"] =
      parent_snapshot_id ? std::to_string(*parent_snapshot_id) : "null";
  if (!v1) options.metadata["sequence-number"] = std::to_string(sequence_number);
  options.metadata["format-version"] = std::to_string(format_version);
  if (format_version >= 3 && first_row_id) {
    options.metadata["first-row-id"] = std::to_string(*first_row_id);
  }
  FLOE_ASSIGN_OR_RETURN(auto file, io.CreateOutput(path, /*overwrite=*/false));
  auto writer =
      format::avro::DataFileWriter::Make(std::move(file), std::move(schema), std::move(options));
  if (!writer) {
    return std::unexpected(std::move(writer).error().WithContext("manifest list " + path));
  }
  std::optional<int64_t> next_row_id = first_row_id;
  if (as_read != nullptr) {
    as_read->clear();
    if (!v1) as_read->reserve(manifests.size());
  }
  for (const ManifestFile& m : manifests) {
    if (!v1 &&
        (m.added_files_count < 0 || m.existing_files_count < 0 || m.deleted_files_count < 0 ||
         m.added_rows_count < 0 || m.existing_rows_count < 0 || m.deleted_rows_count < 0)) {
      return InvalidArgument(
          "manifest list {}: manifest {} has unknown counts (format v{} "
          "requires them)",
          path, m.manifest_path, format_version);
    }
    int64_t seq =
        m.sequence_number == kUnassignedSequenceNumber ? sequence_number : m.sequence_number;
    int64_t min_seq = m.min_sequence_number == kUnassignedSequenceNumber ? sequence_number
                                                                         : m.min_sequence_number;
    SnapshotId added_by = m.added_snapshot_id == 0 ? snapshot_id : m.added_snapshot_id;
    if (as_read != nullptr && !v1) {
      ManifestFile& read = as_read->emplace_back(m);
      read.sequence_number = seq;
      read.min_sequence_number = min_seq;
      read.added_snapshot_id = added_by;
      read.first_row_id.reset();  // v3 sets it below
    }
    std::vector<Datum> f;
    f.reserve(17);
    f.push_back(Datum::String(m.manifest_path));
    f.push_back(Datum::Long(m.manifest_length));
    f.push_back(Datum::Int(m.partition_spec_id));
    if (!v1) {
      f.push_back(Datum::Int(static_cast<int32_t>(m.content)));
      f.push_back(Datum::Long(seq));
      f.push_back(Datum::Long(min_seq));
    }
    f.push_back(Datum::Long(added_by));
    f.push_back(Count(m.added_files_count, v1, true));
    f.push_back(Count(m.existing_files_count, v1, true));
    f.push_back(Count(m.deleted_files_count, v1, true));
    f.push_back(Count(m.added_rows_count, v1, false));
    f.push_back(Count(m.existing_rows_count, v1, false));
    f.push_back(Count(m.deleted_rows_count, v1, false));
    f.push_back(SummariesDatum(m.partitions));
    f.push_back(OptionalBytesDatum(m.key_metadata));
    if (format_version >= 3) {
      std::optional<int64_t> row_id = m.first_row_id;
      if (!row_id && next_row_id && m.content == ManifestContent::kData) {
        row_id = *next_row_id;
        *next_row_id +=
            std::max<int64_t>(m.added_rows_count, 0) + std::max<int64_t>(m.existing_rows_count, 0);
      }
      f.push_back(row_id ? Datum::Long(*row_id) : Datum::Null());
      if (as_read != nullptr) as_read->back().first_row_id = row_id;
    }
    FLOE_RETURN_IF_ERROR_CTX((*writer)->Append(Datum::Record(std::move(f))),
                             "manifest list {}: manifest {}", path, m.manifest_path);
  }
  FLOE_RETURN_IF_ERROR_CTX((*writer)->Close(), "closing manifest list {}", path);
  return Ok();
}

Result<std::vector<ManifestFile>> ReadManifestList(io::FileIO& io, const std::string& path,
                                                   int format_version) {
  auto input = io.OpenInput(path);
  if (!input) return std::unexpected(AsListError(std::move(input).error(), path));
  auto reader = format::avro::DataFileReader::Open(std::move(*input));
  if (!reader) return std::unexpected(AsListError(std::move(reader).error(), path));
  auto plan = MakeListPlan((*reader)->writer_schema(), path);
  if (!plan) return std::unexpected(std::move(plan).error());
  return DecodeRecords<ManifestFile>(**reader, "manifest list", path,
                                     [&](const Datum& record, ManifestFile* m) -> Status {
                                       FLOE_RETURN_IF_ERROR(DecodeManifestFile(record, *plan, m));
                                       if (format_version <= 1) {
                                         m->sequence_number = 0;
                                         m->min_sequence_number = 0;
                                       }
                                       return Ok();
                                     });
}

}  // namespace floe::iceberg
