// Hand-built files: legacy list encodings pyarrow does not write, and
// corrupt or hostile files that must fail with kCorruption naming the file.

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "floe/format/parquet/reader.h"
#include "floe/types/row_json.h"
#include "floe/types/schema_json.h"

namespace floe::format::parquet {
namespace {

using types::Value;

class MemoryInputFile final : public io::InputFile {
 public:
  MemoryInputFile(std::string path, std::string bytes)
      : path_(std::move(path)), bytes_(std::move(bytes)) {}
  const std::string& path() const override { return path_; }
  uint64_t size() const override { return bytes_.size(); }
  Status ReadAt(uint64_t offset, std::span<uint8_t> out) const override {
    if (offset > bytes_.size() || out.size() > bytes_.size() - offset) {
      return Corruption("{}: read of {} bytes at offset {} past the end", path_, out.size(),
                        offset);
    }
    std::memcpy(out.data(), bytes_.data() + offset, out.size());
    return Ok();
  }

 private:
  std::string path_;
  std::string bytes_;
};

std::string S(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

std::string Le32(uint32_t v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}

struct Page {
  PageHeader header;
  std::string body;
};

/// A v1 data page with RLE levels (each already encoded, without the length
/// prefix) and PLAIN values.
Page DataPage(int32_t num_values, const std::string& reps, const std::string& defs,
              const std::string& values, Encoding encoding = Encoding::kPlain) {
  Page p;
  std::string body;
  if (!reps.empty()) body += Le32(static_cast<uint32_t>(reps.size())) + reps;
  if (!defs.empty()) body += Le32(static_cast<uint32_t>(defs.size())) + defs;
  body += values;
  p.body = body;
  p.header.type = PageType::kDataPage;
  p.header.uncompressed_page_size = static_cast<int32_t>(body.size());
  p.header.compressed_page_size = static_cast<int32_t>(body.size());
  p.header.data_page_header =
      DataPageHeader{num_values, encoding, Encoding::kRle, Encoding::kRle, {}};
  return p;
}

/// Lays out "PAR1", each column's pages, the footer, its length, "PAR1".
std::string BuildFile(std::vector<SchemaElement> schema, int64_t num_rows,
                      const std::vector<std::vector<Page>>& columns,
                      const std::vector<std::vector<std::string>>& paths) {
  std::string file = "PAR1";
  FileMetaData f;
  f.schema = std::move(schema);
  f.num_rows = num_rows;
  RowGroup rg;
  rg.num_rows = num_rows;
  for (size_t c = 0; c < columns.size(); ++c) {
    ColumnChunk cc;
    ColumnMetaData md;
    int64_t start = static_cast<int64_t>(file.size());
    int64_t values = 0;
    for (const Page& p : columns[c]) {
      ByteBuffer header;
      SerializePageHeader(p.header, &header);
      file.append(header.view());
      file += p.body;
      if (p.header.data_page_header) values += p.header.data_page_header->num_values;
    }
    md.type = Type::kInt32;
    for (const auto& e : f.schema) {
      if (e.name == paths[c].back() && e.type) md.type = *e.type;
    }
    md.encodings = {Encoding::kPlain, Encoding::kRle};
    md.path_in_schema = paths[c];
    md.num_values = values;
    md.total_compressed_size = static_cast<int64_t>(file.size()) - start;
    md.total_uncompressed_size = md.total_compressed_size;
    md.data_page_offset = start;
    cc.file_offset = start;
    cc.meta_data = md;
    rg.columns.push_back(cc);
  }
  f.row_groups.push_back(rg);
  ByteBuffer footer;
  EXPECT_TRUE(SerializeFileMetaData(f, &footer).has_value());
  file.append(footer.view());
  file += Le32(static_cast<uint32_t>(footer.size())) + "PAR1";
  return file;
}

SchemaElement Group(std::string name, int children, std::optional<FieldRepetitionType> rep,
                    std::optional<ConvertedType> converted = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.num_children = children;
  e.repetition_type = rep;
  e.converted_type = converted;
  return e;
}

SchemaElement Leaf(std::string name, Type type, FieldRepetitionType rep) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = rep;
  return e;
}

Result<std::unique_ptr<ParquetReader>> OpenBytes(std::string bytes, ReaderOptions options = {}) {
  return ParquetReader::Open(std::make_unique<MemoryInputFile>("mem.parquet", std::move(bytes)),
                             options);
}

/// Reads all rows as JSON lines; an error is returned as "error: <message>".
std::vector<std::string> ReadAllJson(ParquetReader* reader) {
  std::vector<std::string> lines;
  Arena arena;
  std::vector<Value> row;
  while (true) {
    auto more = reader->Next(&arena, &row);
    if (!more) {
      lines.push_back("error: " + more.error().ToString());
      break;
    }
    if (!*more) break;
    std::string json;
    types::AppendRowJson(reader->schema(), row, &json);
    lines.push_back(json);
  }
  return lines;
}

std::string Int32s(std::initializer_list<int32_t> v) {
  std::string s;
  for (int32_t x : v) s += Le32(static_cast<uint32_t>(x));
  return s;
}

TEST(ReaderFilesTest, TwoLevelListOfPrimitives) {
  // optional group tags (LIST) { repeated int32 tags; }  rows: [1,2], [], null, [3]
  std::vector<SchemaElement> schema = {
      Group("schema", 1, std::nullopt),
      Group("tags", 1, FieldRepetitionType::kOptional, ConvertedType::kList),
      Leaf("tags", Type::kInt32, FieldRepetitionType::kRepeated)};
  // reps 0,1,0,0,0 (width 1); defs 2,2,1,0,2 (width 2), bit-packed.
  Page p = DataPage(5, S({0x03, 0x02}), S({0x03, 0x1a, 0x02}), Int32s({1, 2, 3}));
  auto file = BuildFile(schema, 4, {{p}}, {{"tags", "tags"}});
  auto reader = OpenBytes(file);
  ASSERT_TRUE(reader.has_value()) << reader.error().ToString();
  EXPECT_EQ((*reader)->schema().fields()[0].type->ToString(), "list<int>");
  auto rows = ReadAllJson(reader->get());
  ASSERT_EQ(rows.size(), 4u) << rows.back();
  EXPECT_EQ(rows[0], R"({"tags":[1,2]})");
  EXPECT_EQ(rows[1], R"({"tags":[]})");
  EXPECT_EQ(rows[2], R"({"tags":null})");
  EXPECT_EQ(rows[3], R"({"tags":[3]})");
}

TEST(ReaderFilesTest, BareRepeatedFieldIsARequiredList) {
  // repeated int32 nums;  rows: [1,2], [], [3]
  std::vector<SchemaElement> schema = {Group("schema", 1, std::nullopt),
                                       Leaf("nums", Type::kInt32, FieldRepetitionType::kRepeated)};
  // reps 0,1,0,0; defs 1,1,0,1 (width 1).
  Page p = DataPage(4, S({0x03, 0x02}), S({0x03, 0x0b}), Int32s({1, 2, 3}));
  auto file = BuildFile(schema, 3, {{p}}, {{"nums"}});
  auto reader = OpenBytes(file);
  ASSERT_TRUE(reader.has_value()) << reader.error().ToString();
  const auto& field = (*reader)->schema().fields()[0];
  EXPECT_TRUE(field.required);
  EXPECT_EQ(field.type->ToString(), "list<int>");
  auto rows = ReadAllJson(reader->get());
  ASSERT_EQ(rows.size(), 3u) << rows.back();
  EXPECT_EQ(rows[0], R"({"nums":[1,2]})");
  EXPECT_EQ(rows[1], R"({"nums":[]})");
  EXPECT_EQ(rows[2], R"({"nums":[3]})");
}

TEST(ReaderFilesTest, LegacyArrayGroupIsTheElement) {
  // optional group a (LIST) { repeated group array { required int32 x; } }  rows: [{x:5}], null
  std::vector<SchemaElement> schema = {
      Group("schema", 1, std::nullopt),
      Group("a", 1, FieldRepetitionType::kOptional, ConvertedType::kList),
      Group("array", 1, FieldRepetitionType::kRepeated),
      Leaf("x", Type::kInt32, FieldRepetitionType::kRequired)};
  // reps 0,0; defs 2,0 (width 2): bit-packed byte 0b0000_0010.
  Page p = DataPage(2, S({0x03, 0x00}), S({0x03, 0x02, 0x00}), Int32s({5}));
  auto file = BuildFile(schema, 2, {{p}}, {{"a", "array", "x"}});
  auto reader = OpenBytes(file);
  ASSERT_TRUE(reader.has_value()) << reader.error().ToString();
  EXPECT_EQ((*reader)->schema().fields()[0].type->element().type->id(), types::TypeId::kStruct);
  auto rows = ReadAllJson(reader->get());
  ASSERT_EQ(rows.size(), 2u) << rows.back();
  EXPECT_EQ(rows[0], R"({"a":[{"x":5}]})");
  EXPECT_EQ(rows[1], R"({"a":null})");
}

std::string SimpleFile() {
  std::vector<SchemaElement> schema = {Group("schema", 1, std::nullopt),
                                       Leaf("v", Type::kInt32, FieldRepetitionType::kRequired)};
  Page p = DataPage(3, "", "", Int32s({7, 8, 9}));
  return BuildFile(schema, 3, {{p}}, {{"v"}});
}

void ExpectCorruption(const std::string& bytes, const std::string& needle,
                      ReaderOptions options = {}) {
  auto reader = OpenBytes(bytes, options);
  std::string message;
  if (!reader) {
    EXPECT_EQ(reader.error().code(), ErrorCode::kCorruption) << reader.error().ToString();
    message = reader.error().message();
  } else {
    auto rows = ReadAllJson(reader->get());
    ASSERT_FALSE(rows.empty());
    ASSERT_EQ(rows.back().rfind("error: corruption", 0), 0u) << rows.back();
    message = rows.back();
  }
  EXPECT_NE(message.find("mem.parquet"), std::string::npos) << message;
  EXPECT_NE(message.find(needle), std::string::npos) << message;
}

TEST(ReaderFilesTest, SimpleFileReads) {
  auto reader = OpenBytes(SimpleFile());
  ASSERT_TRUE(reader.has_value()) << reader.error().ToString();
  auto rows = ReadAllJson(reader->get());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2], R"({"v":9})");
}

