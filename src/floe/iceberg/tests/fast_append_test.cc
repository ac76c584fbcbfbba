// FastAppend, the commit loop (conflicts between two Table handles, retries
// and their limit) and transactions.

#include "floe/iceberg/update/fast_append.h"

#include "floe/iceberg/tests/producer_test_util.h"
#include "floe/iceberg/update/transaction.h"

namespace floe::iceberg::testing {
namespace {

TEST_F(ProducerTest, AppendAddsSnapshotsWithTotalsAndSequenceNumbers) {
  Table table = CreateTable();
  auto a = table.NewAppend();
  a->AppendFile(MakeFile("a", 10)).AppendFile(MakeFile("b", 5));
  FLOE_ASSERT_OK(a->Commit());
  const Snapshot* s1 = table.metadata().CurrentSnapshot();
  ASSERT_NE(s1, nullptr);
  EXPECT_EQ(s1->snapshot_id, a->snapshot_id());
  EXPECT_EQ(s1->operation, "append");
  EXPECT_EQ(s1->sequence_number, 1);
  const SnapshotId s1_id = s1->snapshot_id;
  EXPECT_EQ(Total(table, summary::kTotalRecords), 15);
  EXPECT_EQ(Total(table, summary::kTotalDataFiles), 2);

  auto b = table.NewAppend();
  b->AppendFile(MakeFile("c", 7));
  FLOE_ASSERT_OK(b->Commit());
  const Snapshot* s2 = table.metadata().CurrentSnapshot();
  EXPECT_EQ(s2->parent_snapshot_id, s1_id);
  EXPECT_EQ(s2->sequence_number, 2);
  EXPECT_EQ(Total(table, summary::kTotalRecords), 22);
  EXPECT_EQ(Total(table, summary::kTotalDataFiles), 3);
  EXPECT_EQ(Total(table, summary::kAddedRecords), 7);

  // Reloaded from the catalog: the same files, with inherited sequence numbers.
  Table reloaded = Reload();
  std::map<std::string, int64_t> seq;
  for (const auto& f : Live(reloaded)) {
    seq[std::filesystem::path(f.entry.data_file.file_path).stem()] = *f.entry.sequence_number;
    EXPECT_EQ(f.entry.file_sequence_number, f.entry.sequence_number);
  }
  EXPECT_EQ(seq, (std::map<std::string, int64_t>{{"a", 1}, {"b", 1}, {"c", 2}}));
}

TEST_F(ProducerTest, AHandleCarriesOverTheManifestsOfItsOwnCommitWithoutReadingTheList) {
  Table table = CreateTable();
  auto a = table.NewAppend();
  a->AppendFile(MakeFile("a", 10)).AppendFile(MakeFile("b", 5));
  FLOE_ASSERT_OK(a->Commit());
  // The handle knows the list it wrote: the next commit does not read it
  // (removed here to prove it), and carries its manifests over as they are.
  const std::string first_list = table.metadata().CurrentSnapshot()->manifest_list;
  ASSERT_NE(table.KnownManifests(first_list), nullptr);
  auto before = ReadManifestList(io_, first_list, table.metadata().format_version);
  FLOE_ASSERT_OK(before);
  EXPECT_TRUE(*table.KnownManifests(first_list) == *before);
  ASSERT_TRUE(std::filesystem::remove(io::LocalPath(first_list)));
  auto b = table.NewAppend();
  b->AppendFile(MakeFile("c", 7));
  FLOE_ASSERT_OK(b->Commit());
  EXPECT_EQ(LivePaths(Reload()),
            (std::set<std::string>{MakeFile("a", 1).file_path, MakeFile("b", 1).file_path,
                                   MakeFile("c", 1).file_path}));
  EXPECT_EQ(Total(table, summary::kTotalRecords), 22);

  // A handle loaded from the catalog knows no list: it reads them.
  Table other = Reload();
  EXPECT_EQ(other.KnownManifests(first_list), nullptr);
  EXPECT_EQ(other.KnownManifests(other.metadata().CurrentSnapshot()->manifest_list), nullptr);
}

TEST_F(ProducerTest, ConcurrentAppendsFromTwoHandlesBothLand) {
  for (bool sql : {false, true}) {
    if (sql) {
      UseSqlCatalog();
    }
    Table first = CreateTable("", {{"commit.retry.min-wait-ms", "1"}});
    Table second = Reload();  // a stale handle once `first` commits
    auto a = first.NewAppend();
    a->AppendFile(MakeFile("first", 3));
    FLOE_ASSERT_OK(a->Commit());
    auto b = second.NewAppend();
    b->AppendFile(MakeFile("second", 4));
    FLOE_ASSERT_OK(b->Commit());  // conflict, reload, retry
    Table now = Reload();
    EXPECT_EQ(now.metadata().snapshots.size(), 2u);
    EXPECT_EQ(now.metadata().CurrentSnapshot()->parent_snapshot_id, a->snapshot_id());
    EXPECT_EQ(now.metadata().CurrentSnapshot()->sequence_number, 2);
    EXPECT_EQ(LivePaths(now).size(), 2u);
    EXPECT_EQ(Total(now, summary::kTotalRecords), 7);
    if (!sql) ASSERT_TRUE(catalog_->DropTable({{"ns"}, "t"}, true));
  }
}

TEST_F(ProducerTest, RetriesAreLimitedByCommitRetryNumRetries) {
  Table first = CreateTable("", {{"commit.retry.num-retries", "0"}});
  Table stale = Reload();
  auto a = first.NewAppend();
  a->AppendFile(MakeFile("first", 1));
  FLOE_ASSERT_OK(a->Commit());
  auto b = stale.NewAppend();
  b->AppendFile(MakeFile("second", 1));
  auto s = b->Commit();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kCommitConflict) << s.error().ToString();
  // The loser's manifests were cleaned up; the table has the winner only.
  Table now = Reload();
  EXPECT_EQ(LivePaths(now).size(), 1u);
  size_t manifests = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "warehouse/ns/t/metadata")) {
    if (e.path().extension() == ".avro") ++manifests;
  }
  EXPECT_EQ(manifests, 2u);  // the winner's manifest and manifest list
}

