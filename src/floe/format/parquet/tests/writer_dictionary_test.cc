#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <random>
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
size_t DictionaryEntries(const std::vector<int64_t>& values, size_t page_size_bytes = 1 << 20) {
  LeafColumn leaf;
  leaf.type = types::Type::Long().get();
  leaf.physical_type = Type::kInt64;
  ColumnWriterOptions options;
  options.codec = CompressionCodec::kUncompressed;
  options.page_row_limit = 100;
  options.page_size_bytes = page_size_bytes;
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

TEST(WriterDictionaryTest, ALaterPageGivesUpADictionaryThatDoesNotPay) {
  // The first page (50 values twice) pays for its dictionary; then every
  // value is new. Past a page's size (800 bytes: 100 longs) the dictionary
  // goes once its entries and indices outgrow the values PLAIN, about 450
  // entries in; with 1 MiB pages it keeps all 950.
  std::vector<int64_t> values;
  for (int64_t i = 0; i < 100; ++i) values.push_back(i % 50);
  for (int64_t i = 50; i < 950; ++i) values.push_back(i * 7919);
  size_t entries = DictionaryEntries(values, 800);
  EXPECT_GE(entries, 300u);
  EXPECT_LT(entries, 600u);
  EXPECT_GE(DictionaryEntries(values), 950u);
  EXPECT_LT(DictionaryEntries(values), 958u);
}

TEST(WriterDictionaryTest, ADictionaryThatPaysOutgrowsAPage) {
  // 300 codes drawn at random: each page repeats some, and the dictionary
  // (2,400 bytes, three pages' worth) pays for itself all along.
  std::mt19937_64 random(12);
  std::vector<int64_t> codes;
  for (int64_t i = 0; i < 3000; ++i) codes.push_back(static_cast<int64_t>(random() % 300) * 7919);
  size_t entries = DictionaryEntries(codes, 800);
  EXPECT_GE(entries, 300u);
  EXPECT_LT(entries, 308u);
}

TEST(WriterDictionaryTest, NumericIndicesSurviveGrowthAndStayInOrder) {
  // Slots hold only indices; keys are read back from the PLAIN values, also
  // while the table doubles.
  for (int width : {4, 8}) {
    NumericDictionary dict(width);
    bool inserted = false;
    const uint64_t mask = width == 8 ? ~uint64_t{0} : 0xffffffffu;
    std::vector<uint64_t> values;
    for (uint64_t i = 0; i < 100000; ++i) values.push_back((i * 0x9E3779B97F4A7C15ull) & mask);
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(dict.GetOrInsert(values[i], &inserted), i) << width;
      ASSERT_TRUE(inserted);
    }
    for (size_t i = values.size(); i-- > 0;) {
      ASSERT_EQ(dict.GetOrInsert(values[i], &inserted), i) << width;
      ASSERT_FALSE(inserted);
    }
    ASSERT_EQ(dict.size(), values.size());
    ASSERT_EQ(dict.plain().size(), values.size() * static_cast<size_t>(width));
    for (size_t i = 0; i < values.size(); i += 997) {
      uint64_t v = 0;
      std::memcpy(&v, dict.plain().data() + i * static_cast<size_t>(width),
                  static_cast<size_t>(width));
      EXPECT_EQ(v, values[i]);
    }
    // 4 bytes a slot, at most half full: 262,144 slots for 100,000 values.
    EXPECT_EQ(dict.table_bytes(), 262144u * 4);
    dict.Clear();
    EXPECT_EQ(dict.size(), 0u);
    EXPECT_EQ(dict.table_bytes(), 64u * 4);  // the grown table is freed
    EXPECT_EQ(dict.GetOrInsert(values[5], &inserted), 0u);
    EXPECT_TRUE(inserted);
  }
}

