// Catalog::RegisterTable for the local catalogs: the SQL catalog takes an
// existing metadata file as a table's current metadata (as Iceberg's JDBC
// catalog and PyIceberg's SqlCatalog do); the Hadoop catalog refuses (as
// Iceberg's HadoopCatalog does). The REST catalog's register is in
// rest_catalog_test.cc; tests/interop/iceberg/test_rest_register.py
// registers PyIceberg's tables through `floe table register`.

#include <gtest/gtest.h>

#include <filesystem>

#include "floe/iceberg/catalog/hadoop_catalog.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/json/metadata_json.h"
#include "floe/testing/small_tables.h"
#include "floe/testing/temp_dir.h"

namespace floe::iceberg {
namespace {

using floe::testing::OneColumnTableMetadata;

class RegisterTableTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqlCatalog> OpenSql(const std::string& file) {
    auto sql = SqlCatalog::Open("default", "sqlite:///" + (dir_ / file).string(),
                                (dir_ / "warehouse").string(), &io_);
    EXPECT_TRUE(sql) << sql.error().ToString();
    return sql ? std::move(*sql) : nullptr;
  }

  /// A table of another catalog file with one commit: its latest metadata.
  LoadedTable TableElsewhere() {
    auto other = OpenSql("other.db");
    EXPECT_TRUE(other->CreateNamespace({"src"}));
    auto created = other->CreateTable({{"src"}, "t"}, OneColumnTableMetadata());
    EXPECT_TRUE(created) << created.error().ToString();
    TableMetadata next = created->metadata;
    next.properties["written-by"] = "other";
    auto committed = other->CommitTable(*created, next);
    EXPECT_TRUE(committed) << committed.error().ToString();
    return *committed;
  }

