#include "floe/types/row_json_writer.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "floe/types/row_json.h"
#include "floe/types/temporal.h"

namespace floe::types {
namespace {

// JsonRowWriter writes what AppendRowJson writes; the formatters it uses
// store whole words past the end of their text (temporal.h), which these
// tests check against plain references.

Schema Flat() {
  return Schema({{1, "id", true, Type::Long(), ""},
                 {2, "b", false, Type::Boolean(), ""},
                 {3, "i", false, Type::Int(), ""},
                 {4, "f", false, Type::Float(), ""},
                 {5, "d", false, Type::Double(), ""},
                 {6, "dec", false, *Type::Decimal(12, 2), ""},
                 {7, "dec0", false, *Type::Decimal(18, 0), ""},
                 {8, "dec38", false, *Type::Decimal(38, 10), ""},
                 {9, "day", false, Type::Date(), ""},
                 {10, "t", false, Type::Time(), ""},
                 {11, "ts", false, Type::Timestamp(), ""},
                 {12, "tz", false, Type::TimestampTz(), ""},
                 {13, "s", false, Type::String(), ""},
                 {14, "u", false, Type::Uuid(), ""},
                 // A name longer than the 32 bytes copied as one block, and
                 // one that needs escaping.
                 {15, std::string(40, 'n') + "_long_name", false, Type::String(), ""},
                 {16, "quote\"d\\ \xC3\xA9", false, Type::Int(), ""}},
                0);
}

/// Random values of every kind, a tenth null, drawn to hit the formatters'
/// edges (powers of ten, int64 extremes, long and escaped strings).
class RandomRows {
 public:
  explicit RandomRows(uint64_t seed) : rng_(seed) {}

