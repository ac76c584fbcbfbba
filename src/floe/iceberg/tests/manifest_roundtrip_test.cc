// Manifests and manifest lists written by floe read back equal: v2 data and
// delete manifests with every transform's result type, v3 fields, partition
// summaries and counts, the list's sequence number assignment, and the Avro
// schema and key-value metadata the spec requires.

#include <gtest/gtest.h>

#include "floe/format/avro/data_file.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/manifest/manifest_avro_schema.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/tests/manifest_test_util.h"
#include "floe/testing/temp_dir.h"

namespace floe::iceberg {
namespace {

using floe::testing::TempDir;
using testutil::EveryTransformSpec;
using testutil::EveryTransformTuple;
using testutil::EveryTypeSchema;
using testutil::MetadataFor;
using testutil::SampleDataFile;

void ExpectSameFile(const DataFile& a, const DataFile& b) {
  EXPECT_EQ(a.content, b.content);
  EXPECT_EQ(a.file_path, b.file_path);
  EXPECT_EQ(a.file_format, b.file_format);
  ASSERT_EQ(a.partition.size(), b.partition.size()) << a.file_path;
  for (size_t i = 0; i < a.partition.size(); ++i) {
    EXPECT_TRUE(a.partition[i] == b.partition[i])
        << a.file_path << " partition " << i << ": " << a.partition[i].ToString() << " vs "
        << b.partition[i].ToString();
  }
  EXPECT_EQ(a.record_count, b.record_count);
  EXPECT_EQ(a.file_size_in_bytes, b.file_size_in_bytes);
  EXPECT_EQ(a.column_sizes, b.column_sizes);
  EXPECT_EQ(a.value_counts, b.value_counts);
  EXPECT_EQ(a.null_value_counts, b.null_value_counts);
  EXPECT_EQ(a.nan_value_counts, b.nan_value_counts);
  EXPECT_EQ(a.lower_bounds, b.lower_bounds);
  EXPECT_EQ(a.upper_bounds, b.upper_bounds);
  EXPECT_EQ(a.key_metadata, b.key_metadata);
  EXPECT_EQ(a.split_offsets, b.split_offsets);
  EXPECT_EQ(a.equality_ids, b.equality_ids);
  EXPECT_EQ(a.sort_order_id, b.sort_order_id);
  EXPECT_EQ(a.first_row_id, b.first_row_id);
  EXPECT_EQ(a.referenced_data_file, b.referenced_data_file);
  EXPECT_EQ(a.content_offset, b.content_offset);
  EXPECT_EQ(a.content_size_in_bytes, b.content_size_in_bytes);
}

// An added, an existing, a deleted and a late-added entry (tuples 1, 2, 0
// with nulls, 3), as the round trip writes them.
std::vector<ManifestEntry> OneEntryOfEachStatus() {
  std::vector<ManifestEntry> written;
  ManifestEntry added;  // snapshot id from the writer; sequence numbers inherited
  added.status = ManifestEntryStatus::kAdded;
  added.data_file = SampleDataFile("s3://b/t/data/a.parquet", EveryTransformTuple(1), 10);
  added.data_file.key_metadata = std::string("\x00key", 4);
  written.push_back(added);
  ManifestEntry existing;  // an older file kept with its numbers
  existing.status = ManifestEntryStatus::kExisting;
  existing.snapshot_id = 7;
  existing.sequence_number = 3;
  existing.file_sequence_number = 4;
  existing.data_file = SampleDataFile("s3://b/t/data/b.parquet", EveryTransformTuple(2), 20);
  written.push_back(existing);
  ManifestEntry deleted;
  deleted.status = ManifestEntryStatus::kDeleted;
  deleted.sequence_number = 1;
  deleted.file_sequence_number = 1;
  deleted.data_file = SampleDataFile("s3://b/t/data/c.parquet", EveryTransformTuple(0, true), 5);
  deleted.data_file.split_offsets.clear();
  deleted.data_file.sort_order_id.reset();
  written.push_back(deleted);
  ManifestEntry late;  // added with an explicit (older) data sequence number
  late.status = ManifestEntryStatus::kAdded;
  late.sequence_number = 2;
  late.data_file = SampleDataFile("s3://b/t/data/d.parquet", EveryTransformTuple(3), 30);
  written.push_back(late);

  return written;
}

// Partition summaries: one per field, bounds over all entries' non-null
// values (tuples 1, 2 and 3; the deleted entry's nulls).
void ExpectSummariesBoundTuples123(const types::Schema& schema, const PartitionSpec& spec,
                                   const ManifestFile& mf) {
  auto ptype = spec.PartitionType(schema).value();
  ASSERT_EQ(mf.partitions.size(), ptype->fields().size());
  for (size_t i = 0; i < ptype->fields().size(); ++i) {
    const auto& s = mf.partitions[i];
    const auto& field = ptype->fields()[i];
    SCOPED_TRACE(field.name);
    EXPECT_TRUE(s.contains_null);  // the deleted entry has all nulls
    ASSERT_TRUE(s.contains_nan.has_value());
    EXPECT_FALSE(*s.contains_nan);
    if (field.name == "i_null") {  // void: only nulls
      EXPECT_FALSE(s.lower_bound.has_value());
      EXPECT_FALSE(s.upper_bound.has_value());
      continue;
    }
    ASSERT_TRUE(s.lower_bound && s.upper_bound);
    auto lo = DeserializeSingleValue(*field.type, *s.lower_bound);
    auto hi = DeserializeSingleValue(*field.type, *s.upper_bound);
    ASSERT_TRUE(lo && hi);
    // Expected: min/max over tuples 1, 2, 3.
    std::vector<Literal> cands = {EveryTransformTuple(1)[i], EveryTransformTuple(2)[i],
                                  EveryTransformTuple(3)[i]};
    const Literal* mn = &cands[0];
    const Literal* mx = &cands[0];
    for (const auto& c : cands) {
      if (CompareValues(*field.type, c.value(), mn->value()) < 0) mn = &c;
      if (CompareValues(*field.type, c.value(), mx->value()) > 0) mx = &c;
    }
    EXPECT_EQ(CompareValues(*field.type, *lo, mn->value()), 0);
    EXPECT_EQ(CompareValues(*field.type, *hi, mx->value()), 0);
  }
}

TEST(ManifestRoundTripTest, V2DataManifestWithEveryTransformResultType) {
  TempDir dir("manifest_v2_data");
  io::LocalFileIO io;
  auto schema = EveryTypeSchema();
  auto spec = EveryTransformSpec();
  ASSERT_TRUE(spec.Validate(schema).has_value()) << spec.Validate(schema).error().ToString();
  auto writer = ManifestWriter::Open(io, dir / "m1.avro", 2, schema, spec, ManifestContent::kData,
                                     SnapshotId{42});
  ASSERT_TRUE(writer.has_value()) << writer.error().ToString();

  std::vector<ManifestEntry> written = OneEntryOfEachStatus();
  for (const auto& e : written) {
    auto st = (*writer)->Add(e);
    ASSERT_TRUE(st.has_value()) << st.error().ToString();
  }
  EXPECT_EQ((*writer)->entry_count(), 4);
  auto mf = (*writer)->Close();
  ASSERT_TRUE(mf.has_value()) << mf.error().ToString();

  EXPECT_EQ(mf->manifest_path, dir / "m1.avro");
  EXPECT_EQ(mf->manifest_length, static_cast<int64_t>(std::filesystem::file_size(dir / "m1.avro")));
  EXPECT_EQ(mf->partition_spec_id, 1);
  EXPECT_EQ(mf->content, ManifestContent::kData);
  EXPECT_EQ(mf->added_snapshot_id, 42);
  EXPECT_EQ(mf->sequence_number, kUnassignedSequenceNumber);
  EXPECT_EQ(mf->min_sequence_number, 2);  // live explicit numbers: 3 (existing), 2 (late)
  EXPECT_EQ(mf->added_files_count, 2);
  EXPECT_EQ(mf->existing_files_count, 1);
  EXPECT_EQ(mf->deleted_files_count, 1);
  EXPECT_EQ(mf->added_rows_count, 40);
  EXPECT_EQ(mf->existing_rows_count, 20);
  EXPECT_EQ(mf->deleted_rows_count, 5);

  ExpectSummariesBoundTuples123(schema, spec, *mf);
  // Spot-check the encoding: the long identity bound is 8 bytes little-endian.
  EXPECT_EQ(mf->partitions[0].lower_bound->size(), 8u);

  // The list assigns the snapshot's sequence number; reading inherits it.
  std::string list_path = dir / "snap-42.avro";
  ManifestFile unassigned = *mf;  // as a new snapshot's own manifest
  unassigned.manifest_path = mf->manifest_path + ".copy";
  unassigned.added_snapshot_id = 0;
  unassigned.min_sequence_number = kUnassignedSequenceNumber;
  std::vector<ManifestFile> as_read;
  auto st = WriteManifestList(io, list_path, 2, 42, SnapshotId{41}, 9, {*mf, unassigned},
                              std::nullopt, &as_read);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  auto list = ReadManifestList(io, list_path, 2);
  ASSERT_TRUE(list.has_value()) << list.error().ToString();
  // What the writer says a reader will see is what a reader sees (a commit
  // carries these over without reading the list back).
  EXPECT_TRUE(as_read == *list);
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[1].added_snapshot_id, 42);
  EXPECT_EQ((*list)[1].min_sequence_number, 9);
  list->pop_back();
  const ManifestFile& lm = (*list)[0];
  EXPECT_EQ(lm.manifest_path, mf->manifest_path);
  EXPECT_EQ(lm.manifest_length, mf->manifest_length);
  EXPECT_EQ(lm.sequence_number, 9);
  EXPECT_EQ(lm.min_sequence_number, 2);
  EXPECT_EQ(lm.added_snapshot_id, 42);
  EXPECT_EQ(lm.added_files_count, 2);
  EXPECT_EQ(lm.existing_files_count, 1);
  EXPECT_EQ(lm.deleted_files_count, 1);
  EXPECT_EQ(lm.added_rows_count, 40);
  EXPECT_EQ(lm.existing_rows_count, 20);
  EXPECT_EQ(lm.deleted_rows_count, 5);
  ASSERT_EQ(lm.partitions.size(), mf->partitions.size());
  for (size_t i = 0; i < lm.partitions.size(); ++i) {
    EXPECT_EQ(lm.partitions[i].contains_null, mf->partitions[i].contains_null);
    EXPECT_EQ(lm.partitions[i].contains_nan, mf->partitions[i].contains_nan);
    EXPECT_EQ(lm.partitions[i].lower_bound, mf->partitions[i].lower_bound);
    EXPECT_EQ(lm.partitions[i].upper_bound, mf->partitions[i].upper_bound);
  }
  EXPECT_FALSE(lm.key_metadata.has_value());
  EXPECT_FALSE(lm.first_row_id.has_value());

