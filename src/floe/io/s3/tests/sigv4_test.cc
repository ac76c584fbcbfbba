// SigV4 against AWS's published vectors. The expected strings are the ones
// AWS publishes:
//  - the aws-sig-v4-test-suite (context: AKIDEXAMPLE /
//    wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, us-east-1, service "service",
//    20150830T123600Z): canonical request, string to sign and signature of
//    each case named below;
//  - the S3 examples of "Signature Calculations for the Authorization Header:
//    Transferring Payload in a Single Chunk" (AKIAIOSFODNN7EXAMPLE /
//    wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, us-east-1, s3,
//    20130524T000000Z, examplebucket.s3.amazonaws.com).
#include <gtest/gtest.h>

#include "floe/io/s3/sigv4.h"

namespace floe::io::s3 {
namespace {

const Credentials kSuiteCredentials{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
constexpr std::string_view kSuiteDate = "20150830T123600Z";
const Credentials kS3Credentials{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                                 ""};
constexpr std::string_view kS3Date = "20130524T000000Z";
constexpr std::string_view kS3Host = "examplebucket.s3.amazonaws.com";

SigningInput SuiteInput(std::string method, std::string path,
                        std::vector<std::pair<std::string, std::string>> query = {},
                        std::vector<std::pair<std::string, std::string>> extra_headers = {}) {
  SigningInput in;
  in.method = std::move(method);
  in.path = std::move(path);
  in.query = std::move(query);
  in.headers = {{"Host", "example.amazonaws.com"}};
  for (auto& h : extra_headers) in.headers.push_back(std::move(h));
  in.headers.emplace_back("X-Amz-Date", std::string(kSuiteDate));
  in.payload_sha256 = std::string(kEmptyPayloadSha256);
  return in;
}

std::string SuiteStringToSign(std::string_view canonical_hash) {
  return "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n" +
         std::string(canonical_hash);
}

Signature SignSuite(const SigningInput& in) {
  return Sign(in, kSuiteCredentials, "us-east-1", "service", kSuiteDate);
}

TEST(SigV4Test, GetVanilla) {
  Signature s = SignSuite(SuiteInput("GET", "/"));
  EXPECT_EQ(s.canonical_request,
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.string_to_sign,
            SuiteStringToSign("bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63"));
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4Test, PostVanilla) {
  Signature s = SignSuite(SuiteInput("POST", "/"));
  EXPECT_EQ(s.string_to_sign,
            SuiteStringToSign("553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87"));
  EXPECT_EQ(s.signature, "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
}

TEST(SigV4Test, GetVanillaQueryOrderKeyCase) {
  Signature s = SignSuite(SuiteInput("GET", "/", {{"Param2", "value2"}, {"Param1", "value1"}}));
  EXPECT_EQ(s.canonical_request,
            "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\n"
            "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.string_to_sign,
            SuiteStringToSign("816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0"));
  EXPECT_EQ(s.signature, "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

TEST(SigV4Test, GetVanillaQueryUnreserved) {
  const std::string u = "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  Signature s = SignSuite(SuiteInput("GET", "/", {{u, u}}));
  EXPECT_EQ(s.string_to_sign,
            SuiteStringToSign("c30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177"));
  EXPECT_EQ(s.signature, "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197");
}

TEST(SigV4Test, GetVanillaUtf8Query) {
  Signature s = SignSuite(SuiteInput("GET", "/", {{"\xe1\x88\xb4", "bar"}}));
  EXPECT_NE(s.canonical_request.find("\n%E1%88%B4=bar\n"), std::string::npos);
  EXPECT_EQ(s.signature, "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04");
}

TEST(SigV4Test, GetHeaderKeyDuplicate) {
  Signature s = SignSuite(
      SuiteInput("GET", "/", {},
                 {{"My-Header1", "value2"}, {"My-Header1", "value2"}, {"My-Header1", "value1"}}));
  EXPECT_NE(s.canonical_request.find("\nmy-header1:value2,value2,value1\n"), std::string::npos);
  EXPECT_EQ(s.string_to_sign,
            SuiteStringToSign("dc7f04a3abfde8d472b0ab1a418b741b7c67174dad1551b4117b15527fbe966c"));
  EXPECT_EQ(s.signature, "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea");
}

TEST(SigV4Test, GetHeaderValueOrder) {
  Signature s = SignSuite(SuiteInput("GET", "/", {},
                                     {{"My-Header1", "value4"},
                                      {"My-Header1", "value1"},
                                      {"My-Header1", "value3"},
                                      {"My-Header1", "value2"}}));
  EXPECT_EQ(s.canonical_request,
            "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value4,value1,value3,value2\n"
            "x-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.signature, "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01");
}

TEST(SigV4Test, GetHeaderValueTrim) {
  Signature s = SignSuite(
      SuiteInput("GET", "/", {}, {{"My-Header1", " value1"}, {"My-Header2", " \"a   b   c\""}}));
  EXPECT_NE(s.canonical_request.find("\nmy-header1:value1\nmy-header2:\"a b c\"\n"),
            std::string::npos);
  EXPECT_EQ(s.string_to_sign,
            SuiteStringToSign("a726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7"));
  EXPECT_EQ(s.signature, "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736");
}

TEST(SigV4Test, GetUnreservedPath) {
  Signature s = SignSuite(
      SuiteInput("GET", "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"));
  EXPECT_EQ(s.signature, "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f");
}

TEST(SigV4Test, GetUtf8PathIsEncodedOnce) {
  Signature s = SignSuite(SuiteInput("GET", "/\xe1\x88\xb4"));
  EXPECT_EQ(s.canonical_request.substr(0, 15), "GET\n/%E1%88%B4\n");
  EXPECT_EQ(s.signature, "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85");
}

TEST(SigV4Test, GetSpaceAndSlashesUnnormalized) {
  // S3 signs the path as sent: a space is %20 (once), "//" stays.
  EXPECT_EQ(SignSuite(SuiteInput("GET", "/example space/")).signature,
            "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741");
  EXPECT_EQ(SignSuite(SuiteInput("GET", "//example//")).signature,
            "87cca117541a147f6df867677d98a7d80dff226d2bfca9e4ffa899665623c7e5");
}

SigningInput S3Input(std::string method, std::string path,
                     std::vector<std::pair<std::string, std::string>> query,
                     std::vector<std::pair<std::string, std::string>> headers,
                     std::string payload_sha256) {
  SigningInput in;
  in.method = std::move(method);
  in.path = std::move(path);
  in.query = std::move(query);
  in.headers = {{"Host", std::string(kS3Host)}};
  for (auto& h : headers) in.headers.push_back(std::move(h));
  in.headers.emplace_back("x-amz-content-sha256", payload_sha256);
  in.headers.emplace_back("x-amz-date", std::string(kS3Date));
  in.payload_sha256 = std::move(payload_sha256);
  return in;
}

Signature SignS3(const SigningInput& in) {
  return Sign(in, kS3Credentials, "us-east-1", "s3", kS3Date);
}

TEST(SigV4S3ExampleTest, GetObjectWithRange) {
  Signature s = SignS3(
      S3Input("GET", "/test.txt", {}, {{"Range", "bytes=0-9"}}, std::string(kEmptyPayloadSha256)));
  EXPECT_EQ(
      s.canonical_request,
      "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
      "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
      "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4S3ExampleTest, PutObject) {
  std::string payload_hash = Sha256Hex(std::string_view("Welcome to Amazon S3."));
  EXPECT_EQ(payload_hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  Signature s = SignS3(S3Input(
      "PUT", "/test$file.text", {},
      {{"Date", "Fri, 24 May 2013 00:00:00 GMT"}, {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
      payload_hash));
  EXPECT_EQ(s.canonical_request.substr(0, 23), "PUT\n/test%24file.text\n\n");
  EXPECT_EQ(s.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
            "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4S3ExampleTest, GetBucketLifecycle) {
  Signature s =
      SignS3(S3Input("GET", "/", {{"lifecycle", ""}}, {}, std::string(kEmptyPayloadSha256)));
  EXPECT_EQ(s.canonical_request.substr(0, 17), "GET\n/\nlifecycle=\n");
  EXPECT_EQ(s.signature, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4S3ExampleTest, ListObjects) {
  Signature s = SignS3(S3Input("GET", "/", {{"prefix", "J"}, {"max-keys", "2"}}, {},
                               std::string(kEmptyPayloadSha256)));
  EXPECT_EQ(Sha256Hex(s.canonical_request),
            "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7");
  EXPECT_EQ(s.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4Test, SessionTokenIsSignedLikeAnyHeader) {
  SigningInput in = SuiteInput("GET", "/", {}, {{"X-Amz-Security-Token", "token"}});
  Signature with = SignSuite(in);
  EXPECT_NE(with.authorization.find("SignedHeaders=host;x-amz-date;x-amz-security-token"),
            std::string::npos);
  EXPECT_NE(with.signature, SignSuite(SuiteInput("GET", "/")).signature);
}

TEST(SigV4Test, EncodingHelpers) {
  EXPECT_EQ(UriEncode("a b/c+d=é"), "a%20b%2Fc%2Bd%3D%C3%A9");
  EXPECT_EQ(UriEncodePath("/a b/c+d"), "/a%20b/c%2Bd");
  EXPECT_EQ(CanonicalQueryString({{"prefix", "a/b"}, {"list-type", "2"}, {"delimiter", "/"}}),
            "delimiter=%2F&list-type=2&prefix=a%2Fb");
  EXPECT_EQ(AmzDate(1369353600), "20130524T000000Z");
  EXPECT_EQ(Md5Hex(std::span<const uint8_t>()), "d41d8cd98f00b204e9800998ecf8427e");
}

}  // namespace
}  // namespace floe::io::s3
