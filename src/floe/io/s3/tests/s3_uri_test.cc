#include <gtest/gtest.h>

#include "floe/io/s3/s3_uri.h"

namespace floe::io::s3 {
namespace {

TEST(S3UriTest, ParsesBucketAndKey) {
  auto l = ParseS3Uri("s3://bucket/a/b//c.parquet");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->scheme, "s3");
  EXPECT_EQ(l->bucket, "bucket");
  EXPECT_EQ(l->key, "a/b//c.parquet");  // kept byte for byte
  EXPECT_EQ(l->ToString(), "s3://bucket/a/b//c.parquet");

  auto a = ParseS3Uri("S3A://my.bucket-1/k with space+plus");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->scheme, "s3a");
  EXPECT_EQ(a->bucket, "my.bucket-1");
  EXPECT_EQ(a->key, "k with space+plus");

  auto root = ParseS3Uri("s3n://b");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->key, "");
  auto slash = ParseS3Uri("s3://b/");
  ASSERT_TRUE(slash);
  EXPECT_EQ(slash->key, "");
}

TEST(S3UriTest, RefusesOtherSchemesAndBadBuckets) {
  for (std::string_view bad : {"file:///tmp/x", "/tmp/x", "gs://b/k", "s3:///k", "s3://",
                               "s3://user:secret@b/k", "s3://b?x/k"}) {
    auto r = ParseS3Uri(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(r.error().message().find("secret"), std::string::npos) << r.error().message();
  }
  EXPECT_TRUE(IsS3Uri("s3://b/k"));
  EXPECT_TRUE(IsS3Uri("s3a://b/k"));
  EXPECT_FALSE(IsS3Uri("file:///b/k"));
}

}  // namespace
}  // namespace floe::io::s3
