// Flink CDC's db.table pattern lists: escaped dots, whole-name matching,
// exclusion, and routes with replace-symbol templates.

#include "floe/pipeline/table_selector.h"

#include <gtest/gtest.h>

namespace floe::pipeline {
namespace {

TableSelector Selector(std::string_view text) {
  auto selector = ParseTableSelector(text);
  EXPECT_TRUE(selector) << selector.error().message();
  return selector ? *selector : TableSelector{};
}

TEST(TableSelectorTest, EscapedDotIsARegexDotAndTheBareDotSeparates) {
  TableSelector s = Selector("shop.\\.*, crm.customers");
  ASSERT_EQ(s.patterns.size(), 2u);
  EXPECT_EQ(s.patterns[0].db_regex, "shop");
  EXPECT_EQ(s.patterns[0].table_regex, ".*");
  EXPECT_TRUE(s.Matches("shop", "orders"));
  EXPECT_TRUE(s.Matches("shop", "order_items"));
  EXPECT_TRUE(s.Matches("crm", "customers"));
  EXPECT_FALSE(s.Matches("crm", "customers_old"));  // whole-name match
  EXPECT_FALSE(s.Matches("crm", "leads"));
  EXPECT_FALSE(s.Matches("shops", "orders"));
  EXPECT_FALSE(s.Matches("other", "orders"));
}

TEST(TableSelectorTest, MatchesWholeNamesOnly) {
  TableSelector s = Selector("shop.orders_\\.*");
  EXPECT_TRUE(s.Matches("shop", "orders_2024"));
  EXPECT_TRUE(s.Matches("shop", "orders_"));
  EXPECT_FALSE(s.Matches("shop", "orders"));
  EXPECT_FALSE(s.Matches("shop", "old_orders_1"));
  EXPECT_FALSE(s.Matches("myshop", "orders_1"));
}

TEST(TableSelectorTest, RegexesOnBothSidesAndCommasInsideThem) {
  TableSelector s = Selector("db_[0-9]+.t_[0-9]{1,3}, (app|web).user");
  ASSERT_EQ(s.patterns.size(), 2u);
  EXPECT_TRUE(s.Matches("db_12", "t_7"));
  EXPECT_TRUE(s.Matches("db_1", "t_123"));
  EXPECT_FALSE(s.Matches("db_1", "t_1234"));
  EXPECT_TRUE(s.Matches("web", "user"));
  EXPECT_FALSE(s.Matches("api", "user"));
}

TEST(TableSelectorTest, ExclusionWinsOverInclusion) {
  SourceTables tables;
  tables.include = Selector("shop.\\.*");
  tables.exclude = Selector("shop.tmp_\\.*");
  EXPECT_TRUE(MatchesSourceTable(tables, "shop", "orders"));
  EXPECT_FALSE(MatchesSourceTable(tables, "shop", "tmp_import"));
  EXPECT_TRUE(MatchesSourceTable(tables, "shop", "tmp"));  // tmp_ needs the underscore
  SourceTables no_exclude{Selector("shop.\\.*"), {}};
  EXPECT_TRUE(MatchesSourceTable(no_exclude, "shop", "tmp_import"));
}

TEST(TableSelectorTest, RefusesBadPatterns) {
  auto no_db = ParseTableSelector("orders");
  ASSERT_FALSE(no_db);
  EXPECT_NE(no_db.error().message().find("no database part"), std::string::npos);
  auto two_dots = ParseTableSelector("a.b.c");
  ASSERT_FALSE(two_dots);
  EXPECT_NE(two_dots.error().message().find("more than one unescaped '.'"), std::string::npos);
  auto empty_part = ParseTableSelector("shop.orders, ,crm.x");
  ASSERT_FALSE(empty_part);
  EXPECT_NE(empty_part.error().message().find("empty pattern"), std::string::npos);
  auto bad_regex = ParseTableSelector("shop.orders(");
  ASSERT_FALSE(bad_regex);
  EXPECT_EQ(bad_regex.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad_regex.error().message().find("the table regex 'orders(' is not valid"),
            std::string::npos)
      << bad_regex.error().message();
  EXPECT_FALSE(ParseTableSelector("shop.[z-a]"));
  EXPECT_FALSE(ParseTableSelector(""));
}

TEST(TableSelectorTest, BoundsWhatStdRegexIsGiven) {
  std::string deep = "shop." + std::string(100, '(') + "a" + std::string(100, ')');
  auto nested = ParseTableSelector(deep);
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message().find("nests groups deeper than 32"), std::string::npos);
  auto longer = ParseTableSelector("shop." + std::string(5000, 'a'));
  ASSERT_FALSE(longer);
  EXPECT_NE(longer.error().message().find("longer than 1024 characters"), std::string::npos);
  std::string ok = "shop." + std::string(32, '(') + "a" + std::string(32, ')');
  EXPECT_TRUE(ParseTableSelector(ok));
}

Route MakeRoute(std::string_view source, std::string sink, std::string symbol = "") {
  Route route;
  route.source_table = Selector(source);
  route.sink_table = std::move(sink);
  route.replace_symbol = std::move(symbol);
  return route;
}

TEST(RouteTest, FirstMatchingRouteWinsAndSymbolsBecomeTheTableName) {
  std::vector<Route> routes = {
      MakeRoute("shop.orders_\\.*", "ods.orders"),
      MakeRoute("crm.\\.*", "crm_mirror.<>", "<>"),
      MakeRoute("shop.\\.*", "all.never_reached_for_orders_x"),
  };
  EXPECT_EQ(RouteFor(routes, "shop", "orders_2024").value().ToString(), "ods.orders");
  EXPECT_EQ(RouteFor(routes, "shop", "orders_2025").value().ToString(), "ods.orders");
  EXPECT_EQ(RouteFor(routes, "crm", "customers").value().ToString(), "crm_mirror.customers");
  EXPECT_EQ(RouteFor(routes, "shop", "items").value().ToString(), "all.never_reached_for_orders_x");
  // No route: the sink table is db.table.
  auto plain = RouteFor(routes, "billing", "invoices");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->ns, iceberg::Namespace{"billing"});
  EXPECT_EQ(plain->name, "invoices");
  EXPECT_EQ(RouteFor({}, "a", "b").value().ToString(), "a.b");
}

TEST(RouteTest, EverySymbolIsReplacedAndNamespacesMayBeNested) {
  std::vector<Route> routes = {MakeRoute("db\\.*.\\.*", "lake.raw.{t}_v{t}", "{t}")};
  auto id = RouteFor(routes, "db1", "users");
  ASSERT_TRUE(id) << id.error().message();
  EXPECT_EQ(id->ns, (iceberg::Namespace{"lake", "raw"}));
  EXPECT_EQ(id->name, "users_vusers");
}

TEST(RouteTest, WithoutReplaceSymbolTheTemplateIsLiteral) {
  std::vector<Route> routes = {MakeRoute("crm.\\.*", "crm_mirror.<>")};
  EXPECT_EQ(RouteFor(routes, "crm", "leads").value().name, "<>");
}

TEST(RouteTest, RefusesNamesThatAreNotIcebergIdentifiers) {
  std::vector<Route> routes = {MakeRoute("crm.\\.*", "mirror.<>", "<>")};
  auto bad = RouteFor(routes, "crm", "..");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("route 1"), std::string::npos) << bad.error().message();
  EXPECT_FALSE(RouteFor({}, "db", "a/b"));
}

}  // namespace
}  // namespace floe::pipeline
