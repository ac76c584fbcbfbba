// Reading manifests: v1 files, sequence number and snapshot id inheritance,
// inline v1 manifest lists, field-id resolution of foreign layouts, and
// corrupt input (kCorruption naming the file, never a crash).

#include <fstream>

#include <gtest/gtest.h>

#include "floe/format/avro/data_file.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/manifest/manifest_avro_schema.h"
#include "floe/iceberg/tests/manifest_test_util.h"
#include "floe/testing/temp_dir.h"

namespace floe::iceberg {
namespace {

using floe::testing::TempDir;
using testutil::MetadataFor;
using testutil::SampleDataFile;

types::Schema SmallSchema() {
  return types::Schema({{1, "id", true, types::Type::Long(), ""},
                        {2, "region", false, types::Type::String(), ""},
                        {3, "ts", false, types::Type::Timestamp(), ""}},
                       0);
}

PartitionSpec SmallSpec() {
  return PartitionSpec(0, {PartitionField{2, 1000, "region", Transform::Identity()},
                           PartitionField{3, 1001, "ts_day", Transform::Day()}});
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

ManifestFile WriteSmallManifest(io::FileIO& io, const std::string& path, int version,
                                std::optional<SnapshotId> snapshot,
                                std::vector<ManifestEntry> entries) {
  auto writer = ManifestWriter::Open(io, path, version, SmallSchema(), SmallSpec(),
                                     ManifestContent::kData, snapshot);
  EXPECT_TRUE(writer.has_value()) << writer.error().ToString();
  for (const auto& e : entries) {
    auto st = (*writer)->Add(e);
    EXPECT_TRUE(st.has_value()) << st.error().ToString();
  }
  auto mf = (*writer)->Close();
  EXPECT_TRUE(mf.has_value()) << mf.error().ToString();
  return *mf;
}

ManifestEntry Added(std::string path, std::string region, int32_t day) {
  ManifestEntry e;
  e.status = ManifestEntryStatus::kAdded;
  e.data_file =
      SampleDataFile(std::move(path), {Literal::String(std::move(region)), Literal::Date(day)}, 10);
  return e;
}

TEST(ManifestReadTest, V1ManifestAndListReadWithSequenceNumbersZero) {
  TempDir dir("manifest_v1");
  io::LocalFileIO io;
  ManifestEntry a = Added("a.parquet", "eu", 100);
  ManifestEntry existing = Added("b.parquet", "us", 101);
  existing.status = ManifestEntryStatus::kExisting;
  existing.snapshot_id = 3;
  auto mf = WriteSmallManifest(io, dir / "m.avro", 1, SnapshotId{5}, {a, existing});

  // v1 manifest schema: no content, no sequence numbers, required snapshot id,
  // the deprecated block_size_in_bytes.
  auto reader = format::avro::DataFileReader::Open(io.OpenInput(dir / "m.avro").value());
  ASSERT_TRUE(reader.has_value());
  const format::avro::Node& root = (*reader)->writer_schema().root();
  EXPECT_EQ(FieldIndexById(root, manifest_field::kSequenceNumber), -1);
  EXPECT_EQ(root.fields()[static_cast<size_t>(FieldIndexById(root, 1))].type->type(),
            format::avro::Type::kLong);
  const format::avro::Node* df = UnwrapRecord(root.fields()[2].type);
  ASSERT_NE(df, nullptr);
  EXPECT_EQ(FieldIndexById(*df, manifest_field::kContent), -1);
  EXPECT_GE(FieldIndexById(*df, manifest_field::kBlockSizeInBytes), 0);
  EXPECT_EQ(FieldIndexById(*df, manifest_field::kEqualityIds), -1);
  EXPECT_EQ((*reader)->metadata().count("content"), 0u);
  EXPECT_EQ((*reader)->metadata().at("format-version"), "1");

  ASSERT_TRUE(WriteManifestList(io, dir / "list.avro", 1, 5, std::nullopt, 0, {mf}).has_value());
  auto list = ReadManifestList(io, dir / "list.avro", 1);
  ASSERT_TRUE(list.has_value()) << list.error().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].sequence_number, 0);
  EXPECT_EQ((*list)[0].min_sequence_number, 0);
  EXPECT_EQ((*list)[0].content, ManifestContent::kData);
  EXPECT_EQ((*list)[0].added_files_count, 1);
  EXPECT_EQ((*list)[0].existing_files_count, 1);

