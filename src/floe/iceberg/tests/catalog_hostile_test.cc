// Catalogs against hostile input and faults: purge deletes only the files a
// table's metadata references, two tables never share a location, a full
// disk never leaves a partial metadata file under its final name, relative
// paths become absolute, secrets stay out of messages, unsupported schemes
// and broken catalog rows are named.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "floe/iceberg/catalog/catalog_config.h"
#include "floe/iceberg/catalog/hadoop_catalog.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/json/metadata_json.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/update/fast_append.h"
#include "floe/testing/small_tables.h"
#include "floe/testing/temp_dir.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;

using floe::testing::OneColumnTableMetadata;

std::set<std::string> FilesUnder(const fs::path& dir) {
  std::set<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.insert(e.path().string());
  }
  return out;
}

void Touch(const fs::path& path, const std::string& text = "x") {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

/// A LocalFileIO whose disk is full for paths containing `full_for`: a write
/// stores only its first half, then fails with "No space left on device",
/// as write(2) does when the disk fills up mid-file.
class FullDiskFileIO final : public io::FileIO {
 public:
  std::string full_for;  // empty: never full
  int failed_writes = 0;

  class Output final : public io::OutputFile {
   public:
    Output(FullDiskFileIO* owner, std::unique_ptr<io::OutputFile> base)
        : owner_(owner), base_(std::move(base)) {}
    const std::string& path() const override { return base_->path(); }
    Status Write(std::span<const uint8_t> bytes) override {
      if (!owner_->full_for.empty() && path().find(owner_->full_for) != std::string::npos) {
        ++owner_->failed_writes;
        (void)base_->Write(bytes.subspan(0, bytes.size() / 2));
        return IoError("writing {}: No space left on device", path());
      }
      return base_->Write(bytes);
    }
    uint64_t position() const override { return base_->position(); }
    Status Sync() override { return base_->Sync(); }
    Status Close() override { return base_->Close(); }

   private:
    FullDiskFileIO* owner_;
    std::unique_ptr<io::OutputFile> base_;
  };

  Result<std::unique_ptr<io::InputFile>> OpenInput(std::string_view path) override {
    return base_.OpenInput(path);
  }
  Result<std::unique_ptr<io::OutputFile>> CreateOutput(std::string_view path,
                                                       bool overwrite = false) override {
    FLOE_ASSIGN_OR_RETURN(auto out, base_.CreateOutput(path, overwrite));
    return std::unique_ptr<io::OutputFile>(std::make_unique<Output>(this, std::move(out)));
  }
  Status Delete(std::string_view path) override { return base_.Delete(path); }
  Result<bool> Exists(std::string_view path) override { return base_.Exists(path); }
  Status Rename(std::string_view from, std::string_view to, bool replace) override {
    return base_.Rename(from, to, replace);
  }
  Result<std::vector<io::FileInfo>> List(std::string_view dir) override { return base_.List(dir); }
  Status DeleteDirectory(std::string_view dir) override { return base_.DeleteDirectory(dir); }

 private:
  io::LocalFileIO base_;
};

class HostileCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir_ / "warehouse"); }

  std::unique_ptr<Catalog> Sql(io::FileIO* file_io = nullptr) {
    auto sql = SqlCatalog::Open("default", "sqlite:///" + (dir_ / "catalog.db").string(),
                                (dir_ / "warehouse").string(), file_io ? file_io : &io_);
    EXPECT_TRUE(sql) << sql.error().ToString();
    return std::move(*sql);
  }
  std::unique_ptr<Catalog> Hadoop(io::FileIO* file_io = nullptr) {
    return std::make_unique<HadoopCatalog>("default", (dir_ / "warehouse").string(),
                                           file_io ? file_io : &io_);
  }

  /// Appends a (fake) data file at `path` to `id`; returns the new metadata location.
  void Append(Catalog& catalog, const TableIdentifier& id, const fs::path& path) {
    Touch(path);
    auto table = Table::Load(catalog, id);
    ASSERT_TRUE(table) << table.error().ToString();
    DataFile f;
    f.file_path = path.string();
    f.record_count = 1;
    f.file_size_in_bytes = 1;
    auto append = table->NewAppend();
    append->AppendFile(f);
    auto s = append->Commit();
    ASSERT_TRUE(s) << s.error().ToString();
  }

  io::LocalFileIO io_;
  floe::testing::TempDir temp_dir_{"catalog_hostile"};
  fs::path dir_ = temp_dir_.path();
};

