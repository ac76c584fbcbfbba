#include "floe/iceberg/update/table_metadata_builder.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "floe/iceberg/json/metadata_json.h"
#include "floe/iceberg/table_properties.h"
#include "floe/types/schema_json.h"

namespace floe::iceberg {
namespace {

using nlohmann::json;
namespace up = update;
namespace req = requirement;

types::Schema MakeSchema(std::vector<types::NestedField> fields, std::vector<int32_t> ids = {}) {
  return types::Schema(std::move(fields), 0, std::move(ids));
}

types::Schema BaseSchema() {
  return MakeSchema(
      {{1, "id", true, types::Type::Long(), ""}, {2, "name", false, types::Type::String(), ""}},
      {1});
}

Snapshot MakeSnapshot(SnapshotId id, std::optional<SnapshotId> parent, int64_t seq, int64_t ts) {
  Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = seq;
  s.timestamp_ms = ts;
  s.manifest_list = fmt::format("file:///wh/t/metadata/snap-{}.avro", id);
  s.operation = "append";
  s.schema_id = 0;
  return s;
}

TableMetadata NewTable(int version = 2) {
  auto builder = TableMetadataBuilder::ForNewTable(version, {.now_ms = 1000});
  EXPECT_TRUE(builder);
  EXPECT_TRUE(
      builder->ApplyAll({up::AddSchema{BaseSchema(), {}}, up::SetCurrentSchema{-1},
                         up::SetLocation{"file:///wh/t"}, up::SetProperties{{{"owner", "floe"}}}}));
  auto m = builder->Build();
  EXPECT_TRUE(m) << m.error().ToString();
  return *m;
}

TEST(TableMetadataBuilderTest, NewTableGetsDefaults) {
  TableMetadata m = NewTable();
  EXPECT_EQ(m.format_version, 2);
  EXPECT_EQ(m.table_uuid.size(), 36u);
  EXPECT_EQ(m.table_uuid[14], '4');
  EXPECT_EQ(m.last_column_id, 2);
  EXPECT_EQ(m.current_schema_id, 0);
  ASSERT_EQ(m.partition_specs.size(), 1u);
  EXPECT_EQ(m.last_partition_id, 999);
  ASSERT_EQ(m.sort_orders.size(), 1u);
  EXPECT_TRUE(m.sort_orders[0].is_unsorted());
  EXPECT_EQ(m.last_updated_ms, 1000);
  EXPECT_EQ(m.properties.at("owner"), "floe");
  // Serializes and parses back.
  auto again = TableMetadataFromJson(json::parse(SerializeTableMetadata(m)));
  ASSERT_TRUE(again) << again.error().ToString();
}

TEST(TableMetadataBuilderTest, NewTableWithoutSchemaFails) {
  auto builder = TableMetadataBuilder::ForNewTable(2);
  ASSERT_TRUE(builder);
  ASSERT_TRUE(builder->Apply(up::SetLocation{"file:///x"}));
  auto m = builder->Build();
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code(), ErrorCode::kInvalidArgument);
}

TEST(TableMetadataBuilderTest, FormatVersionFourIsNotSupported) {
  EXPECT_EQ(TableMetadataBuilder::ForNewTable(4).error().code(), ErrorCode::kNotSupported);
  TableMetadata m = NewTable();
  auto b = TableMetadataBuilder::ForUpdate(m, "");
  EXPECT_EQ(b.Apply(up::UpgradeFormatVersion{4}).error().code(), ErrorCode::kNotSupported);
  EXPECT_EQ(b.Apply(up::UpgradeFormatVersion{1}).error().code(), ErrorCode::kInvalidArgument);
}

TEST(TableMetadataBuilderTest, AppendMovesMainAndLogsBothHistories) {
  TableMetadata m0 = NewTable();
  auto b = TableMetadataBuilder::ForUpdate(m0, "file:///wh/t/metadata/v1.metadata.json",
                                           {.now_ms = 5000});
  ASSERT_TRUE(b.Apply(up::AddSnapshot{MakeSnapshot(11, std::nullopt, 1, 4000)}));
  ASSERT_TRUE(b.Apply(up::SetSnapshotRef{"main", SnapshotRef::Branch(11)}));
  auto m1 = b.Build();
  ASSERT_TRUE(m1) << m1.error().ToString();
  EXPECT_EQ(m1->current_snapshot_id, 11);
  EXPECT_EQ(m1->last_sequence_number, 1);
  ASSERT_EQ(m1->snapshot_log.size(), 1u);
  EXPECT_EQ(m1->snapshot_log[0].timestamp_ms, 4000);  // the snapshot's own time
  EXPECT_EQ(m1->last_updated_ms, 5000);
  ASSERT_EQ(m1->metadata_log.size(), 1u);
  EXPECT_EQ(m1->metadata_log[0].metadata_file, "file:///wh/t/metadata/v1.metadata.json");
  EXPECT_EQ(m1->metadata_log[0].timestamp_ms, m0.last_updated_ms);
}

TEST(TableMetadataBuilderTest, StaleSequenceNumberAndDuplicateSnapshotAreRefused) {
  TableMetadata m = NewTable();
  auto b = TableMetadataBuilder::ForUpdate(m, "");
  ASSERT_TRUE(b.Apply(up::AddSnapshot{MakeSnapshot(11, std::nullopt, 1, 4000)}));
  auto dup = b.Apply(up::AddSnapshot{MakeSnapshot(11, std::nullopt, 2, 4000)});
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message().find("already exists"), std::string::npos);
  auto stale = b.Apply(up::AddSnapshot{MakeSnapshot(12, 11, 1, 4001)});
  ASSERT_FALSE(stale);
  EXPECT_NE(stale.error().message().find("last-sequence-number"), std::string::npos);
  auto orphan = b.Apply(up::AddSnapshot{MakeSnapshot(13, 99, 5, 4001)});
  ASSERT_FALSE(orphan);
  auto unknown_ref = b.Apply(up::SetSnapshotRef{"main", SnapshotRef::Branch(77)});
  ASSERT_FALSE(unknown_ref);
  auto tag_main = b.Apply(up::SetSnapshotRef{"main", SnapshotRef::Tag(11)});
  ASSERT_FALSE(tag_main);
}

