// DeleteFiles (whole files by path or filter), DeleteRows (merge-on-read
// position deletes over real Parquet files written by DataWriter), and
// OverwriteFiles / ReplaceFiles selections and validation.

#include "floe/iceberg/data/delete_files.h"

#include "floe/common/arena.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/data/data_writer.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/iceberg/puffin/deletion_vector.h"
#include "floe/iceberg/tests/producer_test_util.h"
#include "floe/iceberg/update/fast_append.h"
#include "floe/iceberg/update/overwrite_files.h"
#include "floe/iceberg/update/replace_files.h"

namespace floe::iceberg::testing {
namespace {

ExprPtr Filter(std::string_view text) {
  auto e = ParseFilter(text);
  EXPECT_TRUE(e) << e.error().ToString();
  return *e;
}

/// Appends rows id 0..n-1, region "eu" for even ids and "us" for odd ones.
std::vector<DataFile> WriteRows(Table& table, int n, int64_t target_file_size = 512LL << 20) {
  DataWriterOptions options;
  options.target_file_size_bytes = target_file_size;
  auto writer = DataWriter::Make(table.io(), table.metadata(), options);
  EXPECT_TRUE(writer) << writer.error().ToString();
  std::string names[2] = {"eu", "us"};
  for (int i = 0; i < n; ++i) {
    std::string name = "row" + std::to_string(i);
    types::Value row[3] = {types::Value::Int64(i), types::Value::Bytes(name),
                           types::Value::Bytes(names[i % 2])};
    auto s = (*writer)->Write(types::Row(row, 3));
    EXPECT_TRUE(s) << s.error().ToString();
  }
  auto files = (*writer)->Close();
  EXPECT_TRUE(files) << files.error().ToString();
  auto append = table.NewAppend();
  for (const auto& f : *files) append->AppendFile(f);
  auto s = append->Commit();
  EXPECT_TRUE(s) << s.error().ToString();
  return *files;
}

std::vector<std::pair<std::string, int64_t>> ReadPositionDeletes(const std::string& path) {
  io::LocalFileIO io;
  auto in = io.OpenInput(path);
  EXPECT_TRUE(in);
  auto reader = format::parquet::ParquetReader::Open(std::move(*in));
  EXPECT_TRUE(reader);
  std::vector<std::pair<std::string, int64_t>> out;
  Arena arena;
  std::vector<types::Value> row;
  while (true) {
    auto more = (*reader)->Next(&arena, &row);
    EXPECT_TRUE(more);
    if (!more || !*more) break;
    out.emplace_back(std::string(row[0].as_bytes()), row[1].i64);
  }
  return out;
}

TEST_F(ProducerTest, DataWriterPartitionsAndRollsFiles) {
  Table table = CreateTable("region");
  auto files = WriteRows(table, 2000, 4096);
  int64_t records = 0;
  std::set<std::string> regions;
  for (const auto& f : files) {
    records += f.record_count;
    ASSERT_EQ(f.partition.size(), 1u);
    std::string region(f.partition[0].value().as_bytes());
    regions.insert(region);
    EXPECT_NE(f.file_path.find("/data/region=" + region + "/"), std::string::npos) << f.file_path;
    EXPECT_TRUE(std::filesystem::exists(f.file_path));
    EXPECT_EQ(f.lower_bounds.at(3), region);
    EXPECT_EQ(f.value_counts.at(1), f.record_count);
  }
  EXPECT_EQ(records, 2000);
  EXPECT_EQ(regions, (std::set<std::string>{"eu", "us"}));
  EXPECT_GT(files.size(), 2u);  // rolled at the small target size
  EXPECT_EQ(Total(table, summary::kTotalRecords), 2000);
}

TEST_F(ProducerTest, DeleteFromRowFilterDropsWholeFilesOnly) {
  Table table = CreateTable("region");
  auto append = table.NewAppend();
  append->AppendFile(MakeFile("eu1", 5, "eu")).AppendFile(MakeFile("us1", 6, "us"));
  FLOE_ASSERT_OK(append->Commit());

  auto del = table.NewDelete();
  del->DeleteFromRowFilter(Filter("region = 'eu'"));
  FLOE_ASSERT_OK(del->Commit());
  EXPECT_EQ(table.metadata().CurrentSnapshot()->operation, "delete");
  EXPECT_EQ(Total(table, summary::kTotalRecords), 6);
  EXPECT_EQ(Total(table, summary::kDeletedDataFiles), 1);
  auto paths = LivePaths(table);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_NE(paths.begin()->find("us1"), std::string::npos);

  // A filter matching part of a file is refused, naming the file.
  auto partial = table.NewDelete();
  partial->DeleteFromRowFilter(Filter("id = 3"));
  auto s = partial->Commit();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kInvalidArgument) << s.error().ToString();
  EXPECT_NE(s.error().message().find("us1"), std::string::npos) << s.error().ToString();
  EXPECT_NE(s.error().message().find("cannot delete by filter"), std::string::npos);
  EXPECT_NE(s.error().message().find("with position deletes instead"), std::string::npos);
}

TEST_F(ProducerTest, DeleteRowsWritesPositionDeletesForPartlyMatchingFiles) {
  Table table = CreateTable("region");
  auto files = WriteRows(table, 100);  // one file per region, rows in id order
  ASSERT_EQ(files.size(), 2u);
  std::map<std::string, std::string> file_of;  // region -> path
  for (const auto& f : files) file_of[std::string(f.partition[0].value().as_bytes())] = f.file_path;

  auto result = DeleteRows(table, Filter("id >= 10 AND id < 16 OR (region = 'us' AND id > 90)"));
  FLOE_ASSERT_OK(result);
  EXPECT_TRUE(result->committed);
  EXPECT_EQ(result->deleted_rows, 6 + 5);
  EXPECT_EQ(result->removed_data_files, 0);
  EXPECT_EQ(result->position_delete_files, 2);
  EXPECT_EQ(Total(table, summary::kTotalPositionDeletes), 11);
  EXPECT_EQ(Total(table, summary::kTotalRecords), 100);  // data files are unchanged

  std::map<std::string, std::vector<std::pair<std::string, int64_t>>> deletes;
  for (const auto& f : Live(table)) {
    const DataFile& d = f.entry.data_file;
    if (d.content != DataFileContent::kPositionDeletes) continue;
    std::string region(d.partition[0].value().as_bytes());
    // (v2 manifests may not carry referenced_data_file; if present it is right.)
    if (d.referenced_data_file) EXPECT_EQ(*d.referenced_data_file, file_of[region]);
    EXPECT_EQ(f.entry.sequence_number, 2);
    deletes[region] = ReadPositionDeletes(d.file_path);
  }
  // "eu" holds even ids (id = 2 * pos), "us" odd ids (id = 2 * pos + 1).
  using V = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(deletes["eu"], (V{{file_of["eu"], 5}, {file_of["eu"], 6}, {file_of["eu"], 7}}));
  V us;
  for (int64_t p : {5, 6, 7, 45, 46, 47, 48, 49}) us.emplace_back(file_of["us"], p);
  EXPECT_EQ(deletes["us"], us);

  // A filter matching a whole partition drops its file instead.
  auto whole = DeleteRows(table, Filter("region = 'eu'"));
  FLOE_ASSERT_OK(whole);
  EXPECT_EQ(whole->removed_data_files, 1);
  EXPECT_EQ(whole->position_delete_files, 0);
  EXPECT_FALSE(LivePaths(table).contains(file_of["eu"]));
  EXPECT_EQ(Total(table, summary::kTotalRecords), 50);

  // Nothing matching: no commit.
  const auto location = table.metadata_location();
  auto none = DeleteRows(table, Filter("id > 1000"));
  FLOE_ASSERT_OK(none);
  EXPECT_FALSE(none->committed);
  EXPECT_EQ(table.metadata_location(), location);
}

TEST_F(ProducerTest, DeleteRowsInV3WritesAndMergesOneDeletionVectorPerDataFile) {
  Table table = CreateTable("region", {}, 3);
  auto files = WriteRows(table, 100);  // one file per region, rows in id order
  ASSERT_EQ(files.size(), 2u);
  std::map<std::string, std::string> file_of;  // region -> path
  for (const auto& f : files) file_of[std::string(f.partition[0].value().as_bytes())] = f.file_path;
  // data file -> (Puffin file, positions) of its live deletion vector; no
  // other position delete file.
  auto vectors = [&] {
    std::map<std::string, std::pair<std::string, std::vector<int64_t>>> out;
    for (const auto& f : Live(table)) {
      const DataFile& d = f.entry.data_file;
      if (d.content != DataFileContent::kPositionDeletes) continue;
      EXPECT_TRUE(IsDeletionVector(d)) << d.file_path;
      EXPECT_FALSE(out.contains(*d.referenced_data_file)) << "two vectors for one data file";
      auto dv = DeletionVector::Read(io_, d);
      EXPECT_TRUE(dv) << dv.error().ToString();
      std::vector<int64_t> positions;
      if (dv) dv->AppendPositions(&positions);
      out[*d.referenced_data_file] = {d.file_path, positions};
    }
    return out;
  };
  using P = std::vector<int64_t>;

  auto first = DeleteRows(table, Filter("id >= 10 AND id < 16"));
  FLOE_ASSERT_OK(first);
  EXPECT_EQ(first->deleted_rows, 6);
  EXPECT_EQ(first->position_delete_files, 2);
  auto v1 = vectors();
  ASSERT_EQ(v1.size(), 2u);
  EXPECT_EQ(v1[file_of["eu"]].second, (P{5, 6, 7}));            // ids 10, 12, 14
  EXPECT_EQ(v1[file_of["us"]].second, (P{5, 6, 7}));            // ids 11, 13, 15
  EXPECT_EQ(v1[file_of["eu"]].first, v1[file_of["us"]].first);  // one Puffin file
  EXPECT_EQ(Total(table, summary::kTotalPositionDeletes), 6);

  // Rows of eu again, some deleted already: eu's vector is merged and
  // replaced, us's stays as it is.
  auto second = DeleteRows(table, Filter("id >= 14 AND id < 20 AND region = 'eu'"));
  FLOE_ASSERT_OK(second);
  EXPECT_EQ(second->deleted_rows, 2);  // 16 and 18; 14 was deleted
  EXPECT_EQ(second->position_delete_files, 1);
  auto v2 = vectors();
  ASSERT_EQ(v2.size(), 2u);
  EXPECT_EQ(v2[file_of["eu"]].second, (P{5, 6, 7, 8, 9}));
  EXPECT_NE(v2[file_of["eu"]].first, v1[file_of["eu"]].first);
  EXPECT_EQ(v2[file_of["us"]], v1[file_of["us"]]);
  EXPECT_EQ(Total(table, summary::kTotalPositionDeletes), 8);
  EXPECT_EQ(table.metadata().CurrentSnapshot()->SummaryValue(summary::kRemovedDvs), "1");

  // Only rows deleted already: nothing to commit.
  const auto location = table.metadata_location();
  auto again = DeleteRows(table, Filter("id = 12"));
  FLOE_ASSERT_OK(again);
  EXPECT_FALSE(again->committed);
  EXPECT_EQ(table.metadata_location(), location);

  // A whole file goes with its vector.
  auto whole = DeleteRows(table, Filter("region = 'us'"));
  FLOE_ASSERT_OK(whole);
  EXPECT_EQ(whole->removed_data_files, 1);
  EXPECT_FALSE(LivePaths(table).contains(file_of["us"]));
  auto v3 = vectors();
  EXPECT_EQ(v3.size(), 1u);
  EXPECT_TRUE(v3.contains(file_of["eu"]));
}

TEST_F(ProducerTest, OverwriteByFilterAndByPartition) {
  Table table = CreateTable("region");
  auto append = table.NewAppend();
  append->AppendFile(MakeFile("eu1", 5, "eu")).AppendFile(MakeFile("us1", 6, "us"));
  FLOE_ASSERT_OK(append->Commit());

  auto overwrite = table.NewOverwrite();
  overwrite->OverwriteByRowFilter(Filter("region = 'us'")).AddFile(MakeFile("us2", 2, "us"));
  FLOE_ASSERT_OK(overwrite->Commit());
  EXPECT_EQ(table.metadata().CurrentSnapshot()->operation, "overwrite");
  auto paths = LivePaths(table);
  EXPECT_EQ(paths.size(), 2u);
  EXPECT_EQ(Total(table, summary::kTotalRecords), 7);

  auto dynamic = table.NewOverwrite();
  dynamic->OverwritePartitions().AddFile(MakeFile("eu2", 9, "eu"));
  FLOE_ASSERT_OK(dynamic->Commit());
  std::set<std::string> stems;
  for (const auto& p : LivePaths(table)) stems.insert(std::filesystem::path(p).stem());
  EXPECT_EQ(stems, (std::set<std::string>{"eu2", "us2"}));
  EXPECT_EQ(Total(table, summary::kTotalRecords), 11);
  EXPECT_EQ(Total(table, summary::kTotalDataFiles), 2);

  // A filter matching part of a file is refused, naming the file.
  auto partial = table.NewOverwrite();
  partial->OverwriteByRowFilter(Filter("id = 3")).AddFile(MakeFile("x", 1, "eu"));
  auto s = partial->Commit();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kInvalidArgument) << s.error().ToString();
  EXPECT_NE(s.error().message().find("cannot overwrite by filter"), std::string::npos)
      << s.error().ToString();
  EXPECT_NE(s.error().message().find("2.parquet holds rows that may not match it"),
            std::string::npos)
      << s.error().ToString();
}