// D2: two tables at one location: the second is refused; purging deletes
// only the files the table's metadata references, never a stranger's.
TEST_F(HostileCatalogTest, PurgeDeletesOnlyReferencedFilesAndLocationsAreNotShared) {
  auto catalog = Sql();
  ASSERT_TRUE(catalog->CreateNamespace({"ns"}));
  const fs::path shared = dir_ / "shared";
  TableIdentifier a{{"ns"}, "a"}, b{{"ns"}, "b"};
  ASSERT_TRUE(catalog->CreateTable(a, OneColumnTableMetadata(shared.string())));
  auto second = catalog->CreateTable(b, OneColumnTableMetadata(shared.string()));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_NE(second.error().message().find("already holds"), std::string::npos);
  // The same refusal from the Hadoop catalog for a location a SQL table uses.
  auto hadoop = std::make_unique<HadoopCatalog>("h", dir_.string(), &io_);
  fs::create_directories(dir_ / "x");
  auto clash = hadoop->CreateTable({{"x"}, "y"}, OneColumnTableMetadata());
  ASSERT_TRUE(clash) << clash.error().ToString();  // a different folder is fine

  Append(*catalog, a, shared / "data" / "a-1.parquet");
  Append(*catalog, a, shared / "data" / "a-2.parquet");
  Touch(shared / "data" / "stranger.parquet");
  Touch(shared / "metadata" / "notes.txt");
  Touch(shared / "README");
  auto purged = DropAndPurgeTable(*catalog, a);
  ASSERT_TRUE(purged) << purged.error().ToString();
  EXPECT_TRUE(purged->errors.empty());
  EXPECT_TRUE(purged->skipped_outside_location.empty());
  // 2 data files, 2 manifests, 2 manifest lists, 3 metadata files.
  EXPECT_EQ(purged->deleted_files, 9);
  EXPECT_EQ(FilesUnder(shared),
            (std::set<std::string>{(shared / "data" / "stranger.parquet").string(),
                                   (shared / "metadata" / "notes.txt").string(),
                                   (shared / "README").string()}));
  EXPECT_FALSE(*catalog->TableExists(a));
}

// D2: a Hadoop table whose metadata `location` was edited to point at a
// foreign folder: purge must not touch that folder.
TEST_F(HostileCatalogTest, PurgeOfEditedHadoopLocationSparesTheForeignFolder) {
  auto catalog = Hadoop();
  ASSERT_TRUE(catalog->CreateNamespace({"ns"}));
  TableIdentifier id{{"ns"}, "t"};
  ASSERT_TRUE(catalog->CreateTable(id, OneColumnTableMetadata()));
  const fs::path table_dir = dir_ / "warehouse" / "ns" / "t";
  Append(*catalog, id, table_dir / "data" / "f.parquet");
  const fs::path foreign = dir_ / "foreign";
  Touch(foreign / "data" / "precious.parquet");
  Touch(foreign / "metadata" / "v1.metadata.json", "{}");
  // Edit the newest version file's location by hand.
  auto loaded = catalog->LoadTable(id);
  ASSERT_TRUE(loaded);
  TableMetadata edited = loaded->metadata;
  edited.location = foreign.string();
  fs::remove(loaded->metadata_location);
  ASSERT_TRUE(WriteTableMetadata(io_, loaded->metadata_location, edited));

  auto purged = DropAndPurgeTable(*catalog, id);
  ASSERT_TRUE(purged) << purged.error().ToString();
  EXPECT_TRUE(fs::exists(foreign / "data" / "precious.parquet"));
  EXPECT_TRUE(fs::exists(foreign / "metadata" / "v1.metadata.json"));
  // The table's own files are now outside its (edited) location: left, and reported.
  EXPECT_FALSE(purged->skipped_outside_location.empty());
  EXPECT_TRUE(fs::exists(table_dir / "data" / "f.parquet"));
  EXPECT_FALSE(*catalog->TableExists(id));

  // With the opt-in, referenced files outside the location go too.
  ASSERT_TRUE(catalog->CreateTable(id, OneColumnTableMetadata()));
  Append(*catalog, id, dir_ / "elsewhere" / "g.parquet");
  PurgeOptions everything;
  everything.delete_outside_location = true;
  auto all = DropAndPurgeTable(*catalog, id, everything);
  ASSERT_TRUE(all) << all.error().ToString();
  EXPECT_FALSE(fs::exists(dir_ / "elsewhere" / "g.parquet"));
}

