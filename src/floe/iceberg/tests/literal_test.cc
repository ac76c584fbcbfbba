#include "floe/iceberg/expression/literal.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "floe/types/temporal.h"

namespace floe::iceberg {
namespace {

using types::Type;
using types::TypeId;
using types::Value;

TEST(LiteralTest, CopiesOwnTheirBytes) {
  Literal a = Literal::String("hello");
  Literal b = a;
  Literal c = std::move(a);
  EXPECT_EQ(b.value().as_bytes(), "hello");
  EXPECT_EQ(c.value().as_bytes(), "hello");
  EXPECT_NE(b.value().bytes, c.value().bytes);
  std::string scratch = "temp";
  auto d = Literal::FromValue(Type::String(), Value::Bytes(scratch)).value();
  scratch = "XXXX";
  EXPECT_EQ(d.value().as_bytes(), "temp");
}

TEST(LiteralTest, ConvertsToColumnTypes) {
  auto ts = Literal::String("2024-01-01T00:00:00").To(Type::Timestamp());
  ASSERT_TRUE(ts.has_value());
  EXPECT_EQ(ts->value().i64, types::ParseTimestamp("2024-01-01T00:00:00").value());
  EXPECT_EQ(Literal::String("2024-01-01").To(Type::TimestampTz())->value().i64, ts->value().i64);
  EXPECT_EQ(Literal::Long(5).To(Type::Long())->value().i64, 5);
  EXPECT_EQ(Literal::Long(5).To(Type::Int())->value().i32, 5);
  EXPECT_EQ(Literal::Long(5).To(Type::Double())->value().f64, 5.0);
  auto dec = Type::Decimal(9, 2).value();
  EXPECT_EQ(Literal::String("12.30").To(dec)->value().decimal, 1230);
  EXPECT_EQ(Literal::Decimal(123, 3, 1)->To(dec)->value().decimal, 1230);    // 12.3
  EXPECT_EQ(Literal::Decimal(12300, 5, 3)->To(dec)->value().decimal, 1230);  // 12.300
  EXPECT_EQ(Literal::Long(12).To(dec)->value().decimal, 1200);
  EXPECT_EQ(Literal::String("2024-02-29").To(Type::Date())->value().i32,
            types::ParseDate("2024-02-29").value());
  auto uuid = Literal::String("f79c3e09-677c-4bbd-a479-3f349cb785e7").To(Type::Uuid());
  ASSERT_TRUE(uuid.has_value());
  EXPECT_EQ(uuid->value().size, 16u);
  EXPECT_EQ(Literal::Decimal(150, 3, 2)->To(Type::Double())->value().f64, 1.5);
}

TEST(LiteralTest, ConversionErrorsAreClear) {
  auto dec = Type::Decimal(9, 2).value();
  auto e1 = Literal::Decimal(12345, 5, 3)->To(dec);  // 12.345
  ASSERT_FALSE(e1.has_value());
  EXPECT_NE(e1.error().message().find("12.345"), std::string::npos);
  EXPECT_NE(e1.error().message().find("fraction"), std::string::npos);
  auto e2 = Literal::String("yesterday").To(Type::Timestamp());
  ASSERT_FALSE(e2.has_value());
  EXPECT_NE(e2.error().message().find("'yesterday'"), std::string::npos);
  EXPECT_FALSE(Literal::Boolean(true).To(Type::Int()).has_value());
  EXPECT_FALSE(Literal::Long(1).To(Type::String()).has_value());
  EXPECT_FALSE(Literal::String("nan").To(Type::Double()).has_value());
}

TEST(LiteralTest, NarrowingGivesAboveMaxAndBelowMin) {
  EXPECT_TRUE(Literal::Long(int64_t{1} << 40).To(Type::Int())->is_above_max());
  EXPECT_TRUE(Literal::Long(-(int64_t{1} << 40)).To(Type::Int())->is_below_min());
  EXPECT_TRUE(Literal::Double(1e300).To(Type::Float())->is_above_max());
  EXPECT_TRUE(Literal::Long(10'000'000).To(Type::Decimal(9, 2).value())->is_above_max());
}

TEST(LiteralTest, CompareValuesOrders) {
  auto d = Type::Double();
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_LT(CompareValues(*d, Value::Double(-INFINITY), Value::Double(-1)), 0);
  EXPECT_LT(CompareValues(*d, Value::Double(-0.0), Value::Double(0.0)), 0);
  EXPECT_LT(CompareValues(*d, Value::Double(INFINITY), Value::Double(nan)), 0);
  EXPECT_LT(CompareValues(*d, Value::Double(-nan), Value::Double(-INFINITY)), 0);
  // Unsigned bytes: "\xc3\xa4" (ä) sorts after "z".
  EXPECT_GT(CompareValues(*Type::String(), Value::Bytes("\xc3\xa4"), Value::Bytes("z")), 0);
  EXPECT_LT(CompareValues(*Type::String(), Value::Bytes("ab"), Value::Bytes("abc")), 0);
  EXPECT_LT(CompareValues(*Type::Int(), Value::Null(), Value::Int32(-5)), 0);
}

TEST(LiteralTest, ToStringIsSqlLike) {
  EXPECT_EQ(Literal::String("it's").ToString(), "'it''s'");
  EXPECT_EQ(Literal::Long(-5).ToString(), "-5");
  EXPECT_EQ(Literal::Decimal(1230, 9, 2)->ToString(), "12.30");
  EXPECT_EQ(Literal::Date(0).ToString(), "'1970-01-01'");
  EXPECT_EQ(Literal::Binary("\x0a\x0b").ToString(), "X'0a0b'");
  EXPECT_EQ(Literal().ToString(), "null");
}

}  // namespace
}  // namespace floe::iceberg
