// TableWriter: the RowKind semantics of Iceberg's Flink sink (append-only,
// changelog, upsert), position deletes for rows written in the same
// checkpoint, equality deletes for older rows, schema changes, rolling and
// codecs. Every test reads the files back (Parquet reader or a table scan
// that applies the deletes with the spec's sequence-number rules).

#include "floe/sink/table_writer.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "floe/format/parquet/reader.h"
#include "floe/iceberg/puffin/deletion_vector.h"
#include "floe/sink/tests/writer_test_util.h"

namespace floe::sink::testing {
namespace {

using iceberg::DataFile;
using iceberg::DataFileContent;

iceberg::PartitionSpec RegionSpec() {
  auto spec = iceberg::ParsePartitionSpecText("region", PeopleSchema());
  EXPECT_TRUE(spec);
  return *spec;
}

class TableWriterTest : public ::testing::Test {
 protected:
  Status Put(TableWriter& w, RowKind kind, const Person& p) {
    auto v = p.values();
    return w.Write(kind, types::Row(v.data(), v.size()));
  }
  std::unique_ptr<TableWriter> Make(const TableTargetPtr& target) {
    auto w = TableWriter::Make(table_->io(), target, options_, 3);
    EXPECT_TRUE(w) << w.error().ToString();
    return w ? std::move(*w) : nullptr;
  }
  std::vector<WriteResult> Complete(TableWriter& w) {
    auto r = w.Complete();
    EXPECT_TRUE(r) << r.error().ToString();
    return r ? std::move(*r) : std::vector<WriteResult>{};
  }

  SinkOptions options_;
  std::unique_ptr<TestTable> table_;
};

/// (file_path, pos) rows of a position delete file.
std::vector<std::pair<std::string, int64_t>> ReadPositions(io::FileIO& io, const DataFile& f) {
  auto in = io.OpenInput(f.file_path);
  EXPECT_TRUE(in);
  auto reader = format::parquet::ParquetReader::Open(std::move(*in));
  EXPECT_TRUE(reader);
  std::vector<std::pair<std::string, int64_t>> out;
  Arena arena;
  std::vector<Value> row;
  while (true) {
    auto more = (*reader)->Next(&arena, &row);
    EXPECT_TRUE(more);
    if (!more || !*more) break;
    out.emplace_back(std::string(row[0].as_bytes()), row[1].i64);
  }
  return out;
}

/// The first column (a long) of every row of a Parquet file, and its width.
std::vector<int64_t> ReadFirstColumn(io::FileIO& io, const std::string& path, size_t* width) {
  auto in = io.OpenInput(path);
  EXPECT_TRUE(in);
  auto reader = format::parquet::ParquetReader::Open(std::move(*in));
  EXPECT_TRUE(reader);
  *width = (*reader)->schema().fields().size();
  std::vector<int64_t> out;
  Arena arena;
  std::vector<Value> row;
  while (true) {
    auto more = (*reader)->Next(&arena, &row);
    EXPECT_TRUE(more);
    if (!more || !*more) break;
    out.push_back(row[0].i64);
  }
  return out;
}

std::vector<DataFile> OfContent(const std::vector<WriteResult>& results, DataFileContent c) {
  std::vector<DataFile> out;
  for (const auto& r : results) {
    for (const auto& f : r.data_files) {
      if (f.content == c) out.push_back(f);
    }
    for (const auto& f : r.delete_files) {
      if (f.content == c) out.push_back(f);
    }
  }
  return out;
}

TEST_F(TableWriterTest, AppendOnlyWritesInsertsAndRefusesDeletes) {
  table_ = std::make_unique<TestTable>("tw_append", PeopleSchema());
  auto w = Make(MakeTarget(*table_, "append", {}, false));
  Person a{1, "eu", "a", 1}, b{2, "us", "b", 2};
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, a));
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateAfter, b));
  auto del = Put(*w, RowKind::kDelete, a);
  ASSERT_FALSE(del);
  EXPECT_EQ(del.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(del.error().ToString().find("db.append"), std::string::npos);
  EXPECT_NE(del.error().ToString().find("has no identifier fields"), std::string::npos);
  EXPECT_FALSE(Put(*w, RowKind::kUpdateBefore, a));
  auto results = Complete(*w);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].writer_subtask, 3);
  EXPECT_EQ(results[0].rows_written, 2);
  EXPECT_TRUE(results[0].delete_files.empty());
  CommitResults(*table_, results);
  EXPECT_EQ(Rows(*table_), (std::vector<std::string>{a.json(), b.json()}));
  // Nothing written since: nothing to report.
  EXPECT_TRUE(Complete(*w).empty());
}

