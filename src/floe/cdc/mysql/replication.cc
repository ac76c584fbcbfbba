#include "floe/cdc/mysql/replication.h"

#include <errmsg.h>
#include <mariadb_rpl.h>
#include <mysqld_error.h>

#include <algorithm>
#include <cctype>

#include "floe/cdc/mysql/binlog_event.h"

namespace floe::cdc::mysql {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

}  // namespace

Result<std::unique_ptr<Connection>> Connection::Open(const ConnectionOptions& options) {
  std::unique_ptr<Connection> c(new Connection());
  c->options_ = options;
  c->mysql_ = mysql_init(nullptr);
  if (!c->mysql_) return InternalError("mysql_init failed (out of memory)");
  unsigned timeout = options.timeout_seconds;
  mysql_optionsv(c->mysql_, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  mysql_optionsv(c->mysql_, MYSQL_OPT_READ_TIMEOUT, &timeout);
  mysql_optionsv(c->mysql_, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
  mysql_optionsv(c->mysql_, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  if (!mysql_real_connect(c->mysql_, options.host.c_str(), options.user.c_str(),
                          options.password.c_str(), nullptr, options.port, nullptr, 0)) {
    unsigned err = mysql_errno(c->mysql_);
    std::string msg = mysql_error(c->mysql_);
    if (err == ER_ACCESS_DENIED_ERROR || err == 1698 /* ER_ACCESS_DENIED_NO_PASSWORD_ERROR */) {
      return InvalidArgument(
          "access denied for user '{}' connecting to {}:{} ({}): check the user name and the "
          "password (floe capture: --user, --password-env; floe run: source.username, "
          "source.password)",
          options.user, options.host, options.port, msg);
    }
    if (err == CR_CONN_HOST_ERROR || err == CR_CONNECTION_ERROR || err == CR_UNKNOWN_HOST ||
        err == CR_SERVER_LOST) {
      return IoError(
          "cannot connect to MySQL/MariaDB at {}:{}: {} (is the server running, and "
          "are its host and port right?)",
          options.host, options.port, msg);
    }
    return IoError("connecting to {}:{} as '{}': {} (error {})", options.host, options.port,
                   options.user, msg, err);
  }
  c->version_ = mysql_get_server_info(c->mysql_);
  c->is_mariadb_ = c->version_.find("MariaDB") != std::string::npos;
  return c;
}

Connection::~Connection() {
  if (mysql_) mysql_close(mysql_);
}

Status Connection::Execute(std::string_view sql) {
  if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0) {
    return IoError("{}:{}: '{}' failed: {} (error {})", options_.host, options_.port, sql,
                   mysql_error(mysql_), mysql_errno(mysql_));
  }
  MYSQL_RES* res = mysql_store_result(mysql_);
  if (res) mysql_free_result(res);
  return Ok();
}

Result<std::vector<SqlRow>> Connection::Query(std::string_view sql) {
  if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0) {
    return IoError("{}:{}: '{}' failed: {} (error {})", options_.host, options_.port, sql,
                   mysql_error(mysql_), mysql_errno(mysql_));
  }
  MYSQL_RES* res = mysql_store_result(mysql_);
  std::vector<SqlRow> rows;
  if (!res) {
    if (mysql_field_count(mysql_) != 0) {
      return IoError("{}:{}: reading the result of '{}': {}", options_.host, options_.port, sql,
                     mysql_error(mysql_));
    }
    return rows;
  }
  unsigned n = mysql_num_fields(res);
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    unsigned long* lengths = mysql_fetch_lengths(res);
    SqlRow r(n);
    for (unsigned i = 0; i < n; ++i) {
      if (row[i]) r[i] = std::string(row[i], lengths[i]);
    }
    rows.push_back(std::move(r));
  }
  mysql_free_result(res);
  return rows;
}

Status Connection::QueryStream(
    std::string_view sql,
    const std::function<Status(MYSQL_ROW, const unsigned long*, unsigned)>& on_row) {
  if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0) {
    return IoError("{}:{}: '{}' failed: {} (error {})", options_.host, options_.port, sql,
                   mysql_error(mysql_), mysql_errno(mysql_));
  }
  MYSQL_RES* res = mysql_use_result(mysql_);
  if (!res)
    return IoError("{}:{}: '{}' returned no result: {}", options_.host, options_.port, sql,
                   mysql_error(mysql_));
  unsigned n = mysql_num_fields(res);
  Status status = Ok();
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    if (!status) continue;  // drain the result
    status = on_row(row, mysql_fetch_lengths(res), n);
  }
  if (status && mysql_errno(mysql_) != 0) {
    status =
        IoError("{}:{}: reading '{}': {}", options_.host, options_.port, sql, mysql_error(mysql_));
  }
  mysql_free_result(res);
  return status;
}

