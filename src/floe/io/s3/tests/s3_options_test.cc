#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "floe/io/s3/s3_options.h"

namespace floe::io::s3 {
namespace {

using Props = std::map<std::string, std::string>;

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

class S3OptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = std::filesystem::temp_directory_path() /
            ("floe-s3-options-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(home_ / ".aws");
  }
  void TearDown() override { std::filesystem::remove_all(home_); }
  void WriteFile(const std::string& name, const std::string& text) {
    std::ofstream(home_ / ".aws" / name) << text;
  }
  std::filesystem::path home_;
};

TEST_F(S3OptionsTest, PropertiesWinOverEnvironmentAndProfiles) {
  WriteFile("credentials",
            "[default]\naws_access_key_id = PROFILEKEY\naws_secret_access_key = ps\n");
  auto o = S3OptionsFromProperties(Props{{"s3.endpoint", "http://127.0.0.1:9000/"},
                                         {"s3.region", "eu-west-1"},
                                         {"s3.access-key-id", "PROPKEY"},
                                         {"s3.secret-access-key", "propsecret"},
                                         {"s3.session-token", "tok"},
                                         {"s3.path-style-access", "true"},
                                         {"s3.multipart.size", "5242880"},
                                         {"s3.multipart.num-threads", "2"},
                                         {"s3.retry.num-retries", "3"},
                                         {"s3.connect-timeout", "1.5"}},
                                   Env({{"HOME", home_.string()},
                                        {"AWS_ACCESS_KEY_ID", "ENVKEY"},
                                        {"AWS_SECRET_ACCESS_KEY", "envsecret"},
                                        {"AWS_REGION", "us-west-2"}}));
  ASSERT_TRUE(o) << o.error().ToString();
  EXPECT_EQ(o->endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(o->region, "eu-west-1");
  EXPECT_EQ(o->credentials.access_key_id, "PROPKEY");
  EXPECT_EQ(o->credentials.secret_access_key, "propsecret");
  EXPECT_EQ(o->credentials.session_token, "tok");
  EXPECT_EQ(o->credentials_source, "s3.access-key-id");
  EXPECT_TRUE(o->path_style);
  EXPECT_EQ(o->part_size, 5u << 20);
  EXPECT_EQ(o->max_parts_in_flight, 2);
  EXPECT_EQ(o->retry.max_attempts, 4);
  EXPECT_EQ(o->connect_timeout.count(), 1500);
}

TEST_F(S3OptionsTest, EnvironmentThenProfile) {
  auto o = S3OptionsFromProperties({}, Env({{"HOME", home_.string()},
                                            {"AWS_ACCESS_KEY_ID", "ENVKEY"},
                                            {"AWS_SECRET_ACCESS_KEY", "envsecret"},
                                            {"AWS_SESSION_TOKEN", "envtok"},
                                            {"AWS_DEFAULT_REGION", "ap-south-1"},
                                            {"AWS_ENDPOINT_URL", "https://s3.example.com"}}));
  ASSERT_TRUE(o) << o.error().ToString();
  EXPECT_EQ(o->credentials.access_key_id, "ENVKEY");
  EXPECT_EQ(o->credentials.session_token, "envtok");
  EXPECT_EQ(o->region, "ap-south-1");
  EXPECT_EQ(o->endpoint, "https://s3.example.com");
  EXPECT_EQ(o->credentials_source, "AWS_ACCESS_KEY_ID");
}

TEST_F(S3OptionsTest, NamedProfileFromCredentialsAndConfigFiles) {
  WriteFile("credentials",
            "# comment\n[default]\naws_access_key_id=D\naws_secret_access_key=d\n"
            "[lake]\nAWS_ACCESS_KEY_ID = LAKEKEY \naws_secret_access_key = lake/secret+x\n"
            "aws_session_token = t\n");
  WriteFile("config",
            "[default]\nregion = us-east-2\n[profile lake]\nregion = eu-central-1\n"
            "endpoint_url = http://localhost:5000\n");
  auto o = S3OptionsFromProperties({}, Env({{"HOME", home_.string()}, {"AWS_PROFILE", "lake"}}));
  ASSERT_TRUE(o) << o.error().ToString();
  EXPECT_EQ(o->credentials.access_key_id, "LAKEKEY");
  EXPECT_EQ(o->credentials.secret_access_key, "lake/secret+x");
  EXPECT_EQ(o->credentials.session_token, "t");
  EXPECT_EQ(o->region, "eu-central-1");
  EXPECT_EQ(o->endpoint, "http://localhost:5000");
  EXPECT_NE(o->credentials_source.find("profile 'lake'"), std::string::npos);

  auto d = S3OptionsFromProperties({}, Env({{"HOME", home_.string()}}));
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_EQ(d->credentials.access_key_id, "D");
  EXPECT_EQ(d->region, "us-east-2");
}

TEST_F(S3OptionsTest, ClearErrorsWithoutSecrets) {
  auto half = S3OptionsFromProperties(Props{{"s3.secret-access-key", "SECRETVALUE"}},
                                      Env({{"HOME", home_.string()}}));
  ASSERT_FALSE(half);
  EXPECT_EQ(half.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(half.error().message().find("s3.access-key-id"), std::string::npos);
  EXPECT_EQ(half.error().message().find("SECRETVALUE"), std::string::npos);

  auto none = S3OptionsFromProperties({}, Env({{"HOME", home_.string()}}));
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("no S3 credentials"), std::string::npos);

  auto missing_profile =
      S3OptionsFromProperties({}, Env({{"HOME", home_.string()}, {"AWS_PROFILE", "nope"}}));
  ASSERT_FALSE(missing_profile);
  EXPECT_NE(missing_profile.error().message().find("'nope'"), std::string::npos);

  Props base{{"s3.access-key-id", "k"}, {"s3.secret-access-key", "s"}};
  for (auto [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"s3.path-style-access", "maybe"},
                                                        {"s3.multipart.size", "1024"},
                                                        {"s3.multipart.num-threads", "0"},
                                                        {"s3.endpoint", "ftp://x"},
                                                        {"s3.request-timeout", "-1"}}) {
    Props p = base;
    p[name] = value;
    auto r = S3OptionsFromProperties(p, Env({}));
    ASSERT_FALSE(r) << name;
    EXPECT_NE(r.error().message().find(name), std::string::npos) << r.error().message();
  }
}

TEST(IniTest, Sections) {
  auto ini = ParseIni("a=1\n[s]\n Key = v = w \n;c\n[t] \nx=\n");
  EXPECT_EQ(ini["s"]["key"], "v = w");
  EXPECT_EQ(ini["t"]["x"], "");
  EXPECT_EQ(ini.count(""), 0u);
}

}  // namespace
}  // namespace floe::io::s3
