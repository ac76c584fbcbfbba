#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "floe/iceberg/catalog/catalog_config.h"
#include "floe/iceberg/catalog/hadoop_catalog.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/json/metadata_json.h"
#include "floe/testing/small_tables.h"
#include "floe/testing/temp_dir.h"

namespace floe::iceberg {
namespace {

using floe::testing::OneColumnTableMetadata;

enum class Kind { kHadoop, kSql };

class CatalogTest : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override { catalog_ = Open(); }
  void TearDown() override {
    catalog_.reset();  // closes the SQLite file before its folder goes
  }

  std::unique_ptr<Catalog> Open() {
    std::string warehouse = (dir_ / "warehouse").string();
    if (GetParam() == Kind::kHadoop) {
      std::filesystem::create_directories(warehouse);
      return std::make_unique<HadoopCatalog>("default", warehouse, &io_);
    }
    auto sql = SqlCatalog::Open("default", "sqlite:///" + (dir_ / "catalog.db").string(),
                                "file://" + warehouse, &io_);
    EXPECT_TRUE(sql) << sql.error().ToString();
    return std::move(*sql);
  }

  io::LocalFileIO io_;
  floe::testing::TempDir temp_dir_{"catalog_test"};
  std::filesystem::path dir_ = temp_dir_.path();
  std::unique_ptr<Catalog> catalog_;
};

TEST_P(CatalogTest, NamespacesAndTables) {
  ASSERT_TRUE(catalog_->CreateNamespace({"sales"}));
  EXPECT_EQ(catalog_->CreateNamespace({"sales"}).error().code(), ErrorCode::kAlreadyExists);
  auto namespaces = catalog_->ListNamespaces();
  ASSERT_TRUE(namespaces);
  EXPECT_EQ(*namespaces, std::vector<Namespace>{{"sales"}});

  TableIdentifier id{{"sales"}, "orders"};
  auto created = catalog_->CreateTable(id, OneColumnTableMetadata());
  ASSERT_TRUE(created) << created.error().ToString();
  EXPECT_EQ(catalog_->CreateTable(id, OneColumnTableMetadata()).error().code(),
            ErrorCode::kAlreadyExists);
  EXPECT_EQ(catalog_->CreateTable({{"nope"}, "t"}, OneColumnTableMetadata()).error().code(),
            ErrorCode::kNotFound);

  auto tables = catalog_->ListTables({"sales"});
  ASSERT_TRUE(tables);
  ASSERT_EQ(tables->size(), 1u);
  EXPECT_EQ((*tables)[0].name, "orders");
  // A table is not a namespace.
  EXPECT_EQ(catalog_->ListNamespaces({"sales"})->size(), 0u);

  auto loaded = catalog_->LoadTable(id);
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_EQ(loaded->metadata_location, created->metadata_location);
  EXPECT_EQ(loaded->metadata.table_uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1");
  EXPECT_FALSE(loaded->metadata.location.empty());

  EXPECT_EQ(catalog_->DropNamespace({"sales"}).error().code(), ErrorCode::kInvalidArgument);
  ASSERT_TRUE(catalog_->DropTable(id, /*purge=*/true));
  EXPECT_EQ(catalog_->LoadTable(id).error().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(catalog_->DropNamespace({"sales"}));
}

TEST_P(CatalogTest, CommitIsCompareAndSwap) {
  ASSERT_TRUE(catalog_->CreateNamespace({"db"}));
  TableIdentifier id{{"db"}, "t"};
  auto base = catalog_->CreateTable(id, OneColumnTableMetadata());
  ASSERT_TRUE(base);
  TableMetadata next = base->metadata;
  next.properties["k"] = "1";
  auto committed = catalog_->CommitTable(*base, next);
  ASSERT_TRUE(committed) << committed.error().ToString();
  EXPECT_NE(committed->metadata_location, base->metadata_location);
  // A second commit from the same (now stale) base must lose.
  next.properties["k"] = "2";
  auto stale = catalog_->CommitTable(*base, next);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code(), ErrorCode::kCommitConflict);
  EXPECT_EQ(catalog_->LoadTable(id)->metadata.properties.at("k"), "1");
}

TEST_P(CatalogTest, RacingWritersLoseNoCommit) {
  ASSERT_TRUE(catalog_->CreateNamespace({"db"}));
  TableIdentifier id{{"db"}, "race"};
  ASSERT_TRUE(catalog_->CreateTable(id, OneColumnTableMetadata()));
  constexpr int kWriters = 2, kCommits = 25;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      auto catalog = Open();  // its own connection, like another process
      for (int i = 0; i < kCommits; ++i) {
        while (true) {
          auto base = catalog->LoadTable(id);
          ASSERT_TRUE(base) << base.error().ToString();
          TableMetadata next = base->metadata;
          next.properties[fmt::format("w{}-{}", w, i)] = "x";
          auto r = catalog->CommitTable(*base, next);
          if (r) break;
          ASSERT_EQ(r.error().code(), ErrorCode::kCommitConflict) << r.error().ToString();
          ++conflicts;
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  auto final_table = catalog_->LoadTable(id);
  ASSERT_TRUE(final_table);
  EXPECT_EQ(final_table->metadata.properties.size(), static_cast<size_t>(kWriters * kCommits));
}

// Threads sharing one catalog (a committer's commit threads): each commits
// its own tables again and again while others race on one shared table. The
// SQL catalog groups the concurrent swaps into shared transactions; every
// commit must land once, every stale base must lose.
TEST_P(CatalogTest, ThreadsSharingOneCatalogCommitManyTablesAtOnce) {
  ASSERT_TRUE(catalog_->CreateNamespace({"db"}));
  constexpr int kThreads = 8, kTables = 6, kRounds = 5;
  TableIdentifier shared{{"db"}, "shared"};
  ASSERT_TRUE(catalog_->CreateTable(shared, OneColumnTableMetadata()));
  for (int w = 0; w < kThreads; ++w) {
    for (int t = 0; t < kTables; ++t) {
      ASSERT_TRUE(
          catalog_->CreateTable({{"db"}, fmt::format("w{}_t{}", w, t)}, OneColumnTableMetadata()));
    }
  }
  std::atomic<int> stale_won{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kThreads; ++w) {
    threads.emplace_back([&, w] {
      for (int r = 0; r < kRounds; ++r) {
        for (int t = 0; t < kTables; ++t) {
          TableIdentifier id{{"db"}, fmt::format("w{}_t{}", w, t)};
          auto base = catalog_->LoadTable(id);
          ASSERT_TRUE(base) << base.error().ToString();
          TableMetadata next = base->metadata;
          next.properties[fmt::format("r{}", r)] = "x";
          auto committed = catalog_->CommitTable(*base, next);
          ASSERT_TRUE(committed) << committed.error().ToString();
          auto stale = catalog_->CommitTable(*base, next);
          if (stale)
            ++stale_won;
          else
            EXPECT_EQ(stale.error().code(), ErrorCode::kCommitConflict) << stale.error().ToString();
        }
        while (true) {
          auto base = catalog_->LoadTable(shared);
          ASSERT_TRUE(base) << base.error().ToString();
          TableMetadata next = base->metadata;
          next.properties[fmt::format("w{}-{}", w, r)] = "x";
          auto r2 = catalog_->CommitTable(*base, next);
          if (r2) break;
          ASSERT_EQ(r2.error().code(), ErrorCode::kCommitConflict) << r2.error().ToString();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(stale_won.load(), 0);
  EXPECT_EQ(catalog_->LoadTable(shared)->metadata.properties.size(),
            static_cast<size_t>(kThreads * kRounds));
  for (int w = 0; w < kThreads; ++w) {
    for (int t = 0; t < kTables; ++t) {
      auto table = catalog_->LoadTable({{"db"}, fmt::format("w{}_t{}", w, t)});
      ASSERT_TRUE(table);
      EXPECT_EQ(table->metadata.properties.size(), static_cast<size_t>(kRounds));
    }
  }
}

TEST_P(CatalogTest, HostileNamesNeverReachOutsideTheWarehouse) {
  for (const std::string& bad : std::vector<std::string>{"..", ".", "a/b", "a\\b",
                                                         std::string("a\0b", 3), "tab\there", ""}) {
    auto s = catalog_->CreateNamespace({bad});
    ASSERT_FALSE(s) << "accepted namespace '" << bad << "'";
    EXPECT_EQ(s.error().code(), ErrorCode::kInvalidArgument);
    ASSERT_TRUE(catalog_->CreateNamespace({"ok"}) || true);
    auto t = catalog_->CreateTable({{"ok"}, bad}, OneColumnTableMetadata());
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code(), ErrorCode::kInvalidArgument);
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "b"));
  EXPECT_FALSE(TableIdentifier::Parse("../etc.passwd"));
  EXPECT_FALSE(TableIdentifier::Parse("nonamespace"));
  EXPECT_EQ(TableIdentifier::Parse("a.b.c")->ns, (Namespace{"a", "b"}));
}

INSTANTIATE_TEST_SUITE_P(Catalogs, CatalogTest, ::testing::Values(Kind::kHadoop, Kind::kSql),
                         [](const auto& info) {
                           return info.param == Kind::kHadoop ? "Hadoop" : "Sql";
                         });

TEST(SqlCatalogTest, RenameMovesTheTable) {
  auto dir =
      std::filesystem::temp_directory_path() / ("floe_sql_rename_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  io::LocalFileIO io;
  auto catalog =
      SqlCatalog::Open("c", "sqlite:///" + (dir / "c.db").string(), (dir / "w").string(), &io);
  ASSERT_TRUE(catalog);
  ASSERT_TRUE((*catalog)->CreateNamespace({"a"}, {{"owner", "floe"}}));
  ASSERT_TRUE((*catalog)->CreateNamespace({"b"}));
  EXPECT_EQ((*catalog)->LoadNamespaceProperties({"a"})->at("owner"), "floe");
  ASSERT_TRUE((*catalog)->CreateTable({{"a"}, "t"}, OneColumnTableMetadata()));
  ASSERT_TRUE((*catalog)->RenameTable({{"a"}, "t"}, {{"b"}, "u"}));
  EXPECT_FALSE(*(*catalog)->TableExists({{"a"}, "t"}));
  EXPECT_TRUE(*(*catalog)->TableExists({{"b"}, "u"}));
  std::filesystem::remove_all(dir);
}

/// Local files, recording the syncs that reach the file system in order.
class SyncRecordingFileIO final : public io::FileIO {
 public:
  explicit SyncRecordingFileIO(bool supports_sync_files) : supports_(supports_sync_files) {}
  Result<std::unique_ptr<io::InputFile>> OpenInput(std::string_view path) override {
    return local_.OpenInput(path);
  }
  Result<std::unique_ptr<io::OutputFile>> CreateOutput(std::string_view path,
                                                       bool overwrite) override {
    FLOE_ASSIGN_OR_RETURN(auto file, local_.CreateOutput(path, overwrite));
    return std::make_unique<Output>(std::move(file), events);
  }
  Status Delete(std::string_view path) override { return local_.Delete(path); }
  Result<bool> Exists(std::string_view path) override { return local_.Exists(path); }
  Status Rename(std::string_view from, std::string_view to, bool replace) override {
    events.push_back("rename " + std::string(to));
    return local_.Rename(from, to, replace);
  }
  Status RenameUnsynced(std::string_view from, std::string_view to, bool replace) override {
    events.push_back("name " + std::string(to));
    return local_.RenameUnsynced(from, to, replace);
  }
  Result<std::vector<io::FileInfo>> List(std::string_view dir) override { return local_.List(dir); }
  bool SupportsSyncFiles() const override { return supports_; }
  Status SyncFiles(std::span<const std::string> paths) override {
    for (const auto& p : paths) events.push_back("durable " + p);
    return local_.SyncFiles(paths);
  }
  std::vector<std::string> events;

 private:
  class Output final : public io::OutputFile {
   public:
    Output(std::unique_ptr<io::OutputFile> inner, std::vector<std::string>& events)
        : inner_(std::move(inner)), events_(events) {}
    const std::string& path() const override { return inner_->path(); }
    Status Write(std::span<const uint8_t> bytes) override { return inner_->Write(bytes); }
    uint64_t position() const override { return inner_->position(); }
    Status Sync() override {
      events_.push_back("sync " + inner_->path());
      return inner_->Sync();
    }
    Status Close() override { return inner_->Close(); }

   private:
    std::unique_ptr<io::OutputFile> inner_;
    std::vector<std::string>& events_;
  };
  io::LocalFileIO local_;
  bool supports_;
};

// A commit's files (a manifest list written through the catalog's FileIO,
// the new metadata file) are durable before their name and the pointer
// are, made durable together rather than one sync each.
TEST(SqlCatalogTest, ACommitMakesItsFilesDurableTogetherBeforeNamingThem) {
  for (bool supports : {true, false}) {
    SCOPED_TRACE(supports ? "SyncFiles" : "no SyncFiles");
    auto dir = std::filesystem::temp_directory_path() /
               ("floe_sql_durable_" + std::to_string(::getpid()) + (supports ? "_a" : "_b"));
    std::filesystem::remove_all(dir);
    SyncRecordingFileIO io(supports);
    auto catalog =
        SqlCatalog::Open("c", "sqlite:///" + (dir / "c.db").string(), (dir / "w").string(), &io);
    ASSERT_TRUE(catalog);
    ASSERT_TRUE((*catalog)->CreateNamespace({"db"}));
    auto base = (*catalog)->CreateTable({{"db"}, "t"}, OneColumnTableMetadata());
    ASSERT_TRUE(base) << base.error().ToString();
    io.events.clear();

    const std::string list = base->metadata.location + "/metadata/snap-1.avro";
    {
      auto out = (*catalog)->file_io().CreateOutput(list, false);
      ASSERT_TRUE(out);
      ASSERT_TRUE((*out)->Write(std::string_view("manifest list")));
      ASSERT_TRUE((*out)->Sync());
      ASSERT_TRUE((*out)->Close());
    }
    TableMetadata next = base->metadata;
    next.properties["k"] = "1";
    auto committed = (*catalog)->CommitTable(*base, next);
    ASSERT_TRUE(committed) << committed.error().ToString();
    const std::string& location = committed->metadata_location;

    auto at = [&](const std::string& event) {
      return std::find(io.events.begin(), io.events.end(), event) - io.events.begin();
    };
    const auto n = static_cast<long>(io.events.size());
    if (supports) {
      // No file synced on its own: the list and the temporary are made
      // durable in one call, then the metadata file is named, then its folder.
      for (const auto& e : io.events) EXPECT_FALSE(e.starts_with("sync ")) << e;
      ASSERT_LT(at("durable " + list), n);
      ASSERT_LT(at("name " + location), n);
      EXPECT_LT(at("durable " + list), at("name " + location));
      ASSERT_LT(at("durable " + location.substr(0, location.rfind('/'))), n);
      EXPECT_GT(at("durable " + location.substr(0, location.rfind('/'))), at("name " + location));
    } else {
      ASSERT_LT(at("sync " + list), n);
      ASSERT_LT(at("rename " + location), n);
    }
    // The metadata file is whole under its name; no temporary is left.
    auto loaded = (*catalog)->LoadTable({{"db"}, "t"});
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->metadata_location, location);
    EXPECT_EQ(loaded->metadata.properties.at("k"), "1");
    for (const auto& e :
         std::filesystem::directory_iterator(dir / "w" / "db.db" / "t" / "metadata")) {
      EXPECT_FALSE(e.path().filename().string().ends_with(".tmp")) << e.path();
    }
    catalog->reset();
    std::filesystem::remove_all(dir);
  }
}

TEST(CatalogConfigTest, ReadsPyIcebergShapedYamlWithEnvironment) {
  auto dir = std::filesystem::temp_directory_path() / ("floe_cfg_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "floe.yaml").string();
  ::setenv("FLOE_TEST_WAREHOUSE", "/tmp/wh", 1);
  io::LocalFileIO io;
  ASSERT_TRUE(
      io.WriteAtomically(path,
                         "catalog:\n  default:\n    uri: sqlite:///${FLOE_TEST_WAREHOUSE}/c.db\n"
                         "    warehouse: file://${FLOE_TEST_WAREHOUSE}\n  lake:\n    type: hadoop\n"
                         "    warehouse: ${FLOE_TEST_MISSING_VAR}\n"));
  auto config = ReadCatalogConfig(path, "default");
  ASSERT_TRUE(config) << config.error().ToString();
  EXPECT_EQ(config->type, "sql");
  EXPECT_EQ(config->properties.at("uri"), "sqlite:////tmp/wh/c.db");
  auto missing = ReadCatalogConfig(path, "lake");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("FLOE_TEST_MISSING_VAR"), std::string::npos);
  auto unknown = ReadCatalogConfig(path, "other");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("default, lake"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::iceberg
