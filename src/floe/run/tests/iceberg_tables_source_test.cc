#include "floe/run/iceberg_tables_source.h"

#include <gtest/gtest.h>

#include "floe/ingest/tests/test_catalog.h"

namespace floe::run {
namespace {

using types::NestedField;
using types::Type;

class SelectSourceTablesTest : public ::testing::Test {
 protected:
  SelectSourceTablesTest() : catalog_(ingest::testing::MakeHadoopCatalog(dir_ / "warehouse")) {
    ingest::TableResolverOptions o;
    o.route = "{db}.{table}";
    ingest::TableResolver resolver(o, catalog_);
    auto row = std::make_shared<const types::Schema>(
        std::vector<NestedField>{NestedField{1, "id", false, Type::Long(), ""}});
    for (auto [ns, name] : {std::pair{"db", "a"}, {"db", "b"}, {"mirror", "a"}, {"other", "c"}}) {
      bool event_error = false;
      EXPECT_TRUE(resolver.Resolve(ns, name, row, &event_error).has_value());
    }
  }

  /// Every table selected, db.* routed to mirror.* (others keep their names).
  IcebergTablesSourceOptions Options(bool same_catalog, std::string db_route = "mirror") {
    IcebergTablesSourceOptions o;
    o.selector = [](std::string_view, std::string_view) { return true; };
    o.same_catalog = same_catalog;
    o.tables.route_function = [db_route](
                                  std::string_view ns,
                                  std::string_view table) -> Result<iceberg::TableIdentifier> {
      return iceberg::TableIdentifier{{ns == "db" ? db_route : std::string(ns)},
                                      std::string(table)};
    };
    return o;
  }

  static std::vector<std::string> Names(const std::vector<SelectedTable>& tables) {
    std::vector<std::string> out;
    for (const auto& t : tables) out.push_back(t.source.ToString() + ">" + t.sink.ToString());
    std::sort(out.begin(), out.end());
    return out;
  }

  ingest::testing::TempDir dir_;
  std::shared_ptr<iceberg::Catalog> catalog_;
};

TEST_F(SelectSourceTablesTest, OneCatalogNeverReadsThePipelinesDestinations) {
  auto same = SelectSourceTables(*catalog_, Options(true));
  // mirror.a is db.a's destination: not a source. other.c routes onto itself.
  ASSERT_FALSE(same.has_value());
  EXPECT_NE(same.error().message().find("other.c would be read and written"), std::string::npos)
      << same.error().message();

  IcebergTablesSourceOptions o = Options(true);
  o.selector = [](std::string_view ns, std::string_view) { return ns != "other"; };
  auto selected = SelectSourceTables(*catalog_, o);
  ASSERT_TRUE(selected.has_value()) << selected.error().ToString();
  EXPECT_EQ(Names(*selected), (std::vector<std::string>{"db.a>mirror.a", "db.b>mirror.b"}));
}

TEST_F(SelectSourceTablesTest, TwoCatalogsReadEverySelectedTable) {
  auto selected = SelectSourceTables(*catalog_, Options(false));
  ASSERT_TRUE(selected.has_value()) << selected.error().ToString();
  EXPECT_EQ(Names(*selected), (std::vector<std::string>{"db.a>mirror.a", "db.b>mirror.b",
                                                        "mirror.a>mirror.a", "other.c>other.c"}));
}

TEST_F(SelectSourceTablesTest, ARouteOntoItselfInOneCatalogIsRefused) {
  IcebergTablesSourceOptions o = Options(true, "db");
  o.selector = [](std::string_view ns, std::string_view) { return ns == "db"; };
  auto selected = SelectSourceTables(*catalog_, o);
  ASSERT_FALSE(selected.has_value());
  EXPECT_EQ(selected.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(selected.error().message().find("db.a would be read and written"), std::string::npos)
      << selected.error().message();
}

}  // namespace
TEST(IcebergPositionText, RoundTripsEveryOriginAndRefusesOtherText) {
  std::map<std::string, SourceTablePosition> positions{
      {"db.a", {source::PlanOrigin{true, 8123}, 5120}},
      {"db.b", {source::PlanOrigin{false, 77}, 12}},
      {"a.b,c=d", {source::PlanOrigin{false, std::nullopt}, 0}},
  };
  const std::string text = IcebergPositionText(positions);
  EXPECT_NE(text.find(R"("db.a":{"rows":5120,"whole":8123})"), std::string::npos) << text;
  auto parsed = ParseIcebergPositionText(text);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  EXPECT_EQ(*parsed, positions);
  for (std::string_view bad : {"shop[0]:12", R"({"db.a":{"rows":1}})",
                               R"({"db.a":{"after":"x","rows":1}})", R"({"db.a":{"whole":1}})"}) {
    auto refused = ParseIcebergPositionText(bad);
    ASSERT_FALSE(refused.has_value()) << bad;
    EXPECT_EQ(refused.error().code(), ErrorCode::kCorruption);
  }
}

}  // namespace floe::run