TEST(TableMetadataBuilderTest, MetadataLogIsPrunedToPreviousVersionsMax) {
  TableMetadata m = NewTable();
  {
    auto b = TableMetadataBuilder::ForUpdate(m, "");
    ASSERT_TRUE(b.Apply(up::SetProperties{
        {{std::string(table_properties::kWriteMetadataPreviousVersionsMax), "2"}}}));
    m = *b.Build();
  }
  for (int i = 1; i <= 5; ++i) {
    auto b = TableMetadataBuilder::ForUpdate(m, fmt::format("v{}.metadata.json", i),
                                             {.now_ms = 10000 + i});
    ASSERT_TRUE(b.Apply(up::SetProperties{{{"k", std::to_string(i)}}}));
    auto next = b.Build();
    ASSERT_TRUE(next) << next.error().ToString();
    m = *next;
  }
  ASSERT_EQ(m.metadata_log.size(), 2u);
  EXPECT_EQ(m.metadata_log[0].metadata_file, "v4.metadata.json");
  EXPECT_EQ(m.metadata_log[1].metadata_file, "v5.metadata.json");
}

TEST(TableMetadataBuilderTest, NoChangesReturnsBase) {
  TableMetadata m = NewTable();
  auto b = TableMetadataBuilder::ForUpdate(m, "v1.metadata.json", {.now_ms = 99999});
  ASSERT_TRUE(b.Apply(up::SetCurrentSchema{0}));  // already current: no change
  auto next = b.Build();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->last_updated_ms, m.last_updated_ms);
  EXPECT_TRUE(next->metadata_log.empty());
}

