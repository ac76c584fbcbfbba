// Interop fixtures, both directions.
//
// floe -> others: when FLOE_INTEROP_OUT names a folder, ManifestInteropTest
// writes a small v2 table there (manifests, manifest lists, a metadata file)
// plus expected.json describing every entry; tests/interop/
// test_manifest_interop.py runs this test and checks the files with fastavro
// (schemas and field ids per the spec) and PyIceberg (entries, plan_files).
//
// others -> floe: tests/data/iceberg/manifests/ holds manifests that PyIceberg
// wrote (see make_pyiceberg_manifests.py there) with expected.json; floe reads
// them and compares.

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/iceberg/json/metadata_json.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/tests/manifest_test_util.h"
#include "floe/testing/status_matchers.h"
#include "floe/types/temporal.h"

namespace floe::iceberg {
namespace {

using testutil::EveryTransformSpec;
using testutil::EveryTransformTuple;
using testutil::EveryTypeSchema;
using testutil::MetadataFor;
using testutil::SampleDataFile;

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    auto b = static_cast<uint8_t>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

/// A partition value as JSON: numbers, booleans, decimals as their unscaled
/// value in a string, bytes (string, binary, fixed, uuid) as hex.
nlohmann::json ValueJson(const Literal& l) {
  const types::Value& v = l.value();
  switch (v.kind) {
    case types::Value::Kind::kNull:
      return nullptr;
    case types::Value::Kind::kBool:
      return v.b;
    case types::Value::Kind::kInt32:
      return v.i32;
    case types::Value::Kind::kInt64:
      return v.i64;
    case types::Value::Kind::kFloat:
      return v.f32;
    case types::Value::Kind::kDouble:
      return v.f64;
    case types::Value::Kind::kDecimal: {
      std::string s;
      types::AppendDecimal(v.decimal, 0, &s);
      return s;
    }
    case types::Value::Kind::kBytes:
      return Hex(v.as_bytes());
    default:
      return nullptr;
  }
}

template <typename V>
nlohmann::json MapJson(const std::map<int32_t, V>& m, bool hex) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : m) {
    if constexpr (std::is_same_v<V, std::string>) {
      j[std::to_string(k)] = hex ? Hex(v) : v;
    } else {
      j[std::to_string(k)] = v;
    }
  }
  return j;
}

nlohmann::json EntryJson(const ManifestEntry& e, const PartitionSpec& spec) {
  const DataFile& f = e.data_file;
  nlohmann::json partition = nlohmann::json::object();
  for (size_t i = 0; i < f.partition.size(); ++i) {
    partition[spec.fields()[i].name] = ValueJson(f.partition[i]);
  }
  nlohmann::json j = {
      {"status", static_cast<int>(e.status)},
      {"snapshot_id", e.snapshot_id ? nlohmann::json(*e.snapshot_id) : nlohmann::json()},
      {"sequence_number",
       e.sequence_number ? nlohmann::json(*e.sequence_number) : nlohmann::json()},
      {"file_sequence_number",
       e.file_sequence_number ? nlohmann::json(*e.file_sequence_number) : nlohmann::json()},
      {"content", static_cast<int>(f.content)},
      {"file_path", f.file_path},
      {"file_format", f.file_format},
      {"partition", partition},
      {"record_count", f.record_count},
      {"file_size_in_bytes", f.file_size_in_bytes},
      {"column_sizes", MapJson(f.column_sizes, false)},
      {"value_counts", MapJson(f.value_counts, false)},
      {"null_value_counts", MapJson(f.null_value_counts, false)},
      {"nan_value_counts", MapJson(f.nan_value_counts, false)},
      {"lower_bounds", MapJson(f.lower_bounds, true)},
      {"upper_bounds", MapJson(f.upper_bounds, true)},
      {"key_metadata", f.key_metadata ? nlohmann::json(Hex(*f.key_metadata)) : nlohmann::json()},
      {"split_offsets", f.split_offsets},
      {"equality_ids", f.equality_ids},
      {"sort_order_id", f.sort_order_id ? nlohmann::json(*f.sort_order_id) : nlohmann::json()},
  };
  return j;
}