TEST_F(TableWriterTest, ChangelogDeletesByPositionWithinCheckpointAndByEqualityBefore) {
  table_ = std::make_unique<TestTable>("tw_changelog", PeopleSchema());
  auto target = MakeTarget(*table_, "changelog", {1}, false);
  auto w = Make(target);
  // Checkpoint 1: ids 3 and 4.
  Person p3{3, "eu", "three", 3}, p4{4, "eu", "four", 4};
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, p3));
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, p4));
  CommitResults(*table_, Complete(*w));

  // Checkpoint 2.
  Person p1{1, "eu", "one", 1}, p2{2, "us", "two", 2}, p1b{1, "eu", "one'", 10};
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, p1));        // pos 0
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, p2));        // pos 1
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateBefore, p1));  // position delete of pos 0
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateAfter, p1b));  // pos 2
  FLOE_ASSERT_OK(Put(*w, RowKind::kDelete, p2));        // position delete of pos 1
  FLOE_ASSERT_OK(Put(*w, RowKind::kDelete, p3));        // equality delete (older row)
  auto results = Complete(*w);
  ASSERT_EQ(results.size(), 1u);
  const WriteResult& r = results[0];
  ASSERT_EQ(r.data_files.size(), 1u);
  EXPECT_EQ(r.rows_written, 3);
  EXPECT_EQ(r.rows_deleted, 3);
  const std::string data = r.data_files[0].file_path;
  size_t width = 0;
  EXPECT_EQ(ReadFirstColumn(table_->io(), data, &width), (std::vector<int64_t>{1, 2, 1}));
  auto pos = OfContent(results, DataFileContent::kPositionDeletes);
  ASSERT_EQ(pos.size(), 1u);
  EXPECT_EQ(ReadPositions(table_->io(), pos[0]),
            (std::vector<std::pair<std::string, int64_t>>{{data, 0}, {data, 1}}));
  EXPECT_EQ(pos[0].referenced_data_file, data);
  EXPECT_EQ(r.referenced_data_files, (std::vector<std::string>{data}));
  auto eq = OfContent(results, DataFileContent::kEqualityDeletes);
  ASSERT_EQ(eq.size(), 1u);
  EXPECT_EQ(eq[0].equality_ids, (std::vector<int32_t>{1}));
  EXPECT_EQ(ReadFirstColumn(table_->io(), eq[0].file_path, &width), (std::vector<int64_t>{3}));
  EXPECT_EQ(width, 1u);  // key columns only
  CommitResults(*table_, results);
  EXPECT_EQ(Rows(*table_), (std::vector<std::string>{p1b.json(), p4.json()}));
  EXPECT_EQ(w->position_deletes(), 2);
  EXPECT_EQ(w->equality_deletes(), 1);
}

TEST_F(TableWriterTest, ChangelogInsertOfAKeyWrittenInThisCheckpointDeletesThePreviousRow) {
  table_ = std::make_unique<TestTable>("tw_reinsert", PeopleSchema());
  auto w = Make(MakeTarget(*table_, "reinsert", {1}, false));
  Person a{7, "eu", "a", 1}, b{7, "eu", "b", 2};
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, a));
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, b));
  auto results = Complete(*w);
  EXPECT_EQ(OfContent(results, DataFileContent::kPositionDeletes).size(), 1u);
  EXPECT_TRUE(OfContent(results, DataFileContent::kEqualityDeletes).empty());
  CommitResults(*table_, results);
  EXPECT_EQ(Rows(*table_), (std::vector<std::string>{b.json()}));
}

