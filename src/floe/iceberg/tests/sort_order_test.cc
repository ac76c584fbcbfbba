#include "floe/iceberg/sort_order.h"

#include <gtest/gtest.h>

#include "floe/iceberg/json/sort_order_json.h"

namespace floe::iceberg {
namespace {

using types::NestedField;
using types::Schema;
using types::Type;

Schema TestSchema() {
  return Schema({{1, "id", true, Type::Long(), ""},
                 {2, "name", false, Type::String(), ""},
                 {4, "ts", false, Type::Timestamp(), ""}});
}

TEST(SortOrderTest, ParsesUserText) {
  auto order = ParseSortOrderText("id desc nulls last, day(ts), bucket(16, name) ASC NULLS LAST",
                                  TestSchema());
  ASSERT_TRUE(order.has_value()) << order.error().ToString();
  EXPECT_EQ(order->order_id(), 1);
  ASSERT_EQ(order->fields().size(), 3u);
  EXPECT_EQ(order->fields()[0],
            (SortField{Transform::Identity(), 1, SortDirection::kDesc, NullOrder::kNullsLast}));
  EXPECT_EQ(order->fields()[1],
            (SortField{Transform::Day(), 4, SortDirection::kAsc, NullOrder::kNullsFirst}));
  EXPECT_EQ(order->fields()[2], (SortField{Transform::Bucket(16).value(), 2, SortDirection::kAsc,
                                           NullOrder::kNullsLast}));
  // DESC defaults to NULLS LAST.
  EXPECT_EQ(ParseSortOrderText("id DESC", TestSchema())->fields()[0].null_order,
            NullOrder::kNullsLast);
  EXPECT_TRUE(ParseSortOrderText("", TestSchema())->is_unsorted());
  EXPECT_FALSE(ParseSortOrderText("id nulls middle", TestSchema()).has_value());
  EXPECT_FALSE(ParseSortOrderText("nope", TestSchema()).has_value());
  EXPECT_FALSE(ParseSortOrderText("hour(name)", TestSchema()).has_value());
}

TEST(SortOrderTest, Satisfies) {
  auto fine = ParseSortOrderText("hour(ts), id", TestSchema()).value();
  auto coarse = ParseSortOrderText("day(ts)", TestSchema()).value();
  EXPECT_TRUE(fine.SatisfiesOrderOf(coarse));
  EXPECT_FALSE(coarse.SatisfiesOrderOf(fine));
  EXPECT_TRUE(fine.SatisfiesOrderOf(SortOrder()));
}

TEST(SortOrderJsonTest, RoundTripsTheSpecExample) {
  const char* text =
      R"({"order-id":1,"fields":[{"transform":"identity","source-id":2,"direction":"asc","null-order":"nulls-first"},)"
      R"({"transform":"bucket[4]","source-id":3,"direction":"desc","null-order":"nulls-last"}]})";
  auto order = ParseSortOrderJson(text);
  ASSERT_TRUE(order.has_value()) << order.error().ToString();
  EXPECT_EQ(order->fields()[1].direction, SortDirection::kDesc);
  EXPECT_EQ(SortOrderToJsonText(*order), text);
  auto bad = ParseSortOrderJson(
      R"({"order-id":1,"fields":[{"transform":"identity","source-id":2,"direction":"up","null-order":"nulls-first"}]})");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(bad.error().message().find("up"), std::string::npos);
}

}  // namespace
}  // namespace floe::iceberg
