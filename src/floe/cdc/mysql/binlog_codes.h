#pragma once
/// The type codes of binlog format v4: event types (the `type` of every
/// event's header) and column types (TABLE_MAP's column type bytes), as the
/// MySQL and MariaDB sources name them. docs/mysql-binlog.md describes the
/// events floe reads.

#include <cstdint>

namespace floe::cdc::mysql {

/// Event type codes (MySQL log_event.h / MariaDB log_event.h).
namespace event_type {
inline constexpr uint8_t kQuery = 2;
inline constexpr uint8_t kStop = 3;
inline constexpr uint8_t kRotate = 4;
inline constexpr uint8_t kIntvar = 5;
inline constexpr uint8_t kFormatDescription = 15;
inline constexpr uint8_t kXid = 16;
inline constexpr uint8_t kTableMap = 19;
inline constexpr uint8_t kWriteRowsV1 = 23;
inline constexpr uint8_t kUpdateRowsV1 = 24;
inline constexpr uint8_t kDeleteRowsV1 = 25;
inline constexpr uint8_t kIncident = 26;
inline constexpr uint8_t kHeartbeat = 27;
inline constexpr uint8_t kRowsQuery = 29;
inline constexpr uint8_t kWriteRowsV2 = 30;
inline constexpr uint8_t kUpdateRowsV2 = 31;
inline constexpr uint8_t kDeleteRowsV2 = 32;
inline constexpr uint8_t kGtid = 33;
inline constexpr uint8_t kAnonymousGtid = 34;
inline constexpr uint8_t kPreviousGtids = 35;
inline constexpr uint8_t kPartialUpdateRows = 39;
inline constexpr uint8_t kHeartbeatV2 = 41;
inline constexpr uint8_t kMariaAnnotateRows = 160;
inline constexpr uint8_t kMariaBinlogCheckpoint = 161;
inline constexpr uint8_t kMariaGtid = 162;
inline constexpr uint8_t kMariaGtidList = 163;
inline constexpr uint8_t kMariaStartEncryption = 164;
inline constexpr uint8_t kMariaQueryCompressed = 165;
inline constexpr uint8_t kMariaWriteRowsCompressedV1 = 166;
inline constexpr uint8_t kMariaDeleteRowsCompressed = 171;
}  // namespace event_type

/// MySQL column type codes as they appear in TABLE_MAP (enum_field_types).
namespace column_type {
inline constexpr uint8_t kDecimal = 0, kTiny = 1, kShort = 2, kLong = 3, kFloat = 4, kDouble = 5,
                         kNull = 6, kTimestamp = 7, kLongLong = 8, kInt24 = 9, kDate = 10,
                         kTime = 11, kDateTime = 12, kYear = 13, kNewDate = 14, kVarchar = 15,
                         kBit = 16, kTimestamp2 = 17, kDateTime2 = 18, kTime2 = 19, kJson = 245,
                         kNewDecimal = 246, kEnum = 247, kSet = 248, kTinyBlob = 249,
                         kMediumBlob = 250, kLongBlob = 251, kBlob = 252, kVarString = 253,
                         kString = 254, kGeometry = 255;
}  // namespace column_type

}  // namespace floe::cdc::mysql