  auto metadata = MetadataFor(schema, spec, 2);
  auto entries = ReadManifest(io, lm, metadata);
  ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
  ASSERT_EQ(entries->size(), written.size());
  for (size_t i = 0; i < written.size(); ++i)
    ExpectSameFile((*entries)[i].data_file, written[i].data_file);
  // added: writer's snapshot id, inherited sequence numbers
  EXPECT_EQ((*entries)[0].status, ManifestEntryStatus::kAdded);
  EXPECT_EQ((*entries)[0].snapshot_id, 42);
  EXPECT_EQ((*entries)[0].sequence_number, 9);
  EXPECT_EQ((*entries)[0].file_sequence_number, 9);
  // existing: its own numbers
  EXPECT_EQ((*entries)[1].status, ManifestEntryStatus::kExisting);
  EXPECT_EQ((*entries)[1].snapshot_id, 7);
  EXPECT_EQ((*entries)[1].sequence_number, 3);
  EXPECT_EQ((*entries)[1].file_sequence_number, 4);
  // deleted: the deleting snapshot (the writer's), its numbers
  EXPECT_EQ((*entries)[2].status, ManifestEntryStatus::kDeleted);
  EXPECT_EQ((*entries)[2].snapshot_id, 42);
  EXPECT_EQ((*entries)[2].sequence_number, 1);
  // added late: explicit data sequence number kept, file sequence number inherited
  EXPECT_EQ((*entries)[3].sequence_number, 2);
  EXPECT_EQ((*entries)[3].file_sequence_number, 9);
}

TEST(ManifestRoundTripTest, V2DeleteManifestPositionAndEquality) {
  TempDir dir("manifest_v2_deletes");
  io::LocalFileIO io;
  auto schema = EveryTypeSchema();
  PartitionSpec spec(3, {PartitionField{10, 1000, "ts_day", Transform::Day()},
                         PartitionField{1, 1001, "id_bucket", Transform::Bucket(8).value()}});
  auto writer = ManifestWriter::Open(io, dir / "d1.avro", 2, schema, spec,
                                     ManifestContent::kDeletes, std::nullopt);
  ASSERT_TRUE(writer.has_value()) << writer.error().ToString();

  ManifestEntry pos;
  pos.status = ManifestEntryStatus::kAdded;
  pos.data_file.content = DataFileContent::kPositionDeletes;
  pos.data_file.file_path = "file:/t/data/pos-1.parquet";
  pos.data_file.partition = {Literal::Date(19800), Literal::Int(3)};
  pos.data_file.record_count = 2;
  pos.data_file.file_size_in_bytes = 321;
  pos.data_file.referenced_data_file = "file:/t/data/a.parquet";  // not written in v2
  ManifestEntry eq;
  eq.status = ManifestEntryStatus::kAdded;
  eq.data_file.content = DataFileContent::kEqualityDeletes;
  eq.data_file.file_path = "file:/t/data/eq-1.parquet";
  eq.data_file.partition = {Literal::Date(19801), Literal::Null(types::Type::Int())};
  eq.data_file.record_count = 1;
  eq.data_file.file_size_in_bytes = 222;
  eq.data_file.equality_ids = {1, 12};
  eq.data_file.sort_order_id = 0;
  ASSERT_TRUE((*writer)->Add(pos).has_value());
  ASSERT_TRUE((*writer)->Add(eq).has_value());

  // A data file cannot go into a delete manifest; the writer stays usable.
  ManifestEntry data;
  data.data_file = SampleDataFile("file:/t/data/x.parquet", {Literal::Date(1), Literal::Int(1)}, 1);
  auto bad = (*writer)->Add(data);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);