TEST(ReaderFilesTest, BadMagicAndFooterLengths) {
  std::string good = SimpleFile();
  ExpectCorruption("PAR1", "too small");
  std::string bad_head = good;
  bad_head[0] = 'X';
  ExpectCorruption(bad_head, "bad magic at offset 0");
  std::string bad_tail = good;
  bad_tail.back() = 'X';
  ExpectCorruption(bad_tail, "bad magic");
  std::string long_footer = good;
  uint32_t huge = static_cast<uint32_t>(good.size());
  std::memcpy(long_footer.data() + good.size() - 8, &huge, 4);
  ExpectCorruption(long_footer, "runs past the start");
  std::string short_footer = good;
  uint32_t tiny = 3;
  std::memcpy(short_footer.data() + good.size() - 8, &tiny, 4);
  ExpectCorruption(short_footer, "footer at offset");
  ExpectCorruption(good, "above the limit", ReaderOptions{.max_footer_size = 10});
}

TEST(ReaderFilesTest, HostilePages) {
  std::vector<SchemaElement> schema = {Group("schema", 1, std::nullopt),
                                       Leaf("v", Type::kInt32, FieldRepetitionType::kRequired)};
  // A page that claims more bytes than the chunk holds.
  Page big = DataPage(3, "", "", Int32s({7, 8, 9}));
  big.header.compressed_page_size = 1 << 30;
  ExpectCorruption(BuildFile(schema, 3, {{big}}, {{"v"}}), "past the end of the column chunk");
  // An absurd value count.
  Page many = DataPage(3, "", "", Int32s({7, 8, 9}));
  many.header.data_page_header->num_values = 2'000'000'000;
  ExpectCorruption(BuildFile(schema, 3, {{many}}, {{"v"}}), "values (limit");
  // Values missing behind the count.
  Page few = DataPage(3, "", "", Int32s({7}));
  ExpectCorruption(BuildFile(schema, 3, {{few}}, {{"v"}}), "PLAIN");
  // More rows than the column holds.
  Page ok = DataPage(3, "", "", Int32s({7, 8, 9}));
  ExpectCorruption(BuildFile(schema, 4, {{ok}}, {{"v"}}), "ends before");
  // Dictionary index out of range: dictionary [5], indices width 1 -> 1.
  Page dict;
  dict.body = Int32s({5});
  dict.header.type = PageType::kDictionaryPage;
  dict.header.uncompressed_page_size = 4;
  dict.header.compressed_page_size = 4;
  dict.header.dictionary_page_header = DictionaryPageHeader{1, Encoding::kPlain, {}};
  Page idx = DataPage(1, "", "", S({0x01, 0x02, 0x01}), Encoding::kRleDictionary);
  ExpectCorruption(BuildFile(schema, 1, {{dict, idx}}, {{"v"}}), "out of range");
  // Uncompressed size above the limit.
  Page huge = DataPage(3, "", "", Int32s({7, 8, 9}));
  huge.header.uncompressed_page_size = 1 << 30;
  ExpectCorruption(BuildFile(schema, 3, {{huge}}, {{"v"}}), "above the limit",
                   ReaderOptions{.max_page_size = 1 << 20});
}

