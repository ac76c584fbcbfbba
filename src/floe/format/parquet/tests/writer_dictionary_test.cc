#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "floe/format/parquet/column_writer.h"
#include "floe/format/parquet/encoder.h"

namespace floe::format::parquet {
namespace {

uint32_t Insert(BytesDictionary& dict, const std::string& v, bool* inserted) {
  return dict.GetOrInsert(reinterpret_cast<const uint8_t*>(v.data()),
                          static_cast<uint32_t>(v.size()), inserted);
}

TEST(WriterDictionaryTest, BytesKeptInSlotsStayDistinct) {
  // Values up to kInlineBytes are compared in the slot, longer ones in the
  // dictionary's bytes: zero padding, a shared 12-byte head and the empty
  // value must not make two values one.
  std::vector<std::string> values = {
      "",           "a", std::string("a\0", 2), "abcdefghijkl", "abcdefghijklm", "abcdefghijklX",
      "abcdefghijk"};
  BytesDictionary dict(true);
  bool inserted = false;
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(Insert(dict, values[i], &inserted), i) << i;
    EXPECT_TRUE(inserted) << i;
  }
  for (size_t i = values.size(); i-- > 0;) {
    EXPECT_EQ(Insert(dict, values[i], &inserted), i) << i;
    EXPECT_FALSE(inserted) << i;
  }
  std::string plain;
  for (const std::string& v : values) {
    uint32_t n = static_cast<uint32_t>(v.size());
    plain.append(reinterpret_cast<const char*>(&n), 4);
    plain += v;
  }
  EXPECT_EQ(dict.plain().view(), plain);
}

// Values of 13 to 20 bytes are told apart by their last 8 bytes, longer ones
// by all their bytes past the slot's 12: a difference in any one byte makes
// another entry, at every length around those bounds.
TEST(WriterDictionaryTest, LongerBytesDifferingInAnyByteStayDistinct) {
  for (uint32_t n = 12; n <= 30; ++n) {
    BytesDictionary dict(true);
    bool inserted = false;
    const std::string base(n, 'x');
    ASSERT_EQ(Insert(dict, base, &inserted), 0u);
    for (uint32_t at = 0; at < n; ++at) {
      std::string v = base;
      v[at] = 'y';
      EXPECT_EQ(Insert(dict, v, &inserted), at + 1) << n << " " << at;
      EXPECT_TRUE(inserted);
      EXPECT_EQ(Insert(dict, v, &inserted), at + 1) << n << " " << at;
      EXPECT_FALSE(inserted);
    }
    EXPECT_EQ(Insert(dict, base, &inserted), 0u);
    EXPECT_FALSE(inserted);
  }
}

TEST(WriterDictionaryTest, PaddedHashIsTheHash) {
  std::string bytes;
  for (int i = 0; i < 64; ++i) bytes.push_back(static_cast<char>(i * 37 + 11));
  for (size_t n = 0; n <= 40; ++n) {
    std::vector<uint8_t> padded(n + 8, 0);
    std::memcpy(padded.data(), bytes.data(), n);
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    EXPECT_EQ(HashPaddedBytes(padded.data(), n), HashBytes(p, n)) << n;
  }
}

/// Writes `values` into one INT64 chunk (uncompressed, 100-row pages) and
/// returns the number of entries of its dictionary page; checks min and max.
size_t DictionaryEntries(const std::vector<int64_t>& values) {
  LeafColumn leaf;
  leaf.type = types::Type::Long().get();
  leaf.physical_type = Type::kInt64;
  ColumnWriterOptions options;
  options.codec = CompressionCodec::kUncompressed;
  options.page_row_limit = 100;
  ColumnWriter writer(leaf, options);
  for (int64_t v : values) {
    writer.AppendInt64(v, 0, 0);
    EXPECT_TRUE(writer.EndRow().has_value());
  }
  EXPECT_TRUE(writer.FinishChunk().has_value());
  EXPECT_EQ(writer.chunk_num_values(), static_cast<int64_t>(values.size()));
  Statistics stats = writer.statistics().ToThrift();
  int64_t lo = 0, hi = 0;
  std::memcpy(&lo, stats.min_value->data(), 8);
  std::memcpy(&hi, stats.max_value->data(), 8);
  EXPECT_EQ(lo, *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(hi, *std::max_element(values.begin(), values.end()));
  // The page body is the entries PLAIN, after a header of well under 64 bytes.
  size_t page = writer.chunk_bytes().dictionary_page.size();
  return page / 8;
}

TEST(WriterDictionaryTest, DistinctValuesFallBackToPlainAfterTheFirstPage) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < 1000; ++i) ids.push_back(i * 7919 - 3000);
  size_t entries = DictionaryEntries(ids);
  EXPECT_GE(entries, 100u);  // the first page's values only
  EXPECT_LT(entries, 110u);
}

TEST(WriterDictionaryTest, RepeatsInTheFirstPageKeepTheDictionary) {
  // The first page: 90 distinct values and 10 repeats, which does not pay for
  // the dictionary yet but predicts ~500 distinct values; then 500 values cycle.
  std::vector<int64_t> codes;
  for (int64_t i = 0; i < 90; ++i) codes.push_back(i);
  for (int64_t i = 0; i < 10; ++i) codes.push_back(i);
  for (int64_t i = 0; i < 900; ++i) codes.push_back(i % 500);
  size_t entries = DictionaryEntries(codes);
  EXPECT_GE(entries, 500u);
  EXPECT_LT(entries, 510u);
}

}  // namespace
}  // namespace floe::format::parquet
