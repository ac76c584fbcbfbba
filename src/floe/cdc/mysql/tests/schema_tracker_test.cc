#include "floe/cdc/mysql/schema_tracker.h"

#include <gtest/gtest.h>

namespace floe::cdc::mysql {
namespace {

std::vector<std::string> Describe(const Result<std::vector<SchemaChange>>& changes) {
  std::vector<std::string> out;
  if (!changes) {
    out.push_back("error: " + changes.error().ToString());
    return out;
  }
  for (const auto& c : *changes) out.push_back(c.ToString());
  return out;
}

TEST(SchemaTracker, FieldIdsAreStableAcrossChanges) {
  SchemaTracker tracker;
  ASSERT_TRUE(tracker.Apply("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)", "app"));
  ASSERT_TRUE(tracker.Apply("ALTER TABLE t DROP COLUMN a, ADD COLUMN c INT FIRST", "app"));
  ASSERT_TRUE(tracker.Apply("ALTER TABLE t CHANGE b bb BIGINT, ADD COLUMN a INT", "app"));
  const TableSchema* t = tracker.Find("app", "t");
  ASSERT_NE(t, nullptr);
  std::vector<std::pair<std::string, int>> ids;
  for (const auto& c : t->columns) ids.emplace_back(c.name, c.field_id);
  // id keeps 1, bb (was b) keeps 3, c got 4, the re-added a gets 5 (never a's old 2).
  EXPECT_EQ(ids,
            (std::vector<std::pair<std::string, int>>{{"c", 4}, {"id", 1}, {"bb", 3}, {"a", 5}}));
  EXPECT_EQ(t->last_field_id, 5);
}

// Regression: DROP DATABASE left its tables tracked, so CREATE TABLE of the
// same name after it stopped capture ("already exists").
TEST(SchemaTracker, DropDatabaseDropsItsTables) {
  SchemaTracker tracker;
  ASSERT_TRUE(tracker.Apply("CREATE TABLE t (id INT PRIMARY KEY)", "app"));
  ASSERT_TRUE(tracker.Apply("CREATE TABLE u (id INT PRIMARY KEY)", "app"));
  ASSERT_TRUE(tracker.Apply("CREATE TABLE t (id INT PRIMARY KEY)", "other"));
  auto changes = tracker.Apply("DROP DATABASE IF EXISTS `app`", "");
  EXPECT_EQ(Describe(changes), (std::vector<std::string>{"drop_table app.t", "drop_table app.u"}));
  EXPECT_EQ(tracker.Find("app", "t"), nullptr);
  EXPECT_NE(tracker.Find("other", "t"), nullptr);
  EXPECT_TRUE(tracker.Apply("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "app"));
  EXPECT_TRUE(tracker.Apply("DROP SCHEMA other", "app"));
  EXPECT_EQ(tracker.Find("other", "t"), nullptr);
}

TEST(SchemaTracker, AlteringAMissingColumnNamesTheClauseUnlessIfExists) {
  SchemaTracker tracker;
  ASSERT_TRUE(tracker.Apply("CREATE TABLE t (id INT PRIMARY KEY)", "app"));
  for (const auto& [sql, clause] : std::vector<std::pair<std::string, std::string>>{
           {"ALTER TABLE t DROP COLUMN x", "DROP"},
           {"ALTER TABLE t MODIFY x BIGINT", "MODIFY"},
           {"ALTER TABLE t CHANGE x y BIGINT", "CHANGE"},
           {"ALTER TABLE t RENAME COLUMN x TO y", "RENAME"},
           {"ALTER TABLE t ALTER COLUMN x SET DEFAULT 1", "ALTER"}}) {
    auto changes = tracker.Apply(sql, "app");
    ASSERT_FALSE(changes) << sql;
    EXPECT_EQ(changes.error().code(), ErrorCode::kNotFound) << sql;
    EXPECT_EQ(changes.error().message(),
              "ALTER TABLE app.t " + clause + " COLUMN x: no such column");
  }
  auto changes = tracker.Apply("ALTER TABLE t DROP COLUMN IF EXISTS x", "app");
  ASSERT_TRUE(changes) << changes.error().ToString();
  EXPECT_TRUE(changes->empty());
}

TEST(SchemaTracker, ChangesDescribePositions) {
  SchemaTracker tracker;
  ASSERT_TRUE(tracker.Apply("CREATE TABLE t (id INT, a INT, b INT)", "app"));
  auto changes = tracker.Apply(
      "ALTER TABLE t ADD COLUMN x INT AFTER id, MODIFY b INT FIRST, RENAME COLUMN a TO aa, "
      "ADD PRIMARY KEY (id)",
      "app");
  EXPECT_EQ(
      Describe(changes),
      (std::vector<std::string>{
          "add_column app.t x at 1 after id", "modify_column app.t b at 0 first",
          "rename_column app.t aa from a at 3 after x", "primary_key_change app.t () -> (id)"}));
  EXPECT_FALSE(tracker.Find("app", "t")->FindColumn("id")->nullable);
}

TEST(SchemaTracker, GhostTableCutOver) {
  SchemaTrackerOptions options;
  options.selected = [](std::string_view db, std::string_view table) {
    return db == "app" && table == "users";
  };
  SchemaTracker tracker(options);
  tracker.Put(
      TableSchema{.db = "app",
                  .table = "users",
                  .columns = {ColumnDef{.name = "id", .type = MysqlType::kInt},
                              ColumnDef{.name = "name", .type = MysqlType::kVarChar, .length = 20}},
                  .primary_key = {"id"}});
  EXPECT_TRUE(tracker.Apply("CREATE TABLE `app`.`_users_gho` LIKE `app`.`users`", "")->empty());
  EXPECT_TRUE(
      tracker.Apply("ALTER TABLE `app`.`_users_gho` ADD COLUMN email VARCHAR(100)", "")->empty());
  auto changes = tracker.Apply(
      "RENAME TABLE `app`.`users` TO `app`.`_users_del`, `app`.`_users_gho` TO `app`.`users`", "");
  EXPECT_EQ(Describe(changes),
            (std::vector<std::string>{"drop_table app.users",
                                      "create_table app.users from app._users_gho"}));
  const TableSchema* users = tracker.Find("app", "users");
  ASSERT_NE(users, nullptr);
  ASSERT_EQ(users->columns.size(), 3u);
  EXPECT_EQ(users->columns[2].name, "email");
}

TEST(SchemaTracker, UnknownSelectedTableIsAnErrorAndStateIsUnchanged) {
  SchemaTracker tracker;
  ASSERT_TRUE(tracker.Apply("CREATE TABLE t (id INT)", "app"));
  auto r = tracker.Apply("ALTER TABLE nope ADD COLUMN x INT", "app");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.error().message().find("information_schema"), std::string::npos);

  // The first action applies, the second fails: nothing is kept.
  auto partial = tracker.Apply("ALTER TABLE t ADD COLUMN x INT, DROP COLUMN missing", "app");
  ASSERT_FALSE(partial);
  EXPECT_EQ(partial.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(tracker.Find("app", "t")->columns.size(), 1u);
}

TEST(SchemaTracker, UnselectedUnparsableStatementIsIgnored) {
  SchemaTrackerOptions options;
  options.selected = [](std::string_view, std::string_view table) { return table == "t"; };
  SchemaTracker tracker(options);
  auto ignored = tracker.Apply("ALTER TABLE other FROBNICATE", "app");
  ASSERT_TRUE(ignored) << ignored.error().ToString();
  EXPECT_TRUE(ignored->empty());
  auto failed = tracker.Apply("ALTER TABLE t FROBNICATE", "app");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code(), ErrorCode::kInvalidArgument);
}

TEST(SchemaTracker, DropColumnShrinksPrimaryKey) {
  SchemaTracker tracker;
  ASSERT_TRUE(tracker.Apply("CREATE TABLE t (a INT, b INT, c INT, PRIMARY KEY (a, b))", "d"));
  auto changes = tracker.Apply("ALTER TABLE t DROP b", "d");
  EXPECT_EQ(Describe(changes),
            (std::vector<std::string>{"drop_column d.t b", "primary_key_change d.t (a,b) -> (a)"}));
}

TEST(SchemaTracker, CaseInsensitiveColumnsAndOptionalTableNames) {
  SchemaTrackerOptions options;
  options.case_insensitive_table_names = true;
  SchemaTracker tracker(options);
  ASSERT_TRUE(tracker.Apply("CREATE TABLE Users (ID INT)", "App"));
  auto r = tracker.Apply("ALTER TABLE users MODIFY id BIGINT", "app");
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(tracker.Find("APP", "USERS")->columns[0].type, MysqlType::kBigInt);
  EXPECT_EQ(tracker.Find("APP", "USERS")->columns[0].name, "id");
}

}  // namespace
}  // namespace floe::cdc::mysql