// D3: the disk fills up while a table's first metadata file is written: no
// partial file under the final name; the table does not exist and can be
// created once there is space.
TEST_F(HostileCatalogTest, DiskFullDuringCreateLeavesNoTable) {
  for (bool sql : {false, true}) {
    SCOPED_TRACE(sql ? "sql" : "hadoop");
    fs::remove_all(dir_ / "warehouse");
    fs::remove(dir_ / "catalog.db");
    FullDiskFileIO full;
    auto catalog = sql ? Sql(&full) : Hadoop(&full);
    ASSERT_TRUE(catalog->CreateNamespace({"ns"}));
    TableIdentifier id{{"ns"}, "t"};
    full.full_for = ".metadata.json";
    auto created = catalog->CreateTable(id, OneColumnTableMetadata());
    ASSERT_FALSE(created);
    EXPECT_GT(full.failed_writes, 0);
    EXPECT_NE(created.error().message().find("No space left"), std::string::npos);
    for (const auto& f : FilesUnder(dir_ / "warehouse")) {
      EXPECT_FALSE(f.ends_with(".metadata.json")) << f;
    }
    EXPECT_FALSE(*catalog->TableExists(id));
    EXPECT_EQ(catalog->LoadTable(id).error().code(), ErrorCode::kNotFound);
    full.full_for.clear();
    auto again = catalog->CreateTable(id, OneColumnTableMetadata());
    ASSERT_TRUE(again) << again.error().ToString();
    ASSERT_TRUE(catalog->LoadTable(id));
  }
}

// D3: the version hint cannot be written after v1 was: the table exists,
// so create reports success.
TEST_F(HostileCatalogTest, HadoopCreateSucceedsWhenOnlyTheHintFails) {
  FullDiskFileIO full;
  auto catalog = Hadoop(&full);
  ASSERT_TRUE(catalog->CreateNamespace({"ns"}));
  full.full_for = "version-hint";
  auto created = catalog->CreateTable({{"ns"}, "t"}, OneColumnTableMetadata());
  ASSERT_TRUE(created) << created.error().ToString();
  EXPECT_GT(full.failed_writes, 0);
  full.full_for.clear();
  ASSERT_TRUE(catalog->LoadTable({{"ns"}, "t"}));
}