  auto mf = (*writer)->Close();
  ASSERT_TRUE(mf.has_value()) << mf.error().ToString();
  EXPECT_EQ(mf->content, ManifestContent::kDeletes);
  EXPECT_EQ(mf->added_snapshot_id, 0);  // not known yet: the list fills it in
  EXPECT_EQ(mf->added_files_count, 2);
  EXPECT_EQ(mf->added_rows_count, 3);
  ASSERT_EQ(mf->partitions.size(), 2u);
  EXPECT_FALSE(mf->partitions[0].contains_null);
  EXPECT_EQ(mf->partitions[0].lower_bound,
            SerializeSingleValue(*types::Type::Date(), types::Value::Int32(19800)).value());
  EXPECT_EQ(mf->partitions[0].upper_bound,
            SerializeSingleValue(*types::Type::Date(), types::Value::Int32(19801)).value());
  EXPECT_TRUE(mf->partitions[1].contains_null);
  EXPECT_EQ(mf->partitions[1].lower_bound, mf->partitions[1].upper_bound);

  std::string list_path = dir / "snap-5.avro";
  ASSERT_TRUE(WriteManifestList(io, list_path, 2, 5, std::nullopt, 11, {*mf}).has_value());
  auto list = ReadManifestList(io, list_path, 2);
  ASSERT_TRUE(list.has_value()) << list.error().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].content, ManifestContent::kDeletes);
  EXPECT_EQ((*list)[0].added_snapshot_id, 5);
  EXPECT_EQ((*list)[0].sequence_number, 11);
  EXPECT_EQ((*list)[0].min_sequence_number, 11);

  auto metadata = MetadataFor(schema, spec, 2);
  auto entries = ReadManifest(io, (*list)[0], metadata);
  ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
  ASSERT_EQ(entries->size(), 2u);
  pos.data_file.referenced_data_file.reset();
  ExpectSameFile((*entries)[0].data_file, pos.data_file);
  ExpectSameFile((*entries)[1].data_file, eq.data_file);
  for (const auto& e : *entries) {
    EXPECT_EQ(e.snapshot_id, 5);
    EXPECT_EQ(e.sequence_number, 11);
    EXPECT_EQ(e.file_sequence_number, 11);
  }
}

