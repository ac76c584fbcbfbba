// Reads the golden files pyarrow wrote (tests/data/parquet/make_pyarrow_files.py)
// and compares every row with the rows pyarrow held, as JSON in floe's
// conventions.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/format/parquet/reader.h"
#include "floe/io/file_io.h"
#include "floe/types/row_json.h"

namespace floe::format::parquet {
namespace {

std::string DataPath(const std::string& name) {
  return std::string(FLOE_TEST_DATA_DIR) + "/parquet/pyarrow/" + name;
}

std::unique_ptr<ParquetReader> OpenFile(const std::string& path, ReaderOptions options = {}) {
  io::LocalFileIO fio;
  auto file = fio.OpenInput(path);
  EXPECT_TRUE(file.has_value()) << file.error().ToString();
  if (!file) return nullptr;
  auto reader = ParquetReader::Open(std::move(*file), options);
  EXPECT_TRUE(reader.has_value()) << reader.error().ToString();
  if (!reader) return nullptr;
  return std::move(*reader);
}

/// Equality of JSON documents, with numbers compared to 1e-6 relative (floats
/// may print with fewer digits on one side).
bool JsonNear(const nlohmann::json& a, const nlohmann::json& b, std::string* where,
              const std::string& path = "") {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_integer() && b.is_number_integer()) {
      if (a.get<int64_t>() == b.get<int64_t>()) return true;
    } else {
      double x = a.get<double>(), y = b.get<double>();
      if (x == y || std::fabs(x - y) <= 1e-6 * std::max(std::fabs(x), std::fabs(y))) return true;
    }
    *where = path + ": " + a.dump() + " vs " + b.dump();
    return false;
  }
  if (a.type() != b.type()) {
    *where = path + ": " + a.dump() + " vs " + b.dump();
    return false;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) {
      *where = path + ": " + a.dump() + " vs " + b.dump();
      return false;
    }
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) {
        *where = path + "." + it.key() + " missing";
        return false;
      }
      if (!JsonNear(it.value(), b[it.key()], where, path + "." + it.key())) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) {
      *where = path + ": " + a.dump() + " vs " + b.dump();
      return false;
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (!JsonNear(a[i], b[i], where, path + "[" + std::to_string(i) + "]")) return false;
    }
    return true;
  }
  if (a != b) {
    *where = path + ": " + a.dump() + " vs " + b.dump();
    return false;
  }
  return true;
}

void ExpectMatchesJsonl(const std::string& name, size_t batch_size) {
  SCOPED_TRACE(name);
  auto reader = OpenFile(DataPath(name + ".parquet"));
  ASSERT_NE(reader, nullptr);
  std::ifstream expected(DataPath(name + ".jsonl"));
  ASSERT_TRUE(expected.good());
  std::vector<std::string> lines;
  for (std::string line; std::getline(expected, line);) lines.push_back(line);
  ASSERT_FALSE(lines.empty());

  Arena arena;
  std::vector<types::Value> values;
  size_t width = reader->schema().fields().size();
  size_t row = 0;
  while (true) {
    arena.Reset();
    values.clear();
    auto n = reader->ReadBatch(&arena, batch_size, &values);
    ASSERT_TRUE(n.has_value()) << n.error().ToString();
    if (*n == 0) break;
    ASSERT_EQ(values.size(), *n * width);
    for (size_t i = 0; i < *n; ++i, ++row) {
      ASSERT_LT(row, lines.size());
      std::string json;
      types::AppendRowJson(reader->schema(), types::Row(values.data() + i * width, width), &json);
      auto got = nlohmann::json::parse(json);
      auto want = nlohmann::json::parse(lines[row]);
      std::string where;
      ASSERT_TRUE(JsonNear(got, want, &where))
          << "row " << row << " at " << where << "\n got: " << json << "\nwant: " << lines[row];
    }
  }
  EXPECT_EQ(row, lines.size());
}