  auto entries = ReadManifest(io, (*list)[0], MetadataFor(SmallSchema(), SmallSpec(), 1));
  ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].snapshot_id, 5);
  EXPECT_EQ((*entries)[0].sequence_number, 0);
  EXPECT_EQ((*entries)[0].file_sequence_number, 0);
  EXPECT_EQ((*entries)[1].snapshot_id, 3);
  EXPECT_EQ((*entries)[1].sequence_number, 0);
  EXPECT_EQ((*entries)[0].data_file.content, DataFileContent::kData);
  EXPECT_TRUE((*entries)[0].data_file.partition[0] == Literal::String("eu"));
  EXPECT_TRUE((*entries)[1].data_file.partition[1] == Literal::Date(101));

  // A v1 manifest listed by a v2 table (after an upgrade) still reads as v1.
  auto upgraded = MetadataFor(SmallSchema(), SmallSpec(), 2);
  ManifestFile in_v2 = (*list)[0];
  in_v2.sequence_number = 0;
  auto again = ReadManifest(io, in_v2, upgraded);
  ASSERT_TRUE(again.has_value()) << again.error().ToString();
  EXPECT_EQ((*again)[1].sequence_number, 0);

  // v1 entries need a snapshot id.
  auto w = ManifestWriter::Open(io, dir / "m2.avro", 1, SmallSchema(), SmallSpec(),
                                ManifestContent::kData, std::nullopt);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ((*w)->Add(Added("c.parquet", "eu", 1)).error().code(), ErrorCode::kInvalidArgument);
}

TEST(ManifestReadTest, SnapshotManifestsReadsListsAndInlineV1Manifests) {
  TempDir dir("manifest_snapshot");
  io::LocalFileIO io;
  auto mf = WriteSmallManifest(io, dir / "m.avro", 1, SnapshotId{5}, {Added("a.parquet", "eu", 1)});
  Snapshot inline_snap;
  inline_snap.snapshot_id = 5;
  inline_snap.manifests = {dir / "m.avro"};
  auto inline_list = SnapshotManifests(io, inline_snap, 1);
  ASSERT_TRUE(inline_list.has_value()) << inline_list.error().ToString();
  ASSERT_EQ(inline_list->size(), 1u);
  EXPECT_EQ((*inline_list)[0].manifest_path, dir / "m.avro");
  EXPECT_EQ((*inline_list)[0].manifest_length, mf.manifest_length);
  EXPECT_EQ((*inline_list)[0].partition_spec_id, 0);
  EXPECT_EQ((*inline_list)[0].added_snapshot_id, 5);
  EXPECT_EQ((*inline_list)[0].added_files_count, kUnknownCount);
  EXPECT_TRUE((*inline_list)[0].has_added_files());
  auto entries = ReadManifest(io, (*inline_list)[0], MetadataFor(SmallSchema(), SmallSpec(), 1));
  ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
  EXPECT_EQ(entries->size(), 1u);

  ASSERT_TRUE(WriteManifestList(io, dir / "l.avro", 1, 5, std::nullopt, 0, {mf}).has_value());
  Snapshot listed;
  listed.snapshot_id = 5;
  listed.manifest_list = dir / "l.avro";
  auto from_list = SnapshotManifests(io, listed, 1);
  ASSERT_TRUE(from_list.has_value());
  EXPECT_EQ((*from_list)[0].added_files_count, 1);
}

