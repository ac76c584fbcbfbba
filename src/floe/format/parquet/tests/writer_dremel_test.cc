// The Dremel paper's example (Melnik et al., "Dremel: Interactive Analysis of
// Web-Scale Datasets", 2010, figures 2 and 3): records r1 and r2 of the
// Document schema, shredded into the repetition and definition levels the
// paper lists for each column.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "floe/format/parquet/writer.h"
#include "writer_test_util.h"

namespace floe::format::parquet {
namespace {

using types::NestedField;
using types::Type;
using types::Value;

// message Document {
//   required int64 DocId;
//   optional group Links { repeated int64 Backward; repeated int64 Forward; }
//   repeated group Name {
//     repeated group Language { required string Code; optional string Country; }
//     optional string Url; } }
// "repeated" becomes a required list of required elements.
types::Schema DocumentSchema() {
  auto language = Type::Struct({NestedField{5, "Code", true, Type::String()},
                                NestedField{6, "Country", false, Type::String()}});
  auto name = Type::Struct({NestedField{7, "Language", true, Type::List(8, true, language)},
                            NestedField{9, "Url", false, Type::String()}});
  auto links = Type::Struct({NestedField{2, "Backward", true, Type::List(10, true, Type::Long())},
                             NestedField{3, "Forward", true, Type::List(11, true, Type::Long())}});
  return types::Schema({NestedField{1, "DocId", true, Type::Long()},
                        NestedField{4, "Links", false, links},
                        NestedField{12, "Name", true, Type::List(13, true, name)}});
}

Value Str(const char* s) { return Value::Bytes(s); }

class DremelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriterOptions options;
    options.codec = CompressionCodec::kUncompressed;
    options.dictionary_enabled = false;
    auto writer = ParquetWriter::Open(std::make_unique<test::MemoryOutputFile>(&file_),
                                      DocumentSchema(), options);
    ASSERT_TRUE(writer.has_value()) << writer.error().ToString();

    // r1
    {
      Value forward[] = {Value::Int64(20), Value::Int64(40), Value::Int64(60)};
      Value links[] = {Value::List(nullptr, 0), Value::List(forward, 3)};
      Value lang1[] = {Str("en-us"), Str("us")};
      Value lang2[] = {Str("en"), Value::Null()};
      Value languages_a[] = {Value::Struct(lang1, 2), Value::Struct(lang2, 2)};
      Value name_a[] = {Value::List(languages_a, 2), Str("http://A")};
      Value name_b[] = {Value::List(nullptr, 0), Str("http://B")};
      Value lang3[] = {Str("en-gb"), Str("gb")};
      Value languages_c[] = {Value::Struct(lang3, 2)};
      Value name_c[] = {Value::List(languages_c, 1), Value::Null()};
      Value names[] = {Value::Struct(name_a, 2), Value::Struct(name_b, 2),
                       Value::Struct(name_c, 2)};
      Value row[] = {Value::Int64(10), Value::Struct(links, 2), Value::List(names, 3)};
      auto status = (*writer)->Append(row);
      ASSERT_TRUE(status.has_value()) << status.error().ToString();
    }
    // r2
    {
      Value backward[] = {Value::Int64(10), Value::Int64(30)};
      Value forward[] = {Value::Int64(80)};
      Value links[] = {Value::List(backward, 2), Value::List(forward, 1)};
      Value name_a[] = {Value::List(nullptr, 0), Str("http://C")};
      Value names[] = {Value::Struct(name_a, 2)};
      Value row[] = {Value::Int64(20), Value::Struct(links, 2), Value::List(names, 1)};
      auto status = (*writer)->Append(row);
      ASSERT_TRUE(status.has_value()) << status.error().ToString();
    }
    auto metrics = (*writer)->Close();
    ASSERT_TRUE(metrics.has_value()) << metrics.error().ToString();
    metrics_ = *metrics;
    footer_ = test::ReadFooter(file_);
  }

  const ColumnMetaData& Column(const std::vector<std::string>& path) {
    for (const ColumnChunk& chunk : footer_.row_groups.at(0).columns) {
      if (chunk.meta_data->path_in_schema == path) return *chunk.meta_data;
    }
    throw std::runtime_error("no column");
  }

  std::string file_;
  FileMetaData footer_;
  DataFileMetrics metrics_;
};

using Levels = std::vector<uint32_t>;

TEST_F(DremelTest, DocId) {
  auto levels = test::ReadChunkLevels(file_, Column({"DocId"}), 0, 0);
  EXPECT_TRUE(levels.rep.empty());
  EXPECT_TRUE(levels.def.empty());
  ASSERT_EQ(levels.values.size(), 16u);
  EXPECT_EQ(LoadLittleEndian<int64_t>(levels.values.data()), 10);
  EXPECT_EQ(LoadLittleEndian<int64_t>(levels.values.data() + 8), 20);
}