Result<std::optional<std::string>> GlobalVariable(Connection& conn, std::string_view name) {
  FLOE_ASSIGN_OR_RETURN(auto rows,
                        conn.Query(fmt::format("SHOW GLOBAL VARIABLES LIKE {}", Quote(name))));
  if (rows.empty() || rows[0].size() < 2 || !rows[0][1]) return std::optional<std::string>();
  return std::optional<std::string>(*rows[0][1]);
}

Status CheckServerForCapture(Connection& conn) {
  const std::string where = fmt::format("{}:{}", conn.options().host, conn.options().port);
  FLOE_ASSIGN_OR_RETURN(auto log_bin, GlobalVariable(conn, "log_bin"));
  if (!log_bin || Upper(*log_bin) != "ON") {
    return InvalidArgument(
        "{}: binary logging is off (log_bin=OFF): floe capture reads the binlog; start the server "
        "with log_bin=ON (--log-bin), binlog_format=ROW and a server_id",
        where);
  }
  FLOE_ASSIGN_OR_RETURN(auto format, GlobalVariable(conn, "binlog_format"));
  if (!format || Upper(*format) != "ROW") {
    return InvalidArgument(
        "{}: binlog_format is {}, floe capture needs ROW: run SET GLOBAL binlog_format = 'ROW' "
        "and set binlog_format=ROW in the server configuration (sessions opened before keep "
        "their format)",
        where, format ? *format : "unknown");
  }
  FLOE_ASSIGN_OR_RETURN(auto image, GlobalVariable(conn, "binlog_row_image"));
  if (image && Upper(*image) != "FULL") {
    return InvalidArgument(
        "{}: binlog_row_image is {}, floe capture needs FULL: run SET GLOBAL binlog_row_image = "
        "'FULL' and set it in the server configuration",
        where, *image);
  }
  FLOE_ASSIGN_OR_RETURN(auto metadata, GlobalVariable(conn, "binlog_row_metadata"));
  if (metadata && Upper(*metadata) != "FULL") {
    return InvalidArgument(
        "{}: binlog_row_metadata is {}, floe capture needs FULL (column names, signedness and "
        "character sets in the binlog): run SET GLOBAL binlog_row_metadata = 'FULL' and set it "
        "in the server configuration",
        where, *metadata);
  }
  FLOE_ASSIGN_OR_RETURN(auto grants, conn.Query("SHOW GRANTS"));
  FLOE_ASSIGN_OR_RETURN(auto who, conn.Query("SELECT CURRENT_USER()"));
  std::string account = "'user'@'host'";
  if (!who.empty() && !who[0].empty() && who[0][0]) {
    std::string cu = *who[0][0];
    size_t at = cu.rfind('@');
    account = at == std::string::npos ? Quote(cu)
                                      : Quote(cu.substr(0, at)) + "@" + Quote(cu.substr(at + 1));
  }
  bool all = false, repl_slave = false, repl_client = false, select = false;
  for (const auto& row : grants) {
    if (row.empty() || !row[0]) continue;
    std::string g = Upper(*row[0]);
    bool global = g.find(" ON *.* ") != std::string::npos;
    if (global && g.find("ALL PRIVILEGES") != std::string::npos) all = true;
    if (global && (g.find("REPLICATION SLAVE") != std::string::npos ||
                   g.find("REPLICATION REPLICA") != std::string::npos))
      repl_slave = true;
    if (global && (g.find("REPLICATION CLIENT") != std::string::npos ||
                   g.find("BINLOG MONITOR") != std::string::npos))
      repl_client = true;
    if (g.find("GRANT SELECT") != std::string::npos || g.find(", SELECT") != std::string::npos ||
        g.find("ALL PRIVILEGES") != std::string::npos)
      select = true;
  }
  if (!all) {
    std::vector<std::string> missing;
    if (!repl_slave) missing.push_back("REPLICATION SLAVE");
    if (!repl_client)
      missing.push_back(conn.is_mariadb() ? "BINLOG MONITOR" : "REPLICATION CLIENT");
    if (!select) missing.push_back("SELECT");
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      return InvalidArgument(
          "{}: user {} lacks the privileges floe capture needs ({}): run "
          "GRANT {} ON *.* TO {}",
          where, account, list, list, account);
    }
  }
  return Ok();
}

