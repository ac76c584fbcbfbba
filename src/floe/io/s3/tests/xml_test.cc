#include <gtest/gtest.h>

#include "floe/io/s3/s3_xml.h"
#include "floe/io/s3/xml.h"

namespace floe::io::s3 {
namespace {

TEST(XmlTest, ParsesElementsTextEntitiesAndSkipsTheRest) {
  auto root = ParseXml(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- c -->"
      "<s3:Root xmlns:s3=\"http://s3.amazonaws.com/doc/2006-03-01/\" a='1'>"
      "<A>x &amp; y &lt;&gt; &quot;&apos; &#65;&#x42;&#x20AC;</A><B/><![CDATA[<raw>]]>"
      "<A>second</A></s3:Root>  ");
  ASSERT_TRUE(root) << root.error().ToString();
  EXPECT_EQ(root->name, "Root");
  EXPECT_EQ(root->ChildText("A"), "x & y <> \"' AB\xe2\x82\xac");
  EXPECT_EQ(root->Children("A").size(), 2u);
  ASSERT_NE(root->Child("B"), nullptr);
  EXPECT_EQ(root->Child("B")->text, "");
  EXPECT_EQ(root->text, "<raw>");
  EXPECT_EQ(root->ChildText("missing"), "");
}

TEST(XmlTest, RefusesMalformedDocumentsAsCorruption) {
  for (std::string_view bad : {"",
                               "text",
                               "<a>",
                               "<a></b>",
                               "<a><b></a></b>",
                               "<a>&bogus;</a>",
                               "<a>&#xD800;</a>",
                               "<a>&#0;</a>",
                               "<a>&#x110000;</a>",
                               "<a></a><b></b>",
                               "<a b=c></a>",
                               "<a><![CDATA[x</a>",
                               "<a>&amp</a>",
                               "<",
                               "<a",
                               "<a/",
                               "<a></a",
                               "<!-- x",
                               "<x:/>",
                               "<a:></a:>"}) {
    auto r = ParseXml(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code(), ErrorCode::kCorruption) << bad;
  }
}

TEST(XmlTest, BoundsNesting) {
  std::string deep;
  for (int i = 0; i < kMaxXmlDepth; ++i) deep += "<a>";
  for (int i = 0; i < kMaxXmlDepth; ++i) deep += "</a>";
  EXPECT_TRUE(ParseXml(deep));
  EXPECT_FALSE(ParseXml("<a>" + deep + "</a>"));
  std::string very_deep;  // must not overflow the stack
  for (int i = 0; i < 100000; ++i) very_deep += "<a>";
  EXPECT_FALSE(ParseXml(very_deep));
}

TEST(XmlTest, Escape) { EXPECT_EQ(XmlEscape("a<&>\"'b"), "a&lt;&amp;&gt;&quot;&apos;b"); }

TEST(S3XmlTest, ErrorDocument) {
  auto doc = ParseErrorDocument(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AuthorizationHeaderMalformed</Code>"
      "<Message>the region 'us-east-1' is wrong; expecting 'eu-west-1'</Message>"
      "<Region>eu-west-1</Region><RequestId>1</RequestId></Error>");
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->code, "AuthorizationHeaderMalformed");
  EXPECT_EQ(doc->region, "eu-west-1");
  EXPECT_FALSE(ParseErrorDocument(""));
  EXPECT_FALSE(ParseErrorDocument("<ListBucketResult/>"));
  EXPECT_FALSE(ParseErrorDocument("<html>502 Bad Gateway"));
}

TEST(S3XmlTest, ListObjectsV2) {
  auto page = ParseListObjectsV2(
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>b</Name>"
      "<Prefix>t/</Prefix><KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys>"
      "<IsTruncated>true</IsTruncated><NextContinuationToken>tok+/=</NextContinuationToken>"
      "<Contents><Key>t/a&amp;b.parquet</Key><Size>12</Size><ETag>&quot;e1&quot;</ETag></Contents>"
      "<Contents><Key>t/c</Key><Size>0</Size></Contents>"
      "<CommonPrefixes><Prefix>t/data/</Prefix></CommonPrefixes></ListBucketResult>");
  ASSERT_TRUE(page) << page.error().ToString();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "t/a&b.parquet");
  EXPECT_EQ(page->objects[0].size, 12u);
  EXPECT_EQ(page->objects[0].etag, "\"e1\"");
  EXPECT_EQ(page->common_prefixes, std::vector<std::string>{"t/data/"});
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_continuation_token, "tok+/=");

  EXPECT_FALSE(
      ParseListObjectsV2("<ListBucketResult><Contents><Key>k</Key><Size>-1</Size>"
                         "</Contents></ListBucketResult>"));
  EXPECT_FALSE(
      ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated>"
                         "</ListBucketResult>"));
  EXPECT_FALSE(ParseListObjectsV2("<Error/>"));
}

TEST(S3XmlTest, InitiateMultipartUploadAndComplete) {
  auto id = ParseInitiateMultipartUpload(
      "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>u-1</UploadId>"
      "</InitiateMultipartUploadResult>");
  ASSERT_TRUE(id);
  EXPECT_EQ(*id, "u-1");
  EXPECT_FALSE(ParseInitiateMultipartUpload("<InitiateMultipartUploadResult/>"));
  EXPECT_EQ(CompleteMultipartUploadBody({"\"a\"", "\"b\""}),
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&quot;a&quot;</ETag>"
            "</Part><Part><PartNumber>2</PartNumber><ETag>&quot;b&quot;</ETag></Part>"
            "</CompleteMultipartUpload>");
}

TEST(S3XmlTest, MultipartEtag) {
  // Two parts whose MD5s are those of "" and "a": md5(concat(binary md5s)).
  std::string e =
      MultipartEtag({"\"d41d8cd98f00b204e9800998ecf8427e\"", "0cc175b9c0f1b6a831c399e269772661"});
  EXPECT_EQ(e.size(), 32u + 2 + 2);
  EXPECT_TRUE(e.ends_with("-2\""));
  EXPECT_EQ(MultipartEtag({"not-an-md5"}), "");
}

}  // namespace
}  // namespace floe::io::s3