TEST(TableMetadataBuilderTest, SchemasSpecsAndOrdersGetNewIdsOrReuseEqualOnes) {
  TableMetadata m = NewTable();
  auto b = TableMetadataBuilder::ForUpdate(m, "");
  // The same schema again: reused.
  ASSERT_TRUE(b.Apply(up::AddSchema{BaseSchema(), {}}));
  EXPECT_EQ(b.last_added_schema_id(), 0);
  auto evolved = MakeSchema({{1, "id", true, types::Type::Long(), ""},
                             {2, "name", false, types::Type::String(), ""},
                             {3, "ts", false, types::Type::TimestampTz(), ""}},
                            {1});
  ASSERT_TRUE(b.Apply(up::AddSchema{evolved, {}}));
  EXPECT_EQ(b.last_added_schema_id(), 1);
  ASSERT_TRUE(b.Apply(up::SetCurrentSchema{-1}));
  auto spec = ParsePartitionSpecText("day(ts)", evolved);
  ASSERT_TRUE(spec) << spec.error().ToString();
  ASSERT_TRUE(b.Apply(up::AddPartitionSpec{*spec, true}));
  EXPECT_EQ(b.last_added_spec_id(), 1);
  ASSERT_TRUE(b.Apply(up::SetDefaultSpec{-1}));
  auto order = ParseSortOrderText("id desc", evolved);
  ASSERT_TRUE(order) << order.error().ToString();
  ASSERT_TRUE(b.Apply(up::AddSortOrder{*order}));
  EXPECT_EQ(b.last_added_sort_order_id(), 1);
  ASSERT_TRUE(b.Apply(up::SetDefaultSortOrder{-1}));
  auto next = b.Build();
  ASSERT_TRUE(next) << next.error().ToString();
  EXPECT_EQ(next->current_schema_id, 1);
  EXPECT_EQ(next->last_column_id, 3);
  EXPECT_EQ(next->default_spec_id, 1);
  EXPECT_EQ(next->last_partition_id, 1000);
  EXPECT_EQ(next->DefaultSpec()->fields()[0].field_id, 1000);
  EXPECT_EQ(next->DefaultSpec()->fields()[0].name, "ts_day");
  EXPECT_EQ(next->default_sort_order_id, 1);
  // The resolved changes carry the real ids, not -1.
  bool saw_set_current = false;
  for (const auto& c : b.changes()) {
    if (auto* s = std::get_if<up::SetCurrentSchema>(&c)) {
      EXPECT_EQ(s->schema_id, 1);
      saw_set_current = true;
    }
  }
  EXPECT_TRUE(saw_set_current);

  // A spec on a column that does not exist.
  auto b2 = TableMetadataBuilder::ForUpdate(*next, "");
  PartitionSpec bad(0, {PartitionField{42, 1001, "x", Transform::Identity()}});
  auto s = b2.Apply(up::AddPartitionSpec{bad});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(s.error().message().starts_with("add-spec: ")) << s.error().message();
  EXPECT_FALSE(b2.Apply(up::RemoveSchemas{{1}}));
  EXPECT_FALSE(b2.Apply(up::RemovePartitionSpecs{{1}}));
  EXPECT_TRUE(b2.Apply(up::RemoveSchemas{{0}}));
}

