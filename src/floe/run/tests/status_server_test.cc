#include "floe/run/status_server.h"

#include <string>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

namespace floe::run {
namespace {

TEST(StatusServer, ServesMetricsStatusAndThePageOnLoopback) {
  RunMetrics metrics;
  metrics.SetPipelineName("served");
  TableTally t;
  t.Count(cdc::ChangeOp::kInsert, 1000);
  metrics.PublishHandedOn({{"db.t", t}}, 1, "bin.000001:4", 1000);
  auto server = StatusServer::Start("127.0.0.1", 0, &metrics);
  ASSERT_TRUE(server) << server.error().ToString();
  ASSERT_GT((*server)->port(), 0);

  httplib::Client client("127.0.0.1", (*server)->port());
  auto res = client.Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->get_header_value("Content-Type").find("text/plain"), std::string::npos);
  EXPECT_NE(res->body.find("floe_table_changes_read_total{table=\"db.t\",op=\"insert\"} 1\n"),
            std::string::npos);

  res = client.Get("/status");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  auto j = nlohmann::json::parse(res->body);
  EXPECT_EQ(j["pipeline"], "served");
  EXPECT_TRUE(j["tables"].contains("db.t"));

  res = client.Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find("db.t"), std::string::npos);

  res = client.Get("/nothing");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  res = client.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 405);
}

TEST(StatusServer, AnAddressInUseIsAnErrorNamingIt) {
  RunMetrics metrics;
  auto first = StatusServer::Start("127.0.0.1", 0, &metrics);
  ASSERT_TRUE(first);
  auto second = StatusServer::Start("127.0.0.1", (*first)->port(), &metrics);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), ErrorCode::kIo);
  EXPECT_NE(second.error().message().find("127.0.0.1:" + std::to_string((*first)->port())),
            std::string::npos);
}

}  // namespace
}  // namespace floe::run