TEST_F(TableWriterTest, UpsertReplacesKeysAcrossCheckpointsInPartitions) {
  table_ = std::make_unique<TestTable>("tw_upsert", PeopleSchema(), RegionSpec());
  auto w = Make(MakeTarget(*table_, "upsert", {1, 2}, true));
  Person e1{1, "eu", "e1", 1}, e2{2, "eu", "e2", 2}, u1{1, "us", "u1", 3};
  for (const auto& p : {e1, e2, u1}) FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, p));
  auto first = Complete(*w);
  // Equality deletes for keys never seen (a no-op on an empty table).
  EXPECT_EQ(OfContent(first, DataFileContent::kEqualityDeletes).size(), 2u);
  CommitResults(*table_, first);
  EXPECT_EQ(Rows(*table_), (std::vector<std::string>{e1.json(), u1.json(), e2.json()}));

  Person e1b{1, "eu", "e1b", 10}, e1c{1, "eu", "e1c", 11}, e5{5, "eu", "e5", 5};
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateAfter, e1b));   // eq delete (1,eu), write
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateBefore, e1b));  // ignored in upsert
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, e1c));        // position delete of e1b
  // A delete carrying only the key.
  std::vector<Value> key_only = {Value::Int64(2), Value::Bytes("eu"), Value::Null(), Value::Null()};
  FLOE_ASSERT_OK(w->Write(RowKind::kDelete, types::Row(key_only.data(), key_only.size())));
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, e5));
  auto second = Complete(*w);
  auto eq = OfContent(second, DataFileContent::kEqualityDeletes);
  ASSERT_EQ(eq.size(), 1u);  // all in partition eu
  ASSERT_EQ(eq[0].partition.size(), 1u);
  EXPECT_EQ(eq[0].partition[0].value().as_bytes(), "eu");
  EXPECT_EQ(eq[0].equality_ids, (std::vector<int32_t>{1, 2}));
  size_t width = 0;
  auto keys = ReadFirstColumn(table_->io(), eq[0].file_path, &width);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<int64_t>{1, 2, 5}));
  EXPECT_EQ(width, 2u);
  auto pos = OfContent(second, DataFileContent::kPositionDeletes);
  ASSERT_EQ(pos.size(), 1u);
  EXPECT_EQ(ReadPositions(table_->io(), pos[0]).size(), 1u);
  EXPECT_EQ(ReadPositions(table_->io(), pos[0])[0].second, 0);
  CommitResults(*table_, second);
  EXPECT_EQ(Rows(*table_), (std::vector<std::string>{e1c.json(), u1.json(), e5.json()}));
}

TEST_F(TableWriterTest, UpsertPositionDeletesOneFilePerPartitionInPathOrder) {
  table_ = std::make_unique<TestTable>("tw_upsert_pos", PeopleSchema(), RegionSpec());
  options_.target_file_size_bytes = 1;  // one row per data file
  auto w = Make(MakeTarget(*table_, "upsert", {1, 2}, true));
  // Keys 1..3 in eu and in us, each written three times in this checkpoint:
  // the first two versions of each are deleted by position.
  std::vector<Person> latest;
  for (int version = 0; version < 3; ++version) {
    for (int id = 1; id <= 3; ++id) {
      for (const char* region : {"eu", "us"}) {
        Person p{id, region, std::string(region) + std::to_string(version), version};
        FLOE_ASSERT_OK(Put(*w, version == 0 ? RowKind::kInsert : RowKind::kUpdateAfter, p));
        if (version == 2) latest.push_back(p);
      }
    }
  }
  auto results = Complete(*w);
  EXPECT_EQ(w->position_deletes(), 12);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].data_files.size(), 18u);
  auto pos = OfContent(results, DataFileContent::kPositionDeletes);
  ASSERT_EQ(pos.size(), 2u);  // one per partition
  std::vector<std::string> named;
  for (const auto& f : pos) {
    ASSERT_EQ(f.partition.size(), 1u);
    std::string region(f.partition[0].value().as_bytes());
    auto rows = ReadPositions(table_->io(), f);
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end())) << region;
    for (const auto& [path, position] : rows) {
      EXPECT_NE(path.find("/region=" + region + "/"), std::string::npos) << path;
      EXPECT_EQ(position, 0);  // one row per file
      named.push_back(path);
    }
  }
  std::sort(named.begin(), named.end());
  std::vector<std::string> referenced = results[0].referenced_data_files;
  std::sort(referenced.begin(), referenced.end());
  EXPECT_EQ(referenced, named);
  CommitResults(*table_, results);
  auto rows = Rows(*table_);
  std::vector<std::string> expected;
  for (const auto& p : latest) expected.push_back(p.json());
  std::sort(rows.begin(), rows.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(rows, expected);
}