TEST(ReaderPyarrowTest, PlainV1EveryType) { ExpectMatchesJsonl("plain_v1", 7); }
TEST(ReaderPyarrowTest, DictionarySnappy) { ExpectMatchesJsonl("dict_v1_snappy", 1000); }
TEST(ReaderPyarrowTest, V2Uncompressed) { ExpectMatchesJsonl("v2_none", 64); }
TEST(ReaderPyarrowTest, V2Snappy) { ExpectMatchesJsonl("v2_snappy", 64); }
TEST(ReaderPyarrowTest, V2Gzip) { ExpectMatchesJsonl("v2_gzip", 64); }
TEST(ReaderPyarrowTest, V2Zstd) { ExpectMatchesJsonl("v2_zstd", 64); }
TEST(ReaderPyarrowTest, V2Lz4Raw) { ExpectMatchesJsonl("v2_lz4", 64); }
TEST(ReaderPyarrowTest, DeltaEncodings) { ExpectMatchesJsonl("delta", 33); }
TEST(ReaderPyarrowTest, ByteStreamSplit) { ExpectMatchesJsonl("byte_stream_split", 50); }
TEST(ReaderPyarrowTest, NestedV1Dictionary) { ExpectMatchesJsonl("nested_v1", 5); }
TEST(ReaderPyarrowTest, NestedV2Zstd) { ExpectMatchesJsonl("nested_v2_zstd", 1); }
TEST(ReaderPyarrowTest, Int96Timestamps) { ExpectMatchesJsonl("int96", 100); }
TEST(ReaderPyarrowTest, FieldIds) { ExpectMatchesJsonl("field_ids", 100); }

TEST(ReaderPyarrowTest, EncodingsAreTheOnesIntended) {
  auto reader = OpenFile(DataPath("delta.parquet"));
  ASSERT_NE(reader, nullptr);
  std::set<Encoding> seen;
  for (const auto& cc : reader->metadata().row_groups[0].columns) {
    for (Encoding e : cc.meta_data->encodings) seen.insert(e);
  }
  EXPECT_TRUE(seen.contains(Encoding::kDeltaBinaryPacked));
  EXPECT_TRUE(seen.contains(Encoding::kDeltaLengthByteArray));
  EXPECT_TRUE(seen.contains(Encoding::kDeltaByteArray));

  auto bss = OpenFile(DataPath("byte_stream_split.parquet"));
  ASSERT_NE(bss, nullptr);
  int bss_columns = 0;
  for (const auto& cc : bss->metadata().row_groups[0].columns) {
    for (Encoding e : cc.meta_data->encodings) bss_columns += e == Encoding::kByteStreamSplit;
  }
  EXPECT_EQ(bss_columns, 7);

  auto v2 = OpenFile(DataPath("v2_lz4.parquet"));
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(v2->metadata().row_groups[0].columns[0].meta_data->codec, CompressionCodec::kLz4Raw);
}

TEST(ReaderPyarrowTest, SchemaMapping) {
  auto reader = OpenFile(DataPath("plain_v1.parquet"));
  ASSERT_NE(reader, nullptr);
  const auto& schema = reader->schema();
  auto type_of = [&](const char* name) {
    auto* f = schema.FindFieldByName(name);
    return f ? f->type->ToString() : std::string("<missing>");
  };
  EXPECT_EQ(schema.fields()[0].id, 1);  // no ids in the file: assigned by position
  EXPECT_TRUE(schema.fields()[0].required);
  EXPECT_FALSE(schema.fields()[1].required);
  EXPECT_EQ(type_of("i8"), "int");
  EXPECT_EQ(type_of("u32"), "long");
  EXPECT_EQ(type_of("d30"), "decimal(30, 5)");
  EXPECT_EQ(type_of("t_ms"), "time");
  EXPECT_EQ(type_of("ts_ms"), "timestamp");
  EXPECT_EQ(type_of("ts_us_utc"), "timestamptz");
  EXPECT_EQ(type_of("uuid"), "uuid");
  EXPECT_EQ(type_of("fx4"), "fixed[4]");
  EXPECT_EQ(type_of("s"), "string");
  EXPECT_EQ(type_of("bin"), "binary");

  auto ids = OpenFile(DataPath("field_ids.parquet"));
  ASSERT_NE(ids, nullptr);
  EXPECT_EQ(ids->schema().fields()[0].id, 100);
  EXPECT_EQ(ids->schema().fields()[4].name, "mp");
  EXPECT_EQ(ids->schema().fields()[4].id, 104);
  // Nested fields without ids get fresh ones above the largest id (106).
  EXPECT_GT(ids->schema().fields()[1].type->fields()[0].id, 106);
}