nlohmann::json ManifestFileJson(const ManifestFile& m) {
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& p : m.partitions) {
    parts.push_back(
        {{"contains_null", p.contains_null},
         {"contains_nan", p.contains_nan ? nlohmann::json(*p.contains_nan) : nlohmann::json()},
         {"lower_bound", p.lower_bound ? nlohmann::json(Hex(*p.lower_bound)) : nlohmann::json()},
         {"upper_bound", p.upper_bound ? nlohmann::json(Hex(*p.upper_bound)) : nlohmann::json()}});
  }
  return {{"manifest_path", m.manifest_path},
          {"manifest_length", m.manifest_length},
          {"partition_spec_id", m.partition_spec_id},
          {"content", static_cast<int>(m.content)},
          {"sequence_number", m.sequence_number},
          {"min_sequence_number", m.min_sequence_number},
          {"added_snapshot_id", m.added_snapshot_id},
          {"added_files_count", m.added_files_count},
          {"existing_files_count", m.existing_files_count},
          {"deleted_files_count", m.deleted_files_count},
          {"added_rows_count", m.added_rows_count},
          {"existing_rows_count", m.existing_rows_count},
          {"deleted_rows_count", m.deleted_rows_count},
          {"partitions", parts}};
}

/// expected.json: every snapshot's manifest-list entries and manifest entries
/// as floe reads them back (inheritance applied), for the Python checks.
void WriteExpected(io::FileIO& io, const TableMetadata& md, const std::string& metadata_path,
                   const std::string& out) {
  nlohmann::json expected = {{"metadata", metadata_path},
                             {"format_version", md.format_version},
                             {"snapshots", nlohmann::json::object()}};
  for (const Snapshot& s : md.snapshots) {
    auto listed = ReadManifestList(io, s.manifest_list, md.format_version);
    ASSERT_TRUE(listed.has_value()) << listed.error().ToString();
    nlohmann::json manifests = nlohmann::json::array();
    for (const ManifestFile& m : *listed) {
      auto entries = ReadManifest(io, m, md);
      ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
      nlohmann::json mj = ManifestFileJson(m);
      mj["entries"] = nlohmann::json::array();
      for (const auto& e : *entries) {
        mj["entries"].push_back(EntryJson(e, *md.SpecById(m.partition_spec_id)));
      }
      manifests.push_back(mj);
    }
    expected["snapshots"][std::to_string(s.snapshot_id)] = manifests;
  }
  std::ofstream(out) << expected.dump(2);
}