TEST(TableMetadataBuilderTest, RemoveSnapshotsDropsRefsStatisticsAndOlderLog) {
  TableMetadata m = NewTable();
  auto b = TableMetadataBuilder::ForUpdate(m, "", {.now_ms = 9000});
  ASSERT_TRUE(b.Apply(up::AddSnapshot{MakeSnapshot(1, std::nullopt, 1, 100)}));
  ASSERT_TRUE(b.Apply(up::SetSnapshotRef{"main", SnapshotRef::Branch(1)}));
  ASSERT_TRUE(b.Apply(up::AddSnapshot{MakeSnapshot(2, 1, 2, 200)}));
  ASSERT_TRUE(b.Apply(up::SetSnapshotRef{"main", SnapshotRef::Branch(2)}));
  ASSERT_TRUE(b.Apply(up::AddSnapshot{MakeSnapshot(3, 2, 3, 300)}));
  ASSERT_TRUE(b.Apply(up::SetSnapshotRef{"main", SnapshotRef::Branch(3)}));
  ASSERT_TRUE(b.Apply(up::SetSnapshotRef{"old", SnapshotRef::Tag(1)}));
  StatisticsFile stats;
  stats.snapshot_id = 1;
  stats.statistics_path = "s.puffin";
  ASSERT_TRUE(b.Apply(up::SetStatistics{stats}));
  auto m1 = b.Build();
  ASSERT_TRUE(m1) << m1.error().ToString();
  EXPECT_EQ(m1->snapshot_log.size(), 3u);
  EXPECT_EQ(m1->last_sequence_number, 3);

  auto b2 = TableMetadataBuilder::ForUpdate(*m1, "");
  ASSERT_TRUE(b2.Apply(up::RemoveSnapshots{{2}}));
  auto m2 = b2.Build();
  ASSERT_TRUE(m2) << m2.error().ToString();
  EXPECT_EQ(m2->snapshots.size(), 2u);
  ASSERT_EQ(m2->snapshot_log.size(), 1u);  // entries up to the removed one are gone
  EXPECT_EQ(m2->snapshot_log[0].snapshot_id, 3);
  EXPECT_TRUE(m2->refs.contains("old"));
  EXPECT_EQ(m2->statistics.size(), 1u);

  auto b3 = TableMetadataBuilder::ForUpdate(*m2, "");
  ASSERT_TRUE(b3.Apply(up::RemoveSnapshots{{1}}));
  auto m3 = b3.Build();
  ASSERT_TRUE(m3) << m3.error().ToString();
  EXPECT_FALSE(m3->refs.contains("old"));
  EXPECT_TRUE(m3->statistics.empty());
  EXPECT_EQ(m3->current_snapshot_id, 3);
}

TEST(TableMetadataBuilderTest, V3TracksNextRowId) {
  TableMetadata m = NewTable(3);
  EXPECT_EQ(m.next_row_id, 0);
  auto b = TableMetadataBuilder::ForUpdate(m, "");
  Snapshot s = MakeSnapshot(1, std::nullopt, 1, 100);
  auto missing = b.Apply(up::AddSnapshot{s});
  ASSERT_FALSE(missing);
  s.first_row_id = 0;
  s.added_rows = 25;
  ASSERT_TRUE(b.Apply(up::AddSnapshot{s}));
  ASSERT_TRUE(b.Apply(up::SetSnapshotRef{"main", SnapshotRef::Branch(1)}));
  Snapshot s2 = MakeSnapshot(2, 1, 2, 200);
  s2.first_row_id = 10;  // overlaps ids already assigned
  s2.added_rows = 5;
  EXPECT_FALSE(b.Apply(up::AddSnapshot{s2}));
  auto next = b.Build();
  ASSERT_TRUE(next) << next.error().ToString();
  EXPECT_EQ(next->next_row_id, 25);
  json written = json::parse(SerializeTableMetadata(*next));
  EXPECT_EQ(written["format-version"], 3);
  EXPECT_EQ(written["snapshots"][0]["first-row-id"], 0);
  EXPECT_EQ(written["snapshots"][0]["added-rows"], 25);
}

TEST(TableMetadataBuilderTest, UpgradeV1ToV2) {
  std::ifstream in(std::string(FLOE_TEST_DATA_DIR) + "/iceberg/metadata/v1-valid.metadata.json");
  std::stringstream ss;
  ss << in.rdbuf();
  auto v1 = ParseTableMetadata(ss.str(), "v1-valid.metadata.json");
  ASSERT_TRUE(v1) << v1.error().ToString();
  auto b = TableMetadataBuilder::ForUpdate(*v1, "v1-valid.metadata.json");
  ASSERT_TRUE(b.Apply(up::UpgradeFormatVersion{2}));
  auto v2 = b.Build();
  ASSERT_TRUE(v2) << v2.error().ToString();
  EXPECT_EQ(v2->format_version, 2);
  json written = json::parse(SerializeTableMetadata(*v2));
  EXPECT_FALSE(written.contains("schema"));
  EXPECT_EQ(written["last-sequence-number"], 0);
  EXPECT_EQ(written["snapshots"][0]["sequence-number"], 0);
}

