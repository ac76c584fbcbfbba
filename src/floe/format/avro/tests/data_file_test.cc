// Object container files: round trips with every codec, metadata, resolution,
// and files that are corrupt or hostile.
#include <gtest/gtest.h>

#include <string>

#include "floe/format/avro/data_file.h"

namespace floe::format::avro {
namespace {

constexpr const char* kSchema = R"({"type":"record","name":"manifest_file","fields":[
    {"name":"manifest_path","type":"string","field-id":500},
    {"name":"added_snapshot_id","type":["null","long"],"default":null,"field-id":503},
    {"name":"partitions","type":["null",{"type":"array","element-id":508,"items":{
        "type":"record","name":"r508","fields":[
          {"name":"contains_null","type":"boolean","field-id":509},
          {"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510}]}}],
     "default":null,"field-id":507}]})";

Schema TestSchema() { return *Schema::Parse(kSchema); }

Datum Row(int i) {
  std::vector<Datum> partitions;
  for (int k = 0; k < i % 3; ++k) {
    partitions.push_back(
        Datum::Record({Datum::Boolean(k == 1), Datum::Bytes(std::string(k, 'b'))}));
  }
  return Datum::Record({Datum::String("s3://bucket/metadata/m" + std::to_string(i) + ".avro"),
                        i % 4 == 0 ? Datum::Null() : Datum::Long(int64_t{i} * 1000003),
                        Datum::Array(std::move(partitions))});
}

std::string WriteFile(Codec codec, int rows, WriterOptions options = {}) {
  std::string bytes;
  options.codec = codec;
  options.metadata["format-version"] = "2";
  options.metadata["schema"] = R"({"type":"struct","fields":[]})";
  auto writer = DataFileWriter::Make(std::make_unique<MemoryOutputFile>("mem.avro", &bytes),
                                     TestSchema(), options);
  EXPECT_TRUE(writer) << writer.error().ToString();
  for (int i = 0; i < rows; ++i) {
    Status s = (*writer)->Append(Row(i));
    EXPECT_TRUE(s) << s.error().ToString();
  }
  Status s = (*writer)->Close();
  EXPECT_TRUE(s) << s.error().ToString();
  EXPECT_EQ((*writer)->length(), bytes.size());
  EXPECT_EQ((*writer)->records_written(), static_cast<uint64_t>(rows));
  return bytes;
}

Result<std::unique_ptr<DataFileReader>> OpenBytes(std::string bytes, ReaderOptions options = {}) {
  return DataFileReader::Open(std::make_unique<MemoryInputFile>("test.avro", std::move(bytes)),
                              std::move(options));
}

// Reads every record; returns the error if any.
Result<std::vector<Datum>> ReadAll(std::string bytes, ReaderOptions options = {}) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenBytes(std::move(bytes), std::move(options)));
  std::vector<Datum> out;
  Datum d;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, reader->Next(&d));
    if (!more) break;
    out.push_back(d);
  }
  return out;
}

TEST(AvroDataFileTest, RoundTripsWithEveryCodec) {
  for (Codec codec : {Codec::kNull, Codec::kDeflate, Codec::kSnappy, Codec::kZstandard}) {
    // Small blocks so that there are many of them.
    std::string bytes = WriteFile(codec, 500, {.block_size_bytes = 1000});
    auto reader = OpenBytes(bytes);
    ASSERT_TRUE(reader) << reader.error().ToString();
    EXPECT_EQ((*reader)->codec(), codec);
    EXPECT_EQ((*reader)->metadata().at("format-version"), "2");
    EXPECT_EQ((*reader)->metadata().at("avro.codec"), CodecName(codec));
    EXPECT_EQ((*reader)->writer_schema().ToString(), TestSchema().ToString());
    EXPECT_EQ((*reader)->writer_schema().root().fields()[2].type->branches()[1]->IntProperty(
                  "element-id"),
              508);
    Datum d;
    int n = 0;
    while (true) {
      auto more = (*reader)->Next(&d);
      ASSERT_TRUE(more) << more.error().ToString();
      if (!*more) break;
      ASSERT_EQ(d, Row(n)) << CodecName(codec) << " row " << n;
      ++n;
    }
    EXPECT_EQ(n, 500) << CodecName(codec);
  }
}

TEST(AvroDataFileTest, FixedSyncMarkerGivesIdenticalBytes) {
  SyncMarker sync{};
  sync.fill(0x5a);
  std::string a = WriteFile(Codec::kDeflate, 10, {.sync_marker = sync});
  std::string b = WriteFile(Codec::kDeflate, 10, {.sync_marker = sync});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.substr(0, 4), std::string("Obj\x01", 4));
  EXPECT_EQ(a.substr(a.size() - 16), std::string(16, '\x5a'));
}

