#pragma once
/// Source positions of a change stream: where in a MySQL/MariaDB binlog an
/// event is, as a binlog file:pos and as a GTID set, plus the server id. A
/// position is what a checkpoint stores; streaming resumes from it.
///
/// GTID sets come in two flavors:
///   MySQL:   "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:7,<uuid>:1-3"
///            (per source uuid, a list of inclusive intervals of transaction numbers)
///   MariaDB: "0-1-100,1-2-50" (per replication domain, the last applied
///            server_id-sequence; a position, not a set of holes)
/// Text and JSON forms round-trip exactly (docs/mysql-capture.md).

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/common/result.h"

namespace floe::cdc {

/// A binlog file name and byte offset in it. Ordered by the file's numeric
/// suffix ("mysql-bin.000010" > "mysql-bin.000009"), then by offset.
struct BinlogFilePos {
  std::string file;
  uint64_t pos = 0;

  bool empty() const { return file.empty(); }
  /// "mysql-bin.000003:1234".
  std::string ToString() const;
  /// Parses "FILE:POS". kInvalidArgument on a missing colon or bad number.
  static Result<BinlogFilePos> Parse(std::string_view text);

  friend bool operator==(const BinlogFilePos&, const BinlogFilePos&) = default;
};
/// -1, 0, 1: by file sequence number (the digits after the last '.'), then offset.
int Compare(const BinlogFilePos& a, const BinlogFilePos& b);

/// One MariaDB GTID: domain-server-sequence.
struct MariaDbGtid {
  uint32_t domain_id = 0;
  uint32_t server_id = 0;
  uint64_t sequence = 0;
  std::string ToString() const;
  friend bool operator==(const MariaDbGtid&, const MariaDbGtid&) = default;
};

/// A GTID set of either flavor (an empty set has no flavor).
class GtidSet {
 public:
  enum class Flavor : uint8_t { kNone, kMySql, kMariaDb };

  GtidSet() = default;

  /// Parses either flavor; "" is the empty set. kInvalidArgument naming the
  /// bad part ("bad GTID interval '5-3' in ...").
  static Result<GtidSet> Parse(std::string_view text);

  Flavor flavor() const { return flavor_; }
  bool empty() const { return mysql_.empty() && mariadb_.empty(); }

  /// Adds one MySQL transaction (uuid in canonical lower-case 36-char text).
  /// kInvalidArgument when the set already holds MariaDB GTIDs.
  Status AddMySql(std::string_view uuid, uint64_t transaction_number);
  /// Records a MariaDB GTID as the domain's latest position.
  Status AddMariaDb(const MariaDbGtid& gtid);

  /// True when every transaction of `other` is in this set. For MariaDB: for
  /// every domain of `other`, this set's sequence for that domain is >=.
  bool Contains(const GtidSet& other) const;
  /// True when this set contains the single GTID given as text ("uuid:n" or "d-s-n").
  bool ContainsGtid(std::string_view gtid) const;

  /// Canonical text: MySQL uuids sorted, intervals merged; MariaDB domains sorted.
  std::string ToString() const;

  const std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>>& mysql_intervals() const {
    return mysql_;
  }
  const std::map<uint32_t, MariaDbGtid>& mariadb_domains() const { return mariadb_; }

  friend bool operator==(const GtidSet& a, const GtidSet& b) {
    return a.flavor_ == b.flavor_ && a.mysql_ == b.mysql_ && a.mariadb_ == b.mariadb_;
  }

 private:
  Flavor flavor_ = Flavor::kNone;
  /// uuid -> sorted, merged, inclusive intervals.
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> mysql_;
  std::map<uint32_t, MariaDbGtid> mariadb_;
};

/// Where a change came from, and where to resume after it.
///
/// For a checkpoint, `binlog` is the position of the first event of the next
/// transaction (the end of the last committed one) and `gtids` contains every
/// committed transaction; `server_id` is the source server's id.
struct SourcePosition {
  BinlogFilePos binlog;
  GtidSet gtids;
  uint32_t server_id = 0;
  /// The GTID of the transaction this event belongs to ("" outside one).
  std::string gtid;
  /// Index of the row within its rows event (Debezium's `source.row`).
  uint32_t row = 0;

  /// {"file": "...", "pos": N, "gtids": "...", "server_id": N} (plus "gtid",
  /// "row" when set).
  nlohmann::json ToJson() const;
  /// kInvalidArgument naming the bad member.
  static Result<SourcePosition> FromJson(const nlohmann::json& json);
  std::string ToJsonString() const { return ToJson().dump(); }
  static Result<SourcePosition> FromJsonString(std::string_view text);

  friend bool operator==(const SourcePosition&, const SourcePosition&) = default;
};

/// Orders two positions of the same server: by GTID containment when both
/// have GTID sets of the same flavor and one contains the other, otherwise by
/// binlog file:pos. Returns nullopt when neither the GTID sets nor the file
/// positions can order them (both unset, or GTID sets that overlap partially).
std::optional<int> ComparePositions(const SourcePosition& a, const SourcePosition& b);

}  // namespace floe::cdc