TEST_F(ProducerTest, ReplaceFilesKeepsSequenceNumberAndValidates) {
  Table table = CreateTable("", {{"commit.retry.min-wait-ms", "1"}});
  auto append = table.NewAppend();
  DataFile a = MakeFile("a", 5), b = MakeFile("b", 5);
  append->AppendFile(a).AppendFile(b);
  FLOE_ASSERT_OK(append->Commit());
  auto more = table.NewAppend();
  more->AppendFile(MakeFile("c", 1));
  FLOE_ASSERT_OK(more->Commit());

  auto compact = table.NewReplace();
  compact->DeleteFile(a.file_path).DeleteFile(b.file_path).AddFile(MakeFile("ab", 10));
  compact->SetDataSequenceNumber(1);
  FLOE_ASSERT_OK(compact->Commit());
  EXPECT_EQ(table.metadata().CurrentSnapshot()->operation, "replace");
  EXPECT_EQ(Total(table, summary::kTotalRecords), 11);
  for (const auto& f : Live(Reload())) {
    if (f.entry.data_file.file_path.ends_with("ab.parquet")) {
      EXPECT_EQ(f.entry.sequence_number, 1);       // kept from the replaced files
      EXPECT_EQ(f.entry.file_sequence_number, 3);  // the commit that added it
    }
  }

  // Replacing a file another handle removed meanwhile is a conflict.
  Table stale = Reload();
  auto replace = stale.NewReplace();
  DataFile c_path = MakeFile("c", 1);
  replace->DeleteFile(c_path.file_path).AddFile(MakeFile("c2", 1));
  auto del = table.NewDelete();
  del->DeleteFile(c_path.file_path);
  FLOE_ASSERT_OK(del->Commit());
  auto s = replace->Commit();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kCommitConflict) << s.error().ToString();
}