  std::vector<Value> Row(const Schema& schema) {
    std::vector<Value> row;
    for (const NestedField& f : schema.fields()) {
      if (!f.required && rng_() % 10 == 0) {
        row.push_back(Value::Null());
        continue;
      }
      switch (f.type->id()) {
        case TypeId::kBoolean:
          row.push_back(Value::Bool(rng_() % 2 == 0));
          break;
        case TypeId::kInt:
          row.push_back(Value::Int32(static_cast<int32_t>(Integer())));
          break;
        case TypeId::kLong:
          row.push_back(Value::Int64(Integer()));
          break;
        case TypeId::kFloat:
          row.push_back(Value::Float(static_cast<float>(Floating())));
          break;
        case TypeId::kDouble:
          row.push_back(Value::Double(Floating()));
          break;
        case TypeId::kDecimal: {
          int128_t v = Integer();
          if (f.type->precision() > 18 && rng_() % 2 == 0) v *= static_cast<int128_t>(1) << 60;
          row.push_back(Value::Decimal(v));
          break;
        }
        case TypeId::kDate:
          row.push_back(Value::Int32(static_cast<int32_t>(Integer() % 4'000'000)));
          break;
        case TypeId::kTime:
          row.push_back(Value::Int64(static_cast<int64_t>(rng_() % 86'400'000'000ULL)));
          break;
        case TypeId::kTimestamp:
        case TypeId::kTimestampTz:
          row.push_back(Value::Int64(Integer()));
          break;
        case TypeId::kUuid:
          row.push_back(Value::Bytes(Keep(Bytes(16))));
          break;
        default:
          row.push_back(Value::Bytes(Keep(Bytes(rng_() % 50))));
          break;
      }
    }
    return row;
  }

 private:
  int64_t Integer() {
    switch (rng_() % 4) {
      case 0:
        return static_cast<int64_t>(rng_());
      case 1: {
        int64_t power = 1;
        for (int k = static_cast<int>(rng_() % 19); k > 0; --k) power *= 10;
        return (rng_() % 2 ? 1 : -1) * (power - static_cast<int64_t>(rng_() % 2));
      }
      case 2:
        return rng_() % 2 ? std::numeric_limits<int64_t>::max()
                          : std::numeric_limits<int64_t>::min();
      default:
        return static_cast<int64_t>(rng_() % 2000) - 1000;
    }
  }
  double Floating() {
    const double special[] = {0.1, -0.0, 1e300, 5e-324, NAN, INFINITY, -INFINITY, 123456.789};
    return rng_() % 3 == 0 ? special[rng_() % 8]
                           : static_cast<double>(static_cast<int64_t>(rng_())) / 1e6;
  }
  std::string Bytes(size_t n) {
    const char alphabet[] = "abc \"\\\n\x01\xC3\xA9\xE6\x9D\xB1\xFF";
    std::string s;
    for (size_t k = 0; k < n; ++k) s.push_back(alphabet[rng_() % (sizeof(alphabet) - 1)]);
    return s;
  }
  std::string_view Keep(std::string s) { return kept_.emplace_back(std::move(s)); }

  std::mt19937_64 rng_;
  std::deque<std::string> kept_;
};

TEST(JsonRowWriterTest, WritesWhatAppendRowJsonWrites) {
  const Schema schema = Flat();
  JsonRowWriter writer(schema);
  RandomRows rows(11);
  std::string out = "prefix";
  std::string expected = "prefix";
  for (int r = 0; r < 20'000; ++r) {
    std::vector<Value> row = rows.Row(schema);
    writer.Append(Row(row), &out);
    AppendRowJson(schema, Row(row), &expected);
    out.push_back('\n');
    expected.push_back('\n');
    if (r % 1000 == 999) {
      ASSERT_EQ(out, expected);
      out.clear();
      expected.clear();
    }
  }
  EXPECT_EQ(out, expected);
}

TEST(JsonRowWriterTest, EmptyAndNestedSchemas) {
  const Schema empty(std::vector<NestedField>{}, 0);
  std::string out;
  JsonRowWriter(empty).Append(Row(), &out);
  EXPECT_EQ(out, "{}");
  const Schema nested(
      {{1, "a", true, Type::Int(), ""}, {2, "l", false, Type::List(3, true, Type::Long()), ""}}, 0);
  const Value elements[] = {Value::Int64(-1), Value::Int64(100000000)};
  const Value row[] = {Value::Int32(7), Value::List(elements, 2)};
  out.clear();
  JsonRowWriter(nested).Append(Row(row), &out);
  EXPECT_EQ(out, R"({"a":7,"l":[-1,100000000]})");
}

/// What `write(out)` returns as text, checking that it stored nothing past
/// kTextBound bytes.
template <typename Write>
std::string Formatted(Write write) {
  std::vector<char> out(kTextBound + 16, '#');
  char* end = write(out.data());
  for (size_t k = kTextBound; k < out.size(); ++k) {
    if (out[k] != '#') {
      ADD_FAILURE() << "stored past kTextBound";
      break;
    }
  }
  return std::string(out.data(), end);
}

// WriteDecimal's text against the digits of the unscaled value.
std::string ReferenceDecimal(int128_t v, int scale) {
  const bool negative = v < 0;
  unsigned __int128 m =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  } while (m != 0);
  if (digits.size() <= static_cast<size_t>(scale)) {
    digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
  }
  if (scale > 0) digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  return (negative ? "-" : "") + digits;
}

TEST(JsonRowWriterTest, DecimalsAtEveryScale) {
  std::mt19937_64 rng(5);
  std::vector<int128_t> values = {0, 1, -1, 9, 10, 99, 100, 12345678, 99999999, 100000000};
  const auto u64_max = static_cast<int128_t>(std::numeric_limits<uint64_t>::max());
  for (int128_t edge : {u64_max - 1, u64_max, u64_max + 1, -u64_max, -u64_max - 1}) {
    values.push_back(edge);
  }
  for (int i = 0; i < 2000; ++i) values.push_back(static_cast<int64_t>(rng()) >> (rng() % 64));
  for (int scale = 0; scale <= 12; ++scale) {
    for (int128_t v : values) {
      for (int128_t x : {v, -v}) {
        EXPECT_EQ(Formatted([&](char* out) { return WriteDecimal(x, scale, out); }),
                  ReferenceDecimal(x, scale))
            << "scale " << scale;
      }
    }
  }
}

TEST(JsonRowWriterTest, TimesOfEverySecond) {
  char expected[32];
  for (int64_t second = 0; second < 86'400; second += 7) {
    const int64_t micros = second * 1'000'000 + (second * 7919) % 1'000'000;
    std::snprintf(expected, sizeof(expected), "%02d:%02d:%02d.%06d",
                  static_cast<int>(second / 3600), static_cast<int>(second / 60 % 60),
                  static_cast<int>(second % 60), static_cast<int>(micros % 1'000'000));
    EXPECT_EQ(Formatted([&](char* out) { return WriteTime(micros, out); }), expected);
    EXPECT_EQ(
        Formatted([&](char* out) { return WriteTimestamp(micros - 86'400'000'000, true, out); }),
        std::string("1969-12-31T") + expected + "+00:00");
  }
}

TEST(JsonRowWriterTest, DatesAlternatingAndOnThreads) {
  // WriteDate keeps the last date of each thread: alternating dates of
  // different lengths, and two threads writing different dates, each get
  // their own text.
  auto date = [](int32_t days) {
    return Formatted([&](char* out) { return WriteDate(days, out); });
  };
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(date(19782), "2024-02-29");
    EXPECT_EQ(date(2932897), "+10000-01-01");
    EXPECT_EQ(date(0), "1970-01-01");
    EXPECT_EQ(date(std::numeric_limits<int32_t>::min()), "-5877641-06-23");
    EXPECT_EQ(date(-719529), "-0001-12-31");
    EXPECT_EQ(date(-719529), "-0001-12-31");
  }
  auto run = [&](int32_t days, const char* text, bool* ok) {
    *ok = true;
    for (int k = 0; k < 100'000; ++k) *ok = *ok && date(days) == text;
  };
  bool ok1 = false;
  bool ok2 = false;
  std::thread t1(run, 19782, "2024-02-29", &ok1);
  std::thread t2(run, 19783, "2024-03-01", &ok2);
  t1.join();
  t2.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

}  // namespace
}  // namespace floe::types
