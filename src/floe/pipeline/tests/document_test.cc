// The pipeline file as a tree: positions of values, ${VAR} substitution,
// bounds on hostile input, and --set overrides.

#include "floe/pipeline/document.h"

#include <gtest/gtest.h>

namespace floe::pipeline {
namespace {

Environment Env() { return Environment::FromMap({{"PW", "s3cret"}, {"HOST", "db1"}}); }

TEST(DocumentTest, RemembersLinesAndColumns) {
  auto doc = LoadDocument("source:\n  type: mysql\n  port: 3306\nsink:\n  type: iceberg\n",
                          "p.yaml", Env());
  ASSERT_TRUE(doc) << doc.error().message();
  const DocumentEntry* source = doc->Find("source");
  ASSERT_NE(source, nullptr);
  ASSERT_TRUE(source->value.is_map());
  const DocumentEntry* port = source->value.Find("port");
  ASSERT_NE(port, nullptr);
  EXPECT_EQ(port->value.scalar, "3306");
  EXPECT_EQ(port->key_origin.ToString(), "p.yaml:3:3");
  EXPECT_EQ(port->value.origin.ToString(), "p.yaml:3:9");
}

TEST(DocumentTest, SubstitutesTheEnvironmentInValuesOnly) {
  auto doc =
      LoadDocument("a: ${PW}\nb: x-${HOST}-$${HOST}\n${HOST}: 1\nc: price $5\n", "p.yaml", Env());
  ASSERT_TRUE(doc) << doc.error().message();
  EXPECT_EQ(doc->Find("a")->value.scalar, "s3cret");
  EXPECT_TRUE(doc->Find("a")->value.from_environment);
  EXPECT_EQ(doc->Find("b")->value.scalar, "x-db1-${HOST}");
  EXPECT_NE(doc->Find("${HOST}"), nullptr);
  EXPECT_EQ(doc->Find("c")->value.scalar, "price $5");
  EXPECT_FALSE(doc->Find("c")->value.from_environment);
}

TEST(DocumentTest, AnUnsetVariableIsAnErrorNamingItAndTheLine) {
  auto doc = LoadDocument("source:\n  password: ${MYSQL_PASSWORD}\n", "p.yaml", Env());
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(doc.error().message(),
            "p.yaml:2:13: the environment variable MYSQL_PASSWORD is not set (used as "
            "${MYSQL_PASSWORD})");
  auto unclosed = LoadDocument("a: ${PW\n", "p.yaml", Env());
  ASSERT_FALSE(unclosed);
  EXPECT_NE(unclosed.error().message().find("unclosed"), std::string::npos);
  auto bad_name = LoadDocument("a: ${1X}\n", "p.yaml", Env());
  ASSERT_FALSE(bad_name);
}

TEST(DocumentTest, YamlErrorsNameTheLine) {
  auto doc = LoadDocument("source:\n  type: mysql\n  tables: [a, b\n", "p.yaml", Env());
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(doc.error().message().starts_with("p.yaml:")) << doc.error().message();
  EXPECT_NE(doc.error().message().find("not valid YAML"), std::string::npos);

  auto dup = LoadDocument("a: 1\nb: 2\na: 3\n", "p.yaml", Env());
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().message(), "p.yaml:3:1: key 'a' appears twice (first at line 1)");

  auto list = LoadDocument("- a\n- b\n", "p.yaml", Env());
  ASSERT_FALSE(list);
  EXPECT_NE(list.error().message().find("must be a mapping"), std::string::npos);

  auto empty = LoadDocument("", "p.yaml", Env());
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->is_map());
}