TEST_F(TableWriterTest, UpsertIntoAV3TableWritesOneDeletionVectorPerDataFile) {
  table_ = std::make_unique<TestTable>("tw_upsert_v3", PeopleSchema(), RegionSpec(), 3);
  auto w = Make(MakeTarget(*table_, "upsert_v3", {1, 2}, true));
  // Checkpoint 1: keys written twice or three times in one data file per
  // partition; the earlier versions are deleted by position.
  std::map<std::pair<int64_t, std::string>, Person> latest;
  for (int version = 0; version < 3; ++version) {
    for (int id = 1; id <= 3; ++id) {
      for (const char* region : {"eu", "us"}) {
        if (id == 3 && version > 0) continue;  // key 3 written once
        Person p{id, region, std::string(region) + std::to_string(version), version};
        FLOE_ASSERT_OK(Put(*w, version == 0 ? RowKind::kInsert : RowKind::kUpdateAfter, p));
        latest.insert_or_assign({p.id, p.region}, p);
      }
    }
  }
  auto first = Complete(*w);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(first[0].data_files.size(), 2u);  // one per partition
  auto dvs = OfContent(first, DataFileContent::kPositionDeletes);
  ASSERT_EQ(dvs.size(), 2u);  // one per data file, none in Parquet
  std::set<std::string> referenced;
  for (const auto& dv : dvs) {
    EXPECT_TRUE(iceberg::IsDeletionVector(dv)) << dv.file_format;
    EXPECT_EQ(dv.file_path, dvs[0].file_path);  // one Puffin file
    EXPECT_EQ(dv.record_count, 4);
    ASSERT_TRUE(dv.referenced_data_file && dv.content_offset && dv.content_size_in_bytes);
    referenced.insert(*dv.referenced_data_file);
    auto vector = iceberg::DeletionVector::Read(table_->io(), dv);
    FLOE_ASSERT_OK(vector);
    // Rows in write order: eu/us of keys 1 and 2 at version 0, then 1.
    for (int64_t pos : {0, 1, 3, 4}) EXPECT_TRUE(vector->Contains(pos)) << pos;
    EXPECT_FALSE(vector->Contains(2));
    ASSERT_EQ(dv.partition.size(), 1u);
  }
  std::set<std::string> data_paths;
  for (const auto& f : first[0].data_files) data_paths.insert(f.file_path);
  EXPECT_EQ(referenced, data_paths);
  EXPECT_EQ(std::set<std::string>(first[0].referenced_data_files.begin(),
                                  first[0].referenced_data_files.end()),
            data_paths);
  EXPECT_EQ(first[0].rows_deleted, 8 + 6);  // 8 by position, 6 equality deletes
  auto expected = [&] {
    std::vector<std::string> rows;
    for (const auto& [key, p] : latest) rows.push_back(p.json());
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  CommitResults(*table_, first);
  EXPECT_EQ(Rows(*table_), expected());

  // Checkpoint 2: a key of checkpoint 1 updated twice: an equality delete
  // for the old row, a deletion vector for the new file's first version.
  Person e1x{1, "eu", "x", 7}, e1y{1, "eu", "y", 8};
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateAfter, e1x));
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateAfter, e1y));
  auto second = Complete(*w);
  auto dv2 = OfContent(second, DataFileContent::kPositionDeletes);
  ASSERT_EQ(dv2.size(), 1u);
  EXPECT_TRUE(iceberg::IsDeletionVector(dv2[0]));
  EXPECT_NE(dv2[0].file_path, dvs[0].file_path);
  EXPECT_EQ(OfContent(second, DataFileContent::kEqualityDeletes).size(), 1u);
  CommitResults(*table_, second);
  latest.insert_or_assign({1, "eu"}, e1y);
  EXPECT_EQ(Rows(*table_), expected());
}