TEST(ManifestInteropTest, WriteTableForReferenceReaders) {
  const char* out_env = std::getenv("FLOE_INTEROP_OUT");
  if (out_env == nullptr || *out_env == '\0') {
    GTEST_SKIP() << "set FLOE_INTEROP_OUT to write the interop table (tests/interop/"
                    "test_manifest_interop.py does)";
  }
  std::string table = std::string(out_env) + "/floe_manifests";
  std::filesystem::remove_all(table);
  std::filesystem::create_directories(table + "/metadata");
  std::string meta_dir = table + "/metadata";
  io::LocalFileIO io;
  auto schema = EveryTypeSchema();
  auto spec = EveryTransformSpec();

  // Snapshot 1 (sequence 1): a data manifest and a position-delete manifest.
  auto dw = ManifestWriter::Open(io, meta_dir + "/data-1.avro", 2, schema, spec,
                                 ManifestContent::kData, SnapshotId{1001});
  FLOE_ASSERT_OK(dw);
  std::vector<ManifestEntry> data_entries;
  for (int k = 1; k <= 3; ++k) {
    ManifestEntry e;
    e.data_file = SampleDataFile(table + "/data/file-" + std::to_string(k) + ".parquet",
                                 EveryTransformTuple(k), 10 * k);
    if (k == 2) e.data_file.key_metadata = std::string("\x01\x02", 2);
    data_entries.push_back(e);
  }
  {
    ManifestEntry nulls;
    nulls.data_file = SampleDataFile(table + "/data/file-nulls.parquet",
                                     EveryTransformTuple(0, /*nulls=*/true), 4);
    data_entries.push_back(nulls);
  }
  for (const auto& e : data_entries) FLOE_ASSERT_OK((*dw)->Add(e));
  auto data_manifest = (*dw)->Close();
  FLOE_ASSERT_OK(data_manifest);

  auto pw = ManifestWriter::Open(io, meta_dir + "/pos-1.avro", 2, schema, spec,
                                 ManifestContent::kDeletes, std::nullopt);
  FLOE_ASSERT_OK(pw);
  ManifestEntry pos;
  pos.data_file.content = DataFileContent::kPositionDeletes;
  pos.data_file.file_path = table + "/data/pos-1.parquet";
  pos.data_file.partition = EveryTransformTuple(1);
  pos.data_file.record_count = 2;
  pos.data_file.file_size_in_bytes = 512;
  pos.data_file.lower_bounds = {{2147483546, table + "/data/file-1.parquet"}};
  pos.data_file.upper_bounds = {{2147483546, table + "/data/file-1.parquet"}};
  FLOE_ASSERT_OK((*pw)->Add(pos));
  auto pos_manifest = (*pw)->Close();
  FLOE_ASSERT_OK(pos_manifest);

  std::string list1 = meta_dir + "/snap-1001.avro";
  FLOE_ASSERT_OK(
      WriteManifestList(io, list1, 2, 1001, std::nullopt, 1, {*data_manifest, *pos_manifest}));
  auto listed1 = ReadManifestList(io, list1, 2);
  FLOE_ASSERT_OK(listed1);

  // Snapshot 2 (sequence 2): the same manifests plus equality deletes.
  auto ew = ManifestWriter::Open(io, meta_dir + "/eq-2.avro", 2, schema, spec,
                                 ManifestContent::kDeletes, SnapshotId{1002});
  FLOE_ASSERT_OK(ew);
  ManifestEntry eq;
  eq.data_file.content = DataFileContent::kEqualityDeletes;
  eq.data_file.file_path = table + "/data/eq-2.parquet";
  eq.data_file.partition = EveryTransformTuple(2);
  eq.data_file.record_count = 1;
  eq.data_file.file_size_in_bytes = 256;
  eq.data_file.equality_ids = {1, 12};
  FLOE_ASSERT_OK((*ew)->Add(eq));
  auto eq_manifest = (*ew)->Close();
  FLOE_ASSERT_OK(eq_manifest);
  std::string list2 = meta_dir + "/snap-1002.avro";
  FLOE_ASSERT_OK(WriteManifestList(io, list2, 2, 1002, SnapshotId{1001}, 2,
                                   {(*listed1)[0], (*listed1)[1], *eq_manifest}));
  auto listed2 = ReadManifestList(io, list2, 2);
  FLOE_ASSERT_OK(listed2);

  TableMetadata md = MetadataFor(schema, spec, 2);
  md.location = table;
  md.last_sequence_number = 2;
  Snapshot s1;
  s1.snapshot_id = 1001;
  s1.sequence_number = 1;
  s1.timestamp_ms = 1700000000000;
  s1.manifest_list = list1;
  s1.operation = "append";
  s1.schema_id = 0;
  Snapshot s2 = s1;
  s2.snapshot_id = 1002;
  s2.parent_snapshot_id = 1001;
  s2.sequence_number = 2;
  s2.timestamp_ms = 1700000001000;
  s2.manifest_list = list2;
  s2.operation = "delete";
  md.snapshots = {s1, s2};
  md.current_snapshot_id = 1002;
  md.refs = {{"main", SnapshotRef::Branch(1002)}};
  md.snapshot_log = {{s1.timestamp_ms, 1001}, {s2.timestamp_ms, 1002}};
  md.last_updated_ms = s2.timestamp_ms;
  FLOE_ASSERT_OK(md.Validate());
  std::string metadata_path = meta_dir + "/v1.metadata.json";
  FLOE_ASSERT_OK(WriteTableMetadata(io, metadata_path, md));

  WriteExpected(io, md, metadata_path, table + "/expected.json");
}

