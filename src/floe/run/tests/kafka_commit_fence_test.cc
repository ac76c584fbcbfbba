// The fence of Kafka scale-out commits (docs/kafka.md, "Scale-out"): the
// position a member's commit records, and the commits it refuses.

#include "floe/run/kafka_commit_fence.h"

#include <gtest/gtest.h>

#include "floe/run/kafka_source.h"
#include "floe/sink/sink_options.h"

namespace floe::run {
namespace {

kafka::PartitionOffsets Offsets(std::string_view text) {
  auto parsed = ParseKafkaPositionText(text);
  EXPECT_TRUE(parsed) << parsed.error().ToString();
  return parsed.value_or(kafka::PartitionOffsets{});
}

/// Appends a snapshot committed by `pipeline` at `position` (none: no floe
/// summary, as compaction writes) and makes it current.
void AddSnapshot(iceberg::TableMetadata& metadata, std::optional<std::string> pipeline,
                 std::string position = "") {
  iceberg::Snapshot s;
  s.snapshot_id = static_cast<iceberg::SnapshotId>(metadata.snapshots.size() + 1);
  s.parent_snapshot_id = metadata.current_snapshot_id;
  s.sequence_number = s.snapshot_id;
  s.operation = "append";
  if (pipeline) {
    s.summary[std::string(sink::kSummaryPipelineId)] = *pipeline;
    s.summary[std::string(sink::kSummarySourcePosition)] = position;
  }
  metadata.snapshots.push_back(s);
  metadata.current_snapshot_id = s.snapshot_id;
}

TEST(KafkaCommitFenceTest, MemberIdsBelongToTheirGroupOnly) {
  EXPECT_EQ(MemberPipelineId("run-shop", "a1"), "run-shop~a1");
  EXPECT_TRUE(IsGroupPipelineId("run-shop~a1", "run-shop"));
  EXPECT_TRUE(IsGroupPipelineId("run-shop", "run-shop"));
  EXPECT_FALSE(IsGroupPipelineId("run-shops~a1", "run-shop"));
  EXPECT_FALSE(IsGroupPipelineId("run-sho", "run-shop"));
}

TEST(KafkaCommitFenceTest, ThePositionIsTheParentsRaisedToTheMembers) {
  // Another member committed t[1] to 70; this one reads t[0] and once read t[1] to 40.
  auto merged = FencedKafkaPosition(Offsets("t[0]:10,t[1]:70"), Offsets("t[0]:25,t[1]:40,t[2]:5"),
                                    Offsets("t[0]:12"), "shop.orders");
  ASSERT_TRUE(merged) << merged.error().ToString();
  EXPECT_EQ(KafkaPositionText(*merged), "t[0]:25,t[1]:70,t[2]:5");
}

TEST(KafkaCommitFenceTest, ACommitWhoseMessagesAnotherOwnerCommittedIsRefused) {
  // The parent holds t[1] up to 70; this member's messages of the table in t[1] start at 60.
  auto refused = FencedKafkaPosition(Offsets("t[0]:10,t[1]:70"), Offsets("t[0]:25,t[1]:90"),
                                     Offsets("t[0]:12,t[1]:60"), "shop.orders");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::kCommitConflict);
  EXPECT_NE(refused.error().message().find("shop.orders"), std::string::npos);
  EXPECT_NE(refused.error().message().find("t[1] up to offset 70"), std::string::npos);
  // Starting exactly where the parent ends is the normal case.
  EXPECT_TRUE(FencedKafkaPosition(Offsets("t[1]:70"), Offsets("t[1]:90"), Offsets("t[1]:70"), "x"));
  // A partition the parent does not list: the table holds nothing of it.
  EXPECT_TRUE(FencedKafkaPosition(Offsets("t[0]:70"), Offsets("t[1]:90"), Offsets("t[1]:0"), "x"));
}

TEST(KafkaCommitFenceTest, TheParentIsTheNewestSnapshotOfTheGroup) {
  iceberg::TableMetadata metadata;
  auto none = GroupPosition(metadata, "run-shop");
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  AddSnapshot(metadata, "run-shop~a", "t[0]:5");
  AddSnapshot(metadata, "run-other~b", "t[0]:500");  // another pipeline
  AddSnapshot(metadata, std::nullopt);               // compaction
  auto held = GroupPosition(metadata, "run-shop");
  ASSERT_TRUE(held) << held.error().ToString();
  ASSERT_TRUE(*held);
  EXPECT_EQ(KafkaPositionText(**held), "t[0]:5");
  AddSnapshot(metadata, "run-shop~b", "t[0]:9,t[1]:3");
  EXPECT_EQ(KafkaPositionText(**GroupPosition(metadata, "run-shop")), "t[0]:9,t[1]:3");
  AddSnapshot(metadata, "run-shop~b", "t[0]:oops");
  auto bad = GroupPosition(metadata, "run-shop");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::kCorruption);
}

TEST(KafkaCommitFenceTest, TheFenceAnswersPerTableAndCheckpointAndCountsRefusals) {
  KafkaCommitFence fence("run-shop");
  iceberg::TableMetadata metadata;
  AddSnapshot(metadata, "run-shop~other", "t[0]:50,t[1]:8");
  fence.Register(3, Offsets("t[0]:60"),
                 {{"shop.orders", Offsets("t[0]:52")}, {"shop.items", Offsets("t[0]:40")}});
  auto orders = fence.PositionFor("shop.orders", 3, metadata);
  ASSERT_TRUE(orders) << orders.error().ToString();
  EXPECT_EQ(*orders, "t[0]:60,t[1]:8");
  // An empty commit (no message of the table) is never refused.
  EXPECT_EQ(*fence.PositionFor("crm.people", 3, metadata), "t[0]:60,t[1]:8");
  auto items = fence.PositionFor("shop.items", 3, metadata);
  ASSERT_FALSE(items);
  EXPECT_EQ(items.error().code(), ErrorCode::kCommitConflict);
  EXPECT_EQ(fence.conflicts(), 1);
  fence.ForgetThrough(3);
  auto gone = fence.PositionFor("shop.orders", 3, metadata);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code(), ErrorCode::kInternal);
}

}  // namespace
}  // namespace floe::run