TEST_F(ProducerTest, PositionDeletesByOrdinalAreWrittenInPathThenPositionOrder) {
  Table table = CreateTable();
  // Ordinals not in path order, two ordinals naming one path, a file no
  // delete names, deletes in no order.
  std::vector<std::string> names = {"s3://b/t/data/c.parquet", "s3://b/t/data/a.parquet",
                                    "s3://b/t/data/unused.parquet", "s3://b/t/data/b.parquet",
                                    "s3://b/t/data/a.parquet"};
  std::vector<std::string_view> paths(names.begin(), names.end());
  std::vector<PositionDeleteRef> deletes = {{0, 5}, {1, 9}, {3, 0}, {4, 2}, {0, 1}, {1, 3}};
  auto file = WritePositionDeletes(table.io(), table.metadata(), 0, {}, paths, deletes, {});
  FLOE_ASSERT_OK(file);
  EXPECT_EQ(file->content, DataFileContent::kPositionDeletes);
  EXPECT_EQ(file->record_count, 6);
  EXPECT_FALSE(file->referenced_data_file);
  std::vector<std::pair<std::string, int64_t>> expected = {
      {names[1], 2}, {names[1], 3}, {names[1], 9}, {names[3], 0}, {names[0], 1}, {names[0], 5}};
  EXPECT_EQ(ReadPositionDeletes(file->file_path), expected);

  // Positions too large to share an integer with the file's rank are sorted
  // as pairs; one named file is the referenced data file.
  int64_t far = int64_t{1} << 45;
  auto one = WritePositionDeletes(table.io(), table.metadata(), 0, {}, paths,
                                  {{3, far + 1}, {3, 7}, {3, far}}, {});
  FLOE_ASSERT_OK(one);
  expected = {{names[3], 7}, {names[3], far}, {names[3], far + 1}};
  EXPECT_EQ(ReadPositionDeletes(one->file_path), expected);
  ASSERT_TRUE(one->referenced_data_file);
  EXPECT_EQ(*one->referenced_data_file, names[3]);

  // The path form gives the same order.
  auto by_path =
      WritePositionDeletes(table.io(), table.metadata(), 0, {},
                           {{names[0], 5}, {names[1], 9}, {names[3], 0}, {names[0], 1}}, {});
  FLOE_ASSERT_OK(by_path);
  expected = {{names[1], 9}, {names[3], 0}, {names[0], 1}, {names[0], 5}};
  EXPECT_EQ(ReadPositionDeletes(by_path->file_path), expected);

  // Refused: an ordinal outside the paths, a negative position, no deletes.
  auto outside = WritePositionDeletes(table.io(), table.metadata(), 0, {}, paths, {{5, 0}}, {});
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error().code(), ErrorCode::kInvalidArgument);
  auto negative = WritePositionDeletes(table.io(), table.metadata(), 0, {}, paths, {{0, -1}}, {});
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().code(), ErrorCode::kInvalidArgument);
  auto none = WritePositionDeletes(table.io(), table.metadata(), 0, {}, paths,
                                   std::vector<PositionDeleteRef>{}, {});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace floe::iceberg::testing
