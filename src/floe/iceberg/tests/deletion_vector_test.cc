// Deletion vectors (v3): Puffin footers, the deletion-vector-v1 blob, and
// their application in scans as the spec's "Scan Planning" says.

#include "floe/iceberg/puffin/deletion_vector.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "floe/format/avro/data_file.h"
#include "floe/format/compression/compression.h"
#include "floe/iceberg/data/delete_filter.h"
#include "floe/iceberg/puffin/deletion_vector_writer.h"
#include "floe/iceberg/puffin/puffin_file.h"
#include "floe/iceberg/tests/scan_test_util.h"
#include "floe/testing/temp_dir.h"

namespace floe::iceberg {
namespace {

using scantest::RowValues;
using scantest::Str;
using scantest::TestTable;
using types::Type;
using types::Value;

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

Result<DeletionVector> DecodeText(const std::string& blob) {
  return DeletionVector::Decode(Bytes(blob), "test");
}

void PutU32BE(uint32_t v, std::string* s, size_t at) {
  for (int i = 0; i < 4; ++i) (*s)[at + i] = static_cast<char>((v >> (8 * (3 - i))) & 0xff);
}

/// `blob` with its stored CRC-32 recomputed (so that a test reaches the
/// check after the CRC).
std::string Resealed(std::string blob) {
  const std::string vector = blob.substr(4, blob.size() - 8);
  PutU32BE(format::compression::Crc32(Bytes(vector)), &blob, blob.size() - 4);
  return blob;
}

TEST(DeletionVectorTest, EncodeDecodeAcrossKeysAndContainerKinds) {
  std::vector<int64_t> positions = {0, 7, 7, 65535, 65536, 1000000};
  for (int64_t p = 200000; p < 210000; ++p) positions.push_back(p);     // a run
  for (int64_t p = 300000; p < 370000; p += 2) positions.push_back(p);  // a bitset
  positions.push_back((int64_t{1} << 32) + 5);                          // second key
  positions.push_back((int64_t{3} << 32));                              // third key
  const std::string blob = DeletionVector::Encode(positions);
  auto dv = DecodeText(blob);
  ASSERT_TRUE(dv.has_value()) << dv.error().ToString();
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  EXPECT_EQ(dv->cardinality(), static_cast<int64_t>(positions.size()));
  for (int64_t p : positions) EXPECT_TRUE(dv->Contains(p)) << p;
  for (int64_t p : {int64_t{1}, int64_t{199999}, int64_t{300001}, int64_t{5},
                    (int64_t{1} << 32) + 4, (int64_t{2} << 32) + 5, int64_t{-1}}) {
    EXPECT_FALSE(dv->Contains(p)) << p;
  }
  // Layout: big-endian length of magic + vector, the magic, then a count of 3
  // bitmaps (little-endian), and the first key 0.
  ASSERT_GE(blob.size(), 20u);
  EXPECT_EQ(static_cast<uint8_t>(blob[4]), 0xD1);
  EXPECT_EQ(static_cast<uint8_t>(blob[7]), 0x64);
  EXPECT_EQ(blob[8], 3);
  EXPECT_EQ(blob.substr(9, 11), std::string(11, '\0'));

  auto empty = DecodeText(DeletionVector::Encode({}));
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
  EXPECT_FALSE(empty->Contains(0));
}

TEST(DeletionVectorTest, CorruptBlobsAreCorruptionNeverACrash) {
  const std::string good = DeletionVector::Encode(std::vector<int64_t>{1, 2, 3, int64_t{1} << 33});
  ASSERT_TRUE(DecodeText(good).has_value());
  auto expect_corrupt = [](const std::string& blob, std::string_view words) {
    auto r = DecodeText(blob);
    ASSERT_FALSE(r.has_value()) << words;
    EXPECT_EQ(r.error().code(), ErrorCode::kCorruption) << r.error().ToString();
    EXPECT_NE(r.error().ToString().find(words), std::string::npos) << r.error().ToString();
  };
  std::string bad_magic = good;
  bad_magic[5] ^= 1;
  expect_corrupt(Resealed(bad_magic), "bad magic");
  std::string bad_crc = good;
  bad_crc[good.size() - 1] ^= 1;
  expect_corrupt(bad_crc, "CRC-32");
  std::string flipped = good;
  flipped[20] ^= 0x40;  // inside the first bitmap
  expect_corrupt(flipped, "CRC-32");
  expect_corrupt(good.substr(0, good.size() - 3), "length");
  expect_corrupt(good.substr(0, 10), "too short");
  std::string long_length = good;
  PutU32BE(static_cast<uint32_t>(good.size()), &long_length, 0);
  expect_corrupt(long_length, "length");
  // Keys out of order: swap the declared count up so a second bitmap is
  // expected where the bytes end.
  std::string more_bitmaps = good;
  more_bitmaps[8] = 3;
  expect_corrupt(Resealed(more_bitmaps), "bitmap");
  std::string huge_count = good;
  huge_count[15] = 0x7f;
  expect_corrupt(Resealed(huge_count), "cannot fit");
  // A key with the sign bit set.
  std::string sign = good;
  sign[16 + 3] = static_cast<char>(0x80);
  expect_corrupt(Resealed(sign), "sign bit");
  // Trailing bytes after the last bitmap (length and CRC made consistent).
  std::string trailing = good.substr(0, good.size() - 4) + std::string("\0\0", 2);
  PutU32BE(static_cast<uint32_t>(trailing.size() - 4), &trailing, 0);
  trailing += "1234";
  expect_corrupt(Resealed(trailing), "after the last bitmap");
  // Keys must ascend: two bitmaps with the same key.
  const std::string two = DeletionVector::Encode(std::vector<int64_t>{1, int64_t{1} << 32});
  std::string same_key = two;
  // count, key 0, bitmap {1}, key 1, bitmap {0}, CRC: both bitmaps one size.
  const size_t bitmap_size = (two.size() - 28) / 2;
  ASSERT_EQ(same_key[20 + bitmap_size], 1);
  same_key[20 + bitmap_size] = 0;
  expect_corrupt(Resealed(same_key), "not ascending");
}

TEST(DeletionVectorWriterTest, OnePuffinFileWithAVectorPerDataFile) {
  floe::testing::TempDir dir("dv-writer");
  io::LocalFileIO io;
  const std::string path = NewDeletionVectorPath(dir.path().string() + "/t/");
  EXPECT_EQ(path.rfind(dir.path().string() + "/t/data/", 0), 0u) << path;
  EXPECT_TRUE(path.ends_with("-deletes.puffin")) << path;
  const int64_t far = (int64_t{1} << 32) + 7;
  std::vector<DeletionVectorToWrite> vectors = {
      {"s3://b/t/data/a.parquet", {Literal::String("eu")}, {9, 3, 3, far}},
      {"s3://b/t/data/b.parquet", {Literal::String("us")}, {0}}};
  auto files = WriteDeletionVectors(io, path, vectors);
  ASSERT_TRUE(files.has_value()) << files.error().ToString();
  ASSERT_EQ(files->size(), 2u);
  auto input = io.OpenInput(path);
  ASSERT_TRUE(input.has_value());
  auto footer = ReadPuffinFooter(**input);
  ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
  EXPECT_EQ(footer->properties.at("created-by"), "floe");
  ASSERT_EQ(footer->blobs.size(), 2u);
  const std::vector<int64_t> expected[] = {{3, 9, far}, {0}};
  for (size_t i = 0; i < 2; ++i) {
    const DataFile& f = (*files)[i];
    EXPECT_TRUE(IsDeletionVector(f));
    EXPECT_EQ(f.file_path, path);
    EXPECT_EQ(f.file_size_in_bytes, static_cast<int64_t>((*input)->size()));
    EXPECT_EQ(f.referenced_data_file, vectors[i].data_file);
    ASSERT_EQ(f.partition.size(), 1u);
    EXPECT_EQ(f.partition[0].ToString(), vectors[i].partition[0].ToString());
    EXPECT_EQ(f.record_count, static_cast<int64_t>(expected[i].size()));
    const PuffinBlobMetadata& blob = footer->blobs[i];
    EXPECT_EQ(blob.type, kDeletionVectorBlobType);
    EXPECT_EQ(blob.offset, f.content_offset);
    EXPECT_EQ(blob.length, f.content_size_in_bytes);
    EXPECT_EQ(blob.snapshot_id, -1);
    EXPECT_EQ(blob.sequence_number, -1);
    EXPECT_EQ(blob.properties.at(std::string(kDeletionVectorReferencedDataFile)),
              vectors[i].data_file);
    EXPECT_EQ(blob.properties.at(std::string(kDeletionVectorCardinality)),
              std::to_string(expected[i].size()));
    auto dv = DeletionVector::Read(io, f);
    ASSERT_TRUE(dv.has_value()) << dv.error().ToString();
    std::vector<int64_t> positions = {-5};  // appended after what is there
    dv->AppendPositions(&positions);
    positions.erase(positions.begin());
    EXPECT_EQ(positions, expected[i]);
  }
  // Refused: nothing to write, an empty vector, a data file named twice.
  EXPECT_EQ(WriteDeletionVectors(io, path + "2", {}).error().code(), ErrorCode::kInvalidArgument);
  std::vector<DeletionVectorToWrite> empty = {{"a", {}, {}}};
  EXPECT_EQ(WriteDeletionVectors(io, path + "2", empty).error().code(),
            ErrorCode::kInvalidArgument);
  std::vector<DeletionVectorToWrite> twice = {{"a", {}, {1}}, {"a", {}, {2}}};
  EXPECT_EQ(WriteDeletionVectors(io, path + "2", twice).error().code(),
            ErrorCode::kInvalidArgument);
  auto exists = io.Exists(path + "2");
  ASSERT_TRUE(exists.has_value());
  EXPECT_FALSE(*exists);
}

TEST(PuffinFileTest, FooterRoundTripAndCorruptFooters) {
  std::vector<PuffinBlob> blobs(2);
  blobs[0].metadata.type = std::string(kDeletionVectorBlobType);
  blobs[0].metadata.properties = {{"referenced-data-file", "/t/a.parquet"}, {"cardinality", "2"}};
  blobs[0].bytes = DeletionVector::Encode(std::vector<int64_t>{3, 9});
  blobs[1].metadata.type = "apache-datasketches-theta-v1";
  blobs[1].metadata.fields = {1, 2};
  blobs[1].metadata.snapshot_id = 7;
  blobs[1].metadata.sequence_number = 3;
  blobs[1].bytes = "sketch";
  const std::string file = EncodePuffinFile(&blobs, {{"created-by", "floe"}});
  format::avro::MemoryInputFile input("mem.puffin", file);
  auto footer = ReadPuffinFooter(input);
  ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
  ASSERT_EQ(footer->blobs.size(), 2u);
  EXPECT_EQ(footer->properties.at("created-by"), "floe");
  EXPECT_EQ(footer->blobs[0].offset, 4);
  EXPECT_EQ(footer->blobs[0].properties.at("referenced-data-file"), "/t/a.parquet");
  EXPECT_EQ(footer->blobs[1].fields, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(footer->blobs[1].snapshot_id, 7);
  auto blob = ReadPuffinBlob(input, footer->blobs[0].offset, footer->blobs[0].length);
  ASSERT_TRUE(blob.has_value());
  auto dv = DeletionVector::Decode(*blob, "blob 0");
  ASSERT_TRUE(dv.has_value());
  EXPECT_TRUE(dv->Contains(9));

  auto expect = [](std::string bytes, ErrorCode code, std::string_view words) {
    format::avro::MemoryInputFile in("bad.puffin", std::move(bytes));
    auto r = ReadPuffinFooter(in);
    ASSERT_FALSE(r.has_value()) << words;
    EXPECT_EQ(r.error().code(), code) << r.error().ToString();
    EXPECT_NE(r.error().ToString().find(words), std::string::npos) << r.error().ToString();
    EXPECT_NE(r.error().ToString().find("bad.puffin"), std::string::npos);
  };
  std::string head = file;
  head[0] = 'X';
  expect(head, ErrorCode::kCorruption, "bad magic at the start");
  std::string tail = file;
  tail[file.size() - 1] = 'X';
  expect(tail, ErrorCode::kCorruption, "bad magic at the end");
  std::string size = file;
  size[file.size() - 12 + 3] = 0x10;  // payload size far beyond the file
  expect(size, ErrorCode::kCorruption, "does not fit");
  std::string compressed = file;
  compressed[file.size() - 8] = 1;
  expect(compressed, ErrorCode::kNotSupported, "compressed");
  expect(file.substr(0, 15), ErrorCode::kCorruption, "too short");
  expect(file.substr(1), ErrorCode::kCorruption, "bad magic");
  // A blob range past the footer.
  std::vector<PuffinBlob> one(1);
  one[0].metadata.type = "x";
  one[0].bytes = "abc";
  std::string moved = EncodePuffinFile(&one, {});
  const size_t at = moved.find("\"length\":3");
  ASSERT_NE(at, std::string::npos);
  moved[at + 9] = '9';
  expect(moved, ErrorCode::kCorruption, "outside the blobs");
  std::string not_json = EncodePuffinFile(&one, {});
  not_json[not_json.find('{')] = '[';
  expect(not_json, ErrorCode::kCorruption, "footer");
}

types::Schema IdSchema() {
  return types::Schema({{1, "id", true, Type::Long(), ""}, {2, "name", false, Type::String(), ""}},
                       0);
}

std::vector<RowValues> Rows(int64_t first, int64_t count) {
  std::vector<RowValues> rows;
  for (int64_t i = first; i < first + count; ++i) {
    rows.push_back({Value::Int64(i), Str("r" + std::to_string(i))});
  }
  return rows;
}

std::vector<int64_t> ScannedIds(TestTable& t) {
  auto rows = scantest::ScanJson(t.io(), t.metadata(), {});
  EXPECT_TRUE(rows.has_value()) << (rows ? "" : rows.error().ToString());
  std::vector<int64_t> ids;
  if (!rows) return ids;
  for (const auto& r : *rows) {
    const size_t a = r.find(':') + 1;
    ids.push_back(std::stoll(r.substr(a, r.find_first_of(",}", a) - a)));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

/// A Puffin file with one deletion vector per (data file, positions), and
/// the delete files that point at them.
std::vector<DataFile> WriteDeletionVectors(
    TestTable& t, const std::vector<std::pair<const DataFile*, std::vector<int64_t>>>& dvs) {
  std::vector<PuffinBlob> blobs;
  for (const auto& [data, positions] : dvs) {
    PuffinBlob b;
    b.metadata.type = std::string(kDeletionVectorBlobType);
    b.metadata.properties[std::string(kDeletionVectorReferencedDataFile)] = data->file_path;
    b.bytes = DeletionVector::Encode(positions);
    blobs.push_back(std::move(b));
  }
  const std::string bytes = EncodePuffinFile(&blobs, {});
  const std::string path = t.NewPath("dv", "puffin");
  auto out = t.io().CreateOutput(path);
  EXPECT_TRUE(out.has_value());
  EXPECT_TRUE((*out)->Write(bytes).has_value());
  EXPECT_TRUE((*out)->Close().has_value());
  std::vector<DataFile> files;
  for (size_t i = 0; i < dvs.size(); ++i) {
    DataFile f;
    f.content = DataFileContent::kPositionDeletes;
    f.file_format = "puffin";
    f.file_path = path;
    f.file_size_in_bytes = static_cast<int64_t>(bytes.size());
    f.referenced_data_file = dvs[i].first->file_path;
    f.content_offset = blobs[i].metadata.offset;
    f.content_size_in_bytes = blobs[i].metadata.length;
    auto dv = DeletionVector::Decode(Bytes(blobs[i].bytes), "written");
    f.record_count = dv ? dv->cardinality() : -1;
    files.push_back(std::move(f));
  }
  return files;
}

TEST(DeletionVectorScanTest, VectorsApplyAndReplacePositionDeletes) {
  TestTable t("dv-scan", IdSchema(), {}, 3);
  DataFile a = t.WriteData(Rows(0, 10));
  DataFile b = t.WriteData(Rows(100, 5));
  t.Commit("append", {{a}, {b}});
  // v2-style position deletes on A (an upgraded table), then DVs on A and B;
  // A's DV carries the old position deletes merged in, as writers must.
  DataFile pos = t.WritePositionDeletes({{a.file_path, 1}});
  t.Commit("delete", {{pos}});
  EXPECT_EQ(ScannedIds(t),
            (std::vector<int64_t>{0, 2, 3, 4, 5, 6, 7, 8, 9, 100, 101, 102, 103, 104}));
  auto dvs = WriteDeletionVectors(t, {{&a, {1, 4, 9}}, {&b, {0}}});
  t.Commit("delete", {{dvs[0]}, {dvs[1]}});
  EXPECT_EQ(ScannedIds(t), (std::vector<int64_t>{0, 2, 3, 5, 6, 7, 8, 101, 102, 103, 104}));
  auto scan = TableScan::Make(t.io(), t.metadata(), {});
  auto tasks = scan->PlanFiles();
  ASSERT_TRUE(tasks.has_value()) << tasks.error().ToString();
  for (const FileScanTask& task : *tasks) {
    ASSERT_EQ(task.deletes.size(), 1u) << task.data_file.file_path;  // the DV, not pos
    EXPECT_TRUE(IsDeletionVector(task.deletes[0]->file));
    if (task.data_file.file_path == a.file_path) {
      auto filter = DeleteFilter::Load(t.io(), a.file_path, task.deletes, t.schema());
      ASSERT_TRUE(filter.has_value()) << filter.error().ToString();
      EXPECT_EQ((*filter)->position_count(), 3u);
    }
  }
  // A merged DV replaces A's: the commit removes the old one.
  auto merged = WriteDeletionVectors(t, {{&a, {1, 4, 9, 0}}});
  t.Commit("delete", {{merged[0]}}, {});
  auto two = scantest::ScanJson(t.io(), t.metadata(), {});
  ASSERT_FALSE(two.has_value());  // both DVs of A still live
  EXPECT_EQ(two.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(two.error().ToString().find("two deletion vectors"), std::string::npos);
  // Removing the first Puffin file's vectors (A's and B's) and adding B's
  // again in a new file leaves one vector per data file.
  auto b_again = WriteDeletionVectors(t, {{&b, {0, 4}}});
  t.Commit("delete", {{b_again[0]}}, {dvs[0].file_path});
  EXPECT_EQ(ScannedIds(t), (std::vector<int64_t>{2, 3, 5, 6, 7, 8, 101, 102, 103}));
}

TEST(DeletionVectorScanTest, SequenceNumbersAndDamagedVectors) {
  TestTable t("dv-seq", IdSchema(), {}, 3);
  DataFile a = t.WriteData(Rows(0, 4));
  t.Commit("append", {{a}});
  auto dv = WriteDeletionVectors(t, {{&a, {0, 3}}});
  t.Commit("delete", {{dv[0]}});
  // Data added after the DV is not deleted by it, even at a listed position.
  DataFile later = t.WriteData(Rows(10, 2));
  t.Commit("append", {{later}});
  EXPECT_EQ(ScannedIds(t), (std::vector<int64_t>{1, 2, 10, 11}));

  // A record count that is not the vector's cardinality.
  TestTable u("dv-count", IdSchema(), {}, 3);
  DataFile c = u.WriteData(Rows(0, 4));
  u.Commit("append", {{c}});
  auto wrong = WriteDeletionVectors(u, {{&c, {1}}});
  wrong[0].record_count = 2;
  u.Commit("delete", {{wrong[0]}});
  auto r = scantest::ScanJson(u.io(), u.metadata(), {});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(r.error().ToString().find(wrong[0].file_path), std::string::npos);

  // A blob range past the end of the Puffin file.
  TestTable v("dv-range", IdSchema(), {}, 3);
  DataFile d = v.WriteData(Rows(0, 4));
  v.Commit("append", {{d}});
  auto far = WriteDeletionVectors(v, {{&d, {1}}});
  far[0].content_offset = far[0].file_size_in_bytes - 2;
  v.Commit("delete", {{far[0]}});
  r = scantest::ScanJson(v.io(), v.metadata(), {});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(r.error().ToString().find("outside the file"), std::string::npos);
}

}  // namespace
}  // namespace floe::iceberg