TEST(ManifestInteropTest, WriteV1TableForReferenceReaders) {
  const char* out_env = std::getenv("FLOE_INTEROP_OUT");
  if (out_env == nullptr || *out_env == '\0') GTEST_SKIP() << "set FLOE_INTEROP_OUT";
  std::string table = std::string(out_env) + "/floe_manifests_v1";
  std::filesystem::remove_all(table);
  std::string meta_dir = table + "/metadata";
  std::filesystem::create_directories(meta_dir);
  io::LocalFileIO io;
  auto schema = EveryTypeSchema();
  PartitionSpec spec(0, {PartitionField{12, 1000, "s", Transform::Identity()},
                         PartitionField{10, 1001, "ts_day", Transform::Day()},
                         PartitionField{1, 1002, "id_bucket", Transform::Bucket(4).value()}});
  auto tuple = [](int k) {
    return std::vector<Literal>{Literal::String("r" + std::to_string(k)), Literal::Date(19000 + k),
                                Literal::Int(k % 4)};
  };
  std::vector<ManifestFile> manifests;
  for (SnapshotId id : {SnapshotId{2001}, SnapshotId{2002}}) {
    auto w = ManifestWriter::Open(io, meta_dir + "/m-" + std::to_string(id) + ".avro", 1, schema,
                                  spec, ManifestContent::kData, id);
    FLOE_ASSERT_OK(w);
    for (int k = 0; k < 2; ++k) {
      ManifestEntry e;
      e.data_file = SampleDataFile(
          table + "/data/" + std::to_string(id) + "-" + std::to_string(k) + ".parquet",
          tuple(static_cast<int>(id % 10) + k), 5 + k);
      FLOE_ASSERT_OK((*w)->Add(e));
    }
    auto m = (*w)->Close();
    FLOE_ASSERT_OK(m);
    manifests.push_back(*m);
  }
  FLOE_ASSERT_OK(WriteManifestList(io, meta_dir + "/snap-2001.avro", 1, 2001, std::nullopt, 0,
                                   {manifests[0]}));
  FLOE_ASSERT_OK(WriteManifestList(io, meta_dir + "/snap-2002.avro", 1, 2002, SnapshotId{2001}, 0,
                                   {manifests[1], manifests[0]}));
  TableMetadata md = MetadataFor(schema, spec, 1);
  md.location = table;
  Snapshot s1;
  s1.snapshot_id = 2001;
  s1.timestamp_ms = 1700000000000;
  s1.manifest_list = meta_dir + "/snap-2001.avro";
  s1.operation = "append";
  Snapshot s2 = s1;
  s2.snapshot_id = 2002;
  s2.parent_snapshot_id = 2001;
  s2.timestamp_ms = 1700000001000;
  s2.manifest_list = meta_dir + "/snap-2002.avro";
  md.snapshots = {s1, s2};
  md.current_snapshot_id = 2002;
  md.refs = {{"main", SnapshotRef::Branch(2002)}};
  md.snapshot_log = {{s1.timestamp_ms, 2001}, {s2.timestamp_ms, 2002}};
  FLOE_ASSERT_OK(md.Validate());
  std::string metadata_path = meta_dir + "/v1.metadata.json";
  FLOE_ASSERT_OK(WriteTableMetadata(io, metadata_path, md));
  WriteExpected(io, md, metadata_path, table + "/expected.json");
}

// ----------------------------------------------------- reading PyIceberg's files

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