TEST(ManifestReadTest, InheritanceFromTheManifestList) {
  TempDir dir("manifest_inherit");
  io::LocalFileIO io;
  ManifestEntry explicit_id = Added("b.parquet", "us", 2);
  explicit_id.snapshot_id = 77;  // kept
  ManifestEntry deleted = Added("c.parquet", "us", 3);
  deleted.status = ManifestEntryStatus::kDeleted;
  deleted.snapshot_id = 60;
  deleted.sequence_number = 4;  // file sequence number left null (old writers)
  // No snapshot id: entries inherit the list's added_snapshot_id.
  auto mf = WriteSmallManifest(io, dir / "m.avro", 2, std::nullopt,
                               {Added("a.parquet", "eu", 1), explicit_id, deleted});
  EXPECT_EQ(mf.added_snapshot_id, 0);
  EXPECT_EQ(mf.min_sequence_number, kUnassignedSequenceNumber);
  ASSERT_TRUE(WriteManifestList(io, dir / "l.avro", 2, 99, SnapshotId{98}, 12, {mf}).has_value());
  auto list = ReadManifestList(io, dir / "l.avro", 2);
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ((*list)[0].added_snapshot_id, 99);
  EXPECT_EQ((*list)[0].min_sequence_number, 12);
  auto entries = ReadManifest(io, (*list)[0], MetadataFor(SmallSchema(), SmallSpec(), 2));
  ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].snapshot_id, 99);
  EXPECT_EQ((*entries)[0].sequence_number, 12);
  EXPECT_EQ((*entries)[0].file_sequence_number, 12);
  EXPECT_EQ((*entries)[1].snapshot_id, 77);
  EXPECT_EQ((*entries)[1].sequence_number, 12);
  EXPECT_EQ((*entries)[2].snapshot_id, 60);
  EXPECT_EQ((*entries)[2].sequence_number, 4);
  EXPECT_FALSE((*entries)[2].file_sequence_number.has_value());

  // The same manifest in a retried commit's list gets the new number.
  ManifestFile retry = mf;
  retry.added_snapshot_id = 100;
  retry.sequence_number = 13;
  auto retried = ReadManifest(io, retry, MetadataFor(SmallSchema(), SmallSpec(), 2));
  ASSERT_TRUE(retried.has_value());
  EXPECT_EQ((*retried)[0].snapshot_id, 100);
  EXPECT_EQ((*retried)[0].sequence_number, 13);
}

/// Writes a manifest by hand with the Avro library: `entry_json` is the
/// manifest_entry schema and `records` its datums.
void WriteRawAvro(const std::string& path, const std::string& schema_json,
                  const std::vector<format::avro::Datum>& records,
                  format::avro::FileMetadata meta = {}) {
  io::LocalFileIO io;
  auto schema = format::avro::Schema::Parse(schema_json);
  ASSERT_TRUE(schema.has_value()) << schema.error().ToString();
  format::avro::WriterOptions options;
  options.metadata = std::move(meta);
  auto w = format::avro::DataFileWriter::Make(io.CreateOutput(path).value(), *schema, options);
  ASSERT_TRUE(w.has_value());
  for (const auto& r : records) {
    auto st = (*w)->Append(r);
    ASSERT_TRUE(st.has_value()) << st.error().ToString();
  }
  ASSERT_TRUE((*w)->Close().has_value());
}

// A minimal foreign layout: fields in another order, partition fields
// reversed, an Avro map with string keys, equality ids as longs (PyIceberg),
// a uuid-less table; everything is matched by field id.
constexpr const char* kForeignSchema = R"({
  "type": "record", "name": "entry", "fields": [
    {"name": "data_file", "field-id": 2, "type": {"type": "record", "name": "df", "fields": [
      {"name": "partition", "field-id": 102, "type": {"type": "record", "name": "p", "fields": [
        {"name": "day", "field-id": 1001, "type": ["null", "int"]},
        {"name": "reg", "field-id": 1000, "type": ["null", "string"]}]}},
      {"name": "path", "field-id": 100, "type": "string"},
      {"name": "fmt", "field-id": 101, "type": "string"},
      {"name": "rows", "field-id": 103, "type": "int"},
      {"name": "size", "field-id": 104, "type": "long"},
      {"name": "content", "field-id": 134, "type": "int"},
      {"name": "vc", "field-id": 109, "type": ["null", {"type": "map", "values": "long"}]},
      {"name": "eq", "field-id": 135, "type": ["null", {"type": "array", "items": "long", "element-id": 136}]},
      {"name": "extra", "field-id": 999, "type": "string"}]}},
    {"name": "status", "field-id": 0, "type": "int"},
    {"name": "seq", "field-id": 3, "type": ["null", "long"]}
  ]})";

format::avro::Datum ForeignEntry(int32_t status, std::optional<int64_t> seq) {
  using format::avro::Datum;
  Datum part = Datum::Record({Datum::Int(19000), Datum::String("apac")});
  Datum df = Datum::Record({part, Datum::String("x.parquet"), Datum::String("PARQUET"),
                            Datum::Int(7), Datum::Long(70), Datum::Int(2),
                            Datum::Map({"1", "2"}, {Datum::Long(7), Datum::Long(6)}),
                            Datum::Array({Datum::Long(1)}), Datum::String("ignored")});
  return Datum::Record({df, Datum::Int(status), seq ? Datum::Long(*seq) : Datum::Null()});
}