TEST(ReaderFilesTest, HostileFooters) {
  // A child count past the end of the schema.
  std::vector<SchemaElement> schema = {Group("schema", 5, std::nullopt),
                                       Leaf("v", Type::kInt32, FieldRepetitionType::kRequired)};
  Page p = DataPage(3, "", "", Int32s({7, 8, 9}));
  ExpectCorruption(BuildFile(schema, 3, {{p}}, {{"v"}}), "children");

  // A column chunk that points past the end of the file.
  std::string file = SimpleFile();
  uint32_t len;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  auto f = ParseFileMetaData(
      std::span(reinterpret_cast<const uint8_t*>(file.data()) + file.size() - 8 - len, len));
  ASSERT_TRUE(f.has_value());
  f->row_groups[0].columns[0].meta_data->data_page_offset = 1'000'000;
  ByteBuffer footer;
  ASSERT_TRUE(SerializeFileMetaData(*f, &footer).has_value());
  std::string moved = file.substr(0, file.size() - 8 - len) + std::string(footer.view()) +
                      Le32(static_cast<uint32_t>(footer.size())) + "PAR1";
  ExpectCorruption(moved, "outside the file");

  // Deep nesting in the schema: deeper than any type floe reads (a type level
  // takes at most 2 Parquet levels) is corruption, before any recursion.
  std::vector<SchemaElement> deep = {Group("schema", 1, std::nullopt)};
  for (int i = 0; i < 2 * types::kMaxTypeDepth + 2; ++i) {
    deep.push_back(Group("g", 1, FieldRepetitionType::kOptional));
  }
  deep.push_back(Leaf("v", Type::kInt32, FieldRepetitionType::kOptional));
  ExpectCorruption(BuildFile(deep, 0, {}, {}), "deeper than 201 levels");
}