TEST(WriterDictionaryTest, NumericKeysAreBitPatterns) {
  // -0.0 and 0.0, and NaNs of different payloads, are different entries;
  // equal bit patterns are one entry.
  NumericDictionary doubles(8);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const uint64_t nan_bits = std::bit_cast<uint64_t>(nan);
  const std::vector<uint64_t> keys = {
      std::bit_cast<uint64_t>(0.0),   std::bit_cast<uint64_t>(-0.0), nan_bits, nan_bits | 1,
      nan_bits | (uint64_t{1} << 63), std::bit_cast<uint64_t>(1.5)};
  bool inserted = false;
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(doubles.GetOrInsert(keys[i], &inserted), i);
    EXPECT_TRUE(inserted);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(doubles.GetOrInsert(keys[i], &inserted), i);
    EXPECT_FALSE(inserted);
  }
  NumericDictionary floats(4);
  const uint32_t fnan = std::bit_cast<uint32_t>(std::numeric_limits<float>::quiet_NaN());
  const std::vector<uint64_t> fkeys = {std::bit_cast<uint32_t>(0.0f),
                                       std::bit_cast<uint32_t>(-0.0f), fnan, fnan | 2u};
  for (size_t i = 0; i < fkeys.size(); ++i) {
    EXPECT_EQ(floats.GetOrInsert(fkeys[i], &inserted), i);
    EXPECT_TRUE(inserted);
  }
  for (size_t i = 0; i < fkeys.size(); ++i) {
    EXPECT_EQ(floats.GetOrInsert(fkeys[i], &inserted), i);
    EXPECT_FALSE(inserted);
  }
  EXPECT_EQ(floats.plain().size(), fkeys.size() * 4);
}

TEST(WriterDictionaryTest, TablesStopDoublingPastTheSizeLimit) {
  // 1,024 bytes: 128 longs. The 129th value would double the 256-slot table
  // just before the column drops it; the table grows only when 7/8 full.
  NumericDictionary numbers(8);
  numbers.set_size_limit(1024);
  bool inserted = false;
  for (uint64_t i = 0; i < 224; ++i) numbers.GetOrInsert(i * 3 + 1, &inserted);
  EXPECT_EQ(numbers.table_bytes(), 256u * 4);
  numbers.GetOrInsert(1000000, &inserted);
  EXPECT_EQ(numbers.table_bytes(), 512u * 4);
  for (uint64_t i = 0; i < 224; ++i) EXPECT_EQ(numbers.GetOrInsert(i * 3 + 1, &inserted), i);

  BytesDictionary strings(true);
  strings.set_size_limit(64 * 8);  // 64 values of 4 bytes, each with its 4-byte length
  std::vector<std::string> values;
  for (int i = 0; i < 112; ++i) values.push_back(std::to_string(1000 + i));
  for (const std::string& v : values) Insert(strings, v, &inserted);
  EXPECT_EQ(strings.table_bytes(), 128u * 32);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(Insert(strings, values[i], &inserted), i);
  strings.ReleaseTable();
  EXPECT_EQ(strings.table_bytes(), 0u);
  EXPECT_EQ(strings.size(), values.size());  // the dictionary page stays
}

TEST(WriterDictionaryTest, ColumnCountsItsTableUntilItFallsBack) {
  LeafColumn leaf;
  leaf.type = types::Type::Long().get();
  leaf.physical_type = Type::kInt64;
  ColumnWriterOptions options;
  options.codec = CompressionCodec::kUncompressed;
  options.page_row_limit = 1000;
  ColumnWriter writer(leaf, options);
  for (int64_t i = 0; i < 999; ++i) {
    writer.AppendInt64(i % 400, 0, 0);  // repeats: the dictionary stays
    ASSERT_TRUE(writer.EndRow().has_value());
  }
  EXPECT_EQ(writer.DictionaryTableBytes(), 1024u * 4);
  for (int64_t i = 0; i < 2000; ++i) {  // all new: the dictionary stops paying
    writer.AppendInt64(1000000 + i * 7919, 0, 0);
    ASSERT_TRUE(writer.EndRow().has_value());
  }
  ASSERT_TRUE(writer.FinishChunk().has_value());
  writer.Reset();
  EXPECT_EQ(writer.DictionaryTableBytes(), 64u * 4);
}

}  // namespace
}  // namespace floe::format::parquet
