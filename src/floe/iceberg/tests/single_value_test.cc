#include "floe/iceberg/single_value.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "floe/types/temporal.h"

namespace floe::iceberg {
namespace {

using types::Type;
using types::TypePtr;
using types::Value;

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

void RoundTrip(const TypePtr& type, const Value& v, const std::string& expected) {
  auto bytes = SerializeSingleValue(*type, v);
  ASSERT_TRUE(bytes.has_value()) << bytes.error().ToString();
  EXPECT_EQ(*bytes, expected) << type->ToString();
  auto back = DeserializeSingleValue(*type, *bytes);
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  EXPECT_EQ(CompareValues(*type, *back, v), 0) << type->ToString();
}

// The spec's Appendix D table, type by type.
TEST(SingleValueTest, AppendixDBinaryForms) {
  RoundTrip(Type::Boolean(), Value::Bool(true), Bytes({1}));
  RoundTrip(Type::Boolean(), Value::Bool(false), Bytes({0}));
  RoundTrip(Type::Int(), Value::Int32(34), Bytes({34, 0, 0, 0}));
  RoundTrip(Type::Int(), Value::Int32(-1), Bytes({0xff, 0xff, 0xff, 0xff}));
  RoundTrip(Type::Long(), Value::Int64(34), Bytes({34, 0, 0, 0, 0, 0, 0, 0}));
  RoundTrip(Type::Float(), Value::Float(1.0f), Bytes({0, 0, 0x80, 0x3f}));
  RoundTrip(Type::Double(), Value::Double(1.0), Bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  RoundTrip(Type::Date(), Value::Int32(types::ParseDate("2017-11-16").value()),
            Bytes({0x4e, 0x44, 0, 0}));  // 17486 days
  RoundTrip(Type::Time(), Value::Int64(1), Bytes({1, 0, 0, 0, 0, 0, 0, 0}));
  RoundTrip(Type::Timestamp(), Value::Int64(-1),
            Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  RoundTrip(Type::TimestampTz(), Value::Int64(256), Bytes({0, 1, 0, 0, 0, 0, 0, 0}));
  RoundTrip(Type::String(), Value::Bytes("iceberg"), "iceberg");
  RoundTrip(Type::Binary(), Value::Bytes(Bytes({0, 1, 2, 0xff})), Bytes({0, 1, 2, 0xff}));
  RoundTrip(Type::Fixed(3).value(), Value::Bytes(Bytes({9, 8, 7})), Bytes({9, 8, 7}));
  std::string uuid;
  ASSERT_TRUE(types::ParseUuid("f79c3e09-677c-4bbd-a479-3f349cb785e7", &uuid).has_value());
  RoundTrip(Type::Uuid(), Value::Bytes(uuid),
            Bytes({0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD, 0xA4, 0x79, 0x3F, 0x34, 0x9C,
                   0xB7, 0x85, 0xE7}));
  auto dec = Type::Decimal(9, 2).value();
  RoundTrip(dec, Value::Decimal(1420), Bytes({0x05, 0x8c}));  // 14.20
  RoundTrip(dec, Value::Decimal(0), Bytes({0}));
  RoundTrip(dec, Value::Decimal(-1), Bytes({0xff}));
  RoundTrip(dec, Value::Decimal(-129), Bytes({0xff, 0x7f}));
  RoundTrip(dec, Value::Decimal(128), Bytes({0x00, 0x80}));
  auto big = Type::Decimal(38, 0).value();
  types::int128_t max38 = 1;
  for (int i = 0; i < 38; ++i) max38 *= 10;
  max38 -= 1;
  auto bytes = SerializeSingleValue(*big, Value::Decimal(-max38)).value();
  EXPECT_EQ(bytes.size(), 16u);
  EXPECT_EQ(DeserializeSingleValue(*big, bytes)->decimal, -max38);
}

TEST(SingleValueTest, NonZeroByteIsTrue) {
  EXPECT_TRUE(DeserializeSingleValue(*Type::Boolean(), Bytes({7}))->b);
}

TEST(SingleValueTest, CorruptLengthsAreCorruption) {
  EXPECT_EQ(DeserializeSingleValue(*Type::Int(), "abc").error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(DeserializeSingleValue(*Type::Long(), "abcd").error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(DeserializeSingleValue(*Type::Uuid(), "short").error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(DeserializeSingleValue(*Type::Fixed(4).value(), "abc").error().code(),
            ErrorCode::kCorruption);
  EXPECT_EQ(DeserializeSingleValue(*Type::Decimal(9, 2).value(), "").error().code(),
            ErrorCode::kCorruption);
  EXPECT_EQ(
      DeserializeSingleValue(*Type::Decimal(9, 2).value(), std::string(17, 'x')).error().code(),
      ErrorCode::kCorruption);
  EXPECT_EQ(DeserializeSingleValue(*Type::Boolean(), "").error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(SerializeSingleValue(*Type::Int(), Value::Null()).error().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(SerializeSingleValue(*Type::Int(), Value::Int64(1)).error().code(),
            ErrorCode::kInvalidArgument);
}

TEST(SingleValueTest, BoundsWrittenBeforeTypePromotion) {
  // int -> long, float -> double, date -> timestamp: 4-byte bounds.
  EXPECT_EQ(DeserializeBound(*Type::Long(), Bytes({0xfe, 0xff, 0xff, 0xff}))->i64, -2);
  EXPECT_EQ(DeserializeBound(*Type::Double(), Bytes({0, 0, 0x80, 0x3f}))->f64, 1.0);
  EXPECT_EQ(DeserializeBound(*Type::Timestamp(), Bytes({1, 0, 0, 0}))->i64, 86'400'000'000LL);
  EXPECT_EQ(DeserializeBound(*Type::Long(), Bytes({1, 0, 0, 0, 0, 0, 0, 0}))->i64, 1);
  auto lit = DeserializeBoundLiteral(Type::String(), "abc");
  ASSERT_TRUE(lit.has_value());
  EXPECT_EQ(lit->value().as_bytes(), "abc");
}

}  // namespace
}  // namespace floe::iceberg
