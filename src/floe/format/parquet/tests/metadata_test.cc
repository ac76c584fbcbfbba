#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/page_header.h"

namespace floe::format::parquet {
namespace {

FileMetaData FullMetadata() {
  FileMetaData f;
  f.version = 2;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 3;
  f.schema.push_back(root);
  SchemaElement a;
  a.name = "a";
  a.type = Type::kInt64;
  a.repetition_type = FieldRepetitionType::kRequired;
  a.field_id = 1;
  a.logical_type = LogicalType::Integer(64, true);
  a.converted_type = ConvertedType::kInt64;
  f.schema.push_back(a);
  SchemaElement t;
  t.name = "t";
  t.type = Type::kInt64;
  t.repetition_type = FieldRepetitionType::kOptional;
  t.field_id = 2;
  t.logical_type = LogicalType::Timestamp(true, TimeUnit::kNanos);
  f.schema.push_back(t);
  SchemaElement d;
  d.name = "d";
  d.type = Type::kFixedLenByteArray;
  d.type_length = 16;
  d.repetition_type = FieldRepetitionType::kOptional;
  d.converted_type = ConvertedType::kDecimal;
  d.precision = 38;
  d.scale = 10;
  d.field_id = 300;
  d.logical_type = LogicalType::Decimal(38, 10);
  f.schema.push_back(d);
  f.num_rows = 1234567890123;

  RowGroup rg;
  rg.total_byte_size = 999;
  rg.num_rows = 1234567890123;
  rg.file_offset = 4;
  rg.total_compressed_size = 800;
  rg.ordinal = 0;
  rg.sorting_columns = std::vector<SortingColumn>{{0, true, false}, {2, false, true}};
  for (int i = 0; i < 3; ++i) {
    ColumnChunk cc;
    cc.file_offset = 4 + i * 100;
    ColumnMetaData md;
    md.type = i == 2 ? Type::kFixedLenByteArray : Type::kInt64;
    md.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
    md.path_in_schema = {f.schema[i + 1].name};
    md.codec = CompressionCodec::kZstd;
    md.num_values = 1000 + i;
    md.total_uncompressed_size = 2000;
    md.total_compressed_size = 1000;
    md.data_page_offset = 4 + i * 100 + 30;
    md.dictionary_page_offset = 4 + i * 100;
    Statistics s;
    s.min_value = std::string("\x01\x00\x00\x00\x00\x00\x00\x00", 8);
    s.max_value = std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
    s.null_count = 0;
    s.distinct_count = 17;
    s.is_min_value_exact = true;
    s.is_max_value_exact = false;
    md.statistics = s;
    md.encoding_stats =
        std::vector<PageEncodingStats>{{PageType::kDictionaryPage, Encoding::kPlain, 1},
                                       {PageType::kDataPage, Encoding::kRleDictionary, 3}};
    md.key_value_metadata = std::vector<KeyValue>{{"k", "v"}, {"only-key", std::nullopt}};
    md.bloom_filter_offset = 5000;
    md.bloom_filter_length = 64;
    cc.meta_data = md;
    cc.offset_index_offset = 7000;
    cc.offset_index_length = 20;
    cc.column_index_offset = 7100;
    cc.column_index_length = 30;
    rg.columns.push_back(cc);
  }
  f.row_groups.push_back(rg);
  f.key_value_metadata = std::vector<KeyValue>{{"iceberg.schema", "{\"type\":\"struct\"}"}};
  f.created_by = "floe version 0.1.0";
  f.column_orders = std::vector<ColumnOrder>(3, ColumnOrder::kTypeDefinedOrder);
  return f;
}

TEST(MetadataTest, FileMetaDataRoundTrip) {
  FileMetaData f = FullMetadata();
  ByteBuffer buf;
  ASSERT_TRUE(SerializeFileMetaData(f, &buf).has_value());
  auto parsed = ParseFileMetaData(buf.span());
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  EXPECT_EQ(*parsed, f);
}

TEST(MetadataTest, EveryLogicalTypeRoundTrips) {
  std::vector<LogicalType> all = {LogicalType::String(),
                                  LogicalType::Map(),
                                  LogicalType::List(),
                                  {LogicalType::Kind::kEnum},
                                  LogicalType::Decimal(9, 2),
                                  LogicalType::Date(),
                                  LogicalType::Time(false, TimeUnit::kMillis),
                                  LogicalType::Time(true, TimeUnit::kMicros),
                                  LogicalType::Timestamp(false, TimeUnit::kMillis),
                                  LogicalType::Integer(8, false),
                                  {LogicalType::Kind::kUnknown},
                                  {LogicalType::Kind::kJson},
                                  {LogicalType::Kind::kBson},
                                  LogicalType::Uuid(),
                                  {LogicalType::Kind::kFloat16}};
  FileMetaData f;
  SchemaElement root;
  root.name = "r";
  root.num_children = static_cast<int32_t>(all.size());
  f.schema.push_back(root);
  for (size_t i = 0; i < all.size(); ++i) {
    SchemaElement e;
    e.name = "c" + std::to_string(i);
    e.type = Type::kByteArray;
    e.logical_type = all[i];
    f.schema.push_back(e);
  }
  ByteBuffer buf;
  ASSERT_TRUE(SerializeFileMetaData(f, &buf).has_value());
  auto parsed = ParseFileMetaData(buf.span());
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  EXPECT_EQ(*parsed, f);
  EXPECT_EQ(LogicalTypeToString(*parsed->schema[5].logical_type), "DECIMAL(9,2)");
  EXPECT_EQ(LogicalTypeToString(*parsed->schema[10].logical_type), "INTEGER(8,false)");
}

TEST(MetadataTest, PageHeaderRoundTripAndBytes) {
  PageHeader h;
  h.type = PageType::kDataPage;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 80;
  DataPageHeader dp;
  dp.num_values = 10;
  dp.encoding = Encoding::kPlain;
  dp.definition_level_encoding = Encoding::kRle;
  dp.repetition_level_encoding = Encoding::kRle;
  h.data_page_header = dp;
  ByteBuffer buf;
  SerializePageHeader(h, &buf);
  // Hand-encoded per the compact protocol: i32 fields 1-3, struct field 5
  // (delta 2) holding i32 fields 1-4, two stop bytes.
  const std::vector<uint8_t> expected = {0x15, 0x00, 0x15, 0xc8, 0x01, 0x15, 0xa0, 0x01, 0x2c, 0x15,
                                         0x14, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00};
  EXPECT_EQ(std::vector<uint8_t>(buf.data(), buf.data() + buf.size()), expected);
  buf.Append("trailing page data");
  size_t consumed = 0;
  auto parsed = ParsePageHeader(buf.span(), &consumed);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  EXPECT_EQ(consumed, expected.size());
  EXPECT_EQ(*parsed, h);

  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.uncompressed_page_size = 1;
  v2.compressed_page_size = 2;
  v2.crc = -5;
  DataPageHeaderV2 d2;
  d2.num_values = 3;
  d2.num_nulls = 1;
  d2.num_rows = 3;
  d2.encoding = Encoding::kDeltaBinaryPacked;
  d2.definition_levels_byte_length = 4;
  d2.repetition_levels_byte_length = 0;
  d2.is_compressed = false;
  Statistics s;
  s.max = "z";
  s.min = "a";
  s.nan_count = 0;
  d2.statistics = s;
  v2.data_page_header_v2 = d2;
  buf.Clear();
  SerializePageHeader(v2, &buf);
  auto p2 = ParsePageHeader(buf.span(), &consumed);
  ASSERT_TRUE(p2.has_value());
  EXPECT_EQ(*p2, v2);

  PageHeader dict;
  dict.type = PageType::kDictionaryPage;
  dict.dictionary_page_header = DictionaryPageHeader{5, Encoding::kPlain, true};
  buf.Clear();
  SerializePageHeader(dict, &buf);
  auto p3 = ParsePageHeader(buf.span(), &consumed);
  ASSERT_TRUE(p3.has_value());
  EXPECT_EQ(*p3, dict);
}

TEST(MetadataTest, MissingRequiredFieldsAndTruncation) {
  // A PageHeader with only field 1.
  const std::vector<uint8_t> only_type = {0x15, 0x00, 0x00};
  size_t consumed = 0;
  auto r = ParsePageHeader(only_type, &consumed);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(r.error().message().find("required field 2"), std::string::npos) << r.error().message();

  FileMetaData f = FullMetadata();
  ByteBuffer buf;
  ASSERT_TRUE(SerializeFileMetaData(f, &buf).has_value());
  for (size_t cut = 0; cut < buf.size(); cut += 7) {
    auto p = ParseFileMetaData(buf.span().subspan(0, cut));
    ASSERT_FALSE(p.has_value()) << "cut at " << cut;
    EXPECT_EQ(p.error().code(), ErrorCode::kCorruption);
  }
}

TEST(MetadataTest, UnknownFieldsAreSkipped) {
  // KeyValue-like struct inside a PageHeader's unknown field 20, plus an
  // unknown LogicalType member (16 = VARIANT) in a schema element.
  PageHeader h;
  h.type = PageType::kIndexPage;
  h.uncompressed_page_size = 0;
  h.compressed_page_size = 0;
  ByteBuffer buf;
  SerializePageHeader(h, &buf);
  buf.Resize(buf.size() - 1);                                  // drop the stop byte
  const uint8_t extra[] = {0x0c, 0x28, 0x18, 0x01, 'x', 0x00,  // field 20: struct {1: "x"}
                           0x00};
  buf.Append(extra, sizeof(extra));
  size_t consumed = 0;
  auto p = ParsePageHeader(buf.span(), &consumed);
  ASSERT_TRUE(p.has_value()) << p.error().ToString();
  EXPECT_EQ(consumed, buf.size());
  EXPECT_EQ(p->type, PageType::kIndexPage);
}

std::vector<uint8_t> ReadFooter(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (bytes.size() < 12) return {};
  uint32_t len = LoadLittleEndian<uint32_t>(bytes.data() + bytes.size() - 8);
  return std::vector<uint8_t>(bytes.end() - 8 - len, bytes.end() - 8);
}

TEST(MetadataTest, ParsesPyarrowFooters) {
  auto footer = ReadFooter(std::string(FLOE_TEST_DATA_DIR) + "/parquet/pyarrow/nested_v1.parquet");
  ASSERT_FALSE(footer.empty());
  auto f = ParseFileMetaData(footer);
  ASSERT_TRUE(f.has_value()) << f.error().ToString();
  EXPECT_EQ(f->num_rows, 120);
  EXPECT_EQ(f->row_groups.size(), 3u);
  ASSERT_TRUE(f->created_by.has_value());
  EXPECT_EQ(f->created_by->rfind("parquet-cpp-arrow", 0), 0u);
  EXPECT_EQ(f->schema[0].name, "schema");
  EXPECT_EQ(f->schema[1].name, "id");
  EXPECT_EQ(f->schema[1].type, Type::kInt32);
  EXPECT_EQ(f->schema[1].repetition_type, FieldRepetitionType::kRequired);
  // mp: optional group (MAP) { repeated group key_value { required key; optional value } }
  bool found_map = false;
  for (const auto& e : f->schema) {
    if (e.name == "mp") {
      found_map = true;
      ASSERT_TRUE(e.logical_type.has_value());
      EXPECT_EQ(e.logical_type->kind, LogicalType::Kind::kMap);
      EXPECT_EQ(e.converted_type, ConvertedType::kMap);
      EXPECT_EQ(e.num_children, 1);
    }
  }
  EXPECT_TRUE(found_map);
  for (const auto& rg : f->row_groups) {
    for (const auto& cc : rg.columns) {
      ASSERT_TRUE(cc.meta_data.has_value());
      EXPECT_GT(cc.meta_data->data_page_offset, 0);
      EXPECT_TRUE(cc.meta_data->statistics.has_value());
    }
  }
  // What floe writes back parses to the same structures.
  ByteBuffer buf;
  ASSERT_TRUE(SerializeFileMetaData(*f, &buf).has_value());
  auto again = ParseFileMetaData(buf.span());
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *f);

  auto ids = ReadFooter(std::string(FLOE_TEST_DATA_DIR) + "/parquet/pyarrow/field_ids.parquet");
  auto g = ParseFileMetaData(ids);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->schema[1].field_id, 100);
}

TEST(MetadataTest, Names) {
  EXPECT_EQ(TypeName(Type::kFixedLenByteArray), "FIXED_LEN_BYTE_ARRAY");
  EXPECT_EQ(EncodingName(Encoding::kByteStreamSplit), "BYTE_STREAM_SPLIT");
  EXPECT_EQ(CodecName(CompressionCodec::kLz4Raw), "LZ4_RAW");
  EXPECT_EQ(PageTypeName(PageType::kDataPageV2), "DATA_PAGE_V2");
  EXPECT_EQ(ConvertedTypeName(ConvertedType::kTimestampMicros), "TIMESTAMP_MICROS");
  EXPECT_EQ(EncodingName(static_cast<Encoding>(42)), "UNKNOWN(42)");
}

}  // namespace
}  // namespace floe::format::parquet