TEST(TableRequirementTest, FailedRequirementsAreCommitConflicts) {
  TableMetadata m = NewTable();
  EXPECT_TRUE(CheckRequirement(req::AssertCreate{}, nullptr));
  EXPECT_EQ(CheckRequirement(req::AssertCreate{}, &m).error().code(), ErrorCode::kCommitConflict);
  EXPECT_TRUE(CheckRequirement(req::AssertTableUuid{m.table_uuid}, &m));
  EXPECT_EQ(CheckRequirement(req::AssertTableUuid{"other"}, &m).error().code(),
            ErrorCode::kCommitConflict);
  EXPECT_TRUE(CheckRequirement(req::AssertRefSnapshotId{"main", std::nullopt}, &m));
  auto moved = CheckRequirement(req::AssertRefSnapshotId{"main", 5}, &m);
  ASSERT_FALSE(moved);
  EXPECT_EQ(moved.error().code(), ErrorCode::kCommitConflict);
  EXPECT_EQ(moved.error().message(),
            "assert-ref-snapshot-id: ref main expected at snapshot 5, found none");
  EXPECT_TRUE(CheckRequirement(req::AssertCurrentSchemaId{0}, &m));
  EXPECT_FALSE(CheckRequirement(req::AssertCurrentSchemaId{1}, &m));
  EXPECT_TRUE(CheckRequirement(req::AssertLastAssignedFieldId{2}, &m));
  EXPECT_FALSE(CheckRequirement(req::AssertLastAssignedFieldId{3}, &m));
  EXPECT_TRUE(CheckRequirement(req::AssertLastAssignedPartitionId{999}, &m));
  EXPECT_TRUE(CheckRequirement(req::AssertDefaultSpecId{0}, &m));
  EXPECT_FALSE(CheckRequirement(req::AssertDefaultSpecId{1}, &m));
  EXPECT_TRUE(CheckRequirement(req::AssertDefaultSortOrderId{0}, &m));
  EXPECT_EQ(CheckRequirement(req::AssertCurrentSchemaId{0}, nullptr).error().code(),
            ErrorCode::kCommitConflict);
}

TEST(TableRequirementTest, CommitTableChangesChecksThenApplies) {
  TableMetadata m = NewTable();
  auto commit =
      CommitTableChanges(&m, "v1.metadata.json", {req::AssertRefSnapshotId{"main", std::nullopt}},
                         {up::AddSnapshot{MakeSnapshot(7, std::nullopt, 1, 100)},
                          up::SetSnapshotRef{"main", SnapshotRef::Branch(7)}});
  ASSERT_TRUE(commit) << commit.error().ToString();
  // A second writer based on the same base loses.
  auto loser = CommitTableChanges(&*commit, "v2.metadata.json",
                                  {req::AssertRefSnapshotId{"main", std::nullopt}},
                                  {up::AddSnapshot{MakeSnapshot(8, std::nullopt, 2, 100)},
                                   up::SetSnapshotRef{"main", SnapshotRef::Branch(8)}});
  ASSERT_FALSE(loser);
  EXPECT_EQ(loser.error().code(), ErrorCode::kCommitConflict);
  // Create through the same path.
  auto created = CommitTableChanges(
      nullptr, "", {req::AssertCreate{}},
      {up::AssignUuid{"0b5c6d0e-0000-4000-8000-000000000001"}, up::UpgradeFormatVersion{2},
       up::AddSchema{BaseSchema(), 2}, up::SetCurrentSchema{-1}, up::SetLocation{"file:///t"}});
  ASSERT_TRUE(created) << created.error().ToString();
  EXPECT_EQ(created->table_uuid, "0b5c6d0e-0000-4000-8000-000000000001");
}