// D3: a commit whose metadata write hits a full disk is a plain failure
// (not "state unknown"), leaves no partial version file, and the next one works.
TEST_F(HostileCatalogTest, DiskFullDuringHadoopCommitPublishesNothing) {
  FullDiskFileIO full;
  auto catalog = Hadoop(&full);
  ASSERT_TRUE(catalog->CreateNamespace({"ns"}));
  auto base = catalog->CreateTable({{"ns"}, "t"}, OneColumnTableMetadata());
  ASSERT_TRUE(base);
  TableMetadata next = base->metadata;
  next.properties["k"] = "v";
  full.full_for = ".metadata.json";
  auto failed = catalog->CommitTable(*base, next);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code(), ErrorCode::kIo) << failed.error().ToString();
  EXPECT_FALSE(fs::exists(dir_ / "warehouse" / "ns" / "t" / "metadata" / "v2.metadata.json"));
  full.full_for.clear();
  ASSERT_TRUE(catalog->CommitTable(*base, next));
  EXPECT_EQ(catalog->LoadTable({{"ns"}, "t"})->metadata.properties.at("k"), "v");
}

// D3: an empty v1.metadata.json left by an older writer that wrote in place
// does not make a table, and does not block creating one.
TEST_F(HostileCatalogTest, EmptyVersionFileLeftoverIsNotATable) {
  auto catalog = Hadoop();
  ASSERT_TRUE(catalog->CreateNamespace({"ns"}));
  const fs::path metadata = dir_ / "warehouse" / "ns" / "t" / "metadata";
  Touch(metadata / "v1.metadata.json", "");
  TableIdentifier id{{"ns"}, "t"};
  EXPECT_FALSE(*catalog->TableExists(id));
  EXPECT_EQ(catalog->LoadTable(id).error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(catalog->ListTables({"ns"})->size(), 0u);
  auto created = catalog->CreateTable(id, OneColumnTableMetadata());
  ASSERT_TRUE(created) << created.error().ToString();
  EXPECT_GT(fs::file_size(metadata / "v1.metadata.json"), 0u);
  // An empty v2 left by an interrupted commit: v1 stays current, the next commit works.
  Touch(metadata / "v2.metadata.json", "");
  auto loaded = catalog->LoadTable(id);
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_TRUE(loaded->metadata_location.ends_with("v1.metadata.json"));
  TableMetadata next = loaded->metadata;
  next.properties["k"] = "v";
  ASSERT_TRUE(catalog->CommitTable(*loaded, next));
  EXPECT_EQ(catalog->LoadTable(id)->metadata.properties.at("k"), "v");
}

// U3: a version hint that names a missing version is named in the error; one
// that is not a number falls back to the newest version file.
TEST_F(HostileCatalogTest, BadVersionHintIsNamed) {
  auto catalog = Hadoop();
  ASSERT_TRUE(catalog->CreateNamespace({"ns"}));
  TableIdentifier id{{"ns"}, "t"};
  ASSERT_TRUE(catalog->CreateTable(id, OneColumnTableMetadata()));
  const fs::path hint = dir_ / "warehouse" / "ns" / "t" / "metadata" / "version-hint.text";
  Touch(hint, "99");
  auto missing = catalog->LoadTable(id);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(missing.error().message().find(hint.string()), std::string::npos)
      << missing.error().message();
  EXPECT_NE(missing.error().message().find("v99.metadata.json"), std::string::npos);
  Touch(hint, "garbage");
  ASSERT_TRUE(catalog->LoadTable(id));
}

// A Hadoop drop interrupted at any point leaves the table at its current
// version or no table, never one that can be neither loaded nor created.
TEST_F(HostileCatalogTest, InterruptedHadoopDropLeavesNoStuckTable) {
  auto catalog = Hadoop();
  ASSERT_TRUE(catalog->CreateNamespace({"ns"}));
  TableIdentifier id{{"ns"}, "t"};
  auto base = catalog->CreateTable(id, OneColumnTableMetadata());
  ASSERT_TRUE(base);
  for (int i = 0; i < 2; ++i) {
    TableMetadata next = base->metadata;
    next.properties["k"] = std::to_string(i);
    auto committed = catalog->CommitTable(*base, next);
    ASSERT_TRUE(committed) << committed.error().ToString();
    base = std::move(committed);
  }
  const fs::path metadata = dir_ / "warehouse" / "ns" / "t" / "metadata";
  // Killed after the hint and v1 went (the order drop uses): still the table at v3.
  fs::remove(metadata / "version-hint.text");
  fs::remove(metadata / "v1.metadata.json");
  auto loaded = catalog->LoadTable(id);
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_TRUE(loaded->metadata_location.ends_with("v3.metadata.json"));
  // An older floe's order: every version file gone, the hint left: no table.
  Touch(metadata / "version-hint.text", "3");
  fs::remove(metadata / "v2.metadata.json");
  fs::remove(metadata / "v3.metadata.json");
  EXPECT_FALSE(*catalog->TableExists(id));
  EXPECT_EQ(catalog->LoadTable(id).error().code(), ErrorCode::kNotFound);
  auto created = catalog->CreateTable(id, OneColumnTableMetadata());
  ASSERT_TRUE(created) << created.error().ToString();
  ASSERT_TRUE(catalog->DropTable(id, /*purge=*/false));
  EXPECT_FALSE(fs::exists(metadata / "version-hint.text"));
  EXPECT_FALSE(*catalog->TableExists(id));
}

// A SQL create killed after its metadata file appeared but before its row
// was inserted leaves a first metadata file no row names: it does not block
// creating the table again.
TEST_F(HostileCatalogTest, OrphanFirstMetadataFileDoesNotBlockCreate) {
  auto catalog = Sql();
  ASSERT_TRUE(catalog->CreateNamespace({"ns"}));
  TableIdentifier id{{"ns"}, "t"};
  const std::string location = catalog->DefaultTableLocation(id);
  ASSERT_TRUE(WriteNewMetadataFile(io_, NextMetadataLocation(location, ""),
                                   OneColumnTableMetadata(location)));
  auto created = catalog->CreateTable(id, OneColumnTableMetadata());
  ASSERT_TRUE(created) << created.error().ToString();
  EXPECT_EQ(created->metadata.location, location);
  // A location with a committed table's metadata is still refused.
  Append(*catalog, id, fs::path(location) / "data" / "f.parquet");
  auto hadoop = std::make_unique<HadoopCatalog>("h", (dir_ / "warehouse").string(), &io_);
  fs::create_directories(dir_ / "warehouse" / "ns.db");
  auto clash = hadoop->CreateTable({{"ns.db"}, "t"}, OneColumnTableMetadata());
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code(), ErrorCode::kAlreadyExists);
}