TEST(ManifestReadTest, ForeignLayoutsResolveByFieldId) {
  TempDir dir("manifest_foreign");
  io::LocalFileIO io;
  WriteRawAvro(dir / "f.avro", kForeignSchema, {ForeignEntry(1, std::nullopt)},
               {{"format-version", "2"}});
  ManifestFile mf;
  mf.manifest_path = dir / "f.avro";
  mf.added_snapshot_id = 3;
  mf.sequence_number = 8;
  mf.content = ManifestContent::kDeletes;
  auto entries = ReadManifest(io, mf, MetadataFor(SmallSchema(), SmallSpec(), 2));
  ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
  ASSERT_EQ(entries->size(), 1u);
  const DataFile& f = (*entries)[0].data_file;
  EXPECT_EQ(f.content, DataFileContent::kEqualityDeletes);
  EXPECT_EQ(f.file_path, "x.parquet");
  EXPECT_EQ(f.file_format, "parquet");
  EXPECT_EQ(f.record_count, 7);
  EXPECT_TRUE(f.partition[0] == Literal::String("apac"));
  EXPECT_TRUE(f.partition[1] == Literal::Date(19000));
  EXPECT_EQ(f.value_counts, (std::map<int32_t, int64_t>{{1, 7}, {2, 6}}));
  EXPECT_EQ(f.equality_ids, std::vector<int32_t>{1});
  EXPECT_EQ((*entries)[0].snapshot_id, 3);
  EXPECT_EQ((*entries)[0].sequence_number, 8);
}