TEST(ManifestRoundTripTest, V3FieldsAndFirstRowIds) {
  TempDir dir("manifest_v3");
  io::LocalFileIO io;
  auto schema = EveryTypeSchema();
  PartitionSpec spec;  // unpartitioned
  auto data_writer = ManifestWriter::Open(io, dir / "m.avro", 3, schema, spec,
                                          ManifestContent::kData, SnapshotId{9});
  ASSERT_TRUE(data_writer.has_value()) << data_writer.error().ToString();
  ManifestEntry a;
  a.data_file = SampleDataFile("f/a.parquet", {}, 100);
  a.data_file.first_row_id = 1000;
  ManifestEntry b;
  b.data_file = SampleDataFile("f/b.parquet", {}, 50);
  ASSERT_TRUE((*data_writer)->Add(a).has_value());
  ASSERT_TRUE((*data_writer)->Add(b).has_value());
  auto m1 = (*data_writer)->Close();
  ASSERT_TRUE(m1.has_value());
  EXPECT_TRUE(m1->partitions.empty());

  auto del_writer = ManifestWriter::Open(io, dir / "d.avro", 3, schema, spec,
                                         ManifestContent::kDeletes, SnapshotId{9});
  ASSERT_TRUE(del_writer.has_value());
  ManifestEntry dv;
  dv.data_file.content = DataFileContent::kPositionDeletes;
  dv.data_file.file_path = "f/dv.puffin";
  dv.data_file.file_format = "puffin";
  dv.data_file.record_count = 3;
  dv.data_file.file_size_in_bytes = 4096;
  dv.data_file.referenced_data_file = "f/a.parquet";
  dv.data_file.content_offset = 4;
  dv.data_file.content_size_in_bytes = 60;
  ASSERT_TRUE((*del_writer)->Add(dv).has_value());
  auto m2 = (*del_writer)->Close();
  ASSERT_TRUE(m2.has_value());

  std::vector<ManifestFile> as_read;
  ASSERT_TRUE(WriteManifestList(io, dir / "list.avro", 3, 9, SnapshotId{8}, 4, {*m1, *m2},
                                int64_t{500}, &as_read)
                  .has_value());
  auto list = ReadManifestList(io, dir / "list.avro", 3);
  ASSERT_TRUE(list.has_value()) << list.error().ToString();
  EXPECT_TRUE(as_read == *list);
  // A v1 list has no exact in-memory form (sequence numbers read as 0).
  ASSERT_TRUE(
      WriteManifestList(io, dir / "v1.avro", 1, 9, SnapshotId{8}, 4, {}, std::nullopt, &as_read)
          .has_value());
  EXPECT_TRUE(as_read.empty());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].first_row_id, 500);            // data manifest: assigned
  EXPECT_FALSE((*list)[1].first_row_id.has_value());  // delete manifests have none

  auto metadata = MetadataFor(schema, spec, 3);
  metadata.next_row_id = 0;
  auto data_entries = ReadManifest(io, (*list)[0], metadata);
  ASSERT_TRUE(data_entries.has_value()) << data_entries.error().ToString();
  ASSERT_EQ(data_entries->size(), 2u);
  ExpectSameFile((*data_entries)[0].data_file, a.data_file);
  ExpectSameFile((*data_entries)[1].data_file, b.data_file);
  auto del_entries = ReadManifest(io, (*list)[1], metadata);
  ASSERT_TRUE(del_entries.has_value()) << del_entries.error().ToString();
  ASSERT_EQ(del_entries->size(), 1u);
  ExpectSameFile((*del_entries)[0].data_file, dv.data_file);

  auto reader = format::avro::DataFileReader::Open(io.OpenInput(dir / "list.avro").value());
  ASSERT_TRUE(reader.has_value());
  EXPECT_EQ((*reader)->metadata().at("first-row-id"), "500");
  EXPECT_EQ((*reader)->metadata().at("format-version"), "3");
}