TEST_F(TableWriterTest, ChangelogMovesRowsBetweenPartitionsOfANonKeyColumn) {
  table_ = std::make_unique<TestTable>("tw_move", PeopleSchema(), RegionSpec());
  auto w = Make(MakeTarget(*table_, "move", {1}, false));
  Person eu{1, "eu", "one", 1}, other{2, "eu", "two", 2};
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, eu));
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, other));
  CommitResults(*table_, Complete(*w));

  // The update moves id 1 from eu to us: its old row is deleted by equality
  // in partition eu (the delete file stores region beside the key).
  Person us{1, "us", "one'", 3};
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateBefore, eu));
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateAfter, us));
  auto results = Complete(*w);
  auto eq = OfContent(results, DataFileContent::kEqualityDeletes);
  ASSERT_EQ(eq.size(), 1u);
  EXPECT_EQ(eq[0].equality_ids, (std::vector<int32_t>{1}));
  ASSERT_EQ(eq[0].partition.size(), 1u);
  EXPECT_EQ(eq[0].partition[0].value().as_bytes(), "eu");
  size_t width = 0;
  EXPECT_EQ(ReadFirstColumn(table_->io(), eq[0].file_path, &width), (std::vector<int64_t>{1}));
  EXPECT_EQ(width, 2u);  // id and region
  CommitResults(*table_, results);
  EXPECT_EQ(Rows(*table_), (std::vector<std::string>{us.json(), other.json()}));

  // And back, within one checkpoint: insert in eu, move to us, move to eu.
  Person back{1, "eu", "one''", 4};
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateBefore, us));
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateAfter, back));
  CommitResults(*table_, Complete(*w));
  EXPECT_EQ(Rows(*table_), (std::vector<std::string>{back.json(), other.json()}));
}

TEST_F(TableWriterTest, RefusesBadTargets) {
  table_ = std::make_unique<TestTable>("tw_bad", PeopleSchema(), RegionSpec());
  // region partitions the table but is not an equality field: refused for
  // upsert (a key's old partition is unknown), fine for a changelog.
  auto w = TableWriter::Make(table_->io(), MakeTarget(*table_, "bad", {1}, true), options_, 0);
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().ToString().find("'region'"), std::string::npos) << w.error().ToString();
  EXPECT_NE(w.error().ToString().find("db.bad"), std::string::npos);
  auto upsert = TableWriter::Make(table_->io(), MakeTarget(*table_, "bad", {}, true), options_, 0);
  ASSERT_FALSE(upsert);
  EXPECT_NE(upsert.error().ToString().find("upsert"), std::string::npos);
  auto unknown =
      TableWriter::Make(table_->io(), MakeTarget(*table_, "bad", {1, 2, 99}, false), options_, 0);
  ASSERT_FALSE(unknown);
  SinkOptions overwrite;
  overwrite.overwrite = true;
  auto both =
      TableWriter::Make(table_->io(), MakeTarget(*table_, "bad", {1, 2}, true), overwrite, 0);
  ASSERT_FALSE(both);
  SinkOptions codec;
  codec.compression_codec = "brotli-9000";
  auto bad_codec =
      TableWriter::Make(table_->io(), MakeTarget(*table_, "bad", {1, 2}, false), codec, 0);
  ASSERT_FALSE(bad_codec);
  // Wrong width.
  auto ok = Make(MakeTarget(*table_, "ok", {1, 2}, false));
  std::vector<Value> short_row = {Value::Int64(1)};
  auto s = ok->Write(RowKind::kInsert, types::Row(short_row.data(), short_row.size()));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().ToString().find("db.ok"), std::string::npos);
}