TEST(ManifestReadTest, ExistingEntryWithoutSequenceNumberIsCorruption) {
  TempDir dir("manifest_existing_null_seq");
  io::LocalFileIO io;
  WriteRawAvro(dir / "f.avro", kForeignSchema, {ForeignEntry(0, std::nullopt)},
               {{"format-version", "2"}});
  ManifestFile mf;
  mf.manifest_path = dir / "f.avro";
  mf.sequence_number = 8;
  auto entries = ReadManifest(io, mf, MetadataFor(SmallSchema(), SmallSpec(), 2));
  ASSERT_FALSE(entries.has_value());
  EXPECT_EQ(entries.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(entries.error().message().find(dir / "f.avro"), std::string::npos)
      << entries.error().message();
}

TEST(ManifestReadTest, CorruptFilesAreCorruptionNamingTheFile) {
  TempDir dir("manifest_corrupt");
  io::LocalFileIO io;
  auto mf = WriteSmallManifest(io, dir / "good.avro", 2, SnapshotId{1},
                               {Added("a.parquet", "eu", 1), Added("b.parquet", "us", 2)});
  ASSERT_TRUE(WriteManifestList(io, dir / "list.avro", 2, 1, std::nullopt, 1, {mf}).has_value());
  auto metadata = MetadataFor(SmallSchema(), SmallSpec(), 2);
  std::string good = ReadBytes(dir / "good.avro");
  std::string good_list = ReadBytes(dir / "list.avro");

  auto expect_corrupt = [&](const std::string& name, std::string_view bytes,
                            bool also_as_list = true) {
    SCOPED_TRACE(name);
    WriteBytes(dir / name, bytes);
    ManifestFile m = mf;
    m.manifest_path = dir / name;
    m.sequence_number = 1;
    auto r = ReadManifest(io, m, metadata);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code(), ErrorCode::kCorruption) << r.error().ToString();
    EXPECT_NE(r.error().message().find(dir / name), std::string::npos) << r.error().message();
    if (!also_as_list) return;
    auto l = ReadManifestList(io, dir / name, 2);
    ASSERT_FALSE(l.has_value());
    EXPECT_EQ(l.error().code(), ErrorCode::kCorruption) << l.error().ToString();
    EXPECT_NE(l.error().message().find(dir / name), std::string::npos) << l.error().message();
  };
  expect_corrupt("empty.avro", "");
  expect_corrupt("garbage.avro", "this is not an avro file at all");
  expect_corrupt("truncated.avro", std::string_view(good).substr(0, good.size() - 20));
  expect_corrupt("header_only.avro", std::string_view(good).substr(0, good.size() / 3));
  std::string flipped = good;
  flipped[flipped.size() - 30] = static_cast<char>(flipped[flipped.size() - 30] ^ 0x55);
  expect_corrupt("flipped.avro", flipped);
  // A valid Avro file that is neither a manifest nor a manifest list.
  WriteRawAvro(dir / "other.avro",
               R"({"type":"record","name":"x","fields":[{"name":"a","type":"int"}]})",
               {format::avro::Datum::Record({format::avro::Datum::Int(1)})});
  expect_corrupt("other_copy.avro", ReadBytes(dir / "other.avro"));
  // A manifest list read as a manifest, and the reverse.
  expect_corrupt("list_as_manifest.avro", good_list, /*also_as_list=*/false);
  auto manifest_as_list = ReadManifestList(io, dir / "good.avro", 2);
  ASSERT_FALSE(manifest_as_list.has_value());
  EXPECT_EQ(manifest_as_list.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(manifest_as_list.error().message().find(dir / "good.avro"), std::string::npos);

  // Every truncation of a manifest fails cleanly (or, at block boundaries, reads fewer entries).
  for (size_t cut = 0; cut < good.size(); cut += 7) {
    WriteBytes(dir / "cut.avro", std::string_view(good).substr(0, cut));
    ManifestFile m = mf;
    m.manifest_path = dir / "cut.avro";
    m.sequence_number = 1;
    auto r = ReadManifest(io, m, metadata);
    if (!r) {
      EXPECT_EQ(r.error().code(), ErrorCode::kCorruption) << cut;
    }
  }

  ManifestFile missing = mf;
  missing.manifest_path = dir / "missing.avro";
  EXPECT_EQ(ReadManifest(io, missing, metadata).error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(ReadManifestList(io, dir / "missing.avro", 2).error().code(), ErrorCode::kNotFound);
}

TEST(ManifestReadTest, FlippedBytesNeverCrash) {
  TempDir dir("manifest_flips");
  io::LocalFileIO io;
  auto mf = WriteSmallManifest(io, dir / "good.avro", 2, SnapshotId{1},
                               {Added("a.parquet", "eu", 1), Added("b.parquet", "us", 2)});
  ASSERT_TRUE(WriteManifestList(io, dir / "list.avro", 2, 1, std::nullopt, 1, {mf}).has_value());
  auto metadata = MetadataFor(SmallSchema(), SmallSpec(), 2);
  for (const char* name : {"good.avro", "list.avro"}) {
    std::string bytes = ReadBytes(dir / name);
    // Every 11th byte (every byte takes ~20 s on a loaded machine).
    for (size_t i = 0; i < bytes.size(); i += 11) {
      std::string mutated = bytes;
      mutated[i] = static_cast<char>(mutated[i] ^ (i % 2 ? 0xff : 0x01));
      WriteBytes(dir / "mutated.avro", mutated);
      ManifestFile m = mf;
      m.manifest_path = dir / "mutated.avro";
      m.sequence_number = 1;
      auto r = ReadManifest(io, m, metadata);
      if (!r) {
        EXPECT_EQ(r.error().code(), ErrorCode::kCorruption)
            << name << " byte " << i << ": " << r.error().ToString();
      }
      auto l = ReadManifestList(io, dir / "mutated.avro", 2);
      if (!l) {
        EXPECT_EQ(l.error().code(), ErrorCode::kCorruption)
            << name << " byte " << i << ": " << l.error().ToString();
      }
    }
  }
}

TEST(ManifestReadTest, SpecMissingFromTableIsTakenFromTheFile) {
  TempDir dir("manifest_file_spec");
  io::LocalFileIO io;
  auto mf = WriteSmallManifest(io, dir / "m.avro", 2, SnapshotId{1}, {Added("a.parquet", "eu", 4)});
  mf.sequence_number = 1;
  mf.partition_spec_id = 3;  // a spec the table does not have: the file's is used
  auto metadata = MetadataFor(SmallSchema(), PartitionSpec(), 2);  // only the unpartitioned spec
  auto entries = ReadManifest(io, mf, metadata);
  ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
  ASSERT_EQ((*entries)[0].data_file.partition.size(), 2u);
  EXPECT_TRUE((*entries)[0].data_file.partition[1] == Literal::Date(4));
}

}  // namespace
}  // namespace floe::iceberg