Result<SourcePosition> CurrentPosition(Connection& conn) {
  SourcePosition p;
  FLOE_ASSIGN_OR_RETURN(auto rows, conn.Query("SHOW MASTER STATUS"));
  if (rows.empty() || rows[0].size() < 2 || !rows[0][0] || !rows[0][1]) {
    return InvalidArgument(
        "{}:{}: SHOW MASTER STATUS returned nothing: binary logging is off "
        "(start the server with log_bin=ON)",
        conn.options().host, conn.options().port);
  }
  p.binlog.file = *rows[0][0];
  p.binlog.pos = std::stoull(*rows[0][1]);
  FLOE_ASSIGN_OR_RETURN(auto gtid, conn.Query(conn.is_mariadb() ? "SELECT @@GLOBAL.gtid_binlog_pos"
                                                                : "SELECT @@GLOBAL.gtid_executed"));
  if (!gtid.empty() && !gtid[0].empty() && gtid[0][0]) {
    std::string text = *gtid[0][0];
    text.erase(std::remove(text.begin(), text.end(), '\n'), text.end());
    auto set = GtidSet::Parse(text);
    if (set) p.gtids = std::move(*set);
  }
  FLOE_ASSIGN_OR_RETURN(auto sid, conn.Query("SELECT @@server_id"));
  if (!sid.empty() && !sid[0].empty() && sid[0][0])
    p.server_id = static_cast<uint32_t>(std::stoul(*sid[0][0]));
  return p;
}

Result<std::vector<BinlogFileInfo>> ListBinlogFiles(Connection& conn) {
  FLOE_ASSIGN_OR_RETURN(auto rows, conn.Query("SHOW BINARY LOGS"));
  std::vector<BinlogFileInfo> files;
  for (const auto& r : rows) {
    if (r.size() < 2 || !r[0]) continue;
    files.push_back({*r[0], r[1] ? std::stoull(*r[1]) : 0});
  }
  return files;
}

Status CheckPositionAvailable(Connection& conn, const BinlogFilePos& pos) {
  FLOE_ASSIGN_OR_RETURN(auto files, ListBinlogFiles(conn));
  for (const auto& f : files) {
    if (f.name == pos.file) {
      if (pos.pos > f.size) {
        return InvalidArgument("binlog position {} is past the end of {} ({} bytes)",
                               pos.ToString(), f.name, f.size);
      }
      return Ok();
    }
  }
  std::string earliest = files.empty() ? "none" : files.front().name + ":4";
  return NotFound(
      "binlog position {} is no longer on the server (the file was purged); the "
      "earliest available position is {}: restart with --startup initial (a new "
      "snapshot), or --startup {} if losing the changes in between is acceptable",
      pos.ToString(), earliest, earliest);
}