// U2: a catalog row without a metadata location says so, and can be dropped.
TEST_F(HostileCatalogTest, SqlRowWithoutMetadataLocationIsNamed) {
  auto catalog = Sql();
  ASSERT_TRUE(catalog->CreateNamespace({"ns"}));
  TableIdentifier id{{"ns"}, "t"};
  ASSERT_TRUE(catalog->CreateTable(id, OneColumnTableMetadata()));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ / "catalog.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE iceberg_tables SET metadata_location = NULL", nullptr, nullptr,
                         nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto loaded = catalog->LoadTable(id);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(loaded.error().message().find("ns.t"), std::string::npos);
  EXPECT_NE(loaded.error().message().find("no metadata_location"), std::string::npos)
      << loaded.error().message();
  ASSERT_TRUE(catalog->DropTable(id, /*purge=*/false));
  EXPECT_FALSE(*catalog->TableExists(id));
}

// D6, U7: relative warehouses and sqlite files are resolved against the
// config file's folder, and table metadata holds absolute locations, from
// whatever folder the command runs.
TEST_F(HostileCatalogTest, RelativePathsResolveAgainstTheConfigFolder) {
  const fs::path config_dir = dir_ / "conf";
  fs::create_directories(config_dir);
  const std::string config_path = (config_dir / "floe.yaml").string();
  ASSERT_TRUE(io_.WriteAtomically(config_path,
                                  "catalog:\n  default:\n    type: sql\n"
                                  "    uri: sqlite:///cat.db\n    warehouse: ./wh\n"
                                  "  lake:\n    type: hadoop\n    warehouse: ./lake\n"));
  const fs::path cwd = fs::current_path();
  fs::create_directories(dir_ / "elsewhere");
  fs::current_path(dir_ / "elsewhere");
  for (const char* name : {"default", "lake"}) {
    SCOPED_TRACE(name);
    auto config = ReadCatalogConfig(config_path, name);
    ASSERT_TRUE(config) << config.error().ToString();
    auto catalog = OpenCatalog(*config, &io_);
    ASSERT_TRUE(catalog) << catalog.error().ToString();
    ASSERT_TRUE((*catalog)->CreateNamespace({"ns"}));
    auto created = (*catalog)->CreateTable({{"ns"}, "t"}, OneColumnTableMetadata());
    ASSERT_TRUE(created) << created.error().ToString();
    EXPECT_TRUE(created->metadata.location.starts_with(config_dir.string() + "/"))
        << created->metadata.location;
    EXPECT_TRUE(created->metadata_location.starts_with(config_dir.string() + "/"))
        << created->metadata_location;
  }
  EXPECT_TRUE(fs::exists(config_dir / "cat.db"));
  EXPECT_FALSE(fs::exists(dir_ / "elsewhere" / "cat.db"));
  EXPECT_TRUE(FilesUnder(dir_ / "elsewhere").empty());
  // A relative hadoop warehouse given directly is made absolute too.
  HadoopCatalog direct("d", "rel-lake", &io_);
  ASSERT_TRUE(direct.CreateNamespace({"ns"}));
  auto t = direct.CreateTable({{"ns"}, "t"}, OneColumnTableMetadata());
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ(t->metadata.location, (dir_ / "elsewhere" / "rel-lake" / "ns" / "t").string());
  fs::current_path(cwd);
}

