#include "floe/common/one_of.h"

#include <cstdint>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace floe {
namespace {

enum class Color { kRed, kGreen, kBlue, kBlack };

TEST(OneOfTest, TrueOnlyWhenAValueIsAmongTheCandidates) {
  EXPECT_TRUE(OneOf(Color::kGreen, Color::kRed, Color::kGreen));
  EXPECT_TRUE(OneOf(Color::kBlue, Color::kBlue));
  EXPECT_FALSE(OneOf(Color::kBlack, Color::kRed, Color::kGreen, Color::kBlue));
}

TEST(OneOfTest, NoCandidatesIsFalse) { EXPECT_FALSE(OneOf(Color::kRed)); }

TEST(OneOfTest, ComparesAcrossTypesAsOperatorEqualsDoes) {
  // A byte of a wire format against its named codes, and a string against literals.
  constexpr uint8_t kTiny = 1, kLong = 3;
  uint8_t code = 3;
  EXPECT_TRUE(OneOf(code, kTiny, kLong));
  EXPECT_FALSE(OneOf(uint8_t{2}, kTiny, kLong));
  std::string name = "zstd";
  EXPECT_TRUE(OneOf(std::string_view(name), "gzip", "zstd"));
  EXPECT_FALSE(OneOf(std::string_view(name), "zst", "zstd2"));
}

TEST(OneOfTest, IsAConstantExpression) {
  static_assert(OneOf(5, 1, 3, 5));
  static_assert(!OneOf(4, 1, 3, 5));
}

}  // namespace
}  // namespace floe