TEST_F(TableWriterTest, SchemaChangeCompletesFilesAndKeepsTheKeyMap) {
  table_ = std::make_unique<TestTable>("tw_schema", PeopleSchema());
  auto v1 = MakeTarget(*table_, "schema", {1}, true);
  auto w = Make(v1);
  Person a{1, "eu", "a", 1}, b{2, "eu", "b", 2};
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, a));
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, b));
  // New schema: a column added, and `n` widened from int to long.
  types::Schema s2({{1, "id", true, Type::Long(), ""},
                    {2, "region", true, Type::String(), ""},
                    {3, "name", false, Type::String(), ""},
                    {4, "n", false, Type::Long(), ""},
                    {5, "extra", false, Type::String(), ""}},
                   1);
  table_->EvolveSchema(s2);
  auto v2 = MakeTarget(*table_, "schema", {1}, true);
  FLOE_ASSERT_OK(w->SetTarget(v2));
  EXPECT_EQ(w->num_open_files(), 0u);
  std::vector<Value> a2 = {Value::Int64(1), Value::Bytes("eu"), Value::Bytes("a2"),
                           Value::Int64(100), Value::Bytes("x")};
  FLOE_ASSERT_OK(w->Write(RowKind::kUpdateAfter, types::Row(a2.data(), a2.size())));
  auto results = Complete(*w);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].target, v2);
  EXPECT_EQ(results[0].data_files.size(), 2u);
  // a was written in this checkpoint before the change: deleted by position.
  auto pos = OfContent(results, DataFileContent::kPositionDeletes);
  ASSERT_EQ(pos.size(), 1u);
  auto positions = ReadPositions(table_->io(), pos[0]);
  ASSERT_EQ(positions.size(), 1u);
  EXPECT_EQ(positions[0].second, 0);
  CommitResults(*table_, results);
  auto rows = Rows(*table_);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], "{\"id\":1,\"region\":\"eu\",\"name\":\"a2\",\"n\":100,\"extra\":\"x\"}");
  EXPECT_EQ(rows[1], "{\"id\":2,\"region\":\"eu\",\"name\":\"b\",\"n\":2,\"extra\":null}");
}

TEST_F(TableWriterTest, RollsAtTargetSizeWithJobOverridesAndAborts) {
  table_ = std::make_unique<TestTable>("tw_roll", PeopleSchema());
  table_->metadata().properties["write.target-file-size-bytes"] = "1000000000";
  table_->metadata().properties["write.parquet.compression-codec"] = "zstd";
  options_.target_file_size_bytes = 1;  // the job wins: one row per file
  options_.compression_codec = "snappy";
  auto w = Make(MakeTarget(*table_, "roll", {}, false));
  for (int i = 0; i < 3; ++i) FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, Person{i, "eu", "x", i}));
  auto results = Complete(*w);
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].data_files.size(), 3u);
  auto in = table_->io().OpenInput(results[0].data_files[0].file_path);
  ASSERT_TRUE(in);
  auto reader = format::parquet::ParquetReader::Open(std::move(*in));
  ASSERT_TRUE(reader);
  EXPECT_EQ((*reader)->metadata().row_groups[0].columns[0].meta_data->codec,
            format::parquet::CompressionCodec::kSnappy);

  // Rows written after the last Complete are deleted by Abort; completed ones stay.
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, Person{9, "eu", "x", 9}));
  w->Abort();
  size_t files = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(table_->metadata().location)) {
    files += e.is_regular_file() && e.path().extension() == ".parquet" ? 1 : 0;
  }
  EXPECT_EQ(files, 3u);
}

TEST_F(TableWriterTest, FlushAndCloseFilesKeepPositionsValid) {
  table_ = std::make_unique<TestTable>("tw_flush", PeopleSchema());
  auto w = Make(MakeTarget(*table_, "flush", {1}, false));
  for (int i = 0; i < 50; ++i) FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, Person{i, "eu", "x", i}));
  size_t before = w->buffered_bytes();
  EXPECT_GT(w->flushable_bytes(), 0u);
  FLOE_ASSERT_OK(w->Flush());
  EXPECT_EQ(w->flushable_bytes(), 0u);
  EXPECT_LT(w->buffered_bytes(), before);
  FLOE_ASSERT_OK(w->CloseFiles());
  for (int i = 50; i < 60; ++i) FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, Person{i, "eu", "x", i}));
  // Deletes of rows in the closed file and in the open one.
  FLOE_ASSERT_OK(Put(*w, RowKind::kDelete, Person{10, "eu", "x", 10}));
  FLOE_ASSERT_OK(Put(*w, RowKind::kDelete, Person{55, "eu", "x", 55}));
  auto results = Complete(*w);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].data_files.size(), 2u);
  EXPECT_EQ(results[0].referenced_data_files.size(), 2u);
  auto pos = OfContent(results, DataFileContent::kPositionDeletes);
  ASSERT_EQ(pos.size(), 1u);                              // one per partition
  EXPECT_FALSE(pos[0].referenced_data_file.has_value());  // names two files
  CommitResults(*table_, results);
  auto rows = Rows(*table_);
  EXPECT_EQ(rows.size(), 58u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.find("\"id\":10,"), std::string::npos);
    EXPECT_EQ(r.find("\"id\":55,"), std::string::npos);
  }
}