TEST(DocumentTest, RefusesHostileInput) {
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "[";
  for (int i = 0; i < 100; ++i) deep += "]";
  auto nested = LoadDocument("a: " + deep + "\n", "p.yaml", Env());
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message().find("nested deeper than 64 levels"), std::string::npos)
      << nested.error().message();

  std::string big = "a: \"" + std::string(kMaxDocumentBytes, 'x') + "\"\n";
  auto large = LoadDocument(big, "p.yaml", Env());
  ASSERT_FALSE(large);
  EXPECT_NE(large.error().message().find("larger than"), std::string::npos);

  // Nested aliases: each level doubles the values a naive expansion makes.
  std::string laughs = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    laughs += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) laughs += (j ? ", *l" : "*l") + std::to_string(i - 1);
    laughs += "]\n";
  }
  auto bomb = LoadDocument(laughs, "p.yaml", Env());
  ASSERT_FALSE(bomb);
  EXPECT_NE(bomb.error().message().find("more than 100000 values"), std::string::npos)
      << bomb.error().message();
}

TEST(OverrideTest, SetsExistingKeysFlatOrNested) {
  auto doc = LoadDocument(
      "source:\n  port: 3306\n  scan.startup.mode: initial\nsink:\n  catalog: {uri: a}\n"
      "route:\n  - source-table: a.b\n    sink-table: x.y\n",
      "p.yaml", Env());
  ASSERT_TRUE(doc);
  ASSERT_TRUE(ApplyOverride(*doc, "source.port=3307"));
  ASSERT_TRUE(ApplyOverride(*doc, "source.scan.startup.mode=latest-offset"));
  ASSERT_TRUE(ApplyOverride(*doc, "sink.catalog.uri=sqlite:///b.db"));
  ASSERT_TRUE(ApplyOverride(*doc, "route.0.sink-table=z.w"));
  ASSERT_TRUE(ApplyOverride(*doc, "route.1.source-table=c.d"));  // appends a route
  ASSERT_TRUE(ApplyOverride(*doc, "pipeline.parallelism=4"));    // adds the section
  ASSERT_TRUE(ApplyOverride(*doc, "sink.table.properties.write.target-file-size-bytes=1024"));

  const DocumentValue& source = doc->Find("source")->value;
  EXPECT_EQ(source.Find("port")->value.scalar, "3307");
  EXPECT_EQ(source.Find("port")->value.origin.ToString(), "--set source.port=3307");
  EXPECT_EQ(source.Find("scan.startup.mode")->value.scalar, "latest-offset");
  const DocumentValue& sink = doc->Find("sink")->value;
  EXPECT_EQ(sink.Find("catalog")->value.Find("uri")->value.scalar, "sqlite:///b.db");
  EXPECT_EQ(sink.Find("table.properties.write.target-file-size-bytes")->value.scalar, "1024");
  const DocumentValue& routes = doc->Find("route")->value;
  ASSERT_EQ(routes.items.size(), 2u);
  EXPECT_EQ(routes.items[0].Find("sink-table")->value.scalar, "z.w");
  EXPECT_EQ(routes.items[1].Find("source-table")->value.scalar, "c.d");
  EXPECT_EQ(doc->Find("pipeline")->value.Find("parallelism")->value.scalar, "4");
}

TEST(OverrideTest, RefusesMalformedOverrides) {
  auto doc = LoadDocument("route:\n  - source-table: a.b\n", "p.yaml", Env());
  ASSERT_TRUE(doc);
  auto no_eq = ApplyOverride(*doc, "source.port");
  ASSERT_FALSE(no_eq);
  EXPECT_EQ(no_eq.error().message(),
            "--set source.port: expected KEY=VALUE, e.g. source.port=3307");
  EXPECT_FALSE(ApplyOverride(*doc, "=3"));
  EXPECT_FALSE(ApplyOverride(*doc, "source.=3"));
  auto index = ApplyOverride(*doc, "route.5.sink-table=x.y");
  ASSERT_FALSE(index);
  EXPECT_NE(index.error().message().find("out of range"), std::string::npos);
  auto not_index = ApplyOverride(*doc, "route.first.sink-table=x.y");
  ASSERT_FALSE(not_index);
  EXPECT_NE(not_index.error().message().find("not a list index"), std::string::npos);
}

}  // namespace
}  // namespace floe::pipeline