TEST_F(DremelTest, LinksForward) {
  auto levels = test::ReadChunkLevels(file_, Column({"Links", "Forward", "list", "element"}), 1, 2);
  EXPECT_EQ(levels.rep, (Levels{0, 1, 1, 0}));
  EXPECT_EQ(levels.def, (Levels{2, 2, 2, 2}));
}

TEST_F(DremelTest, LinksBackward) {
  auto levels =
      test::ReadChunkLevels(file_, Column({"Links", "Backward", "list", "element"}), 1, 2);
  EXPECT_EQ(levels.rep, (Levels{0, 0, 1}));
  EXPECT_EQ(levels.def, (Levels{1, 2, 2}));
}

TEST_F(DremelTest, NameUrl) {
  auto levels = test::ReadChunkLevels(file_, Column({"Name", "list", "element", "Url"}), 1, 2);
  EXPECT_EQ(levels.rep, (Levels{0, 1, 1, 0}));
  EXPECT_EQ(levels.def, (Levels{2, 2, 1, 2}));
}

TEST_F(DremelTest, NameLanguageCode) {
  auto levels = test::ReadChunkLevels(
      file_, Column({"Name", "list", "element", "Language", "list", "element", "Code"}), 2, 2);
  EXPECT_EQ(levels.rep, (Levels{0, 2, 1, 1, 0}));
  EXPECT_EQ(levels.def, (Levels{2, 2, 1, 2, 1}));
  // Values: en-us, en, en-gb (PLAIN byte arrays).
  std::string values(levels.values.begin(), levels.values.end());
  EXPECT_EQ(values, std::string("\x05\0\0\0en-us\x02\0\0\0en\x05\0\0\0en-gb", 24));
}

TEST_F(DremelTest, NameLanguageCountry) {
  auto levels = test::ReadChunkLevels(
      file_, Column({"Name", "list", "element", "Language", "list", "element", "Country"}), 2, 2);
  EXPECT_EQ(levels.rep, (Levels{0, 2, 1, 1, 0}));
  EXPECT_EQ(levels.def, (Levels{3, 2, 1, 3, 1}));
}

TEST_F(DremelTest, SchemaElementsCarryFieldIds) {
  // root, DocId, Links, Backward, list, element, Forward, list, element, Name, list, element,
  // Language, list, element, Code, Country, Url
  ASSERT_EQ(footer_.schema.size(), 18u);
  EXPECT_EQ(footer_.schema[3].name, "Backward");
  EXPECT_EQ(footer_.schema[3].converted_type, ConvertedType::kList);
  EXPECT_EQ(footer_.schema[3].field_id, 2);
  EXPECT_EQ(footer_.schema[4].name, "list");
  EXPECT_EQ(footer_.schema[4].repetition_type, FieldRepetitionType::kRepeated);
  EXPECT_FALSE(footer_.schema[4].field_id.has_value());
  EXPECT_EQ(footer_.schema[5].name, "element");
  EXPECT_EQ(footer_.schema[5].field_id, 10);
  EXPECT_EQ(footer_.num_rows, 2);
}

TEST_F(DremelTest, MetricsCountLevelsAndSkipBoundsInLists) {
  EXPECT_EQ(metrics_.record_count, 2);
  EXPECT_EQ(metrics_.value_counts.at(5), 5);       // Code: 5 level entries
  EXPECT_EQ(metrics_.null_value_counts.at(5), 2);  // two of them are not values
  EXPECT_EQ(metrics_.null_value_counts.at(6), 3);
  EXPECT_FALSE(metrics_.lower_bounds.contains(5));  // inside a list
  EXPECT_EQ(metrics_.lower_bounds.at(1), std::string("\x0a\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(metrics_.upper_bounds.at(1), std::string("\x14\0\0\0\0\0\0\0", 8));
  ASSERT_EQ(metrics_.split_offsets.size(), 1u);
  EXPECT_EQ(metrics_.split_offsets[0], 4);
  EXPECT_EQ(metrics_.file_size_in_bytes, static_cast<int64_t>(file_.size()));
}

TEST(WriterTest, RejectsRequiredNullWithoutWriting) {
  std::string file;
  auto writer =
      ParquetWriter::Open(std::make_unique<test::MemoryOutputFile>(&file), DocumentSchema(), {});
  ASSERT_TRUE(writer.has_value());
  Value row[] = {Value::Null(), Value::Null(), Value::List(nullptr, 0)};
  auto status = (*writer)->Append(row);
  ASSERT_FALSE(status.has_value());
  EXPECT_EQ(status.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(status.error().message().find("DocId"), std::string::npos);
  Value wrong[] = {Value::Bytes("x"), Value::Null(), Value::List(nullptr, 0)};
  status = (*writer)->Append(wrong);
  ASSERT_FALSE(status.has_value());
  EXPECT_NE(status.error().message().find("expected long"), std::string::npos);
  EXPECT_EQ((*writer)->num_rows(), 0);
  auto metrics = (*writer)->Close();
  ASSERT_TRUE(metrics.has_value());
  EXPECT_EQ(metrics->record_count, 0);
}

}  // namespace
}  // namespace floe::format::parquet
