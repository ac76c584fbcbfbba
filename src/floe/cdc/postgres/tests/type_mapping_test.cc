// PostgreSQL type oid + modifier -> Iceberg type, and text values -> Value,
// one type at a time, each with text the server would never send refused.
#include "floe/cdc/postgres/type_mapping.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace floe::cdc::postgres {
namespace {

using types::TypeId;
using types::Value;

// numeric(P,S)'s atttypmod.
int32_t NumericMod(int p, int s) { return ((p << 16) | (s & 0x7ff)) + 4; }

class TypeMappingTest : public ::testing::Test {
 protected:
  Value Parse(uint32_t type_oid, std::string_view text, int32_t mod = -1) {
    auto v = ParseTextValue(type_oid, mod, text, &arena_);
    EXPECT_TRUE(v.has_value()) << text << ": " << (v ? "" : v.error().ToString());
    return v ? *v : Value::Null();
  }
  void ExpectBad(uint32_t type_oid, std::string_view text, int32_t mod = -1) {
    auto v = ParseTextValue(type_oid, mod, text, &arena_);
    ASSERT_FALSE(v.has_value()) << "accepted '" << text << "' as oid " << type_oid;
    EXPECT_EQ(v.error().code(), ErrorCode::kInvalidArgument);
  }
  std::string TypeName(uint32_t type_oid, int32_t mod = -1) {
    int32_t id = 100;
    return IcebergTypeOf(type_oid, mod, &id)->ToString();
  }
  Arena arena_;
};

TEST_F(TypeMappingTest, Types) {
  EXPECT_EQ(TypeName(oid::kBool), "boolean");
  EXPECT_EQ(TypeName(oid::kInt2), "int");
  EXPECT_EQ(TypeName(oid::kInt4), "int");
  EXPECT_EQ(TypeName(oid::kInt8), "long");
  EXPECT_EQ(TypeName(oid::kFloat4), "float");
  EXPECT_EQ(TypeName(oid::kFloat8), "double");
  EXPECT_EQ(TypeName(oid::kNumeric, NumericMod(10, 2)), "decimal(10, 2)");
  EXPECT_EQ(TypeName(oid::kNumeric, NumericMod(38, 0)), "decimal(38, 0)");
  EXPECT_EQ(TypeName(oid::kNumeric), "string");
  EXPECT_EQ(TypeName(oid::kNumeric, NumericMod(39, 2)), "string");
  EXPECT_EQ(TypeName(oid::kNumeric, NumericMod(5, -2)), "string");
  EXPECT_EQ(TypeName(oid::kDate), "date");
  EXPECT_EQ(TypeName(oid::kTimestamp), "timestamp");
  EXPECT_EQ(TypeName(oid::kTimestampTz), "timestamptz");
  EXPECT_EQ(TypeName(oid::kTime), "time");
  EXPECT_EQ(TypeName(oid::kUuid), "uuid");
  EXPECT_EQ(TypeName(oid::kBytea), "binary");
  for (uint32_t o : {oid::kText, oid::kVarchar, oid::kBpchar, oid::kName, oid::kJson, oid::kJsonb,
                     oid::kInet, oid::kCidr, oid::kMacaddr, oid::kMoney, oid::kBit, oid::kVarbit,
                     oid::kInterval, oid::kTimeTz, uint32_t{99999}}) {
    EXPECT_EQ(TypeName(o), "string") << o;
  }
  int32_t id = 7;
  auto list = IcebergTypeOf(1007, -1, &id);
  EXPECT_EQ(list->id(), TypeId::kList);
  EXPECT_EQ(list->element().id, 7);
  EXPECT_EQ(id, 8);
  EXPECT_EQ(list->element().type->ToString(), "int");
  EXPECT_EQ(TypeName(1231, NumericMod(6, 3)), "list<decimal(6, 3)>");
  int p = 0, s = 0;
  EXPECT_FALSE(NumericTypmod(-1, &p, &s));
  ASSERT_TRUE(NumericTypmod(NumericMod(12, 4), &p, &s));
  EXPECT_EQ(p, 12);
  EXPECT_EQ(s, 4);
}

TEST_F(TypeMappingTest, Bool) {
  EXPECT_TRUE(Parse(oid::kBool, "t").b);
  EXPECT_FALSE(Parse(oid::kBool, "f").b);
  ExpectBad(oid::kBool, "true");
  ExpectBad(oid::kBool, "");
}

TEST_F(TypeMappingTest, Integers) {
  EXPECT_EQ(Parse(oid::kInt2, "-32768").i32, -32768);
  ExpectBad(oid::kInt2, "32768");
  EXPECT_EQ(Parse(oid::kInt4, "2147483647").i32, 2147483647);
  ExpectBad(oid::kInt4, "2147483648");
  ExpectBad(oid::kInt4, "12a");
  ExpectBad(oid::kInt4, "");
  EXPECT_EQ(Parse(oid::kInt8, "-9223372036854775808").i64, std::numeric_limits<int64_t>::min());
  ExpectBad(oid::kInt8, "9223372036854775808");
  EXPECT_EQ(Parse(oid::kOid, "4294967295").i64, 4294967295);
}

TEST_F(TypeMappingTest, Floats) {
  EXPECT_FLOAT_EQ(Parse(oid::kFloat4, "1.5").f32, 1.5f);
  EXPECT_TRUE(std::isnan(Parse(oid::kFloat4, "NaN").f32));
  EXPECT_DOUBLE_EQ(Parse(oid::kFloat8, "-1.25e+300").f64, -1.25e300);
  EXPECT_EQ(Parse(oid::kFloat8, "-Infinity").f64, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(Parse(oid::kFloat8, "Infinity").f64, std::numeric_limits<double>::infinity());
  ExpectBad(oid::kFloat8, "1.5x");
  ExpectBad(oid::kFloat4, "");
}

TEST_F(TypeMappingTest, Numeric) {
  Value v = Parse(oid::kNumeric, "-123.45", NumericMod(10, 2));
  EXPECT_EQ(v.kind, Value::Kind::kDecimal);
  EXPECT_TRUE(v.decimal == -12345);
  EXPECT_TRUE(Parse(oid::kNumeric, "7", NumericMod(5, 2)).decimal == 700);
  EXPECT_TRUE(Parse(oid::kNumeric, "0.00", NumericMod(5, 2)).decimal == 0);
  // 38 digits fit decimal(38, 0).
  std::string big(38, '9');
  EXPECT_TRUE(Parse(oid::kNumeric, big, NumericMod(38, 0)).decimal > 0);
  ExpectBad(oid::kNumeric, "1000.00", NumericMod(5, 2));  // 6 digits in decimal(5, 2)
  ExpectBad(oid::kNumeric, "1.234", NumericMod(5, 2));
  ExpectBad(oid::kNumeric, "NaN", NumericMod(5, 2));
  ExpectBad(oid::kNumeric, "Infinity", NumericMod(5, 2));
  ExpectBad(oid::kNumeric, "1.2.3", NumericMod(5, 2));
  ExpectBad(oid::kNumeric, "-", NumericMod(5, 2));
  // Without a precision, or too wide: the text, NaN included.
  EXPECT_EQ(Parse(oid::kNumeric, "NaN").as_bytes(), "NaN");
  EXPECT_EQ(Parse(oid::kNumeric, "12345678901234567890123456789012345678901.5").as_bytes(),
            "12345678901234567890123456789012345678901.5");
  EXPECT_EQ(Parse(oid::kNumeric, "1.5", NumericMod(40, 1)).as_bytes(), "1.5");
}

TEST_F(TypeMappingTest, Strings) {
  EXPECT_EQ(Parse(oid::kText, "héllo").as_bytes(), "héllo");
  EXPECT_EQ(Parse(oid::kBpchar, "ab   ").as_bytes(), "ab   ");
  EXPECT_EQ(Parse(oid::kJsonb, R"({"a": 1})").as_bytes(), R"({"a": 1})");
  EXPECT_EQ(Parse(oid::kInet, "10.0.0.1/8").as_bytes(), "10.0.0.1/8");
  EXPECT_EQ(Parse(oid::kMoney, "$1,000.00").as_bytes(), "$1,000.00");
  EXPECT_EQ(Parse(oid::kVarbit, "0101").as_bytes(), "0101");
  EXPECT_EQ(Parse(oid::kInterval, "1 year 2 mons 03:00:00").as_bytes(), "1 year 2 mons 03:00:00");
  EXPECT_EQ(Parse(oid::kTimeTz, "10:00:00+02").as_bytes(), "10:00:00+02");
  EXPECT_EQ(Parse(99999, "happy").as_bytes(), "happy");  // an enum
  EXPECT_EQ(Parse(oid::kText, "").as_bytes(), "");
}

TEST_F(TypeMappingTest, Bytea) {
  EXPECT_EQ(Parse(oid::kBytea, "\\x00ff41").as_bytes(), std::string("\0\xff"
                                                                    "A",
                                                                    3));
  EXPECT_EQ(Parse(oid::kBytea, "\\x").as_bytes(), "");
  ExpectBad(oid::kBytea, "\\x0");
  ExpectBad(oid::kBytea, "\\xzz");
  ExpectBad(oid::kBytea, "abc");  // escape format
}

TEST_F(TypeMappingTest, Date) {
  EXPECT_EQ(Parse(oid::kDate, "1970-01-01").i32, 0);
  EXPECT_EQ(Parse(oid::kDate, "2024-02-29").i32, 19782);
  EXPECT_EQ(Parse(oid::kDate, "1969-12-31").i32, -1);
  EXPECT_EQ(Parse(oid::kDate, "0001-01-01 BC").i32, -719528);  // year 0, a leap year
  EXPECT_EQ(Parse(oid::kDate, "infinity").i32, std::numeric_limits<int32_t>::max());
  EXPECT_EQ(Parse(oid::kDate, "-infinity").i32, std::numeric_limits<int32_t>::min());
  EXPECT_EQ(Parse(oid::kDate, "10000-01-01").i32, 2932897);
  ExpectBad(oid::kDate, "2023-02-29");
  ExpectBad(oid::kDate, "2024-13-01");
  ExpectBad(oid::kDate, "01/02/2024");
  ExpectBad(oid::kDate, "2024-01-01x");
}

TEST_F(TypeMappingTest, Timestamps) {
  EXPECT_EQ(Parse(oid::kTimestamp, "1970-01-01 00:00:01.5").i64, 1'500'000);
  EXPECT_EQ(Parse(oid::kTimestamp, "2024-01-02 03:04:05.123456").i64, 1704164645123456);
  EXPECT_EQ(Parse(oid::kTimestampTz, "2024-01-02 03:04:05.123456+00").i64, 1704164645123456);
  EXPECT_EQ(Parse(oid::kTimestampTz, "2024-01-02 05:34:05.123456+02:30").i64, 1704164645123456);
  EXPECT_EQ(Parse(oid::kTimestampTz, "1970-01-01 00:00:00-00:00:10").i64, 10'000'000);
  EXPECT_EQ(Parse(oid::kTimestamp, "infinity").i64, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(Parse(oid::kTimestampTz, "-infinity").i64, std::numeric_limits<int64_t>::min());
  EXPECT_LT(Parse(oid::kTimestamp, "0001-01-01 00:00:00 BC").i64, 0);
  ExpectBad(oid::kTimestamp, "2024-01-02 03:04:05+00");  // zone on timestamp
  ExpectBad(oid::kTimestampTz, "2024-01-02 03:04:05");   // no zone on timestamptz
  ExpectBad(oid::kTimestamp, "2024-01-02T03:04:05");
  ExpectBad(oid::kTimestamp, "2024-01-02 03:04:05.1234567");
  ExpectBad(oid::kTimestamp, "2024-01-02 24:00:00");
}

TEST_F(TypeMappingTest, Time) {
  EXPECT_EQ(Parse(oid::kTime, "00:00:00").i64, 0);
  EXPECT_EQ(Parse(oid::kTime, "13:14:15.25").i64, 47655250000);
  EXPECT_EQ(Parse(oid::kTime, "24:00:00").i64, 86400000000);
  ExpectBad(oid::kTime, "24:00:01");
  ExpectBad(oid::kTime, "12:60:00");
  ExpectBad(oid::kTime, "12:00");
  ExpectBad(oid::kTime, "12:00:00+02");
}

TEST_F(TypeMappingTest, Uuid) {
  Value v = Parse(oid::kUuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  ASSERT_EQ(v.size, 16u);
  EXPECT_EQ(static_cast<unsigned char>(v.as_bytes()[0]), 0xa0);
  EXPECT_EQ(static_cast<unsigned char>(v.as_bytes()[15]), 0x11);
  ExpectBad(oid::kUuid, "a0eebc999c0b4ef8bb6d6bb9bd380a11");
  ExpectBad(oid::kUuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g");
}

TEST_F(TypeMappingTest, Arrays) {
  Value v = Parse(1007, "{1,NULL,-3}");
  ASSERT_EQ(v.kind, Value::Kind::kList);
  ASSERT_EQ(v.size, 3u);
  EXPECT_EQ(v.as_children()[0].i32, 1);
  EXPECT_TRUE(v.as_children()[1].is_null());
  EXPECT_EQ(v.as_children()[2].i32, -3);
  EXPECT_EQ(Parse(1007, "{}").size, 0u);
  Value t = Parse(1009, R"({plain,"with space","q\"uote","NULL",""})");
  ASSERT_EQ(t.size, 5u);
  EXPECT_EQ(t.as_children()[0].as_bytes(), "plain");
  EXPECT_EQ(t.as_children()[1].as_bytes(), "with space");
  EXPECT_EQ(t.as_children()[2].as_bytes(), "q\"uote");
  EXPECT_EQ(t.as_children()[3].as_bytes(), "NULL");  // quoted: a string, not a null
  EXPECT_EQ(t.as_children()[4].as_bytes(), "");
  Value n = Parse(1231, "{1.50,-2.25}", NumericMod(6, 2));
  ASSERT_EQ(n.size, 2u);
  EXPECT_TRUE(n.as_children()[1].decimal == -225);
  Value ts = Parse(1185, R"({"2024-01-02 03:04:05+00"})");
  EXPECT_EQ(ts.as_children()[0].i64, 1704164645000000);
  ExpectBad(1007, "{{1,2},{3,4}}");
  ExpectBad(1007, "[0:1]={1,2}");
  ExpectBad(1007, "{1,x}");
  ExpectBad(1007, "{1,2");
  ExpectBad(1009, R"({"open})");
}

}  // namespace
}  // namespace floe::cdc::postgres
