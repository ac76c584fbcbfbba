#include "floe/iceberg/transform.h"

#include <string>

#include <gtest/gtest.h>

#include "floe/types/temporal.h"

namespace floe::iceberg {
namespace {

using types::Type;
using types::TypeId;
using types::Value;

int64_t Ts(const char* text) { return types::ParseTimestamp(text).value(); }
int32_t Date(const char* text) { return types::ParseDate(text).value(); }

Value Apply(const Transform& t, const types::TypePtr& type, const Value& v) {
  auto r = t.Apply(*type, v);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.value_or(Value::Null());
}

TEST(TransformTest, ParseAndPrint) {
  for (const char* s :
       {"identity", "bucket[16]", "truncate[10]", "year", "month", "day", "hour", "void"}) {
    auto t = Transform::Parse(s);
    ASSERT_TRUE(t.has_value()) << s;
    EXPECT_EQ(t->ToString(), s);
  }
  EXPECT_EQ(Transform::Parse("Bucket[4]")->param(), 4);
  EXPECT_EQ(Transform::Parse("DAY")->kind(), TransformKind::kDay);
  EXPECT_FALSE(Transform::Parse("bucket[0]").has_value());
  EXPECT_FALSE(Transform::Parse("bucket[-3]").has_value());
  EXPECT_FALSE(Transform::Parse("bucket[x]").has_value());
  EXPECT_FALSE(Transform::Parse("truncate[]").has_value());
  EXPECT_FALSE(Transform::Parse("").has_value());
  auto unknown = Transform::Parse("zorder");
  ASSERT_TRUE(unknown.has_value());
  EXPECT_TRUE(unknown->is_unknown());
  EXPECT_EQ(unknown->ToString(), "zorder");
  EXPECT_FALSE(unknown->CanTransform(*Type::Int()));
  EXPECT_EQ(unknown->Apply(*Type::Int(), Value::Int32(1)).error().code(), ErrorCode::kNotSupported);
}

TEST(TransformTest, CanTransformFollowsTheSpecTable) {
  auto bucket = Transform::Bucket(4).value();
  auto trunc = Transform::Truncate(4).value();
  EXPECT_TRUE(bucket.CanTransform(*Type::Uuid()));
  EXPECT_TRUE(bucket.CanTransform(*Type::Time()));
  EXPECT_FALSE(bucket.CanTransform(*Type::Boolean()));
  EXPECT_FALSE(bucket.CanTransform(*Type::Float()));
  EXPECT_FALSE(bucket.CanTransform(*Type::Double()));
  EXPECT_TRUE(trunc.CanTransform(*Type::Binary()));
  EXPECT_FALSE(trunc.CanTransform(*Type::Fixed(4).value()));
  EXPECT_FALSE(trunc.CanTransform(*Type::Date()));
  EXPECT_TRUE(Transform::Day().CanTransform(*Type::Date()));
  EXPECT_FALSE(Transform::Hour().CanTransform(*Type::Date()));
  EXPECT_FALSE(Transform::Year().CanTransform(*Type::Long()));
  EXPECT_TRUE(Transform::Identity().CanTransform(*Type::Double()));
  EXPECT_FALSE(Transform::Identity().CanTransform(*Type::Struct({})));
  EXPECT_TRUE(Transform::Void().CanTransform(*Type::Struct({})));
}

TEST(TransformTest, ResultTypes) {
  auto dec = Type::Decimal(9, 2).value();
  EXPECT_EQ(Transform::Identity().ResultType(Type::String()).value()->id(), TypeId::kString);
  EXPECT_EQ(Transform::Bucket(8)->ResultType(Type::String()).value()->id(), TypeId::kInt);
  EXPECT_TRUE(Transform::Truncate(8)->ResultType(dec).value()->Equals(*dec));
  EXPECT_EQ(Transform::Year().ResultType(Type::Timestamp()).value()->id(), TypeId::kInt);
  EXPECT_EQ(Transform::Month().ResultType(Type::Date()).value()->id(), TypeId::kInt);
  EXPECT_EQ(Transform::Day().ResultType(Type::TimestampTz()).value()->id(), TypeId::kDate);
  EXPECT_EQ(Transform::Hour().ResultType(Type::Timestamp()).value()->id(), TypeId::kInt);
  EXPECT_EQ(Transform::Void().ResultType(Type::Long()).value()->id(), TypeId::kLong);
  EXPECT_FALSE(Transform::Hour().ResultType(Type::Date()).has_value());
}

TEST(TransformTest, SpecTruncateExamples) {
  auto w10 = Transform::Truncate(10).value();
  EXPECT_EQ(Apply(w10, Type::Int(), Value::Int32(1)).i32, 0);
  EXPECT_EQ(Apply(w10, Type::Int(), Value::Int32(-1)).i32, -10);
  EXPECT_EQ(Apply(w10, Type::Long(), Value::Int64(1)).i64, 0);
  EXPECT_EQ(Apply(w10, Type::Long(), Value::Int64(-1)).i64, -10);
  EXPECT_EQ(Apply(w10, Type::Int(), Value::Int32(-10)).i32, -10);
  EXPECT_EQ(Apply(w10, Type::Int(), Value::Int32(-11)).i32, -20);
  EXPECT_EQ(Apply(w10, Type::Long(), Value::Int64(12345)).i64, 12340);

  // W=50, scale 2: 10.65 -> 10.50; negative decimals floor too.
  auto dec = Type::Decimal(9, 2).value();
  auto w50 = Transform::Truncate(50).value();
  EXPECT_EQ(Apply(w50, dec, Value::Decimal(1065)).decimal, 1050);
  EXPECT_EQ(Apply(w50, dec, Value::Decimal(-1065)).decimal, -1100);
  EXPECT_EQ(Apply(w50, dec, Value::Decimal(-1)).decimal, -50);
  EXPECT_EQ(Apply(w50, dec, Value::Decimal(0)).decimal, 0);

  auto l3 = Transform::Truncate(3).value();
  EXPECT_EQ(Apply(l3, Type::String(), Value::Bytes("iceberg")).as_bytes(), "ice");
  EXPECT_EQ(Apply(l3, Type::String(), Value::Bytes("ic")).as_bytes(), "ic");
  EXPECT_EQ(
      Apply(l3, Type::Binary(), Value::Bytes(std::string("\x01\x02\x03\x04\x05", 5))).as_bytes(),
      std::string("\x01\x02\x03", 3));
}

TEST(TransformTest, TruncateStringCountsCodePointsNotBytes) {
  // "ä" is 2 bytes, "€" 3 bytes, "𝄞" 4 bytes.
  std::string s =
      "\xC3\xA4\xE2\x82\xAC\xF0\x9D\x84\x9E"
      "x";
  EXPECT_EQ(Apply(Transform::Truncate(1).value(), Type::String(), Value::Bytes(s)).as_bytes(),
            "\xC3\xA4");
  EXPECT_EQ(Apply(Transform::Truncate(2).value(), Type::String(), Value::Bytes(s)).as_bytes(),
            "\xC3\xA4\xE2\x82\xAC");
  EXPECT_EQ(Apply(Transform::Truncate(3).value(), Type::String(), Value::Bytes(s)).as_bytes(),
            "\xC3\xA4\xE2\x82\xAC\xF0\x9D\x84\x9E");
  EXPECT_EQ(Apply(Transform::Truncate(10).value(), Type::String(), Value::Bytes(s)).as_bytes(), s);
  // Binary truncates bytes, even in the middle of a multi-byte character.
  EXPECT_EQ(Apply(Transform::Truncate(1).value(), Type::Binary(), Value::Bytes(s)).as_bytes(),
            "\xC3");
}

TEST(TransformTest, BucketUsesTheSpecHash) {
  auto b = Transform::Bucket(100).value();
  // hash(34) = 2017239379 -> 2017239379 % 100 = 79.
  EXPECT_EQ(Apply(b, Type::Int(), Value::Int32(34)).i32, 79);
  EXPECT_EQ(Apply(b, Type::Long(), Value::Int64(34)).i32, 79);
  // hash("iceberg") = 1210000089 -> 89.
  EXPECT_EQ(Apply(b, Type::String(), Value::Bytes("iceberg")).i32, 89);
  // hash(14.20) = -500754589: the sign bit is dropped first.
  auto dec = Type::Decimal(4, 2).value();
  EXPECT_EQ(Apply(b, dec, Value::Decimal(1420)).i32, (-500754589 & 0x7fffffff) % 100);
  EXPECT_EQ(b.Apply(*Type::Double(), Value::Double(1)).error().code(), ErrorCode::kInvalidArgument);
}

TEST(TransformTest, TimeTransformsOnTimestampsAndDates) {
  int64_t ts = Ts("2024-02-29T13:45:00");
  EXPECT_EQ(Apply(Transform::Year(), Type::Timestamp(), Value::Int64(ts)).i32, 54);
  EXPECT_EQ(Apply(Transform::Month(), Type::Timestamp(), Value::Int64(ts)).i32, 54 * 12 + 1);
  EXPECT_EQ(Apply(Transform::Day(), Type::Timestamp(), Value::Int64(ts)).i32, Date("2024-02-29"));
  EXPECT_EQ(Apply(Transform::Hour(), Type::TimestampTz(), Value::Int64(ts)).i32,
            Date("2024-02-29") * 24 + 13);
  int32_t d = Date("2017-11-16");
  EXPECT_EQ(Apply(Transform::Year(), Type::Date(), Value::Int32(d)).i32, 47);
  EXPECT_EQ(Apply(Transform::Month(), Type::Date(), Value::Int32(d)).i32, 47 * 12 + 10);
  EXPECT_EQ(Apply(Transform::Day(), Type::Date(), Value::Int32(d)).i32, d);
}

TEST(TransformTest, TimeTransformsFloorNegativeValues) {
  // One microsecond before the epoch belongs to 1969-12-31 23:00, not to 1970.
  Value before = Value::Int64(-1);
  EXPECT_EQ(Apply(Transform::Hour(), Type::Timestamp(), before).i32, -1);
  EXPECT_EQ(Apply(Transform::Day(), Type::Timestamp(), before).i32, -1);
  EXPECT_EQ(Apply(Transform::Month(), Type::Timestamp(), before).i32, -1);
  EXPECT_EQ(Apply(Transform::Year(), Type::Timestamp(), before).i32, -1);
  // Exactly one day before the epoch.
  Value day = Value::Int64(-86'400'000'000LL);
  EXPECT_EQ(Apply(Transform::Day(), Type::Timestamp(), day).i32, -1);
  EXPECT_EQ(Apply(Transform::Hour(), Type::Timestamp(), day).i32, -24);
  Value day_minus = Value::Int64(-86'400'000'001LL);
  EXPECT_EQ(Apply(Transform::Day(), Type::Timestamp(), day_minus).i32, -2);
  EXPECT_EQ(Apply(Transform::Hour(), Type::Timestamp(), day_minus).i32, -25);
  // Dates.
  EXPECT_EQ(Apply(Transform::Year(), Type::Date(), Value::Int32(-1)).i32, -1);
  EXPECT_EQ(Apply(Transform::Month(), Type::Date(), Value::Int32(-1)).i32, -1);
  EXPECT_EQ(Apply(Transform::Month(), Type::Date(), Value::Int32(-31)).i32, -1);
  EXPECT_EQ(Apply(Transform::Month(), Type::Date(), Value::Int32(-32)).i32, -2);
  EXPECT_EQ(Apply(Transform::Year(), Type::Date(), Value::Int32(Date("1900-06-01"))).i32, -70);
}

TEST(TransformTest, NullAndVoid) {
  EXPECT_TRUE(Apply(Transform::Bucket(4).value(), Type::Int(), Value::Null()).is_null());
  EXPECT_TRUE(Apply(Transform::Day(), Type::Timestamp(), Value::Null()).is_null());
  EXPECT_TRUE(Apply(Transform::Void(), Type::Int(), Value::Int32(5)).is_null());
  EXPECT_EQ(Transform::Day().Apply(*Type::Timestamp(), Value::Int32(3)).error().code(),
            ErrorCode::kInvalidArgument);
}

TEST(TransformTest, HumanStringsMatchJavaPartitionPaths) {
  auto ts = types::Type::Timestamp();
  int32_t day = Date("2024-02-29");
  EXPECT_EQ(Transform::Day().ToHumanString(*ts, Value::Int32(day)), "2024-02-29");
  EXPECT_EQ(Transform::Month().ToHumanString(*ts, Value::Int32(54 * 12 + 1)), "2024-02");
  EXPECT_EQ(Transform::Year().ToHumanString(*ts, Value::Int32(54)), "2024");
  EXPECT_EQ(Transform::Hour().ToHumanString(*ts, Value::Int32(day * 24 + 13)), "2024-02-29-13");
  EXPECT_EQ(Transform::Month().ToHumanString(*ts, Value::Int32(-1)), "1969-12");
  EXPECT_EQ(Transform::Hour().ToHumanString(*ts, Value::Int32(-1)), "1969-12-31-23");
  EXPECT_EQ(Transform::Year().ToHumanString(*ts, Value::Int32(-1)), "1969");
  EXPECT_EQ(Transform::Day().ToHumanString(*ts, Value::Null()), "null");

  auto id = Transform::Identity();
  EXPECT_EQ(id.ToHumanString(*ts, Value::Int64(Ts("2024-02-29T13:45:00"))), "2024-02-29T13:45");
  EXPECT_EQ(id.ToHumanString(*ts, Value::Int64(Ts("2024-02-29T13:45:07"))), "2024-02-29T13:45:07");
  EXPECT_EQ(id.ToHumanString(*ts, Value::Int64(Ts("2024-02-29T13:45:07.5"))),
            "2024-02-29T13:45:07.500");
  EXPECT_EQ(id.ToHumanString(*ts, Value::Int64(Ts("2024-02-29T13:45:07.000001"))),
            "2024-02-29T13:45:07.000001");
  EXPECT_EQ(id.ToHumanString(*Type::TimestampTz(), Value::Int64(Ts("2024-02-29T13:45:00"))),
            "2024-02-29T13:45Z");
  EXPECT_EQ(id.ToHumanString(*Type::Date(), Value::Int32(day)), "2024-02-29");
  EXPECT_EQ(id.ToHumanString(*Type::Decimal(9, 2).value(), Value::Decimal(-1230)), "-12.30");
  EXPECT_EQ(id.ToHumanString(*Type::String(), Value::Bytes("eu")), "eu");
  EXPECT_EQ(id.ToHumanString(*Type::Binary(), Value::Bytes("\x01\x02\x03")), "AQID");
  EXPECT_EQ(id.ToHumanString(*Type::Boolean(), Value::Bool(true)), "true");
  EXPECT_EQ(id.ToHumanString(*Type::Double(), Value::Double(1)), "1.0");
  EXPECT_EQ(Transform::Bucket(16)->ToHumanString(*Type::String(), Value::Int32(3)), "3");
}

TEST(TransformTest, OrderFacts) {
  EXPECT_TRUE(Transform::Identity().PreservesOrder());
  EXPECT_TRUE(Transform::Day().PreservesOrder());
  EXPECT_TRUE(Transform::Truncate(3)->PreservesOrder());
  EXPECT_FALSE(Transform::Bucket(3)->PreservesOrder());
  EXPECT_FALSE(Transform::Void().PreservesOrder());

  EXPECT_TRUE(Transform::Hour().SatisfiesOrderOf(Transform::Day()));
  EXPECT_TRUE(Transform::Day().SatisfiesOrderOf(Transform::Year()));
  EXPECT_FALSE(Transform::Year().SatisfiesOrderOf(Transform::Month()));
  EXPECT_TRUE(Transform::Identity().SatisfiesOrderOf(Transform::Hour()));
  EXPECT_FALSE(Transform::Identity().SatisfiesOrderOf(Transform::Bucket(4).value()));
  EXPECT_TRUE(Transform::Bucket(4)->SatisfiesOrderOf(Transform::Bucket(4).value()));
  EXPECT_FALSE(Transform::Bucket(4)->SatisfiesOrderOf(Transform::Bucket(8).value()));
  EXPECT_FALSE(Transform::Day().SatisfiesOrderOf(Transform::Identity()));

  auto t10 = Transform::Truncate(10).value();
  auto t100 = Transform::Truncate(100).value();
  EXPECT_TRUE(t10.SatisfiesOrderOf(t100, Type::Int().get()));
  EXPECT_FALSE(t100.SatisfiesOrderOf(t10, Type::Int().get()));
  EXPECT_TRUE(t100.SatisfiesOrderOf(t10, Type::String().get()));
  EXPECT_FALSE(t10.SatisfiesOrderOf(t100, Type::String().get()));
  EXPECT_FALSE(t10.SatisfiesOrderOf(t100));
}

}  // namespace
}  // namespace floe::iceberg
