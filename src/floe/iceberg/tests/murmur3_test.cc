#include "floe/iceberg/murmur3.h"

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "floe/types/temporal.h"

namespace floe::iceberg {
namespace {

using types::Type;
using types::Value;

int32_t Hash(const types::TypePtr& type, const Value& v) {
  auto h = HashValue(*type, v);
  EXPECT_TRUE(h.has_value()) << h.error().ToString();
  return h.value_or(0);
}

// Every vector of the spec's "Appendix B: 32-bit Hash Requirements" tables.
TEST(Murmur3Test, SpecAppendixBBucketableTypes) {
  EXPECT_EQ(Hash(Type::Int(), Value::Int32(34)), 2017239379);
  EXPECT_EQ(Hash(Type::Long(), Value::Int64(34)), 2017239379);

  auto dec = Type::Decimal(4, 2).value();
  EXPECT_EQ(Hash(dec, Value::Decimal(types::ParseDecimal("14.20", 4, 2).value())), -500754589);

  EXPECT_EQ(Hash(Type::Date(), Value::Int32(types::ParseDate("2017-11-16").value())), -653330422);
  EXPECT_EQ(Hash(Type::Time(), Value::Int64(types::ParseTime("22:31:08").value())), -662762989);

  auto ts = [](const char* text) { return Value::Int64(types::ParseTimestamp(text).value()); };
  EXPECT_EQ(Hash(Type::Timestamp(), ts("2017-11-16T22:31:08")), -2047944441);
  EXPECT_EQ(Hash(Type::Timestamp(), ts("2017-11-16T22:31:08.000001")), -1207196810);
  EXPECT_EQ(Hash(Type::TimestampTz(), ts("2017-11-16T14:31:08-08:00")), -2047944441);
  EXPECT_EQ(Hash(Type::TimestampTz(), ts("2017-11-16T14:31:08.000001-08:00")), -1207196810);

  EXPECT_EQ(Hash(Type::String(), Value::Bytes("iceberg")), 1210000089);

  std::string uuid;
  ASSERT_TRUE(types::ParseUuid("f79c3e09-677c-4bbd-a479-3f349cb785e7", &uuid).has_value());
  EXPECT_EQ(uuid,
            std::string("\xF7\x9C\x3E\x09\x67\x7C\x4B\xBD\xA4\x79\x3F\x34\x9C\xB7\x85\xE7", 16));
  EXPECT_EQ(Hash(Type::Uuid(), Value::Bytes(uuid)), 1488055340);

  const std::string bytes("\x00\x01\x02\x03", 4);
  EXPECT_EQ(Hash(Type::Fixed(4).value(), Value::Bytes(bytes)), -188683207);
  EXPECT_EQ(Hash(Type::Binary(), Value::Bytes(bytes)), -188683207);

  // The schema-evolution example of the spec: "34" as a string hashes differently.
  EXPECT_EQ(Hash(Type::String(), Value::Bytes("34")), -427558391);
}

TEST(Murmur3Test, SpecAppendixBNonBucketableTypes) {
  EXPECT_EQ(Hash(Type::Boolean(), Value::Bool(true)), 1392991556);
  EXPECT_EQ(Hash(Type::Float(), Value::Float(1.0f)), -142385009);
  EXPECT_EQ(Hash(Type::Float(), Value::Float(0.0f)), 1669671676);
  EXPECT_EQ(Hash(Type::Float(), Value::Float(-0.0f)), 1669671676);
  EXPECT_EQ(Hash(Type::Double(), Value::Double(1.0)), -142385009);
  EXPECT_EQ(Hash(Type::Double(), Value::Double(0.0)), 1669671676);
  EXPECT_EQ(Hash(Type::Double(), Value::Double(-0.0)), 1669671676);
  // Every NaN bit pattern hashes as the canonical NaN.
  double nan1 = std::numeric_limits<double>::quiet_NaN();
  double nan2 = -std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Hash(Type::Double(), Value::Double(nan1)), Hash(Type::Double(), Value::Double(nan2)));
  EXPECT_EQ(Hash(Type::Float(), Value::Float(std::nanf(""))),
            Hash(Type::Double(), Value::Double(nan1)));

  // ... but bucketing them is refused.
  EXPECT_EQ(BucketHash(*Type::Boolean(), Value::Bool(true)).error().code(),
            ErrorCode::kNotSupported);
  EXPECT_EQ(BucketHash(*Type::Float(), Value::Float(1)).error().code(), ErrorCode::kNotSupported);
  EXPECT_EQ(BucketHash(*Type::Double(), Value::Double(1)).error().code(), ErrorCode::kNotSupported);
  EXPECT_EQ(BucketHash(*Type::Int(), Value::Int32(34)).value(), 2017239379);
}

TEST(Murmur3Test, RejectsMismatchedAndNullValues) {
  EXPECT_EQ(HashValue(*Type::Int(), Value::Null()).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(HashValue(*Type::Int(), Value::Int64(3)).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(HashValue(*Type::Uuid(), Value::Bytes("short")).error().code(),
            ErrorCode::kInvalidArgument);
}

TEST(Murmur3Test, TailLengthsAndEmptyInput) {
  // Known Murmur3_x86_32 values with seed 0 (the algorithm's reference vectors).
  EXPECT_EQ(Murmur3Hash32(""), 0);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3Hash32("a")), 0x3c2569b2u);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3Hash32("ab")), 0x9bbfd75fu);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3Hash32("abc")), 0xb3dd93fau);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3Hash32("abcd")), 0x43ed676au);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3Hash32("Hello, world!")), 0xc0363e43u);
}

TEST(Murmur3Test, MinimalBigEndianDecimal) {
  uint8_t out[16];
  ASSERT_EQ(DecimalToMinimalBigEndian(0, out), 1u);
  EXPECT_EQ(out[0], 0x00);
  ASSERT_EQ(DecimalToMinimalBigEndian(127, out), 1u);
  EXPECT_EQ(out[0], 0x7f);
  ASSERT_EQ(DecimalToMinimalBigEndian(128, out), 2u);
  EXPECT_EQ(out[0], 0x00);
  EXPECT_EQ(out[1], 0x80);
  ASSERT_EQ(DecimalToMinimalBigEndian(-1, out), 1u);
  EXPECT_EQ(out[0], 0xff);
  ASSERT_EQ(DecimalToMinimalBigEndian(-128, out), 1u);
  EXPECT_EQ(out[0], 0x80);
  ASSERT_EQ(DecimalToMinimalBigEndian(-129, out), 2u);
  EXPECT_EQ(out[0], 0xff);
  EXPECT_EQ(out[1], 0x7f);
  ASSERT_EQ(DecimalToMinimalBigEndian(1420, out), 2u);
  EXPECT_EQ(out[0], 0x05);
  EXPECT_EQ(out[1], 0x8c);
  types::int128_t min = static_cast<types::int128_t>(static_cast<unsigned __int128>(1) << 127);
  EXPECT_EQ(DecimalToMinimalBigEndian(min, out), 16u);
}

TEST(Murmur3Test, BucketOfHashDropsSignBit) {
  EXPECT_EQ(BucketOfHash(2017239379, 16), 2017239379 % 16);
  EXPECT_EQ(BucketOfHash(-1, 16), 0x7fffffff % 16);
  EXPECT_EQ(BucketOfHash(-500754589, 10), (-500754589 & 0x7fffffff) % 10);
}

}  // namespace
}  // namespace floe::iceberg