// S2: credentials in a catalog uri never reach a message.
TEST_F(HostileCatalogTest, SecretsInUrisAreRedacted) {
  ::setenv("FLOE_TEST_SECRET", "TopSecret123", 1);
  CatalogConfig config;
  config.name = "default";
  config.type = "sql";
  config.properties = {
      {"uri", "postgresql://floe:TopSecret123@db.example:5432/cat?sslmode=require"},
      {"warehouse", (dir_ / "warehouse").string()}};
  auto opened = OpenCatalog(config, &io_);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().ToString().find("TopSecret123"), std::string::npos)
      << opened.error().ToString();
  EXPECT_NE(opened.error().ToString().find("floe:***@db.example"), std::string::npos);
  config.properties["uri"] = "sqlite://host/x.db?password=TopSecret123&mode=ro";
  opened = OpenCatalog(config, &io_);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().ToString().find("TopSecret123"), std::string::npos)
      << opened.error().ToString();
  config.type = "hadoop";
  config.properties["warehouse"] = "s3://AKIA:TopSecret123@bucket/wh";
  opened = OpenCatalog(config, &io_);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().ToString().find("TopSecret123"), std::string::npos);
}

// S3: a sql catalog without a warehouse does not put tables under "/".
TEST_F(HostileCatalogTest, SqlCatalogWithoutWarehouseRefusesToPlaceTables) {
  CatalogConfig config;
  config.name = "default";
  config.type = "sql";
  config.properties = {{"uri", "sqlite:///" + (dir_ / "catalog.db").string()}};
  auto opened = OpenCatalog(config, &io_);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(opened.error().message().find("warehouse"), std::string::npos);
  // The library refuses too, when opened without one.
  auto sql = SqlCatalog::Open("default", "sqlite:///" + (dir_ / "catalog.db").string(), "", &io_);
  ASSERT_TRUE(sql);
  ASSERT_TRUE((*sql)->CreateNamespace({"ns"}));
  EXPECT_EQ((*sql)->DefaultTableLocation({{"ns"}, "t"}), "");
  auto created = (*sql)->CreateTable({{"ns"}, "t"}, OneColumnTableMetadata());
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists("/ns.db"));
}