namespace {

void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<std::string> EncodeBinlogDumpGtid(uint32_t server_id, bool non_blocking,
                                         const GtidSet& gtids) {
  if (gtids.flavor() != GtidSet::Flavor::kMySql) {
    return InvalidArgument("COM_BINLOG_DUMP_GTID needs a MySQL GTID set (uuid:interval), got '{}'",
                           gtids.ToString());
  }
  std::string set;
  PutLe(&set, gtids.mysql_intervals().size(), 8);
  for (const auto& [uuid, intervals] : gtids.mysql_intervals()) {
    std::string bytes;
    for (size_t i = 0; i < uuid.size(); ++i) {
      if (uuid[i] == '-') continue;
      int hi = HexDigit(uuid[i]), lo = i + 1 < uuid.size() ? HexDigit(uuid[i + 1]) : -1;
      if (hi < 0 || lo < 0)
        return InvalidArgument("GTID source uuid '{}' is not hexadecimal", uuid);
      bytes.push_back(static_cast<char>(hi * 16 + lo));
      ++i;
    }
    if (bytes.size() != 16) return InvalidArgument("GTID source uuid '{}' is not 16 bytes", uuid);
    set += bytes;
    PutLe(&set, intervals.size(), 8);
    for (const auto& [first, last] : intervals) {
      PutLe(&set, first, 8);
      PutLe(&set, last + 1, 8);  // the protocol's end is exclusive
    }
  }
  std::string out;
  PutLe(&out, 0x04 | (non_blocking ? 0x01 : 0x00), 2);  // BINLOG_THROUGH_GTID
  PutLe(&out, server_id, 4);
  PutLe(&out, 0, 4);  // no binlog file name
  PutLe(&out, 4, 8);
  PutLe(&out, set.size(), 4);
  out += set;
  return out;
}

Result<std::unique_ptr<BinlogStream>> BinlogStream::Open(const StreamOptions& options,
                                                         const SourcePosition& start) {
  std::unique_ptr<BinlogStream> s(new BinlogStream());
  ConnectionOptions co = options.connection;
  if (options.heartbeat_seconds > 0) {
    co.timeout_seconds = std::max(co.timeout_seconds, options.heartbeat_seconds * 4);
  }
  FLOE_ASSIGN_OR_RETURN(s->conn_, Connection::Open(co));
  Connection& c = *s->conn_;
  FLOE_ASSIGN_OR_RETURN(auto checksum, GlobalVariable(c, "binlog_checksum"));
  s->crc32_ = checksum && Upper(*checksum) == "CRC32";
  FLOE_RETURN_IF_ERROR(c.Execute("SET @master_binlog_checksum = @@global.binlog_checksum"));
  if (c.is_mariadb()) FLOE_RETURN_IF_ERROR(c.Execute("SET @mariadb_slave_capability = 4"));
  if (options.heartbeat_seconds > 0) {
    FLOE_RETURN_IF_ERROR(c.Execute(fmt::format(
        "SET @master_heartbeat_period = {}", uint64_t{options.heartbeat_seconds} * 1000000000ull)));
  }
  std::string file = start.binlog.file;
  uint64_t pos = start.binlog.pos < 4 ? 4 : start.binlog.pos;
  if (file.empty()) {
    if (start.gtids.empty()) return InvalidArgument("binlog stream: no start position");
    if (!c.is_mariadb()) {
      if (start.gtids.flavor() != GtidSet::Flavor::kMySql) {
        return InvalidArgument(
            "{}:{} is MySQL {}: the GTID set '{}' is a MariaDB position "
            "(domain-server-sequence); give a MySQL GTID set "
            "(uuid:first-last, see SELECT @@GLOBAL.gtid_executed)",
            co.host, co.port, c.server_version(), start.gtids.ToString());
      }
      // libmariadb's mariadb_rpl_open only sends COM_BINLOG_DUMP (file:pos);
      // floe sends COM_BINLOG_DUMP_GTID itself and reads the events as usual.
      FLOE_ASSIGN_OR_RETURN(
          std::string body,
          EncodeBinlogDumpGtid(options.server_id, options.non_blocking, start.gtids));
      MYSQL* m = c.handle();
      constexpr auto kComBinlogDumpGtid = static_cast<enum enum_server_command>(0x1e);
      if (m->methods->db_command(m, kComBinlogDumpGtid, body.data(), body.size(), 1, nullptr) !=
          0) {
        return IoError("{}:{}: sending COM_BINLOG_DUMP_GTID for '{}' failed: {}", co.host, co.port,
                       start.gtids.ToString(), mysql_error(m));
      }
      s->where_ = fmt::format("{}:{}", co.host, co.port);
      return s;
    }
    if (start.gtids.flavor() != GtidSet::Flavor::kMariaDb) {
      return InvalidArgument(
          "{}:{} is MariaDB {}: the GTID set '{}' is a MySQL set; MariaDB "
          "streams from a MariaDB GTID position (domain-server-sequence, see "
          "SELECT @@GLOBAL.gtid_binlog_pos)",
          co.host, co.port, c.server_version(), start.gtids.ToString());
    }
    FLOE_RETURN_IF_ERROR(
        c.Execute(fmt::format("SET @slave_connect_state = '{}'", start.gtids.ToString())));
    FLOE_RETURN_IF_ERROR(c.Execute("SET @slave_gtid_strict_mode = 0"));
    FLOE_RETURN_IF_ERROR(c.Execute("SET @slave_gtid_ignore_duplicates = 0"));
    pos = 4;
  } else {
    FLOE_RETURN_IF_ERROR(CheckPositionAvailable(c, BinlogFilePos{file, pos}));
  }
  MARIADB_RPL* rpl = mariadb_rpl_init(c.handle());
  if (!rpl) return InternalError("mariadb_rpl_init failed: {}", mysql_error(c.handle()));
  s->rpl_ = rpl;
  mariadb_rpl_optionsv(rpl, MARIADB_RPL_FILENAME, file.c_str(), file.size());
  mariadb_rpl_optionsv(rpl, MARIADB_RPL_START, static_cast<unsigned long>(pos));
  mariadb_rpl_optionsv(rpl, MARIADB_RPL_SERVER_ID, static_cast<unsigned int>(options.server_id));
  unsigned int flags = options.non_blocking ? MARIADB_RPL_BINLOG_DUMP_NON_BLOCK : 0;
  if (c.is_mariadb()) flags |= MARIADB_RPL_BINLOG_SEND_ANNOTATE_ROWS;
  mariadb_rpl_optionsv(rpl, MARIADB_RPL_FLAGS, flags);
  if (mariadb_rpl_open(rpl) != 0) {
    return IoError("{}:{}: starting the binlog dump at {}:{} failed: {}", co.host, co.port, file,
                   pos, mysql_error(c.handle()));
  }
  s->where_ = fmt::format("{}:{}", co.host, co.port);
  return s;
}

BinlogStream::~BinlogStream() {
  if (rpl_) mariadb_rpl_close(static_cast<MARIADB_RPL*>(rpl_));
}

Result<std::optional<std::span<const uint8_t>>> BinlogStream::Next() {
  MYSQL* m = conn_->handle();
  unsigned long len = mysql_net_read_packet(m);
  // libmariadb's packet_error is (unsigned int)-1, widened to unsigned long.
  if (len == static_cast<unsigned long>(~0U) || len == ~0UL) {
    unsigned err = mysql_errno(m);
    std::string msg = mysql_error(m);
    if (err == 1236 /* ER_MASTER_FATAL_ERROR_READING_BINLOG */) {
      return NotFound(
          "{}: the server cannot send the requested binlog position: {} (the binlog "
          "may have been purged: restart with --startup initial)",
          where_, msg);
    }
    return IoError("{}: binlog stream broken: {} (error {})", where_, msg, err);
  }
  const uint8_t* p = m->net.read_pos;
  if (len < 9 && len >= 1 && p[0] == 0xFE) return std::optional<std::span<const uint8_t>>();
  if (len < 1 || p[0] != 0x00) {
    return Corruption("{}: unexpected binlog packet (first byte {:#x}, {} bytes)", where_,
                      len ? p[0] : 0, len);
  }
  return std::optional<std::span<const uint8_t>>(std::span<const uint8_t>(p + 1, len - 1));
}

Result<SourcePosition> FindPositionForTimestamp(const StreamOptions& options,
                                                int64_t unix_seconds) {
  FLOE_ASSIGN_OR_RETURN(auto conn, Connection::Open(options.connection));
  FLOE_ASSIGN_OR_RETURN(auto files, ListBinlogFiles(*conn));
  if (files.empty()) return NotFound("the server has no binlog files");
  // The first event after the fake ROTATE of a dump is the file's FORMAT_DESCRIPTION,
  // whose timestamp is when the file was started.
  auto file_start = [&](const std::string& name) -> Result<int64_t> {
    StreamOptions so = options;
    so.non_blocking = true;
    so.heartbeat_seconds = 0;
    SourcePosition sp;
    sp.binlog = {name, 4};
    FLOE_ASSIGN_OR_RETURN(auto stream, BinlogStream::Open(so, sp));
    BinlogDecoder decoder;
    for (int i = 0; i < 4; ++i) {
      FLOE_ASSIGN_OR_RETURN(auto ev, stream->Next());
      if (!ev) break;
      FLOE_ASSIGN_OR_RETURN(auto e, decoder.Decode(*ev));
      if (e.header.type == event_type::kFormatDescription) return int64_t{e.header.timestamp};
    }
    return NotFound("binlog {} has no FORMAT_DESCRIPTION event", name);
  };
  size_t chosen = 0;
  for (size_t i = files.size(); i-- > 0;) {
    FLOE_ASSIGN_OR_RETURN(int64_t ts, file_start(files[i].name));
    if (ts <= unix_seconds) {
      chosen = i;
      break;
    }
  }
  StreamOptions so = options;
  so.non_blocking = true;
  so.heartbeat_seconds = 0;
  SourcePosition sp;
  sp.binlog = {files[chosen].name, 4};
  FLOE_ASSIGN_OR_RETURN(auto stream, BinlogStream::Open(so, sp));
  BinlogDecoder decoder;
  decoder.set_current_file(files[chosen].name);
  while (true) {
    FLOE_ASSIGN_OR_RETURN(auto ev, stream->Next());
    if (!ev) break;
    FLOE_ASSIGN_OR_RETURN(auto e, decoder.Decode(*ev));
    bool starts_tx = e.header.type == event_type::kMariaGtid ||
                     e.header.type == event_type::kGtid ||
                     e.header.type == event_type::kAnonymousGtid ||
                     (e.header.type == event_type::kQuery &&
                      Upper(std::get<QueryEvent>(e.body).query) == "BEGIN");
    if (starts_tx && e.header.log_pos != 0 && int64_t{e.header.timestamp} >= unix_seconds) {
      SourcePosition found;
      found.binlog = {decoder.current_file(), e.position};
      return found;
    }
  }
  return NotFound("no transaction in the binlog started at or after {}; every binlog is older",
                  unix_seconds);
}

}  // namespace floe::cdc::mysql
