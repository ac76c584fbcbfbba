#include "floe/iceberg/expression/expression.h"

#include <gtest/gtest.h>

#include "floe/iceberg/expression/expression_parser.h"
#include "floe/types/temporal.h"

namespace floe::iceberg {
namespace {

using types::NestedField;
using types::Schema;
using types::Type;

Schema TestSchema() {
  std::vector<NestedField> loc = {{11, "lat", false, Type::Double(), ""},
                                  {12, "Zip", false, Type::String(), ""}};
  return Schema({{1, "id", true, Type::Long(), ""},
                 {2, "name", false, Type::String(), ""},
                 {3, "region", false, Type::String(), ""},
                 {4, "ts", false, Type::Timestamp(), ""},
                 {5, "x", false, Type::Int(), ""},
                 {6, "amount", false, Type::Decimal(9, 2).value(), ""},
                 {7, "weird col", false, Type::Double(), ""},
                 {8, "tags", false, Type::List(9, false, Type::String()), ""},
                 {10, "location", false, Type::Struct(loc), ""}});
}

ExprPtr ParseOk(std::string_view text) {
  auto e = ParseFilter(text);
  EXPECT_TRUE(e.has_value()) << text << ": " << e.error().ToString();
  return e.value_or(Expression::False());
}

ExprPtr BindOk(std::string_view text, bool case_sensitive = true) {
  auto b = Bind(ParseOk(text), TestSchema(), case_sensitive);
  EXPECT_TRUE(b.has_value()) << text << ": " << b.error().ToString();
  return b.value_or(Expression::False());
}

TEST(ExpressionParserTest, ParsesTheIssueExamples) {
  EXPECT_EQ(ParseOk("id = 5 AND (ts >= '2024-01-01T00:00:00' OR name IS NULL)")->ToString(),
            "id = 5 AND (ts >= '2024-01-01T00:00:00' OR name IS NULL)");
  EXPECT_EQ(ParseOk("region IN ('eu', 'us')")->ToString(), "region IN ('eu', 'us')");
  EXPECT_EQ(ParseOk("NOT (x < 3)")->ToString(), "NOT (x < 3)");
}

TEST(ExpressionParserTest, KeywordsQuotingLiterals) {
  EXPECT_EQ(ParseOk("id = 5 and not name is not null or x <> -3")->ToString(),
            "(id = 5 AND NOT (name IS NOT NULL)) OR x != -3");
  EXPECT_EQ(ParseOk("\"weird col\" > 1.5e3")->ToString(), "`weird col` > 1500");
  EXPECT_EQ(ParseOk("`weird col` IS NAN")->ToString(), "`weird col` IS NAN");
  // A backtick inside a quoted name is doubled when printed.
  EXPECT_EQ(ParseOk("\"a`b\" = 1")->ToString(), "`a``b` = 1");
  EXPECT_EQ(ParseOk("name = 'it''s'")->ToString(), "name = 'it''s'");
  EXPECT_EQ(ParseOk("amount >= -12.30")->ToString(), "amount >= -12.30");
  EXPECT_EQ(ParseOk("5 < x")->ToString(), "x > 5");
  EXPECT_EQ(ParseOk("x NOT IN (1, 2)")->ToString(), "x NOT IN (1, 2)");
  EXPECT_EQ(ParseOk("name STARTS WITH 'ab'")->ToString(), "name STARTS WITH 'ab'");
  EXPECT_EQ(ParseOk("name NOT LIKE 'ab%'")->ToString(), "name NOT STARTS WITH 'ab'");
  EXPECT_EQ(ParseOk("x BETWEEN 1 AND 3")->ToString(), "x >= 1 AND x <= 3");
  EXPECT_EQ(ParseOk("location.Zip = '10115'")->ToString(), "location.Zip = '10115'");
  EXPECT_EQ(ParseOk("true")->op(), Operation::kTrue);
  EXPECT_EQ(ParseOk("x == 1 OR FALSE")->ToString(), "x = 1");
  EXPECT_EQ(ParseOk("flag = true")->literal(), Literal::Boolean(true));
}

TEST(ExpressionParserTest, ErrorsHavePositions) {
  auto e1 = ParseFilter("id = 5 AND (name = 'x'");
  ASSERT_FALSE(e1.has_value());
  EXPECT_NE(e1.error().message().find("expected ')'"), std::string::npos) << e1.error().message();
  EXPECT_NE(e1.error().message().find("position 23"), std::string::npos) << e1.error().message();
  auto e2 = ParseFilter("id = 'abc");
  ASSERT_FALSE(e2.has_value());
  EXPECT_NE(e2.error().message().find("unterminated string starting at position 6"),
            std::string::npos)
      << e2.error().message();
  auto e3 = ParseFilter("id = null");
  ASSERT_FALSE(e3.has_value());
  EXPECT_NE(e3.error().message().find("IS NULL"), std::string::npos);
  EXPECT_FALSE(ParseFilter("").has_value());
  EXPECT_FALSE(ParseFilter("id = ").has_value());
  EXPECT_FALSE(ParseFilter("id 5").has_value());
  EXPECT_FALSE(ParseFilter("id = x").has_value());
  EXPECT_FALSE(ParseFilter("id IN ()").has_value());
  EXPECT_FALSE(ParseFilter("name LIKE '%ab'").has_value());
  EXPECT_FALSE(ParseFilter("id = 5 id = 6").has_value());
  EXPECT_FALSE(ParseFilter("id = 5 # 3").has_value());
  auto e4 = ParseFilter("id = 5 AND AND x = 1");
  ASSERT_FALSE(e4.has_value());
  EXPECT_NE(e4.error().message().find("position 12"), std::string::npos) << e4.error().message();
}

TEST(ExpressionBindTest, ResolvesColumnsAndConvertsLiterals) {
  auto e = BindOk("id = 5 AND (ts >= '2024-01-01T00:00:00' OR name IS NULL)");
  ASSERT_EQ(e->op(), Operation::kAnd);
  const auto& id = *e->left();
  EXPECT_TRUE(id.is_bound());
  EXPECT_EQ(id.field_id(), 1);
  EXPECT_EQ(id.literal().type()->id(), types::TypeId::kLong);
  const auto& ts = *e->right()->left();
  EXPECT_EQ(ts.field_id(), 4);
  EXPECT_EQ(ts.literal().value().i64, types::ParseTimestamp("2024-01-01T00:00:00").value());

  auto amount = BindOk("amount = '12.30'");
  EXPECT_EQ(amount->literal().value().decimal, 1230);
  EXPECT_EQ(BindOk("amount < 12.3")->literal().value().decimal, 1230);

  auto nested = BindOk("location.Zip = '10115'");
  EXPECT_EQ(nested->field_id(), 12);
  EXPECT_EQ(nested->positions(), (std::vector<int>{8, 1}));

  auto ci = BindOk("ID = 5 AND Location.zip = 'a'", /*case_sensitive=*/false);
  EXPECT_EQ(ci->left()->field_id(), 1);
  EXPECT_EQ(ci->right()->field_id(), 12);
}

TEST(ExpressionBindTest, Simplifications) {
  // id is required.
  EXPECT_EQ(BindOk("id IS NULL")->op(), Operation::kFalse);
  EXPECT_EQ(BindOk("id IS NOT NULL")->op(), Operation::kTrue);
  // Out of int range.
  EXPECT_EQ(BindOk("x < 10000000000")->ToString(), "x IS NOT NULL");
  EXPECT_EQ(BindOk("x = 10000000000")->op(), Operation::kFalse);
  EXPECT_EQ(BindOk("x > -10000000000")->ToString(), "x IS NOT NULL");
  EXPECT_EQ(BindOk("NOT (x != 10000000000)")->op(), Operation::kFalse);
  // IN lists.
  EXPECT_EQ(BindOk("region IN ('us', 'eu', 'us')")->ToString(), "region IN ('eu', 'us')");
  EXPECT_EQ(BindOk("region IN ('eu')")->ToString(), "region = 'eu'");
  EXPECT_EQ(BindOk("x IN (10000000000)")->op(), Operation::kFalse);
  // NOT is pushed down.
  EXPECT_EQ(BindOk("NOT (x < 3 OR name IS NULL)")->ToString(), "x >= 3 AND name IS NOT NULL");
}

TEST(ExpressionBindTest, Errors) {
  auto unknown = Bind(ParseOk("nope = 1"), TestSchema());
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message().find("'nope'"), std::string::npos);
  EXPECT_NE(unknown.error().message().find("id, name, region"), std::string::npos);
  EXPECT_FALSE(Bind(ParseOk("ID = 1"), TestSchema(), true).has_value());
  auto bad_lit = Bind(ParseOk("ts > 'soon'"), TestSchema());
  ASSERT_FALSE(bad_lit.has_value());
  EXPECT_NE(bad_lit.error().message().find("'ts'"), std::string::npos);
  EXPECT_NE(bad_lit.error().message().find("'soon'"), std::string::npos);
  EXPECT_FALSE(Bind(ParseOk("x IS NAN"), TestSchema()).has_value());
  EXPECT_FALSE(Bind(ParseOk("x STARTS WITH 'a'"), TestSchema()).has_value());
  EXPECT_FALSE(Bind(ParseOk("tags = 'a'"), TestSchema()).has_value());
  EXPECT_FALSE(Bind(ParseOk("amount = 1.234"), TestSchema()).has_value());
}

TEST(ExpressionParserTest, NestingAndLengthAreBounded) {
  // `--where` with 20,000 nested parentheses overflowed the stack (C4).
  std::string deep = std::string(20'000, '(') + "id = 1" + std::string(20'000, ')');
  auto e = ParseFilter(deep);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("parentheses and NOT nest deeper than 100 levels"),
            std::string::npos)
      << e.error().message();
  EXPECT_NE(e.error().message().find("at position 101"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  EXPECT_FALSE(ParseFilter(nots + "id = 1"));

  std::string ok = std::string(kMaxFilterDepth, '(') + "id = 1" + std::string(kMaxFilterDepth, ')');
  EXPECT_TRUE(ParseFilter(ok));

  std::string terms = "id = 0";
  for (int i = 1; i < kMaxFilterTerms; ++i) terms += " AND id = " + std::to_string(i);
  EXPECT_TRUE(ParseFilter(terms));
  auto many = ParseFilter(terms + " OR id = 5");
  ASSERT_FALSE(many);
  EXPECT_NE(many.error().message().find("more than 1000 terms"), std::string::npos);
}

}  // namespace
}  // namespace floe::iceberg