TEST(AvroDataFileTest, RecordsPerBlockLimit) {
  std::string bytes = WriteFile(Codec::kNull, 7, {.max_records_per_block = 2});
  auto rows = ReadAll(bytes);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 7u);
  // Four blocks: four sync markers after the header's.
  auto reader = OpenBytes(bytes);
  std::string sync(reinterpret_cast<const char*>((*reader)->sync_marker().data()), 16);
  size_t count = 0;
  for (size_t p = bytes.find(sync); p != std::string::npos; p = bytes.find(sync, p + 1)) ++count;
  EXPECT_EQ(count, 5u);
}

TEST(AvroDataFileTest, EmptyFileHasHeaderOnly) {
  auto rows = ReadAll(WriteFile(Codec::kSnappy, 0));
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_TRUE(rows->empty());
}

TEST(AvroDataFileTest, AppendOfBadDatumKeepsWriterUsable) {
  std::string bytes;
  auto writer =
      DataFileWriter::Make(std::make_unique<MemoryOutputFile>("m.avro", &bytes), TestSchema());
  ASSERT_TRUE(writer);
  ASSERT_TRUE((*writer)->Append(Row(1)));
  auto bad = (*writer)->Append(Datum::Record({Datum::Int(1)}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
  ASSERT_TRUE((*writer)->Append(Row(2)));
  ASSERT_TRUE((*writer)->Close());
  auto rows = ReadAll(bytes);
  ASSERT_TRUE(rows) << rows.error().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[1], Row(2));
}

TEST(AvroDataFileTest, ReservedMetadataKeysAreRefused) {
  std::string bytes;
  WriterOptions options;
  options.metadata["avro.schema"] = "{}";
  auto writer = DataFileWriter::Make(std::make_unique<MemoryOutputFile>("m.avro", &bytes),
                                     TestSchema(), options);
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().code(), ErrorCode::kInvalidArgument);
}

TEST(AvroDataFileTest, ReadsWithReaderSchema) {
  std::string bytes = WriteFile(Codec::kDeflate, 20);
  ReaderOptions options;
  options.reader_schema = *Schema::Parse(R"({"type":"record","name":"manifest_file","fields":[
      {"name":"snapshot","type":["null","long"],"field-id":503},
      {"name":"path","type":"bytes","field-id":500},
      {"name":"added_rows","type":"long","default":-1,"field-id":504}]})");
  auto rows = ReadAll(bytes, options);
  ASSERT_TRUE(rows) << rows.error().ToString();
  ASSERT_EQ(rows->size(), 20u);
  EXPECT_EQ((*rows)[5],
            Datum::Record({Datum::Long(5000015), Datum::Bytes("s3://bucket/metadata/m5.avro"),
                           Datum::Long(-1)}));
  EXPECT_TRUE((*rows)[4].field(0).is_null());
}

// --- Corruption -----------------------------------------------------------

void ExpectCorrupt(const std::string& bytes, std::string_view what) {
  auto rows = ReadAll(bytes);
  ASSERT_FALSE(rows) << "read " << rows->size() << " rows; expected error with: " << what;
  EXPECT_EQ(rows.error().code(), ErrorCode::kCorruption) << rows.error().ToString();
  EXPECT_NE(rows.error().message().find("test.avro"), std::string::npos) << rows.error().ToString();
  EXPECT_NE(rows.error().message().find(what), std::string::npos) << rows.error().ToString();
}

// The offset of the first block: right after the header's sync marker.
size_t FirstBlock(const std::string& bytes) {
  auto reader = OpenBytes(bytes);
  std::string sync(reinterpret_cast<const char*>((*reader)->sync_marker().data()), 16);
  return bytes.find(sync) + 16;
}

TEST(AvroDataFileTest, CorruptHeaders) {
  std::string good = WriteFile(Codec::kNull, 3);
  ExpectCorrupt("", "only 0 bytes");
  ExpectCorrupt("Obj", "only 3 bytes");
  ExpectCorrupt("PAR1xxxxxxxxxxxxxxxxxxxx", "bad magic");
  ExpectCorrupt(good.substr(0, 40), "offset");
  // A metadata count far beyond the file.
  ExpectCorrupt(std::string("Obj\x01\xfe\xff\xff\xff\x0f", 9), "metadata count");
  // A key length beyond the file.
  ExpectCorrupt(std::string("Obj\x01\x02\xfe\xff\xff\xff\x0f", 10), "length");
  // A header without a schema.
  ExpectCorrupt(std::string("Obj\x01\x00", 5) + std::string(16, 's'), "no avro.schema");
}

