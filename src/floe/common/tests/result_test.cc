#include "floe/common/result.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("{} is odd", x);
  return x / 2;
}

Result<int> Quarter(int x) {
  FLOE_ASSIGN_OR_RETURN(int half, Half(x));
  FLOE_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

Status CheckQuarter(int x) {
  FLOE_RETURN_IF_ERROR_CTX(Quarter(x), "quartering {}", x);
  return Ok();
}

TEST(ResultTest, PropagatesValuesAndErrors) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().message(), "3 is odd");
}

TEST(ResultTest, ContextIsPrefixed) {
  auto s = CheckQuarter(6);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().ToString(), "invalid argument: quartering 6: 3 is odd");
  EXPECT_TRUE(CheckQuarter(4));
}

}  // namespace
}  // namespace floe
