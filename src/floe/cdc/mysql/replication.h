#pragma once
/// A MySQL/MariaDB replication client over libmariadb: connections with
/// actionable errors, the server checks `floe capture` needs, binlog
/// positions, and a binlog event stream.
///
/// The stream sends COM_BINLOG_DUMP with `mariadb_rpl_open` and then reads the
/// raw event packets itself (`mysql_net_read_packet`): events are decoded by
/// floe's own decoder (binlog_event.h), so MySQL 8 events that libmariadb does
/// not parse work too. See docs/mysql-capture.md.
///
/// Threading: one connection or stream per thread.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <mysql.h>

#include "floe/cdc/position.h"
#include "floe/common/result.h"

namespace floe::cdc::mysql {

struct ConnectionOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 3306;
  std::string user;
  std::string password;
  /// Seconds to wait for the connection and for each read. Default 30.
  unsigned timeout_seconds = 30;
};

/// One row of a result set: nullopt is SQL NULL.
using SqlRow = std::vector<std::optional<std::string>>;

/// A client connection. Errors name the server and, for the common mistakes,
/// what to do: a wrong password ("access denied ... check the user and
/// password"), an unreachable server ("cannot connect to host:port").
class Connection {
 public:
  static Result<std::unique_ptr<Connection>> Open(const ConnectionOptions& options);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// Runs a statement, discarding any result. kIo with the server's message.
  Status Execute(std::string_view sql);
  /// Runs a query and returns all its rows (text protocol).
  Result<std::vector<SqlRow>> Query(std::string_view sql);
  /// Runs a query and calls `row` for each row with the values and their
  /// lengths, without buffering the result set (for large snapshots).
  Status QueryStream(std::string_view sql,
                     const std::function<Status(MYSQL_ROW, const unsigned long*, unsigned)>& row);

  MYSQL* handle() { return mysql_; }
  const ConnectionOptions& options() const { return options_; }
  bool is_mariadb() const { return is_mariadb_; }
  const std::string& server_version() const { return version_; }

 private:
  Connection() = default;
  MYSQL* mysql_ = nullptr;
  ConnectionOptions options_;
  bool is_mariadb_ = false;
  std::string version_;
};

/// A server variable's value (SHOW GLOBAL VARIABLES), nullopt if the server
/// has no such variable.
Result<std::optional<std::string>> GlobalVariable(Connection& conn, std::string_view name);

/// Checks that the server can feed `floe capture`: log_bin=ON,
/// binlog_format=ROW, binlog_row_image=FULL, binlog_row_metadata=FULL (where
/// the server has it), and the grants REPLICATION SLAVE, REPLICATION CLIENT
/// (BINLOG MONITOR on MariaDB) and SELECT. kInvalidArgument whose message
/// names the setting to change or the GRANT statement to run.
Status CheckServerForCapture(Connection& conn);

/// The server's current binlog position (SHOW MASTER STATUS) and executed
/// GTIDs (@@gtid_binlog_pos on MariaDB, @@gtid_executed on MySQL), and its server id.
Result<SourcePosition> CurrentPosition(Connection& conn);

struct BinlogFileInfo {
  std::string name;
  uint64_t size = 0;
};
/// SHOW BINARY LOGS, oldest first.
Result<std::vector<BinlogFileInfo>> ListBinlogFiles(Connection& conn);

/// kNotFound when `pos.file` is no longer on the server (purged), with the
/// earliest position still available and what to do.
Status CheckPositionAvailable(Connection& conn, const BinlogFilePos& pos);

struct StreamOptions {
  ConnectionOptions connection;
  /// This client's replica server id; must differ from every other replica.
  uint32_t server_id = 54321;
  /// Ask the server for a heartbeat after this many idle seconds (0: none). Default 5.
  unsigned heartbeat_seconds = 5;
  /// Stop at the end of the binlog instead of waiting for new events.
  bool non_blocking = false;
};

/// The body of MySQL's COM_BINLOG_DUMP_GTID (command byte 0x1e, sent first by
/// the caller): flags (2 bytes; BINLOG_THROUGH_GTID 0x04, plus
/// BINLOG_DUMP_NON_BLOCK 0x01 when `non_blocking`), server id (4), binlog
/// name length (4) = 0, binlog position (8) = 4, then the GTID set: its size
/// (4) and the encoded set: number of source uuids (8), and per uuid its 16
/// bytes, the number of intervals (8) and each interval as start (8) and
/// exclusive end (8). All integers little-endian. kInvalidArgument when `gtids`
/// is not a MySQL set.
Result<std::string> EncodeBinlogDumpGtid(uint32_t server_id, bool non_blocking,
                                         const GtidSet& gtids);

/// A binlog event stream from a start position.
class BinlogStream {
 public:
  /// Connects, sets up checksums, heartbeats and MariaDB GTID capability, and
  /// starts the dump at `start.binlog` (file:pos), or at `start.gtids` when
  /// no file is given: on MariaDB through @slave_connect_state and
  /// COM_BINLOG_DUMP, on MySQL through COM_BINLOG_DUMP_GTID (sent by floe:
  /// libmariadb's mariadb_rpl only sends COM_BINLOG_DUMP). kInvalidArgument
  /// when the set's flavor does not match the server's.
  static Result<std::unique_ptr<BinlogStream>> Open(const StreamOptions& options,
                                                    const SourcePosition& start);
  ~BinlogStream();

  /// The next event's bytes (header to checksum, without the packet's OK
  /// byte), valid until the next call. nullopt at the end of the binlog in
  /// non-blocking mode. kIo when the connection breaks; kNotFound when the
  /// server says the position was purged (message from the server).
  Result<std::optional<std::span<const uint8_t>>> Next();

  /// The server's @@binlog_checksum ("CRC32" or "NONE").
  bool server_uses_crc32() const { return crc32_; }
  Connection& connection() { return *conn_; }

 private:
  BinlogStream() = default;
  std::unique_ptr<Connection> conn_;
  void* rpl_ = nullptr;  // MARIADB_RPL*
  bool crc32_ = false;
  std::string where_;
};

/// Finds the position of the first transaction that started at or after
/// `unix_seconds`, by reading the first event of each binlog file and then
/// scanning the chosen file. kNotFound if every binlog is older (then the
/// current position is the answer the caller may want).
Result<SourcePosition> FindPositionForTimestamp(const StreamOptions& options, int64_t unix_seconds);

}  // namespace floe::cdc::mysql