TEST(ManifestRoundTripTest, AvroSchemaAndMetadataFollowTheSpec) {
  TempDir dir("manifest_schema");
  io::LocalFileIO io;
  auto schema = EveryTypeSchema();
  auto spec = EveryTransformSpec();
  auto writer = ManifestWriter::Open(io, dir / "m.avro", 2, schema, spec, ManifestContent::kData,
                                     SnapshotId{1});
  ASSERT_TRUE(writer.has_value());
  auto mf = (*writer)->Close();  // an empty manifest is valid
  ASSERT_TRUE(mf.has_value());
  EXPECT_EQ(mf->added_files_count, 0);
  EXPECT_FALSE(mf->has_added_files());

  auto reader = format::avro::DataFileReader::Open(io.OpenInput(dir / "m.avro").value());
  ASSERT_TRUE(reader.has_value()) << reader.error().ToString();
  const auto& meta = (*reader)->metadata();
  EXPECT_EQ(meta.at("format-version"), "2");
  EXPECT_EQ(meta.at("content"), "data");
  EXPECT_EQ(meta.at("partition-spec-id"), "1");
  EXPECT_EQ(meta.at("schema-id"), "0");
  EXPECT_EQ(meta.at("avro.codec"), "deflate");
  auto spec_json = nlohmann::json::parse(meta.at("partition-spec"));
  ASSERT_TRUE(spec_json.is_array());
  EXPECT_EQ(spec_json.size(), spec.fields().size());
  EXPECT_EQ(spec_json[0]["field-id"], 1000);
  auto schema_json = nlohmann::json::parse(meta.at("schema"));
  EXPECT_EQ(schema_json["type"], "struct");
  EXPECT_EQ(schema_json["fields"].size(), 15u);

  nlohmann::json root = nlohmann::json::parse((*reader)->writer_schema().ToString());
  EXPECT_EQ(root["name"], "manifest_entry");
  std::vector<std::pair<std::string, int>> top;
  for (const auto& f : root["fields"])
    top.emplace_back(f["name"].get<std::string>(), f["field-id"].get<int>());
  EXPECT_EQ(top, (std::vector<std::pair<std::string, int>>{{"status", 0},
                                                           {"snapshot_id", 1},
                                                           {"sequence_number", 3},
                                                           {"file_sequence_number", 4},
                                                           {"data_file", 2}}));
  EXPECT_EQ(root["fields"][1]["type"], nlohmann::json::parse(R"(["null","long"])"));
  EXPECT_TRUE(root["fields"][1]["default"].is_null());
  const nlohmann::json& df = root["fields"][4]["type"];
  EXPECT_EQ(df["name"], "r2");
  std::vector<std::pair<std::string, int>> df_fields;
  for (const auto& f : df["fields"])
    df_fields.emplace_back(f["name"].get<std::string>(), f["field-id"].get<int>());
  EXPECT_EQ(df_fields, (std::vector<std::pair<std::string, int>>{{"content", 134},
                                                                 {"file_path", 100},
                                                                 {"file_format", 101},
                                                                 {"partition", 102},
                                                                 {"record_count", 103},
                                                                 {"file_size_in_bytes", 104},
                                                                 {"column_sizes", 108},
                                                                 {"value_counts", 109},
                                                                 {"null_value_counts", 110},
                                                                 {"nan_value_counts", 137},
                                                                 {"lower_bounds", 125},
                                                                 {"upper_bounds", 128},
                                                                 {"key_metadata", 131},
                                                                 {"split_offsets", 132},
                                                                 {"equality_ids", 135},
                                                                 {"sort_order_id", 140}}));
  const nlohmann::json& column_sizes = df["fields"][6]["type"][1];
  EXPECT_EQ(column_sizes["type"], "array");
  EXPECT_EQ(column_sizes["logicalType"], "map");
  EXPECT_EQ(column_sizes["items"]["name"], "k117_v118");
  EXPECT_EQ(column_sizes["items"]["fields"][0]["field-id"], 117);
  EXPECT_EQ(column_sizes["items"]["fields"][1]["field-id"], 118);
  EXPECT_EQ(df["fields"][10]["type"][1]["items"]["name"], "k126_v127");
  EXPECT_EQ(df["fields"][10]["type"][1]["items"]["fields"][1]["type"], "bytes");
  EXPECT_EQ(df["fields"][13]["type"][1]["element-id"], 133);
  EXPECT_EQ(df["fields"][14]["type"][1]["element-id"], 136);
  EXPECT_EQ(df["fields"][14]["type"][1]["items"], "int");

  const nlohmann::json& part = df["fields"][3]["type"];
  EXPECT_EQ(part["name"], "r102");
  ASSERT_EQ(part["fields"].size(), spec.fields().size());
  std::map<std::string, nlohmann::json> by_name;
  for (size_t i = 0; i < part["fields"].size(); ++i) {
    const auto& f = part["fields"][i];
    EXPECT_EQ(f["field-id"], spec.fields()[i].field_id);
    EXPECT_EQ(f["type"][0], "null");  // all optional
    by_name[f["name"].get<std::string>()] = f["type"][1];
  }
  EXPECT_EQ(by_name["id"], "long");
  EXPECT_EQ(by_name["flag"], "boolean");
  EXPECT_EQ(by_name["day"], nlohmann::json::parse(R"({"type":"int","logicalType":"date"})"));
  EXPECT_EQ(by_name["t"], nlohmann::json::parse(R"({"type":"long","logicalType":"time-micros"})"));
  EXPECT_EQ(by_name["ts"],
            nlohmann::json::parse(
                R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":false})"));
  EXPECT_EQ(by_name["tstz"]["adjust-to-utc"], true);
  EXPECT_EQ(
      by_name["amount"],
      nlohmann::json::parse(
          R"({"type":"fixed","name":"decimal_9_2","size":4,"logicalType":"decimal","precision":9,"scale":2})"));
  // A repeated named type is defined again under a new name, not referenced.
  EXPECT_EQ(by_name["amount_trunc"]["name"], "decimal_9_2_2");
  EXPECT_EQ(by_name["amount_trunc"]["size"], 4);
  EXPECT_EQ(by_name["big"]["size"], 16);
  EXPECT_EQ(by_name["u"],
            nlohmann::json::parse(
                R"({"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"})"));
  EXPECT_EQ(by_name["fx"], nlohmann::json::parse(R"({"type":"fixed","name":"fixed_4","size":4})"));
  EXPECT_EQ(by_name["bin"], "bytes");
  EXPECT_EQ(by_name["s"], "string");
  EXPECT_EQ(by_name["id_bucket"], "int");
  EXPECT_EQ(by_name["ts_day"], nlohmann::json::parse(R"({"type":"int","logicalType":"date"})"));
  EXPECT_EQ(by_name["ts_year"], "int");
  EXPECT_EQ(by_name["tstz_hour"], "int");

  // The manifest list schema.
  ASSERT_TRUE(WriteManifestList(io, dir / "l.avro", 2, 1, std::nullopt, 1, {*mf}).has_value());
  auto lreader = format::avro::DataFileReader::Open(io.OpenInput(dir / "l.avro").value());
  ASSERT_TRUE(lreader.has_value());
  EXPECT_EQ((*lreader)->metadata().at("snapshot-id"), "1");
  EXPECT_EQ((*lreader)->metadata().at("parent-snapshot-id"), "null");
  EXPECT_EQ((*lreader)->metadata().at("sequence-number"), "1");
  EXPECT_EQ((*lreader)->metadata().at("format-version"), "2");
  nlohmann::json lroot = nlohmann::json::parse((*lreader)->writer_schema().ToString());
  EXPECT_EQ(lroot["name"], "manifest_file");
  std::vector<std::pair<std::string, int>> lf;
  for (const auto& f : lroot["fields"])
    lf.emplace_back(f["name"].get<std::string>(), f["field-id"].get<int>());
  EXPECT_EQ(lf, (std::vector<std::pair<std::string, int>>{{"manifest_path", 500},
                                                          {"manifest_length", 501},
                                                          {"partition_spec_id", 502},
                                                          {"content", 517},
                                                          {"sequence_number", 515},
                                                          {"min_sequence_number", 516},
                                                          {"added_snapshot_id", 503},
                                                          {"added_files_count", 504},
                                                          {"existing_files_count", 505},
                                                          {"deleted_files_count", 506},
                                                          {"added_rows_count", 512},
                                                          {"existing_rows_count", 513},
                                                          {"deleted_rows_count", 514},
                                                          {"partitions", 507},
                                                          {"key_metadata", 519}}));
  const nlohmann::json& parts = lroot["fields"][13]["type"][1];
  EXPECT_EQ(parts["element-id"], 508);
  EXPECT_EQ(parts["items"]["name"], "r508");
  std::vector<std::pair<std::string, int>> sf;
  for (const auto& f : parts["items"]["fields"])
    sf.emplace_back(f["name"].get<std::string>(), f["field-id"].get<int>());
  EXPECT_EQ(sf, (std::vector<std::pair<std::string, int>>{{"contains_null", 509},
                                                          {"contains_nan", 518},
                                                          {"lower_bound", 510},
                                                          {"upper_bound", 511}}));
}