TEST(TableUpdateJsonTest, EveryUpdateRoundTripsThroughRestJson) {
  const char* kUpdates = R"json([
    {"action": "assign-uuid", "uuid": "2cc52516-5e73-41f2-b139-545d41a4e151"},
    {"action": "upgrade-format-version", "format-version": 2},
    {"action": "add-schema", "schema": {"type": "struct", "schema-id": 1, "fields": [
        {"id": 1, "name": "id", "required": true, "type": "long"}]}, "last-column-id": 1},
    {"action": "set-current-schema", "schema-id": -1},
    {"action": "add-spec", "spec": {"spec-id": 1, "fields": [
        {"source-id": 1, "field-id": 1000, "name": "id_bucket", "transform": "bucket[16]"}]}},
    {"action": "set-default-spec", "spec-id": -1},
    {"action": "add-sort-order", "sort-order": {"order-id": 1, "fields": [
        {"transform": "identity", "source-id": 1, "direction": "asc", "null-order": "nulls-first"}]}},
    {"action": "set-default-sort-order", "sort-order-id": -1},
    {"action": "add-snapshot", "snapshot": {"snapshot-id": 5, "sequence-number": 1,
        "timestamp-ms": 10, "manifest-list": "s3://x/snap-5.avro",
        "summary": {"operation": "append", "added-data-files": "1"}, "schema-id": 1}},
    {"action": "set-snapshot-ref", "ref-name": "main", "snapshot-id": 5, "type": "branch",
     "min-snapshots-to-keep": 2},
    {"action": "remove-snapshots", "snapshot-ids": [1, 2]},
    {"action": "remove-snapshot-ref", "ref-name": "tag1"},
    {"action": "set-location", "location": "s3://bucket/t"},
    {"action": "set-properties", "updates": {"a": "1", "b": "2"}},
    {"action": "remove-properties", "removals": ["c"]},
    {"action": "set-statistics", "snapshot-id": 5, "statistics": {"snapshot-id": 5,
        "statistics-path": "s3://x/s.puffin", "file-size-in-bytes": 10,
        "file-footer-size-in-bytes": 4, "blob-metadata": []}},
    {"action": "remove-statistics", "snapshot-id": 5},
    {"action": "set-partition-statistics", "partition-statistics": {"snapshot-id": 5,
        "statistics-path": "s3://x/p.parquet", "file-size-in-bytes": 10}},
    {"action": "remove-partition-statistics", "snapshot-id": 5},
    {"action": "remove-partition-specs", "spec-ids": [0]},
    {"action": "remove-schemas", "schema-ids": [0]},
    {"action": "add-encryption-key", "encryption-key": {"key-id": "k",
        "encrypted-key-metadata": "AAAA"}},
    {"action": "remove-encryption-key", "key-id": "k"}
  ])json";
  json updates = json::parse(kUpdates);
  for (const auto& u : updates) {
    auto parsed = TableUpdateFromJson(u);
    ASSERT_TRUE(parsed) << u.dump() << ": " << parsed.error().ToString();
    EXPECT_EQ(TableUpdateAction(*parsed), u["action"].get<std::string>());
    json back = json(TableUpdateToJson(*parsed));
    EXPECT_EQ(back, u) << "\n" << back.dump() << "\n" << u.dump();
  }
  auto unknown = TableUpdateFromJson(json{{"action", "make-coffee"}});
  EXPECT_EQ(unknown.error().code(), ErrorCode::kNotSupported);
  auto bad = TableUpdateFromJson(json{{"action", "set-properties"}, {"updates", {{"a", 1}}}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.error().message(), "update.updates.a: expected string");
}

