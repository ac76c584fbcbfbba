// SlotWalOf: the bytes a slot retains and has not confirmed, from the text
// the server returns for pg_current_wal_lsn(), restart_lsn and
// confirmed_flush_lsn.
#include "floe/cdc/postgres/slot_monitor.h"

#include <gtest/gtest.h>

namespace floe::cdc::postgres {
namespace {

TEST(SlotWalOf, RetainedIsFromRestartLsnUnconfirmedFromConfirmedFlushLsn) {
  auto wal = SlotWalOf("floe", "1/00000100", "0/FFFFFF00", "1/00000080");
  ASSERT_TRUE(wal) << wal.error().message();
  EXPECT_EQ(wal->slot, "floe");
  EXPECT_EQ(wal->current, (Lsn{0x1'0000'0100}));
  EXPECT_EQ(wal->retained_bytes, 0x200);  // across the 4 GiB boundary of the text form
  EXPECT_EQ(wal->unconfirmed_bytes, 0x80);
  EXPECT_EQ(wal->confirmed_flush.ToString(), "1/80");
}

TEST(SlotWalOf, NullAndAheadPositionsCountNothing) {
  // A slot still being made has no restart or confirmed position yet.
  auto fresh = SlotWalOf("s", "0/16B3748", std::nullopt, std::nullopt);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->retained_bytes, 0);
  EXPECT_EQ(fresh->unconfirmed_bytes, 0);
  // A confirmation read after the current position (two readings apart): 0, never negative.
  auto ahead = SlotWalOf("s", "0/100", "0/100", "0/200");
  ASSERT_TRUE(ahead);
  EXPECT_EQ(ahead->unconfirmed_bytes, 0);
}

TEST(SlotWalOf, RefusesWhatIsNotAnLsn) {
  EXPECT_EQ(SlotWalOf("s", std::nullopt, "0/1", "0/1").error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(SlotWalOf("s", "0/100", "garbage", "0/1").error().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace floe::cdc::postgres
