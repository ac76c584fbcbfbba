// DeleteFileIndex: the spec's "Scan Planning" rules for which delete files
// apply to which data file.

#include <gtest/gtest.h>

#include "floe/iceberg/data/delete_index.h"
#include "floe/iceberg/tests/scan_test_util.h"

namespace floe::iceberg {
namespace {

using types::Type;

TableMetadata TwoSpecMetadata() {
  TableMetadata m;
  m.schemas.push_back(types::Schema(
      {{1, "id", true, Type::Long(), ""}, {2, "region", false, Type::String(), ""}}, 0));
  m.partition_specs.push_back(PartitionSpec());  // 0: unpartitioned
  m.partition_specs.push_back(
      PartitionSpec(1, {PartitionField{2, 1000, "region", Transform::Identity()}}));
  return m;
}

DataFile Data(std::string path, std::vector<Literal> partition = {}) {
  DataFile f;
  f.file_path = std::move(path);
  f.partition = std::move(partition);
  return f;
}

DeleteFileEntry Delete(DataFileContent content, std::string path, int32_t spec_id, int64_t seq,
                       std::vector<Literal> partition = {}) {
  DeleteFileEntry e;
  e.file.content = content;
  e.file.file_path = std::move(path);
  e.file.partition = std::move(partition);
  if (content == DataFileContent::kEqualityDeletes) e.file.equality_ids = {1};
  e.spec_id = spec_id;
  e.data_sequence_number = seq;
  return e;
}

std::vector<std::string> Names(const std::vector<DeleteFilePtr>& v) {
  std::vector<std::string> out;
  for (const auto& d : v) out.push_back(d->file.file_path);
  return out;
}

constexpr auto kPos = DataFileContent::kPositionDeletes;
constexpr auto kEq = DataFileContent::kEqualityDeletes;

TEST(DeleteIndexTest, SequenceNumberRules) {
  auto index = DeleteFileIndex::Make({Delete(kPos, "pos@3", 0, 3), Delete(kPos, "pos@5", 0, 5),
                                      Delete(kEq, "eq@3", 0, 3), Delete(kEq, "eq@5", 0, 5)},
                                     TwoSpecMetadata());
  ASSERT_TRUE(index.has_value()) << index.error().ToString();
  // Position deletes apply to data with seq <= theirs; equality to seq < theirs.
  EXPECT_EQ(Names(index->ForDataFile(Data("d"), 0, 2)),
            (std::vector<std::string>{"pos@3", "pos@5", "eq@3", "eq@5"}));
  EXPECT_EQ(Names(index->ForDataFile(Data("d"), 0, 3)),
            (std::vector<std::string>{"pos@3", "pos@5", "eq@5"}));
  EXPECT_EQ(Names(index->ForDataFile(Data("d"), 0, 5)), (std::vector<std::string>{"pos@5"}));
  EXPECT_TRUE(index->ForDataFile(Data("d"), 0, 6).empty());
}

TEST(DeleteIndexTest, PartitionScopeAndGlobalEqualityDeletes) {
  auto eu = std::vector<Literal>{Literal::String("eu")};
  auto us = std::vector<Literal>{Literal::String("us")};
  auto null_region = std::vector<Literal>{Literal::Null(Type::String())};
  auto index = DeleteFileIndex::Make(
      {Delete(kPos, "pos-eu", 1, 4, eu), Delete(kEq, "eq-eu", 1, 4, eu),
       Delete(kEq, "eq-null", 1, 4, null_region), Delete(kEq, "eq-global", 0, 4),
       // A position delete in the unpartitioned spec applies only to
       // unpartitioned data files (same spec), never globally.
       Delete(kPos, "pos-unpartitioned", 0, 4)},
      TwoSpecMetadata());
  ASSERT_TRUE(index.has_value()) << index.error().ToString();
  EXPECT_EQ(Names(index->ForDataFile(Data("a", eu), 1, 1)),
            (std::vector<std::string>{"pos-eu", "eq-eu", "eq-global"}));
  EXPECT_EQ(Names(index->ForDataFile(Data("b", us), 1, 1)),
            (std::vector<std::string>{"eq-global"}));
  // Null partition values equal null.
  EXPECT_EQ(Names(index->ForDataFile(Data("c", null_region), 1, 1)),
            (std::vector<std::string>{"eq-null", "eq-global"}));
  EXPECT_EQ(Names(index->ForDataFile(Data("d"), 0, 1)),
            (std::vector<std::string>{"pos-unpartitioned", "eq-global"}));
  // Same values but another spec id: not the same partition.
  TableMetadata m = TwoSpecMetadata();
  m.partition_specs.push_back(
      PartitionSpec(2, {PartitionField{2, 1001, "region2", Transform::Identity()}}));
  auto index2 = DeleteFileIndex::Make({Delete(kPos, "pos-eu", 1, 4, eu)}, m);
  ASSERT_TRUE(index2.has_value());
  EXPECT_TRUE(index2->ForDataFile(Data("a", eu), 2, 1).empty());
}

TEST(DeleteIndexTest, ReferencedDataFileAndPathBounds) {
  DeleteFileEntry referenced = Delete(kPos, "pos-ref", 0, 2);
  referenced.file.referenced_data_file = "/t/data/a.parquet";
  DeleteFileEntry bounded = Delete(kPos, "pos-bounds", 0, 2);
  bounded.file.lower_bounds[kDeleteFilePathFieldId] = "/t/data/b";
  bounded.file.upper_bounds[kDeleteFilePathFieldId] = "/t/data/c";
  auto index = DeleteFileIndex::Make({referenced, bounded}, TwoSpecMetadata());
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(Names(index->ForDataFile(Data("/t/data/a.parquet"), 0, 1)),
            (std::vector<std::string>{"pos-ref"}));
  EXPECT_EQ(Names(index->ForDataFile(Data("/t/data/b.parquet"), 0, 1)),
            (std::vector<std::string>{"pos-bounds"}));
  EXPECT_TRUE(index->ForDataFile(Data("/t/data/d.parquet"), 0, 1).empty());
  EXPECT_TRUE(index->ForDataFile(Data("/t/data/a.parquet"), 0, 3).empty());
}

DeleteFileEntry Vector(std::string puffin, std::string data, int64_t seq,
                       std::vector<Literal> partition = {}, int32_t spec_id = 0) {
  DeleteFileEntry dv = Delete(kPos, std::move(puffin), spec_id, seq, std::move(partition));
  dv.file.file_format = "PUFFIN";
  dv.file.referenced_data_file = std::move(data);
  dv.file.content_offset = 4;
  dv.file.content_size_in_bytes = 30;
  return dv;
}

TEST(DeleteIndexTest, DeletionVectorsReplacePositionDeletes) {
  auto eu = std::vector<Literal>{Literal::String("eu")};
  auto index = DeleteFileIndex::Make(
      {Vector("dv@3", "/t/a", 3), Vector("dv-eu@3", "/t/e", 3, eu, 1), Delete(kPos, "pos@2", 0, 2),
       Delete(kPos, "pos@5", 0, 5), Delete(kEq, "eq@3", 0, 3)},
      TwoSpecMetadata());
  ASSERT_TRUE(index.has_value()) << index.error().ToString();
  // The vector applies to data with seq <= its own, and the file's position
  // deletes are then ignored; equality deletes still apply.
  EXPECT_EQ(Names(index->ForDataFile(Data("/t/a"), 0, 1)),
            (std::vector<std::string>{"dv@3", "eq@3"}));
  EXPECT_EQ(Names(index->ForDataFile(Data("/t/a"), 0, 3)), (std::vector<std::string>{"dv@3"}));
  // Newer data than the vector: position deletes as before.
  EXPECT_EQ(Names(index->ForDataFile(Data("/t/a"), 0, 4)), (std::vector<std::string>{"pos@5"}));
  EXPECT_EQ(Names(index->ForDataFile(Data("/t/b"), 0, 1)),
            (std::vector<std::string>{"pos@2", "pos@5", "eq@3"}));
  // A partitioned vector (and the global equality delete); the same path in
  // another partition: position deletes, not the vector.
  EXPECT_EQ(Names(index->ForDataFile(Data("/t/e", eu), 1, 1)),
            (std::vector<std::string>{"dv-eu@3", "eq@3"}));
  EXPECT_EQ(Names(index->ForDataFile(Data("/t/e"), 0, 3)), (std::vector<std::string>{"pos@5"}));

  auto two =
      DeleteFileIndex::Make({Vector("x", "/t/a", 3), Vector("y", "/t/a", 4)}, TwoSpecMetadata());
  ASSERT_FALSE(two.has_value());
  EXPECT_EQ(two.error().code(), ErrorCode::kCorruption);
  DeleteFileEntry no_offset = Vector("z", "/t/a", 3);
  no_offset.file.content_offset.reset();
  auto r = DeleteFileIndex::Make({no_offset}, TwoSpecMetadata());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);
}

TEST(DeleteIndexTest, RejectsBadSpecs) {
  auto r = DeleteFileIndex::Make({Delete(kPos, "p", 7, 2)}, TwoSpecMetadata());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);
  r = DeleteFileIndex::Make({Delete(kPos, "p", 1, 2)}, TwoSpecMetadata());  // no partition value
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);
}

TEST(DeleteIndexTest, PartitionKeysUseIcebergEquality) {
  EXPECT_EQ(PartitionKey(1, {Literal::Null(Type::Int())}), PartitionKey(1, {Literal::Null()}));
  EXPECT_NE(PartitionKey(1, {Literal::Int(1)}), PartitionKey(2, {Literal::Int(1)}));
  EXPECT_NE(PartitionKey(1, {Literal::Double(0.0)}), PartitionKey(1, {Literal::Double(-0.0)}));
  EXPECT_NE(PartitionKey(1, {Literal::String("a"), Literal::String("b")}),
            PartitionKey(1, {Literal::String("ab"), Literal::String("")}));
}

}  // namespace
}  // namespace floe::iceberg