TEST(TableRequirementJsonTest, EveryRequirementRoundTrips) {
  const char* kRequirements = R"json([
    {"type": "assert-create"},
    {"type": "assert-table-uuid", "uuid": "2cc52516-5e73-41f2-b139-545d41a4e151"},
    {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 5},
    {"type": "assert-ref-snapshot-id", "ref": "dev", "snapshot-id": null},
    {"type": "assert-last-assigned-field-id", "last-assigned-field-id": 3},
    {"type": "assert-current-schema-id", "current-schema-id": 1},
    {"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 1000},
    {"type": "assert-default-spec-id", "default-spec-id": 0},
    {"type": "assert-default-sort-order-id", "default-sort-order-id": 0}
  ])json";
  for (const auto& r : json::parse(kRequirements)) {
    auto parsed = TableRequirementFromJson(r);
    ASSERT_TRUE(parsed) << r.dump() << ": " << parsed.error().ToString();
    EXPECT_EQ(json(TableRequirementToJson(*parsed)), r);
  }
}

// format-version is reserved: set as a property it upgrades the table
// through upgrade-format-version, and is never stored as a property.
TEST(TableMetadataBuilderTest, FormatVersionPropertyIsReserved) {
  TableMetadata v2 = NewTable(2);
  {
    auto b = TableMetadataBuilder::ForUpdate(v2, "file:///wh/t/metadata/v1.metadata.json");
    auto s = b.Apply(up::SetProperties{{{"format-version", "99"}}});
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code(), ErrorCode::kNotSupported);
    EXPECT_NE(s.error().message().find("99"), std::string::npos);
  }
  {
    auto b = TableMetadataBuilder::ForUpdate(v2, "file:///wh/t/metadata/v1.metadata.json");
    auto s = b.Apply(up::SetProperties{{{"format-version", "1"}}});
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(s.error().message().find("downgrade"), std::string::npos);
  }
  {
    auto b = TableMetadataBuilder::ForUpdate(v2, "file:///wh/t/metadata/v1.metadata.json");
    EXPECT_EQ(b.Apply(up::SetProperties{{{"format-version", "two"}}}).error().code(),
              ErrorCode::kInvalidArgument);
    EXPECT_EQ(b.Apply(up::RemoveProperties{{"format-version"}}).error().code(),
              ErrorCode::kInvalidArgument);
    EXPECT_EQ(b.Apply(up::SetProperties{{{"current-snapshot-id", "1"}}}).error().code(),
              ErrorCode::kInvalidArgument);
    EXPECT_EQ(b.Apply(up::SetProperties{{{"uuid", "x"}}}).error().code(),
              ErrorCode::kInvalidArgument);
  }
  {
    auto b = TableMetadataBuilder::ForUpdate(v2, "file:///wh/t/metadata/v1.metadata.json");
    ASSERT_TRUE(b.Apply(up::SetProperties{{{"format-version", "3"}, {"color", "blue"}}}));
    auto m = b.Build();
    ASSERT_TRUE(m) << m.error().ToString();
    EXPECT_EQ(m->format_version, 3);
    EXPECT_TRUE(m->next_row_id.has_value());
    EXPECT_FALSE(m->properties.contains("format-version"));
    EXPECT_EQ(m->properties.at("color"), "blue");
    ASSERT_EQ(b.changes().size(), 2u);
    EXPECT_TRUE(std::holds_alternative<up::UpgradeFormatVersion>(b.changes()[0]));
  }
  {
    // The same version is a no-op.
    auto b = TableMetadataBuilder::ForUpdate(v2, "file:///wh/t/metadata/v1.metadata.json");
    ASSERT_TRUE(b.Apply(up::SetProperties{{{"format-version", "2"}}}));
    EXPECT_TRUE(b.changes().empty());
  }
  {
    // A table being created takes any supported version.
    auto b = TableMetadataBuilder::ForNewTable(2, {.now_ms = 1000});
    ASSERT_TRUE(b);
    ASSERT_TRUE(b->ApplyAll({up::AddSchema{BaseSchema(), {}}, up::SetCurrentSchema{-1},
                             up::SetLocation{"file:///wh/t"},
                             up::SetProperties{{{"format-version", "1"}}}}));
    auto m = b->Build();
    ASSERT_TRUE(m) << m.error().ToString();
    EXPECT_EQ(m->format_version, 1);
    EXPECT_FALSE(m->properties.contains("format-version"));
  }
}

}  // namespace
}  // namespace floe::iceberg