TEST(ReaderFilesTest, StructsNestedDeeperThanTheTypeLimitAreRefused) {
  // 150 plain groups fit the Parquet limit but are 150 struct levels: refused
  // with the one type depth limit that every schema reader and writer uses.
  std::vector<SchemaElement> deep = {Group("schema", 1, std::nullopt)};
  for (int i = 0; i < 150; ++i) deep.push_back(Group("g", 1, FieldRepetitionType::kOptional));
  deep.push_back(Leaf("v", Type::kInt32, FieldRepetitionType::kOptional));
  auto reader = OpenBytes(BuildFile(deep, 0, {}, {}), {});
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(
      reader.error().message().find("nests types 150 levels deep, deeper than the limit of 100"),
      std::string::npos)
      << reader.error().message();
}

TEST(ReaderFilesTest, MutatedPyarrowFilesNeverCrash) {
  // Flip bytes of real files at random (fixed seed): every read must end in
  // rows or an error, never a crash or a hang.
  for (const char* name : {"nested_v1", "dict_v1_snappy", "delta", "v2_zstd"}) {
    std::ifstream in(std::string(FLOE_TEST_DATA_DIR) + "/parquet/pyarrow/" + name + ".parquet",
                     std::ios::binary);
    std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(original.empty());
    std::mt19937 rng(42);
    int errors = 0;
    for (int round = 0; round < 150; ++round) {
      std::string bytes = original;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) {
        bytes[rng() % bytes.size()] = static_cast<char>(rng());
      }
      ReaderOptions options;
      options.max_page_size = 1 << 20;
      auto reader = OpenBytes(bytes, options);
      if (!reader) {
        ++errors;
        continue;
      }
      auto rows = ReadAllJson(reader->get());
      if (!rows.empty() && rows.back().rfind("error:", 0) == 0) ++errors;
    }
    EXPECT_GT(errors, 0) << name;
  }
}

}  // namespace
}  // namespace floe::format::parquet
