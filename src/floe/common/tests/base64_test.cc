#include "floe/common/base64.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(Base64Test, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (auto [plain, encoded] : vectors) {
    std::string out;
    Base64Encode(plain, &out);
    EXPECT_EQ(out, encoded);
    std::string back;
    ASSERT_TRUE(Base64Decode(encoded, &back));
    EXPECT_EQ(back, plain);
  }
}

TEST(Base64Test, RejectsBadInput) {
  std::string out;
  EXPECT_FALSE(Base64Decode("Zm9", &out));
  EXPECT_FALSE(Base64Decode("Zm9*", &out));
  EXPECT_FALSE(Base64Decode("Z=9v", &out));
}

}  // namespace
}  // namespace floe
