#include "floe/iceberg/json/metadata_json.h"

#include <zlib.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "floe/iceberg/table_properties.h"
#include "floe/types/schema_json.h"

namespace floe::iceberg {
namespace {

using nlohmann::json;

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(FLOE_TEST_DATA_DIR) + "/iceberg/metadata/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Every member of `original` is in `written` with an equal value (objects
/// compared member by member, so extra members in `written` are fine; a null
/// member may be omitted).
void ExpectSubset(const json& original, const json& written, const std::string& path) {
  if (original.is_object()) {
    ASSERT_TRUE(written.is_object()) << path;
    for (auto it = original.begin(); it != original.end(); ++it) {
      if (it.value().is_null()) continue;
      ASSERT_TRUE(written.contains(it.key())) << "lost " << path << "." << it.key();
      ExpectSubset(it.value(), written[it.key()], path + "." + it.key());
    }
  } else if (original.is_array()) {
    ASSERT_TRUE(written.is_array()) << path;
    ASSERT_EQ(original.size(), written.size()) << path;
    for (size_t i = 0; i < original.size(); ++i) {
      ExpectSubset(original[i], written[i], path + "[" + std::to_string(i) + "]");
    }
  } else {
    EXPECT_EQ(original, written) << path;
  }
}

Result<TableMetadata> Parse(const std::string& text, const std::string& name = "t.json") {
  return ParseTableMetadata(text, name);
}

TEST(MetadataJsonTest, V2RoundTripsWithoutLosingFields) {
  std::string text = ReadFixture("v2-valid.metadata.json");
  auto m = Parse(text);
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(m->format_version, 2);
  EXPECT_EQ(m->table_uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1");
  EXPECT_EQ(m->last_sequence_number, 34);
  EXPECT_EQ(m->current_schema_id, 1);
  ASSERT_NE(m->CurrentSchema(), nullptr);
  EXPECT_EQ(m->CurrentSchema()->identifier_field_ids(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(m->last_partition_id, 1000);
  ASSERT_NE(m->DefaultSpec(), nullptr);
  ASSERT_EQ(m->DefaultSpec()->fields().size(), 1u);
  EXPECT_EQ(m->DefaultSpec()->fields()[0].source_id, 1);
  EXPECT_EQ(m->DefaultSpec()->fields()[0].field_id, 1000);
  EXPECT_EQ(m->default_sort_order_id, 3);
  ASSERT_EQ(m->SortOrderById(3)->fields().size(), 2u);
  EXPECT_EQ(m->SortOrderById(3)->fields()[1].source_id, 3);
  EXPECT_EQ(m->SortOrderById(3)->fields()[1].direction, SortDirection::kDesc);
  ASSERT_EQ(m->snapshots.size(), 2u);
  const Snapshot* current = m->CurrentSnapshot();
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(current->operation, "overwrite");
  EXPECT_EQ(current->SummaryValue("floe.committed-offset"), "binlog.000003:1234");
  EXPECT_EQ(current->parent_snapshot_id, 3051729675574597004);
  EXPECT_EQ(current->schema_id, 1);
  ASSERT_EQ(m->refs.size(), 3u);
  const SnapshotRef& audit = m->refs.at("audit");
  EXPECT_EQ(audit.min_snapshots_to_keep, 3);
  EXPECT_EQ(audit.max_snapshot_age_ms, 86400000);
  EXPECT_EQ(audit.max_ref_age_ms, 604800000);
  EXPECT_EQ(m->refs.at("v1.0").type, SnapshotRefType::kTag);
  EXPECT_EQ(m->SnapshotForRef("v1.0")->snapshot_id, 3051729675574597004);
  EXPECT_EQ(m->SnapshotAsOf(1515100955771)->snapshot_id, 3051729675574597004);
  EXPECT_EQ(m->SnapshotAsOf(1515100955769), nullptr);
  ASSERT_EQ(m->statistics.size(), 1u);
  ASSERT_EQ(m->partition_statistics.size(), 1u);
  EXPECT_EQ(m->partition_statistics[0].file_size_in_bytes, 43);
  EXPECT_EQ(m->metadata_log.size(), 1u);
  EXPECT_EQ(m->PropertyAsInt(table_properties::kWriteMetadataPreviousVersionsMax, 100), 2);
  EXPECT_TRUE(m->extra.contains("x-vendor-extension"));

  json written = json::parse(SerializeTableMetadata(*m));
  ExpectSubset(json::parse(text), written, "");
  // And a second round gives the same text.
  auto again = Parse(written.dump());
  ASSERT_TRUE(again) << again.error().ToString();
  EXPECT_EQ(SerializeTableMetadata(*again), SerializeTableMetadata(*m));
}

TEST(MetadataJsonTest, V1IsReadIntoTheV2ModelAndWrittenBackAsV1) {
  auto m = Parse(ReadFixture("v1-valid.metadata.json"));
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(m->format_version, 1);
  ASSERT_EQ(m->schemas.size(), 1u);
  EXPECT_EQ(m->current_schema_id, 0);
  ASSERT_EQ(m->partition_specs.size(), 1u);
  EXPECT_EQ(m->default_spec_id, 0);
  // v1 partition fields without ids get 1000, 1001, ...
  EXPECT_EQ(m->partition_specs[0].fields()[0].field_id, 1000);
  EXPECT_EQ(m->last_partition_id, 1000);
  EXPECT_EQ(m->last_sequence_number, 0);
  ASSERT_EQ(m->sort_orders.size(), 1u);
  EXPECT_TRUE(m->sort_orders[0].is_unsorted());
  ASSERT_EQ(m->snapshots.size(), 1u);
  EXPECT_EQ(m->snapshots[0].sequence_number, 0);
  EXPECT_TRUE(m->snapshots[0].manifest_list.empty());
  EXPECT_EQ(m->snapshots[0].manifests.size(), 1u);
  // refs are synthesized for the current snapshot.
  ASSERT_TRUE(m->refs.contains("main"));
  EXPECT_EQ(m->refs.at("main").snapshot_id, 3051729675574597004);

  json written = json::parse(SerializeTableMetadata(*m));
  EXPECT_EQ(written["format-version"], 1);
  EXPECT_TRUE(written.contains("schema"));
  EXPECT_TRUE(written.contains("partition-spec"));
  EXPECT_FALSE(written.contains("last-sequence-number"));
  EXPECT_FALSE(written["snapshots"][0].contains("sequence-number"));
  EXPECT_EQ(written["snapshots"][0]["manifests"][0], "s3://bucket/test/location/metadata/m1.avro");
  auto again = Parse(written.dump());
  ASSERT_TRUE(again) << again.error().ToString();
  EXPECT_EQ(SerializeTableMetadata(*again), SerializeTableMetadata(*m));
}

TEST(MetadataJsonTest, V3RoundTripsRowLineageAndEncryptionKeys) {
  std::string text = ReadFixture("v3-valid.metadata.json");
  auto m = Parse(text);
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(m->format_version, 3);
  EXPECT_EQ(m->next_row_id, 120);
  ASSERT_EQ(m->encryption_keys.size(), 1u);
  EXPECT_EQ(m->encryption_keys[0].key_id, "key-1");
  const Snapshot* s = m->CurrentSnapshot();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->first_row_id, 100);
  EXPECT_EQ(s->added_rows, 20);
  EXPECT_EQ(s->key_id, "key-1");
  EXPECT_EQ(m->extra["row-lineage"], true);
  json written = json::parse(SerializeTableMetadata(*m));
  EXPECT_EQ(written["format-version"], 3);
  ExpectSubset(json::parse(text), written, "");
}

TEST(MetadataJsonTest, V3EmptyTableHasNoCurrentSnapshot) {
  auto m = Parse(ReadFixture("v3-empty.metadata.json"));
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_FALSE(m->current_snapshot_id);
  EXPECT_EQ(m->CurrentSnapshot(), nullptr);
  json written = json::parse(SerializeTableMetadata(*m));
  EXPECT_FALSE(written.contains("current-snapshot-id"));
  EXPECT_EQ(written["next-row-id"], 0);
}

TEST(MetadataJsonTest, MinusOneCurrentSnapshotMeansNone) {
  json j = json::parse(ReadFixture("v2-valid.metadata.json"));
  j["current-snapshot-id"] = -1;
  j.erase("refs");
  auto m = TableMetadataFromJson(j);
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_FALSE(m->current_snapshot_id);
  EXPECT_TRUE(m->refs.empty());
  EXPECT_EQ(TableMetadataToJson(*m)["current-snapshot-id"], -1);
}

TEST(MetadataJsonTest, ErrorsNameTheFileAndTheField) {
  json j = json::parse(ReadFixture("v2-valid.metadata.json"));
  j["snapshots"][1]["timestamp-ms"] = "yesterday";
  auto m = Parse(j.dump(), "v3.metadata.json");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(m.error().message(),
            "metadata v3.metadata.json: snapshots[1].timestamp-ms: expected integer");
}

TEST(MetadataJsonTest, CorruptionCases) {
  const json base = json::parse(ReadFixture("v2-valid.metadata.json"));
  struct Case {
    std::function<void(json&)> mutate;
    std::string expected;
  };
  std::vector<Case> cases = {
      {[](json& j) { j.erase("location"); }, "location: missing"},
      {[](json& j) { j.erase("table-uuid"); }, "table-uuid: missing"},
      {[](json& j) { j["last-column-id"] = 1.5; }, "last-column-id: expected integer"},
      {[](json& j) { j["current-schema-id"] = 7; }, "current-schema-id: no schema with id 7"},
      {[](json& j) { j["schemas"][1]["fields"][0]["type"] = "lnog"; }, "schemas[1].fields[0].type"},
      {[](json& j) { j["partition-specs"][0]["fields"][0].erase("field-id"); },
       "partition-specs[0].fields[0].field-id: missing"},
      {[](json& j) { j["partition-specs"][0]["fields"][0]["transform"] = 7; },
       "partition-specs[0]: partition field 0"},
      {[](json& j) { j["sort-orders"][0]["fields"][0]["direction"] = "up"; }, "sort-orders[0]: "},
      {[](json& j) { j["properties"]["n"] = 5; }, "properties.n: expected string"},
      {[](json& j) { j["refs"]["main"]["type"] = "twig"; }, "refs.main.type"},
      {[](json& j) { j["refs"]["audit"]["snapshot-id"] = 42; },
       "refs.audit: no snapshot with id 42"},
      {[](json& j) { j["current-snapshot-id"] = 99; },
       "current-snapshot-id: no snapshot with id 99"},
      {[](json& j) { j["snapshots"][0].erase("manifest-list"); },
       "snapshots[0].manifest-list: missing"},
      {[](json& j) { j["snapshots"][1]["summary"].erase("operation"); },
       "snapshots[1].summary.operation: missing"},
      {[](json& j) { j["snapshots"][1]["sequence-number"] = 35; },
       "snapshots[1].sequence-number: 35 is greater than last-sequence-number 34"},
      {[](json& j) { j["snapshot-log"][0]["snapshot-id"] = "x"; },
       "snapshot-log[0].snapshot-id: expected integer"},
      {[](json& j) { j["metadata-log"][0].erase("metadata-file"); },
       "metadata-log[0].metadata-file: missing"},
      {[](json& j) { j["statistics"][0].erase("statistics-path"); },
       "statistics[0].statistics-path: missing"},
      {[](json& j) { j = json::array(); }, "metadata: expected object"},
  };
  for (const auto& c : cases) {
    json j = base;
    c.mutate(j);
    auto m = Parse(j.dump(), "f.json");
    ASSERT_FALSE(m) << c.expected;
    EXPECT_EQ(m.error().code(), ErrorCode::kCorruption) << m.error().ToString();
    EXPECT_NE(m.error().message().find(c.expected), std::string::npos)
        << m.error().message() << " does not contain " << c.expected;
    EXPECT_TRUE(m.error().message().starts_with("metadata f.json: ")) << m.error().message();
  }
}

TEST(MetadataJsonTest, V3RequiresNextRowId) {
  json j = json::parse(ReadFixture("v3-valid.metadata.json"));
  j.erase("next-row-id");
  auto m = TableMetadataFromJson(j);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(m.error().message(), "next-row-id: missing");
}

TEST(MetadataJsonTest, UnsupportedFormatVersionIsNotSupported) {
  json j = json::parse(ReadFixture("v2-valid.metadata.json"));
  j["format-version"] = 4;
  auto m = Parse(j.dump(), "v9.metadata.json");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(m.error().message().find("v9.metadata.json"), std::string::npos);
}

TEST(MetadataJsonTest, NotJsonIsCorruption) {
  auto m = Parse("{\"format-version\": 2,", "broken.json");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(m.error().message(), "metadata broken.json: not valid JSON");
}

// Regression (fuzz/table_metadata): an unknown member nested 100000 deep
// overflowed the stack when it was copied to be kept.
TEST(MetadataJsonTest, DeepNestingIsCorruption) {
  json j = json::parse(ReadFixture("v2-valid.metadata.json"));
  std::string text = j.dump();
  text.pop_back();
  std::string deep =
      text + ",\"x-deep\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  auto m = Parse(deep, "deep.json");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(m.error().message(), "metadata deep.json: JSON nested deeper than 1000 levels");
  // Nesting within the limit is kept and written back.
  std::string ok = text + ",\"x-deep\":" + std::string(900, '[') + std::string(900, ']') + "}";
  auto kept = Parse(ok, "ok.json");
  ASSERT_TRUE(kept) << kept.error().ToString();
  EXPECT_NE(SerializeTableMetadata(*kept, -1).find(std::string(900, '[')), std::string::npos);
}

std::string Gzip(const std::string& in) {
  z_stream zs{};
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, in.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = in.size();
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = out.size();
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

TEST(MetadataJsonTest, ReadsGzipAndRejectsTruncatedGzip) {
  std::string gz = Gzip(ReadFixture("v2-valid.metadata.json"));
  auto m = Parse(gz, "v1.gz.metadata.json");
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(m->snapshots.size(), 2u);
  auto bad = Parse(gz.substr(0, gz.size() / 2), "v1.gz.metadata.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::kCorruption);
}

TEST(MetadataJsonTest, WriteIsExclusiveAndReadsBack) {
  auto m = Parse(ReadFixture("v2-valid.metadata.json"));
  ASSERT_TRUE(m);
  io::LocalFileIO io;
  std::string dir = ::testing::TempDir() + "/floe_metadata_json_test";
  std::string path = dir + "/v1.metadata.json";
  (void)io.Delete(path);
  ASSERT_TRUE(WriteTableMetadata(io, path, *m));
  auto second = WriteTableMetadata(io, path, *m);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), ErrorCode::kAlreadyExists);
  auto read = ReadTableMetadata(io, path);
  ASSERT_TRUE(read) << read.error().ToString();
  EXPECT_EQ(SerializeTableMetadata(*read), SerializeTableMetadata(*m));
  (void)io.Delete(path);
}

TEST(MetadataJsonTest, WriteRefusesSchemasItCouldNotReadBack) {
  // `floe table create` wrote a schema nested 5,000 levels that the reader
  // (JSON limit 1000) refused: the writer now checks the one type depth limit
  // before creating the file.
  auto m = Parse(ReadFixture("v2-valid.metadata.json"));
  ASSERT_TRUE(m);
  types::TypePtr type = *types::Type::ParsePrimitive("int");
  for (int i = 0; i < types::kMaxTypeDepth + 1; ++i)
    type = types::Type::List(1000 + i, false, type);
  m->schemas.push_back(types::Schema({types::NestedField{999, "deep", false, type, ""}}, 7));
  io::LocalFileIO io;
  std::string path = ::testing::TempDir() + "/floe_metadata_json_deep/v1.metadata.json";
  (void)io.Delete(path);
  auto written = WriteTableMetadata(io, path, *m);
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().message().find("deeper than the limit of 100"), std::string::npos)
      << written.error().message();
  EXPECT_FALSE(*io.Exists(path));
}

}  // namespace
}  // namespace floe::iceberg