  io::LocalFileIO io_;
  floe::testing::TempDir temp_dir_{"catalog_register_test"};
  std::filesystem::path dir_ = temp_dir_.path();
};

TEST_F(RegisterTableTest, SqlCatalogTakesTheFileAsTheTablesMetadata) {
  LoadedTable source = TableElsewhere();
  auto catalog = OpenSql("catalog.db");
  ASSERT_TRUE(catalog->CreateNamespace({"db"}));
  TableIdentifier id{{"db"}, "copy"};
  auto registered = catalog->RegisterTable(id, source.metadata_location);
  ASSERT_TRUE(registered) << registered.error().ToString();
  EXPECT_EQ(registered->metadata_location, source.metadata_location);
  EXPECT_EQ(registered->metadata.table_uuid, source.metadata.table_uuid);

  auto loaded = catalog->LoadTable(id);
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_EQ(loaded->metadata_location, source.metadata_location);
  EXPECT_EQ(loaded->metadata.properties.at("written-by"), "other");

  // Commits continue from the registered file.
  TableMetadata next = loaded->metadata;
  next.properties["written-by"] = "catalog";
  auto committed = catalog->CommitTable(*loaded, next);
  ASSERT_TRUE(committed) << committed.error().ToString();
  EXPECT_NE(committed->metadata_location, source.metadata_location);
  EXPECT_EQ(catalog->LoadTable(id)->metadata.properties.at("written-by"), "catalog");
}

TEST_F(RegisterTableTest, SqlCatalogRefusals) {
  LoadedTable source = TableElsewhere();
  auto catalog = OpenSql("catalog.db");
  ASSERT_TRUE(catalog->CreateNamespace({"db"}));
  ASSERT_TRUE(catalog->RegisterTable({{"db"}, "copy"}, source.metadata_location));

  auto taken = catalog->RegisterTable({{"db"}, "copy"}, source.metadata_location);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code(), ErrorCode::kAlreadyExists);
  // The same table under a second name would share its files.
  auto shared = catalog->RegisterTable({{"db"}, "second"}, source.metadata_location);
  ASSERT_FALSE(shared);
  EXPECT_EQ(shared.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_NE(shared.error().message().find("already lives at"), std::string::npos)
      << shared.error().message();

  auto no_namespace = catalog->RegisterTable({{"nope"}, "t"}, source.metadata_location);
  ASSERT_FALSE(no_namespace);
  EXPECT_EQ(no_namespace.error().code(), ErrorCode::kNotFound);
  auto no_file = catalog->RegisterTable({{"db"}, "t"}, (dir_ / "missing.metadata.json").string());
  ASSERT_FALSE(no_file);
  EXPECT_EQ(no_file.error().code(), ErrorCode::kNotFound);
  ASSERT_TRUE(io_.WriteAtomically((dir_ / "not.metadata.json").string(), "{\"hello\": 1}"));
  auto not_metadata = catalog->RegisterTable({{"db"}, "t"}, (dir_ / "not.metadata.json").string());
  ASSERT_FALSE(not_metadata);
  EXPECT_EQ(not_metadata.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(not_metadata.error().message().find("registering table db.t"), std::string::npos);
  EXPECT_FALSE(*catalog->TableExists({{"db"}, "t"}));

  // Dropped without purge, the table can be registered again from its file.
  ASSERT_TRUE(catalog->DropTable({{"db"}, "copy"}, /*purge=*/false));
  EXPECT_TRUE(catalog->RegisterTable({{"db"}, "again"}, source.metadata_location));
}

TEST_F(RegisterTableTest, SqlCatalogOverwritePointsAnExistingTableAtTheFile) {
  auto catalog = OpenSql("catalog.db");
  ASSERT_TRUE(catalog->CreateNamespace({"db"}));
  TableIdentifier id{{"db"}, "t"};
  auto created = catalog->CreateTable(id, OneColumnTableMetadata());
  ASSERT_TRUE(created) << created.error().ToString();
  TableMetadata next = created->metadata;
  next.properties["version"] = "2";
  auto committed = catalog->CommitTable(*created, next);
  ASSERT_TRUE(committed) << committed.error().ToString();

  // Back to the first metadata file: refused without overwrite, done with it.
  auto refused = catalog->RegisterTable(id, created->metadata_location);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::kAlreadyExists);
  auto rolled_back = catalog->RegisterTable(id, created->metadata_location, /*overwrite=*/true);
  ASSERT_TRUE(rolled_back) << rolled_back.error().ToString();
  auto loaded = catalog->LoadTable(id);
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_EQ(loaded->metadata_location, created->metadata_location);
  EXPECT_FALSE(loaded->metadata.properties.contains("version"));
  // Commits continue from it; the file it pointed at before stays.
  EXPECT_TRUE(catalog->CommitTable(*loaded, next));
  EXPECT_TRUE(std::filesystem::exists(committed->metadata_location));

  // Overwrite does not let a second name share the table's files ...
  auto shared = catalog->RegisterTable({{"db"}, "u"}, created->metadata_location, true);
  ASSERT_FALSE(shared);
  EXPECT_EQ(shared.error().code(), ErrorCode::kAlreadyExists);
  // ... and registers a table that does not exist yet as usual.
  LoadedTable source = TableElsewhere();
  auto fresh = catalog->RegisterTable({{"db"}, "v"}, source.metadata_location, true);
  ASSERT_TRUE(fresh) << fresh.error().ToString();
  EXPECT_EQ(catalog->LoadTable({{"db"}, "v"})->metadata_location, source.metadata_location);
}

TEST_F(RegisterTableTest, HadoopCatalogRefusesClearly) {
  LoadedTable source = TableElsewhere();
  std::filesystem::create_directories(dir_ / "lake" / "db");
  HadoopCatalog catalog("lake", (dir_ / "lake").string(), &io_);
  auto refused = catalog.RegisterTable({{"db"}, "t"}, source.metadata_location);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(refused.error().message().find("sql or rest catalog"), std::string::npos);
  EXPECT_FALSE(*catalog.TableExists({{"db"}, "t"}));
}

}  // namespace
}  // namespace floe::iceberg
