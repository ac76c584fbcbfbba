// partition.key in Flink CDC's form: tables by ';', terms by ',', Flink's
// bucket[N](col) and Spark's bucket(N, col) spellings.

#include "floe/pipeline/partition_key.h"

#include <gtest/gtest.h>

namespace floe::pipeline {
namespace {

TEST(PartitionKeyTest, ParsesFlinkCdcForm) {
  auto keys = ParsePartitionKeys(
      "shop.orders:day(created_at),bucket[16](id); crm.customers:truncate[4](name) "
      ";lake.raw.events:region");
  ASSERT_TRUE(keys) << keys.error().message();
  ASSERT_EQ(keys->size(), 3u);
  const TablePartitionKey& orders = (*keys)[0];
  EXPECT_EQ(orders.table.ToString(), "shop.orders");
  ASSERT_EQ(orders.terms.size(), 2u);
  EXPECT_EQ(orders.terms[0].column, "created_at");
  EXPECT_EQ(orders.terms[0].transform.kind(), iceberg::TransformKind::kDay);
  EXPECT_EQ(orders.terms[1].transform.ToString(), "bucket[16]");
  EXPECT_EQ(orders.spec_text, "day(created_at), bucket(16, id)");
  EXPECT_EQ((*keys)[1].spec_text, "truncate(4, name)");
  EXPECT_EQ((*keys)[2].table.ns, (iceberg::Namespace{"lake", "raw"}));
  EXPECT_TRUE((*keys)[2].terms[0].transform.is_identity());

  iceberg::TableIdentifier orders_id{{"shop"}, "orders"};
  ASSERT_NE(PartitionKeyFor(*keys, orders_id), nullptr);
  EXPECT_EQ(PartitionKeyFor(*keys, orders_id)->spec_text, "day(created_at), bucket(16, id)");
  EXPECT_EQ(PartitionKeyFor(*keys, iceberg::TableIdentifier{{"shop"}, "items"}), nullptr);
}

TEST(PartitionKeyTest, AcceptsSparkSpellingAndQuotesOddColumns) {
  auto keys = ParsePartitionKeys("db.t:bucket(8, id), hours(`event time`)");
  ASSERT_TRUE(keys) << keys.error().message();
  EXPECT_EQ((*keys)[0].spec_text, "bucket(8, id), hour(`event time`)");
  EXPECT_TRUE(ParsePartitionKeys("").value().empty());
  EXPECT_TRUE(ParsePartitionKeys(" ; ").value().empty());
}

TEST(PartitionKeyTest, RefusesBadEntries) {
  auto no_colon = ParsePartitionKeys("shop.orders");
  ASSERT_FALSE(no_colon);
  EXPECT_NE(no_colon.error().message().find("has no ':'"), std::string::npos);
  auto no_terms = ParsePartitionKeys("shop.orders:");
  ASSERT_FALSE(no_terms);
  auto no_namespace = ParsePartitionKeys("orders:id");
  ASSERT_FALSE(no_namespace);
  auto unknown = ParsePartitionKeys("shop.orders:week(ts)");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("unknown transform 'week'"), std::string::npos)
      << unknown.error().message();
  auto bad_bucket = ParsePartitionKeys("shop.orders:bucket[0](id)");
  ASSERT_FALSE(bad_bucket);
  auto twice = ParsePartitionKeys("shop.orders:id;shop.orders:day(ts)");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message().find("named twice"), std::string::npos);
  auto junk = ParsePartitionKeys("shop.orders:day(ts) id");
  ASSERT_FALSE(junk);
  EXPECT_NE(junk.error().message().find("expected ','"), std::string::npos);
}

}  // namespace
}  // namespace floe::pipeline