// A catalog whose commits reach the server twice, as when a transport or a
// proxy sends a request again: the first delivery is applied, the second
// conflicts with it, and the conflict is the answer the writer gets.
class TwiceDeliveredCatalog final : public Catalog {
 public:
  explicit TwiceDeliveredCatalog(Catalog* inner) : inner_(inner) {}
  const std::string& name() const override { return inner_->name(); }
  io::FileIO& file_io() override { return inner_->file_io(); }
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    return inner_->ListNamespaces(parent);
  }
  Status CreateNamespace(const Namespace& ns, const Properties& properties) override {
    return inner_->CreateNamespace(ns, properties);
  }
  Result<Properties> LoadNamespaceProperties(const Namespace& ns) override {
    return inner_->LoadNamespaceProperties(ns);
  }
  Status UpdateNamespaceProperties(const Namespace& ns, const std::vector<std::string>& removals,
                                   const Properties& updates) override {
    return inner_->UpdateNamespaceProperties(ns, removals, updates);
  }
  Status DropNamespace(const Namespace& ns) override { return inner_->DropNamespace(ns); }
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    return inner_->ListTables(ns);
  }
  Result<bool> TableExists(const TableIdentifier& id) override { return inner_->TableExists(id); }
  Result<LoadedTable> CreateTable(const TableIdentifier& id, TableMetadata metadata) override {
    return inner_->CreateTable(id, std::move(metadata));
  }
  Result<LoadedTable> LoadTable(const TableIdentifier& id) override {
    return inner_->LoadTable(id);
  }
  Result<LoadedTable> CommitTable(const LoadedTable& base, TableMetadata updated) override {
    auto first = inner_->CommitTable(base, updated);
    if (!first) return first;
    ++deliveries;
    return inner_->CommitTable(base, std::move(updated));  // conflicts: main moved
  }
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override {
    return inner_->RenameTable(from, to);
  }
  Status DropTable(const TableIdentifier& id, bool purge) override {
    return inner_->DropTable(id, purge);
  }
  std::string DefaultTableLocation(const TableIdentifier& id) override {
    return inner_->DefaultTableLocation(id);
  }
  int deliveries = 0;

 private:
  Catalog* inner_;
};

TEST_F(ProducerTest, ACommitDeliveredTwiceIsCommittedOnce) {
  for (bool sql : {false, true}) {
    SCOPED_TRACE(sql ? "sql catalog" : "hadoop catalog");
    if (sql) UseSqlCatalog();
    Table created = CreateTable();
    TwiceDeliveredCatalog twice(catalog_.get());
    Table table(&twice, created.loaded());
    auto append = table.NewAppend();
    append->AppendFile(MakeFile("once", 5));
    FLOE_ASSERT_OK(append->Commit());
    EXPECT_EQ(twice.deliveries, 1);
    Table now = Reload();
    ASSERT_NE(now.metadata().CurrentSnapshot(), nullptr);
    EXPECT_EQ(now.metadata().snapshots.size(), 1u);
    EXPECT_EQ(Total(now, summary::kTotalRecords), 5);
    EXPECT_EQ(LivePaths(now).size(), 1u);
    // The winner's manifests were kept.
    EXPECT_EQ(Live(now).size(), 1u);
    if (!sql) ASSERT_TRUE(catalog_->DropTable({{"ns"}, "t"}, true));
  }
}

TEST_F(ProducerTest, TransactionCommitsSchemaChangeAndAppendAtomically) {
  Table table = CreateTable();
  const auto before_location = table.metadata_location();
  auto txn = table.NewTransaction();
  txn->UpdateSchema().Change([](UpdateSchema& u) { u.AddColumn("email", types::Type::String()); });
  txn->NewAppend().AppendFile(MakeFile("a", 2));
  txn->UpdateProperties().Set("floe.offset", "42");
  FLOE_ASSERT_OK(txn->Commit());
  Table now = Reload();
  EXPECT_NE(now.metadata().CurrentSchema()->FindFieldByName("email"), nullptr);
  EXPECT_EQ(now.metadata().CurrentSnapshot()->schema_id, now.metadata().current_schema_id);
  EXPECT_EQ(now.metadata().Property("floe.offset"), "42");
  // One commit: one metadata file after the first.
  EXPECT_EQ(now.metadata().metadata_log.size(), 1u);
  EXPECT_EQ(now.metadata().metadata_log[0].metadata_file, before_location);

  // A transaction with a refused change commits nothing.
  auto bad = now.NewTransaction();
  bad->NewAppend().AppendFile(MakeFile("b", 2));
  bad->UpdateSchema().Change([](UpdateSchema& u) { u.UpdateColumn("id", types::Type::Int()); });
  auto s = bad->Commit();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kSchemaIncompatible) << s.error().ToString();
  Table after = Reload();
  EXPECT_EQ(after.metadata_location(), now.metadata_location());
  EXPECT_EQ(LivePaths(after).size(), 1u);
}

}  // namespace
}  // namespace floe::iceberg::testing