TEST(ReaderPyarrowTest, ProjectionByFieldId) {
  auto reader = OpenFile(DataPath("nested_v1.parquet"));
  ASSERT_NE(reader, nullptr);
  // Select "id" (1) and the map (5).
  int32_t id_id = reader->schema().FindFieldByName("id")->id;
  int32_t mp_id = reader->schema().FindFieldByName("mp")->id;
  ASSERT_TRUE(reader->Project({mp_id, id_id}).has_value());
  ASSERT_EQ(reader->schema().fields().size(), 2u);
  EXPECT_EQ(reader->schema().fields()[0].name, "id");
  EXPECT_EQ(reader->schema().fields()[1].name, "mp");
  Arena arena;
  std::vector<types::Value> row;
  int rows = 0;
  while (true) {
    auto more = reader->Next(&arena, &row);
    ASSERT_TRUE(more.has_value()) << more.error().ToString();
    if (!*more) break;
    ASSERT_EQ(row.size(), 2u);
    EXPECT_EQ(row[0].i32, rows);
    if (rows % 6 == 5) {
      EXPECT_TRUE(row[1].is_null());
    } else {
      ASSERT_EQ(row[1].kind, types::Value::Kind::kMap);
      EXPECT_EQ(row[1].map_size(), static_cast<size_t>(rows % 3));
    }
    ++rows;
  }
  EXPECT_EQ(rows, 120);
  EXPECT_FALSE(reader->Project({1}).has_value());  // after the first read

  auto bad = OpenFile(DataPath("nested_v1.parquet"));
  auto st = bad->Project({12345});
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().code(), ErrorCode::kInvalidArgument);
}

TEST(ReaderPyarrowTest, RowGroupStatsAndFilter) {
  auto reader = OpenFile(DataPath("plain_v1.parquet"));
  ASSERT_NE(reader, nullptr);
  ASSERT_EQ(reader->num_row_groups(), 3);  // 120 rows in groups of 50
  auto stats = reader->ReadRowGroupStats(1);
  ASSERT_TRUE(stats.has_value());
  int32_t id_field = reader->schema().FindFieldByName("id")->id;
  const ColumnStats* id = stats->Find(id_field);
  ASSERT_NE(id, nullptr);
  ASSERT_TRUE(id->min && id->max);
  EXPECT_EQ(id->min->i64, 50);
  EXPECT_EQ(id->max->i64, 99);
  EXPECT_EQ(id->null_count.value_or(-1), 0);
  const ColumnStats* s = stats->Find(reader->schema().FindFieldByName("s")->id);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->min.has_value());
  EXPECT_EQ(s->min->as_bytes(), "prefix_2500");
  const ColumnStats* d = stats->Find(reader->schema().FindFieldByName("d9")->id);
  ASSERT_TRUE(d && d->min);
  EXPECT_EQ(d->min->kind, types::Value::Kind::kDecimal);
  EXPECT_EQ(static_cast<int64_t>(d->min->decimal), 50 * 123 - 5000);
  EXPECT_FALSE(reader->ReadRowGroupStats(3).has_value());

  // Keep only groups that may hold id >= 100.
  reader->SetRowGroupFilter([&](const RowGroupStats& rg) {
    const ColumnStats* c = rg.Find(id_field);
    return !(c && c->max && c->max->i64 < 100);
  });
  Arena arena;
  std::vector<types::Value> row;
  std::vector<int64_t> ids;
  while (true) {
    auto more = reader->Next(&arena, &row);
    ASSERT_TRUE(more.has_value()) << more.error().ToString();
    if (!*more) break;
    ids.push_back(row[0].i64);
  }
  ASSERT_EQ(ids.size(), 20u);
  EXPECT_EQ(ids.front(), 100);
  EXPECT_EQ(ids.back(), 119);
}

}  // namespace
}  // namespace floe::format::parquet