/// Reads one golden table folder written by make_pyiceberg_manifests.py: the
/// manifest paths inside are those of the machine that made them, so they are
/// mapped to the folder by file name.
void CheckGoldenTable(const std::string& folder) {
  std::ifstream in(folder + "/expected.json");
  ASSERT_TRUE(in.good()) << folder;
  nlohmann::json expected = nlohmann::json::parse(in);
  io::LocalFileIO io;
  auto md = ReadTableMetadata(io, folder + "/" + expected["metadata"].get<std::string>());
  FLOE_ASSERT_OK(md);
  auto local = [&](const std::string& path) {
    return folder + "/" + std::filesystem::path(path).filename().string();
  };
  for (const auto& [id_text, snap] : expected["snapshots"].items()) {
    SCOPED_TRACE("snapshot " + id_text);
    const Snapshot* s = md->SnapshotById(std::stoll(id_text));
    ASSERT_NE(s, nullptr);
    Snapshot localized = *s;
    localized.manifest_list = local(s->manifest_list);
    auto manifests = SnapshotManifests(io, localized, md->format_version);
    FLOE_ASSERT_OK(manifests);
    ASSERT_EQ(manifests->size(), snap["manifests"].size());
    for (size_t i = 0; i < manifests->size(); ++i) {
      ManifestFile m = (*manifests)[i];
      const auto& em = snap["manifests"][i];
      SCOPED_TRACE(m.manifest_path);
      EXPECT_EQ(std::filesystem::path(m.manifest_path).filename(),
                std::filesystem::path(em["manifest_path"].get<std::string>()).filename());
      EXPECT_EQ(m.manifest_length, em["manifest_length"]);
      EXPECT_EQ(m.partition_spec_id, em["partition_spec_id"]);
      EXPECT_EQ(static_cast<int>(m.content), em["content"]);
      EXPECT_EQ(m.sequence_number, em["sequence_number"]);
      EXPECT_EQ(m.min_sequence_number, em["min_sequence_number"]);
      EXPECT_EQ(m.added_snapshot_id, em["added_snapshot_id"]);
      EXPECT_EQ(m.added_files_count, em["added_files_count"]);
      EXPECT_EQ(m.existing_files_count, em["existing_files_count"]);
      EXPECT_EQ(m.deleted_files_count, em["deleted_files_count"]);
      EXPECT_EQ(m.added_rows_count, em["added_rows_count"]);
      EXPECT_EQ(m.existing_rows_count, em["existing_rows_count"]);
      EXPECT_EQ(m.deleted_rows_count, em["deleted_rows_count"]);
      ASSERT_EQ(m.partitions.size(), em["partitions"].size());
      for (size_t p = 0; p < m.partitions.size(); ++p) {
        const auto& ep = em["partitions"][p];
        EXPECT_EQ(m.partitions[p].contains_null, ep["contains_null"]);
        if (!ep["lower_bound"].is_null()) {
          EXPECT_EQ(m.partitions[p].lower_bound, Unhex(ep["lower_bound"]));
          EXPECT_EQ(m.partitions[p].upper_bound, Unhex(ep["upper_bound"]));
        }
      }
      m.manifest_path = local(m.manifest_path);
      auto entries = ReadManifest(io, m, *md);
      FLOE_ASSERT_OK(entries);
      ASSERT_EQ(entries->size(), em["entries"].size());
      const PartitionSpec* spec = md->SpecById(m.partition_spec_id);
      ASSERT_NE(spec, nullptr);
      for (size_t k = 0; k < entries->size(); ++k) {
        const ManifestEntry& e = (*entries)[k];
        const auto& ee = em["entries"][k];
        SCOPED_TRACE(e.data_file.file_path);
        EXPECT_EQ(static_cast<int>(e.status), ee["status"]);
        EXPECT_EQ(e.snapshot_id, ee["snapshot_id"].get<int64_t>());
        EXPECT_EQ(e.sequence_number, ee["sequence_number"].get<int64_t>());
        if (!ee["file_sequence_number"].is_null()) {
          EXPECT_EQ(e.file_sequence_number, ee["file_sequence_number"].get<int64_t>());
        }
        EXPECT_EQ(static_cast<int>(e.data_file.content), ee["content"]);
        EXPECT_EQ(e.data_file.file_path, ee["file_path"]);
        EXPECT_EQ(e.data_file.file_format, ee["file_format"]);
        EXPECT_EQ(e.data_file.record_count, ee["record_count"]);
        EXPECT_EQ(e.data_file.file_size_in_bytes, ee["file_size_in_bytes"]);
        EXPECT_EQ(MapJson(e.data_file.value_counts, false), ee["value_counts"]);
        EXPECT_EQ(MapJson(e.data_file.null_value_counts, false), ee["null_value_counts"]);
        EXPECT_EQ(MapJson(e.data_file.lower_bounds, true), ee["lower_bounds"]);
        EXPECT_EQ(MapJson(e.data_file.upper_bounds, true), ee["upper_bounds"]);
        nlohmann::json partition = nlohmann::json::object();
        for (size_t p = 0; p < e.data_file.partition.size(); ++p) {
          partition[spec->fields()[p].name] = ValueJson(e.data_file.partition[p]);
        }
        EXPECT_EQ(partition, ee["partition"]);
      }
    }
  }
}

TEST(ManifestInteropTest, ReadsManifestsPyIcebergWrote) {
  const std::string root = std::string(FLOE_TEST_DATA_DIR) + "/iceberg/manifests";
  int tables = 0;
  for (const char* name : {"pyiceberg_v2", "pyiceberg_v1"}) {
    std::string folder = root + "/" + name;
    if (!std::filesystem::exists(folder + "/expected.json")) continue;
    SCOPED_TRACE(name);
    CheckGoldenTable(folder);
    ++tables;
  }
  EXPECT_EQ(tables, 2) << "golden files missing under " << root;
}

}  // namespace
}  // namespace floe::iceberg
