#include "floe/iceberg/expression/evaluator.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "floe/iceberg/expression/expression_parser.h"
#include "floe/iceberg/expression/projection.h"
#include "floe/iceberg/single_value.h"
#include "floe/types/temporal.h"

namespace floe::iceberg {
namespace {

using types::NestedField;
using types::Schema;
using types::Type;
using types::Value;

Schema TestSchema() {
  std::vector<NestedField> loc = {{11, "lat", false, Type::Double(), ""}};
  return Schema({{1, "id", true, Type::Long(), ""},
                 {2, "name", false, Type::String(), ""},
                 {3, "d", false, Type::Double(), ""},
                 {4, "ts", false, Type::Timestamp(), ""},
                 {5, "x", false, Type::Int(), ""},
                 {10, "location", false, Type::Struct(loc), ""}});
}

ExprPtr Bound(std::string_view text) {
  auto e = ParseFilter(text);
  EXPECT_TRUE(e.has_value()) << e.error().ToString();
  auto b = Bind(*e, TestSchema());
  EXPECT_TRUE(b.has_value()) << b.error().ToString();
  return b.value_or(Expression::False());
}

int64_t Ts(const char* s) { return types::ParseTimestamp(s).value(); }

bool RowMatches(std::string_view filter, std::initializer_list<Value> values) {
  std::vector<Value> row(values);
  return RowEvaluator::Make(Bound(filter))->Eval(row);
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(RowEvaluatorTest, ComparisonsAndLogic) {
  auto row = {Value::Int64(5),    Value::Bytes("iceberg"),
              Value::Double(1.5), Value::Int64(Ts("2024-03-01T00:00:00")),
              Value::Null(),      Value::Null()};
  EXPECT_TRUE(RowMatches("id = 5", row));
  EXPECT_FALSE(RowMatches("id != 5", row));
  EXPECT_TRUE(RowMatches("id = 5 AND (ts >= '2024-01-01T00:00:00' OR name IS NULL)", row));
  EXPECT_FALSE(RowMatches("id = 5 AND (ts < '2024-01-01T00:00:00' OR name IS NULL)", row));
  EXPECT_TRUE(RowMatches("name IN ('a', 'iceberg')", row));
  EXPECT_TRUE(RowMatches("name STARTS WITH 'ice'", row));
  EXPECT_FALSE(RowMatches("name NOT STARTS WITH 'ice'", row));
  EXPECT_TRUE(RowMatches("d > 1 AND d <= 1.5", row));
  EXPECT_TRUE(RowMatches("NOT (id < 3)", row));
}

TEST(RowEvaluatorTest, SqlNullSemantics) {
  auto row = {Value::Int64(5), Value::Null(), Value::Null(),
              Value::Null(),   Value::Null(), Value::Null()};
  EXPECT_TRUE(RowMatches("x IS NULL", row));
  EXPECT_FALSE(RowMatches("x < 3", row));
  EXPECT_FALSE(RowMatches("NOT (x < 3)", row));
  EXPECT_FALSE(RowMatches("x != 3", row));
  EXPECT_FALSE(RowMatches("x NOT IN (1, 2)", row));
  EXPECT_FALSE(RowMatches("name NOT STARTS WITH 'a'", row));
  EXPECT_TRUE(RowMatches("x < 3 OR x IS NULL", row));
  // A null struct makes its fields null.
  EXPECT_TRUE(RowMatches("location.lat IS NULL", row));
  EXPECT_FALSE(RowMatches("location.lat > 0", row));
}

TEST(RowEvaluatorTest, NaN) {
  auto row = {Value::Int64(5), Value::Null(), Value::Double(kNaN),
              Value::Null(),   Value::Null(), Value::Null()};
  EXPECT_TRUE(RowMatches("d IS NAN", row));
  EXPECT_FALSE(RowMatches("d IS NOT NAN", row));
  EXPECT_FALSE(RowMatches("d > 1", row));
  EXPECT_FALSE(RowMatches("d < 1", row));
  EXPECT_FALSE(RowMatches("d = 1", row));
  EXPECT_TRUE(RowMatches("d != 1", row));
}

TEST(RowEvaluatorTest, NestedStruct) {
  Value loc[] = {Value::Double(52.5)};
  auto row = {Value::Int64(5), Value::Null(), Value::Null(),
              Value::Null(),   Value::Null(), Value::Struct(loc, 1)};
  EXPECT_TRUE(RowMatches("location.lat > 52", row));
  EXPECT_FALSE(RowMatches("location.lat > 53", row));
}

TEST(RowEvaluatorTest, RefusesUnboundFilters) {
  EXPECT_FALSE(RowEvaluator::Make(ParseFilter("id = 1").value()).has_value());
}

// ---------------------------------------------------------------- metrics

std::string Ser(const types::TypePtr& t, const Value& v) {
  return SerializeSingleValue(*t, v).value();
}

struct Metrics {
  std::map<int32_t, int64_t> values, nulls, nans;
  std::map<int32_t, std::string> lower, upper;
  int64_t records = 10;
  FileMetrics View() const { return {records, &values, &nulls, &nans, &lower, &upper}; }
};

bool FileMayMatch(std::string_view filter, const Metrics& m) {
  return InclusiveMetricsEvaluator::Make(Bound(filter))->Eval(m.View());
}

Metrics IdRange(int64_t lo, int64_t hi) {
  Metrics m;
  m.values[1] = 10;
  m.nulls[1] = 0;
  m.lower[1] = Ser(Type::Long(), Value::Int64(lo));
  m.upper[1] = Ser(Type::Long(), Value::Int64(hi));
  return m;
}

TEST(InclusiveMetricsEvaluatorTest, RangesOnBounds) {
  Metrics m = IdRange(30, 79);
  EXPECT_FALSE(FileMayMatch("id < 30", m));
  EXPECT_TRUE(FileMayMatch("id < 31", m));
  EXPECT_FALSE(FileMayMatch("id <= 29", m));
  EXPECT_TRUE(FileMayMatch("id <= 30", m));
  EXPECT_FALSE(FileMayMatch("id > 79", m));
  EXPECT_TRUE(FileMayMatch("id > 78", m));
  EXPECT_FALSE(FileMayMatch("id >= 80", m));
  EXPECT_TRUE(FileMayMatch("id >= 79", m));
  EXPECT_FALSE(FileMayMatch("id = 5", m));
  EXPECT_FALSE(FileMayMatch("id = 80", m));
  EXPECT_TRUE(FileMayMatch("id = 30", m));
  EXPECT_TRUE(FileMayMatch("id != 30", m));
  EXPECT_FALSE(FileMayMatch("id IN (1, 2, 100)", m));
  EXPECT_TRUE(FileMayMatch("id IN (1, 50)", m));
  EXPECT_TRUE(FileMayMatch("id NOT IN (30, 31)", m));
  EXPECT_FALSE(FileMayMatch("id < 30 OR id > 79", m));
  EXPECT_TRUE(FileMayMatch("id < 30 OR id > 78", m));
  EXPECT_FALSE(FileMayMatch("NOT (id >= 30)", m));
  // Unknown bounds and columns might match.
  EXPECT_TRUE(FileMayMatch("x = 1", m));
  // An empty file never matches.
  Metrics empty = m;
  empty.records = 0;
  EXPECT_FALSE(FileMayMatch("id > 0", empty));
}

TEST(InclusiveMetricsEvaluatorTest, NullsAndNaNs) {
  Metrics m;
  m.values[5] = 10;
  m.nulls[5] = 10;  // x: all null
  m.values[3] = 10;
  m.nulls[3] = 0;
  m.nans[3] = 10;  // d: all NaN
  m.values[2] = 10;
  m.nulls[2] = 0;  // name: no nulls
  EXPECT_FALSE(FileMayMatch("x IS NOT NULL", m));
  EXPECT_TRUE(FileMayMatch("x IS NULL", m));
  EXPECT_FALSE(FileMayMatch("x < 5", m));
  EXPECT_FALSE(FileMayMatch("x != 5", m));  // nulls never match !=
  EXPECT_FALSE(FileMayMatch("name IS NULL", m));
  EXPECT_TRUE(FileMayMatch("d IS NAN", m));
  EXPECT_FALSE(FileMayMatch("d IS NOT NAN", m));
  EXPECT_FALSE(FileMayMatch("d > 0", m));
  EXPECT_TRUE(FileMayMatch("d != 0", m));  // NaN != 0
  m.nans[3] = 0;
  EXPECT_FALSE(FileMayMatch("d IS NAN", m));
  // A NaN bound (old writers) is ignored.
  m.lower[3] = Ser(Type::Double(), Value::Double(kNaN));
  m.upper[3] = Ser(Type::Double(), Value::Double(kNaN));
  EXPECT_TRUE(FileMayMatch("d > 100", m));
}

TEST(InclusiveMetricsEvaluatorTest, TruncatedStringBounds) {
  // Real values "aaa..." to "abzzz", written with bounds truncated to 2 code
  // points: lower "aa", upper "ac" (prefix "ab" incremented).
  Metrics m;
  m.values[2] = 10;
  m.nulls[2] = 0;
  m.lower[2] = "aa";
  m.upper[2] = "ac";
  EXPECT_TRUE(FileMayMatch("name = 'abzzz'", m));
  EXPECT_TRUE(FileMayMatch("name = 'aaa'", m));
  EXPECT_TRUE(FileMayMatch("name > 'abz'", m));
  EXPECT_FALSE(FileMayMatch("name > 'ac'", m));
  EXPECT_TRUE(FileMayMatch("name >= 'ac'", m));
  EXPECT_FALSE(FileMayMatch("name < 'aa'", m));
  EXPECT_TRUE(FileMayMatch("name STARTS WITH 'abc'", m));
  EXPECT_TRUE(FileMayMatch("name STARTS WITH 'a'", m));
  EXPECT_FALSE(FileMayMatch("name STARTS WITH 'b'", m));
  EXPECT_FALSE(FileMayMatch("name STARTS WITH 'ad'", m));
  EXPECT_FALSE(FileMayMatch("name STARTS WITH '0'", m));
  EXPECT_FALSE(FileMayMatch("name NOT STARTS WITH 'a'", m));
  EXPECT_TRUE(FileMayMatch("name NOT STARTS WITH 'ab'", m));
  // Multi-byte: ä (c3 a4) sorts after every ASCII letter.
  m.upper[2] = "\xc3\xa4";
  EXPECT_TRUE(FileMayMatch("name > 'z'", m));
}

TEST(InclusiveMetricsEvaluatorTest, PromotedIntBounds) {
  // Bounds written as int (4 bytes) for a column now long.
  Metrics m;
  m.values[1] = 10;
  m.nulls[1] = 0;
  m.lower[1] = Ser(Type::Int(), Value::Int32(-5));
  m.upper[1] = Ser(Type::Int(), Value::Int32(5));
  EXPECT_FALSE(FileMayMatch("id > 5", m));
  EXPECT_TRUE(FileMayMatch("id > 4", m));
  // Corrupt bounds are ignored (might match).
  m.upper[1] = "xyz";
  EXPECT_TRUE(FileMayMatch("id > 5", m));
}

// ---------------------------------------------------------------- projection

PartitionSpec Spec(std::string_view text) {
  auto s = ParsePartitionSpecText(text, TestSchema());
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return s.value_or(PartitionSpec());
}

std::string Project(std::string_view filter, std::string_view spec) {
  auto p = ProjectInclusive(Bound(filter), Spec(spec), TestSchema());
  EXPECT_TRUE(p.has_value()) << p.error().ToString();
  return p ? (*p)->ToString() : "";
}

TEST(ProjectionTest, IdentityAndBucket) {
  EXPECT_EQ(Project("id = 5 AND name > 'a'", "id, name"), "id = 5 AND name > 'a'");
  // bucket[16] of 34 is 2017239379 % 16 = 3.
  EXPECT_EQ(Project("id = 34", "bucket(16, id)"), "id_bucket = 3");
  EXPECT_EQ(Project("id IN (34, 35)", "bucket(16, id)").substr(0, 14), "id_bucket IN (");
  EXPECT_EQ(Project("id > 34", "bucket(16, id)"), "true");
  EXPECT_EQ(Project("id != 34", "bucket(16, id)"), "true");
  EXPECT_EQ(Project("x IS NULL", "bucket(4, x)"), "x_bucket IS NULL");
  EXPECT_EQ(Project("id = 34 OR name = 'a'", "bucket(16, id)"), "true");
}

TEST(ProjectionTest, TruncateNumbersAndStrings) {
  EXPECT_EQ(Project("x < 10", "truncate(10, x)"), "x_trunc <= 0");
  EXPECT_EQ(Project("x <= 10", "truncate(10, x)"), "x_trunc <= 10");
  EXPECT_EQ(Project("x > 9", "truncate(10, x)"), "x_trunc >= 10");
  EXPECT_EQ(Project("x >= -1", "truncate(10, x)"), "x_trunc >= -10");
  EXPECT_EQ(Project("x = -1", "truncate(10, x)"), "x_trunc = -10");
  EXPECT_EQ(Project("x != -1", "truncate(10, x)"), "true");
  EXPECT_EQ(Project("name < 'abcde'", "truncate(3, name)"), "name_trunc <= 'abc'");
  EXPECT_EQ(Project("name > 'abcde'", "truncate(3, name)"), "name_trunc >= 'abc'");
  EXPECT_EQ(Project("name STARTS WITH 'abcde'", "truncate(3, name)"), "name_trunc = 'abc'");
  EXPECT_EQ(Project("name STARTS WITH 'ab'", "truncate(3, name)"), "name_trunc STARTS WITH 'ab'");
  EXPECT_EQ(Project("name NOT STARTS WITH 'abc'", "truncate(3, name)"), "name_trunc != 'abc'");
  EXPECT_EQ(Project("name NOT STARTS WITH 'abcd'", "truncate(3, name)"), "true");
  EXPECT_EQ(Project("name = '\xc3\xa4\xc3\xb6\xc3\xbc'", "truncate(2, name)"),
            "name_trunc = '\xc3\xa4\xc3\xb6'");
}

TEST(ProjectionTest, TimeTransformsAcrossNegativeBoundaries) {
  // ts < 1970-01-01T00:00:00 -> day <= day(-1 us) = -1 (1969-12-31).
  EXPECT_EQ(Project("ts < '1970-01-01T00:00:00'", "day(ts)"), "ts_day <= '1969-12-31'");
  EXPECT_EQ(Project("ts <= '1970-01-01T00:00:00'", "day(ts)"), "ts_day <= '1970-01-01'");
  EXPECT_EQ(Project("ts > '1969-12-31T23:59:59.999999'", "day(ts)"), "ts_day >= '1970-01-01'");
  EXPECT_EQ(Project("ts >= '1969-12-31T00:00:00.000001'", "day(ts)"), "ts_day >= '1969-12-31'");
  EXPECT_EQ(Project("ts = '1969-12-31T23:00:00'", "hour(ts)"), "ts_hour = -1");
  EXPECT_EQ(Project("ts < '1969-12-31T00:00:00'", "month(ts)"), "ts_month <= -1");
  EXPECT_EQ(Project("ts < '1970-01-01T00:00:00'", "year(ts)"), "ts_year <= -1");
  EXPECT_EQ(Project("ts > '2024-02-29T13:00:00' AND ts < '2024-03-01T00:00:00'", "day(ts)"),
            "ts_day >= '2024-02-29' AND ts_day <= '2024-02-29'");
  EXPECT_EQ(Project("ts != '2024-02-29T13:00:00'", "day(ts)"), "true");
}

TEST(ProjectionTest, ProjectedFilterPrunesPartitionTuples) {
  Schema schema = TestSchema();
  PartitionSpec spec = Spec("day(ts)");
  auto projected = ProjectInclusive(Bound("ts < '1970-01-01T00:00:00'"), spec, schema).value();
  auto eval = RowEvaluator::Make(projected).value();
  Value minus_one[] = {Value::Int32(-1)};
  Value zero[] = {Value::Int32(0)};
  EXPECT_TRUE(eval.Eval(minus_one));
  EXPECT_FALSE(eval.Eval(zero));
  // The partition of every row that matches also matches the projection.
  auto row_eval = RowEvaluator::Make(Bound("ts < '1970-01-01T00:00:00'")).value();
  auto transformer = PartitionTransformer::Make(spec, schema).value();
  for (int64_t micros :
       {int64_t{-1}, int64_t{-86'400'000'000}, int64_t{-86'400'000'001}, int64_t{0}, int64_t{5}}) {
    Value row[] = {Value::Int64(1),      Value::Null(), Value::Null(),
                   Value::Int64(micros), Value::Null(), Value::Null()};
    Value part[1];
    ASSERT_TRUE(transformer.Apply(row, part).has_value());
    if (row_eval.Eval(row)) EXPECT_TRUE(eval.Eval(part)) << micros;
  }
}

// ---------------------------------------------------------------- manifests

TEST(ManifestEvaluatorTest, SummariesPruneManifests) {
  Schema schema = TestSchema();
  PartitionSpec spec = Spec("day(ts), bucket(16, id), d");
  std::string lo = Ser(Type::Date(), Value::Int32(types::ParseDate("2024-02-01").value()));
  std::string hi = Ser(Type::Date(), Value::Int32(types::ParseDate("2024-02-29").value()));
  std::string b_lo = Ser(Type::Int(), Value::Int32(0));
  std::string b_hi = Ser(Type::Int(), Value::Int32(2));
  PartitionFieldSummaryView summaries[3];
  summaries[0] = {false, std::nullopt, lo, hi};
  summaries[1] = {false, std::nullopt, b_lo, b_hi};
  summaries[2] = {true, false, std::nullopt, std::nullopt};  // d: all null
  auto may = [&](std::string_view filter) {
    auto m = ManifestEvaluator::Make(Bound(filter), spec, schema);
    EXPECT_TRUE(m.has_value()) << m.error().ToString();
    return m->Eval(summaries);
  };
  EXPECT_TRUE(may("ts >= '2024-02-10T00:00:00'"));
  EXPECT_FALSE(may("ts >= '2024-03-01T00:00:00'"));
  EXPECT_FALSE(may("ts < '2024-02-01T00:00:00'"));
  EXPECT_TRUE(may("ts < '2024-02-01T00:00:01'"));
  EXPECT_FALSE(may("ts IS NULL"));
  EXPECT_FALSE(may("id = 34"));  // bucket 3 is outside [0, 2]
  EXPECT_TRUE(may("id != 34"));
  EXPECT_FALSE(may("d IS NOT NULL"));
  EXPECT_FALSE(may("d = 1.0"));
  EXPECT_FALSE(may("d IS NAN"));
  EXPECT_TRUE(may("d IS NULL"));
  EXPECT_TRUE(may("name = 'x'"));  // not a partition source
  EXPECT_TRUE(may("ts >= '2024-03-01T00:00:00' OR name = 'x'"));
  // All NaN partition values.
  summaries[2] = {false, true, std::nullopt, std::nullopt};
  EXPECT_FALSE(may("d IS NOT NAN"));
  EXPECT_TRUE(may("d IS NAN"));
  EXPECT_TRUE(may("d IS NOT NULL"));
}

}  // namespace
}  // namespace floe::iceberg