/// Parquet files under the table's location, metadata excluded.
size_t CountDataFiles(const std::string& location) {
  size_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(location)) {
    if (e.is_regular_file() && e.path().extension() == ".parquet") ++n;
  }
  return n;
}

TEST_F(TableWriterTest, TruncateDiscardsTheCheckpointsFilesAndKeysAndMarksTheResult) {
  table_ = std::make_unique<TestTable>("tw_truncate", PeopleSchema(), RegionSpec());
  auto w = Make(MakeTarget(*table_, "truncate", {1, 2}, false));
  const std::string location = table_->metadata().location;
  // Checkpoint 1: committed, the writer no longer owns it.
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, Person{1, "eu", "one", 1}));
  auto first = Complete(*w);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_FALSE(first[0].truncated);
  CommitResults(*table_, first);
  const size_t committed_files = CountDataFiles(location);
  ASSERT_EQ(committed_files, 1u);

  // Checkpoint 2: a completed file (CloseFiles), an open one, a position
  // delete, an equality delete of the committed row; then the truncation.
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, Person{2, "eu", "two", 2}));
  FLOE_ASSERT_OK(w->CloseFiles());
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, Person{3, "us", "three", 3}));
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateBefore, Person{3, "us", "three", 3}));
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateAfter, Person{3, "us", "three'", 30}));
  FLOE_ASSERT_OK(Put(*w, RowKind::kDelete, Person{1, "eu", "one", 1}));
  EXPECT_GT(CountDataFiles(location), committed_files);
  EXPECT_FALSE(w->truncated());
  w->Truncate();
  EXPECT_TRUE(w->truncated());
  EXPECT_EQ(CountDataFiles(location), committed_files) << "the checkpoint's files are deleted";
  EXPECT_EQ(w->num_open_files(), 0u);

  // After the truncation: key 3 again (a fresh key, no delete of the
  // discarded row), then an update of it within the checkpoint (a position
  // delete in the new file only).
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, Person{3, "us", "new", 4}));
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateBefore, Person{3, "us", "new", 4}));
  FLOE_ASSERT_OK(Put(*w, RowKind::kUpdateAfter, Person{3, "us", "newer", 5}));
  auto second = Complete(*w);
  ASSERT_EQ(second.size(), 1u);
  const WriteResult& r = second[0];
  EXPECT_TRUE(r.truncated);
  ASSERT_EQ(r.data_files.size(), 1u);
  EXPECT_EQ(r.rows_written, 2);
  size_t width = 0;
  EXPECT_EQ(ReadFirstColumn(table_->io(), r.data_files[0].file_path, &width),
            (std::vector<int64_t>{3, 3}));
  EXPECT_TRUE(OfContent(second, DataFileContent::kEqualityDeletes).empty());
  auto pos = OfContent(second, DataFileContent::kPositionDeletes);
  ASSERT_EQ(pos.size(), 1u);
  EXPECT_EQ(ReadPositions(table_->io(), pos[0]),
            (std::vector<std::pair<std::string, int64_t>>{{r.data_files[0].file_path, 0}}));
  EXPECT_EQ(r.referenced_data_files, (std::vector<std::string>{r.data_files[0].file_path}));
  EXPECT_FALSE(w->truncated()) << "Complete starts a checkpoint without truncation";

  // A truncation with nothing after it still reaches the committer; the
  // next checkpoint is an ordinary one.
  FLOE_ASSERT_OK(Put(*w, RowKind::kInsert, Person{9, "eu", "nine", 9}));
  w->Truncate();
  auto third = Complete(*w);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_TRUE(third[0].truncated);
  EXPECT_TRUE(third[0].data_files.empty());
  EXPECT_TRUE(third[0].delete_files.empty());
  EXPECT_EQ(third[0].spec_id, table_->metadata().default_spec_id);
  EXPECT_TRUE(Complete(*w).empty());
}

}  // namespace
}  // namespace floe::sink::testing