TEST(ManifestRoundTripTest, PartitionNamesThatAreNotAvroNamesAreSanitized) {
  EXPECT_EQ(AvroSafeName("ts_day"), "ts_day");
  EXPECT_EQ(AvroSafeName("location.zip"), "location_x2Ezip");
  EXPECT_EQ(AvroSafeName("1st"), "_1st");
  EXPECT_EQ(AvroSafeName("a-b c"), "a_x2Db_x20c");
  EXPECT_EQ(DecimalFixedSize(1), 1);
  EXPECT_EQ(DecimalFixedSize(2), 1);
  EXPECT_EQ(DecimalFixedSize(3), 2);
  EXPECT_EQ(DecimalFixedSize(9), 4);
  EXPECT_EQ(DecimalFixedSize(10), 5);
  EXPECT_EQ(DecimalFixedSize(18), 8);
  EXPECT_EQ(DecimalFixedSize(19), 9);
  EXPECT_EQ(DecimalFixedSize(38), 16);
}

TEST(ManifestRoundTripTest, WriterRejectsBadEntries) {
  TempDir dir("manifest_bad_entries");
  io::LocalFileIO io;
  auto schema = EveryTypeSchema();
  PartitionSpec spec(1, {PartitionField{12, 1000, "s", Transform::Identity()}});
  auto writer = ManifestWriter::Open(io, dir / "m.avro", 2, schema, spec, ManifestContent::kData,
                                     SnapshotId{1});
  ASSERT_TRUE(writer.has_value());
  ManifestEntry e;
  e.data_file = SampleDataFile("a.parquet", {}, 1);  // wrong tuple size
  EXPECT_EQ((*writer)->Add(e).error().code(), ErrorCode::kInvalidArgument);
  e.data_file.partition = {Literal::Int(5)};  // int for a string field
  EXPECT_EQ((*writer)->Add(e).error().code(), ErrorCode::kInvalidArgument);
  e.data_file.partition = {Literal::String("x")};
  e.status = ManifestEntryStatus::kExisting;  // v2 existing without sequence number
  EXPECT_EQ((*writer)->Add(e).error().code(), ErrorCode::kInvalidArgument);
  e.status = ManifestEntryStatus::kAdded;
  ASSERT_TRUE((*writer)->Add(e).has_value());
  EXPECT_EQ((*writer)->entry_count(), 1);
  ASSERT_TRUE((*writer)->Close().has_value());
  EXPECT_FALSE((*writer)->Add(e).has_value());

  // Exclusive create, bad versions, v1 delete manifests.
  auto again = ManifestWriter::Open(io, dir / "m.avro", 2, schema, spec, ManifestContent::kData, 1);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(ManifestWriter::Open(io, dir / "v4.avro", 4, schema, spec, ManifestContent::kData, 1)
                .error()
                .code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(
      ManifestWriter::Open(io, dir / "v1d.avro", 1, schema, spec, ManifestContent::kDeletes, 1)
          .error()
          .code(),
      ErrorCode::kInvalidArgument);
  PartitionSpec bad_spec(2, {PartitionField{99, 1000, "nope", Transform::Identity()}});
  EXPECT_EQ(
      ManifestWriter::Open(io, dir / "bad.avro", 2, schema, bad_spec, ManifestContent::kData, 1)
          .error()
          .code(),
      ErrorCode::kInvalidArgument);
}

TEST(ManifestRoundTripTest, WideningLiteralsAreConverted) {
  TempDir dir("manifest_widen");
  io::LocalFileIO io;
  auto schema = EveryTypeSchema();
  PartitionSpec spec(1, {PartitionField{1, 1000, "id", Transform::Identity()}});
  auto writer = ManifestWriter::Open(io, dir / "m.avro", 2, schema, spec, ManifestContent::kData,
                                     SnapshotId{1});
  ASSERT_TRUE(writer.has_value());
  ManifestEntry e;
  e.data_file = SampleDataFile("a.parquet", {Literal::Int(5)}, 1);  // int for a long field
  ASSERT_TRUE((*writer)->Add(e).has_value());
  auto mf = (*writer)->Close();
  ASSERT_TRUE(mf.has_value());
  mf->sequence_number = 1;
  auto entries = ReadManifest(io, *mf, MetadataFor(schema, spec, 2));
  ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
  EXPECT_TRUE((*entries)[0].data_file.partition[0] == Literal::Long(5));
}

}  // namespace
}  // namespace floe::iceberg