std::string HeaderWith(std::string_view schema, std::string_view codec) {
  ByteBuffer out;
  out.Append("Obj\x01", 4);
  AppendVarLong(2, &out);
  AppendLengthPrefixed("avro.schema", &out);
  AppendLengthPrefixed(schema, &out);
  AppendLengthPrefixed("avro.codec", &out);
  AppendLengthPrefixed(codec, &out);
  AppendVarLong(0, &out);
  out.Append(std::string(16, 's'));
  return std::string(out.view());
}

TEST(AvroDataFileTest, BadSchemaAndCodec) {
  ExpectCorrupt(HeaderWith("{not json", "null"), "bad avro.schema");
  ExpectCorrupt(HeaderWith(std::string(100000, '['), "null"), "bad avro.schema");
  ExpectCorrupt(HeaderWith("\"int\"", "lzma9"), "unknown avro codec");
  auto bzip = ReadAll(HeaderWith("\"int\"", "bzip2"));
  ASSERT_FALSE(bzip);
  EXPECT_EQ(bzip.error().code(), ErrorCode::kNotSupported);
}

TEST(AvroDataFileTest, CorruptBlocks) {
  std::string good = WriteFile(Codec::kNull, 3);
  size_t block = FirstBlock(good);
  {
    std::string bad = good;
    bad[bad.size() - 1] ^= 1;  // the last sync marker
    ExpectCorrupt(bad, "sync marker mismatch");
  }
  ExpectCorrupt(good.substr(0, good.size() - 5), "past the end");
  {
    std::string bad = good;
    bad[block] = '\x05';  // block count -3
    ExpectCorrupt(bad, "negative block count");
  }
  {
    std::string bad = good.substr(0, block) + std::string("\x02\xfe\xff\xff\xff\xff\x01", 7);
    ExpectCorrupt(bad, "block size");
  }
  {
    // A block claiming a million records in a few bytes.
    ByteBuffer head;
    AppendVarLong(1000000, &head);
    std::string bad = good;
    std::string rest = good.substr(block + 1);
    bad = good.substr(0, block) + std::string(head.view()) + rest;
    ExpectCorrupt(bad, "block count 1000000");
  }
  {
    // A record's string length mangled: offset names the file position.
    std::string bad = good;
    size_t at = good.find("s3://bucket/metadata/m0.avro") - 1;  // the path's length
    bad[at] = '\x7f';                                           // length -64
    auto rows = ReadAll(bad);
    ASSERT_FALSE(rows);
    EXPECT_EQ(rows.error().code(), ErrorCode::kCorruption);
    EXPECT_NE(rows.error().message().find(fmt::format("test.avro at offset {}", at)),
              std::string::npos)
        << rows.error().ToString();
  }
}

TEST(AvroDataFileTest, CorruptCompressedBlocks) {
  for (Codec codec : {Codec::kDeflate, Codec::kSnappy, Codec::kZstandard}) {
    std::string good = WriteFile(codec, 50);
    size_t block = FirstBlock(good);
    std::string bad = good;
    // Flip bytes in the middle of the compressed data.
    for (size_t i = block + 6; i < block + 12 && i < bad.size() - 16; ++i) bad[i] ^= 0x55;
    auto rows = ReadAll(bad);
    ASSERT_FALSE(rows) << CodecName(codec);
    EXPECT_EQ(rows.error().code(), ErrorCode::kCorruption) << rows.error().ToString();
    EXPECT_NE(rows.error().message().find("test.avro"), std::string::npos);
  }
}

TEST(AvroDataFileTest, DecompressionBombIsBounded) {
  // 10 MB of zeros compresses to almost nothing; with a 1 MB limit it is refused.
  std::string bytes;
  auto writer = DataFileWriter::Make(std::make_unique<MemoryOutputFile>("m.avro", &bytes),
                                     *Schema::Parse("\"bytes\""),
                                     {.codec = Codec::kDeflate, .block_size_bytes = 64u << 20});
  ASSERT_TRUE(writer);
  ASSERT_TRUE((*writer)->Append(Datum::Bytes(std::string(10u << 20, '\0'))));
  ASSERT_TRUE((*writer)->Close());
  EXPECT_LT(bytes.size(), 100000u);
  auto rows = ReadAll(bytes, {.max_block_bytes = 1u << 20});
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(rows.error().message().find("more than"), std::string::npos) << rows.error().ToString();
  auto ok = ReadAll(bytes);
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_EQ((*ok)[0].bytes().size(), 10u << 20);
}

}  // namespace
}  // namespace floe::format::avro