// S4: a hadoop catalog on s3:// and warehouses of schemes floe has no
// storage for are refused by name, never made a local folder.
TEST_F(HostileCatalogTest, UnsupportedWarehouseSchemeIsNamed) {
  CatalogConfig config;
  config.name = "lake";
  config.type = "hadoop";
  config.properties = {{"warehouse", "s3://bucket/wh"}};
  auto opened = OpenCatalog(config, &io_);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(opened.error().message().find("hadoop catalog cannot live on S3"), std::string::npos);
  config.properties = {{"warehouse", "gs://bucket/wh"}};
  opened = OpenCatalog(config, &io_);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(opened.error().message().find("scheme 'gs' not supported"), std::string::npos);
  config.type = "sql";
  config.properties["uri"] = "sqlite:///" + (dir_ / "catalog.db").string();
  opened = OpenCatalog(config, &io_);
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message().find("scheme 'gs' not supported"), std::string::npos);
  HadoopCatalog direct("d", "s3://bucket/wh", &io_);
  auto ns = direct.CreateNamespace({"ns"});
  ASSERT_FALSE(ns);
  EXPECT_NE(ns.error().message().find("scheme 's3' not supported"), std::string::npos);
  EXPECT_FALSE(fs::exists("s3:"));
}

// A sql catalog may keep its tables on S3: opening needs no S3 settings (the
// S3 client is made at the first s3:// path), and new tables go under the
// warehouse URI.
TEST_F(HostileCatalogTest, SqlCatalogWithS3WarehousePlacesTablesThere) {
  CatalogConfig config;
  config.name = "lake";
  config.type = "sql";
  config.properties = {{"uri", "sqlite:///" + (dir_ / "catalog.db").string()},
                       {"warehouse", "s3://bucket/wh/"}};
  auto file_io = MakeCatalogFileIO(config);
  auto opened = OpenCatalog(config, file_io.get());
  ASSERT_TRUE(opened) << opened.error().ToString();
  ASSERT_TRUE((*opened)->CreateNamespace({"ns"}));
  EXPECT_EQ((*opened)->DefaultTableLocation({{"ns"}, "t"}), "s3://bucket/wh/ns.db/t");
  EXPECT_FALSE(fs::exists("s3:"));
}

// C6, C7: configs that are not maps, or not files, are clear errors.
TEST_F(HostileCatalogTest, HostileConfigsAreErrorsNotCrashes) {
  for (const std::string text :
       {"hello\n", "", "- a\n- b\n", "catalog: 5\n", "catalog:\n  default: 5\n",
        "catalog:\n  ? [a]\n  : {type: sql}\n", "catalog:\n  default:\n    ? [k]\n    : v\n",
        "catalog:\n  default:\n    type: [a]\n", "{{{{", "catalog: [\n", "\xff\xfe\x00",
        "catalog:\n  default:\n    uri: ${UNCLOSED\n", "catalog:\n  default:\n    type: !x\n"}) {
    auto config = ParseCatalogConfig(text, "c.yaml", "default");
    ASSERT_FALSE(config) << text;
    EXPECT_NE(config.error().message().find("c.yaml"), std::string::npos)
        << config.error().message();
  }
  std::string deep = "catalog:\n  default: " + std::string(5000, '[') + std::string(5000, ']');
  EXPECT_FALSE(ParseCatalogConfig(deep, "deep.yaml", "default"));
  const std::string folder = (dir_ / "a-folder").string();
  fs::create_directories(folder);
  auto dir_config = ReadCatalogConfig(folder, "default");
  ASSERT_FALSE(dir_config);
  EXPECT_NE(dir_config.error().message().find("folder"), std::string::npos)
      << dir_config.error().message();
}

}  // namespace
}  // namespace floe::iceberg
