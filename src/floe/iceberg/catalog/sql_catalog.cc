#include "floe/iceberg/catalog/sql_catalog.h"

#include <sqlite3.h>

#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/ranges.h>

#include "floe/iceberg/json/metadata_json.h"

namespace floe::iceberg {
namespace {

// SQLite's message, with the operating system's cause when there is one:
// SQLite says only "disk I/O error" when a sync fails because the disk is full.
std::string SqliteMessage(sqlite3* db) {
  std::string message = db ? sqlite3_errmsg(db) : "out of memory";
  int err = db ? sqlite3_system_errno(db) : 0;
  if (err != 0) message += fmt::format(" ({})", std::strerror(err));
  return message;
}

// A prepared statement with positional text bindings.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  }
  /// Uses `*cached` (prepared on first use, kept by the caller for the
  /// connection's life) instead of preparing `sql` again; reset when done.
  Statement(sqlite3* db, sqlite3_stmt** cached, std::string_view sql) : db_(db), owned_(false) {
    rc_ = *cached != nullptr ? SQLITE_OK
                             : sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                                                  SQLITE_PREPARE_PERSISTENT, cached, nullptr);
    stmt_ = *cached;
  }
  ~Statement() {
    if (owned_) {
      sqlite3_finalize(stmt_);
    } else if (stmt_ != nullptr) {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
    }
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& Bind(std::string_view value) {
    if (rc_ == SQLITE_OK) {
      rc_ = sqlite3_bind_text(stmt_, ++index_, value.data(), static_cast<int>(value.size()),
                              SQLITE_TRANSIENT);
    }
    return *this;
  }
  Statement& BindNull() {
    if (rc_ == SQLITE_OK) rc_ = sqlite3_bind_null(stmt_, ++index_);
    return *this;
  }
  /// Steps once: true with a row, false when done.
  Result<bool> Step() {
    if (rc_ != SQLITE_OK) return Fail();
    errno = 0;
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    // The failed system call's errno, before anything else can change it.
    step_errno_ = errno;
    rc_ = rc;
    return Fail();
  }
  Status Run() {
    FLOE_ASSIGN_OR_RETURN(bool row, Step());
    (void)row;
    return Ok();
  }
  std::string Text(int column) {
    const unsigned char* p = sqlite3_column_text(stmt_, column);
    return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
  }
  bool IsNull(int column) { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  int rc() const { return rc_; }

 private:
  std::unexpected<Error> Fail() {
    ErrorCode code = rc_ == SQLITE_BUSY || rc_ == SQLITE_LOCKED ? ErrorCode::kCommitConflict
                     : (rc_ & 0xff) == SQLITE_CONSTRAINT        ? ErrorCode::kAlreadyExists
                                                                : ErrorCode::kIo;
    std::string message = SqliteMessage(db_);
    int primary = rc_ & 0xff;
    if (step_errno_ != 0 && sqlite3_system_errno(db_) == 0 &&
        (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN)) {
      message += fmt::format(" ({})", std::strerror(step_errno_));
    }
    return MakeError(code, "sql catalog: {}", message);
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  bool owned_ = true;
  int rc_;
  int index_ = 0;
  int step_errno_ = 0;
};

Status Exec(sqlite3* db, const char* sql) {
  char* message = nullptr;
  errno = 0;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  // The failed system call's errno, before anything else can change it (SQLite
  // does not keep it for every call, e.g. a journal sync on a full disk).
  int call_errno = errno;
  if (rc != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    if (int err = sqlite3_system_errno(db); err != 0) {
      text += fmt::format(" ({})", std::strerror(err));
    } else if (int primary = rc & 0xff;
               call_errno != 0 &&
               (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN)) {
      text += fmt::format(" ({})", std::strerror(call_errno));
    }
    sqlite3_free(message);
    return IoError("sql catalog: {}", text);
  }
  return Ok();
}

constexpr const char* kCreateTables = R"sql(
CREATE TABLE IF NOT EXISTS iceberg_tables (
  catalog_name VARCHAR(255) NOT NULL,
  table_namespace VARCHAR(255) NOT NULL,
  table_name VARCHAR(255) NOT NULL,
  metadata_location VARCHAR(1000),
  previous_metadata_location VARCHAR(1000),
  iceberg_type VARCHAR(5),
  PRIMARY KEY (catalog_name, table_namespace, table_name));
CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (
  catalog_name VARCHAR(255) NOT NULL,
  namespace VARCHAR(255) NOT NULL,
  property_key VARCHAR(255) NOT NULL,
  property_value VARCHAR(1000),
  PRIMARY KEY (catalog_name, namespace, property_key));
)sql";

// Rows that are tables (Iceberg's JDBC catalog also keeps views here).
constexpr std::string_view kIsTable = "(iceberg_type IS NULL OR iceberg_type = 'TABLE')";

Result<std::string> NamespaceKey(const Namespace& ns) {
  if (ns.empty()) return InvalidArgument("namespace is empty");
  for (const auto& level : ns) FLOE_RETURN_IF_ERROR(ValidateName(level, "namespace"));
  return NamespaceToString(ns);
}

}  // namespace

SqlCatalog::SqlCatalog(std::string name, std::string warehouse, io::FileIO* io, sqlite3* db)
    : name_(std::move(name)),
      warehouse_(std::move(warehouse)),
      deferred_(std::make_unique<io::DeferredSyncFileIO>(*io)),
      io_(deferred_.get()),
      db_(db) {
  while (warehouse_.size() > 1 && warehouse_.back() == '/') warehouse_.pop_back();
}

SqlCatalog::~SqlCatalog() {
  sqlite3_finalize(swap_stmt_);
  sqlite3_close(db_);
}

Result<std::unique_ptr<SqlCatalog>> SqlCatalog::Open(std::string name, std::string_view uri,
                                                     std::string warehouse, io::FileIO* file_io) {
  std::string path(uri);
  if (uri.starts_with("sqlite:///")) {
    path = std::string(uri.substr(10));
  } else if (uri.starts_with("sqlite://")) {
    return InvalidArgument("sql catalog uri '{}': use sqlite:///PATH (three slashes)",
                           io::RedactUri(uri));
  } else if (uri.find("://") != std::string_view::npos) {
    return NotSupported("sql catalog uri '{}': only sqlite is supported", io::RedactUri(uri));
  }
  if (path.empty()) {
    return InvalidArgument("sql catalog uri '{}' names no database file", io::RedactUri(uri));
  }
  if (path != ":memory:") {
    size_t slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0)
      FLOE_RETURN_IF_ERROR(io::CreateDirectories(path.substr(0, slash)));
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string message = SqliteMessage(db);
    sqlite3_close(db);
    return IoError("opening sql catalog {}: {}", path, message);
  }
  std::unique_ptr<SqlCatalog> catalog(new SqlCatalog(
      std::move(name), warehouse.empty() ? std::string() : io::AbsoluteLocalPath(warehouse),
      file_io, db));
  // Other processes (floe, PyIceberg, Java) share the file: wait for their locks.
  sqlite3_busy_timeout(db, 30'000);
  // The journal stays in SQLite's default mode (DELETE): there a commit ends
  // when the journal is deleted, so an error (a sync failing on a full disk)
  // means the transaction did not commit, which CommitTable relies on. In
  // TRUNCATE mode a failed sync of the truncated journal comes after the
  // database file has the change (tests/crash: "listed but cannot be read").
  FLOE_RETURN_IF_ERROR(Exec(db, kCreateTables));
  // A file created by PyIceberg has no iceberg_type column; use it only if present.
  Statement columns(db, "SELECT name FROM pragma_table_info('iceberg_tables')");
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool row, columns.Step());
    if (!row) break;
    if (columns.Text(0) == "iceberg_type") catalog->has_iceberg_type_ = true;
  }
  return catalog;
}

Result<bool> SqlCatalog::NamespaceExists(const std::string& ns) {
  Statement props(db_,
                  "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ? AND "
                  "(namespace = ? OR namespace LIKE ? ESCAPE '!') LIMIT 1");
  std::string like;
  for (char c : ns) {
    if (c == '%' || c == '_' || c == '!') like += '!';
    like += c;
  }
  props.Bind(name_).Bind(ns).Bind(like + ".%");
  FLOE_ASSIGN_OR_RETURN(bool found, props.Step());
  if (found) return true;
  Statement tables(db_,
                   "SELECT 1 FROM iceberg_tables WHERE catalog_name = ? AND "
                   "(table_namespace = ? OR table_namespace LIKE ? ESCAPE '!') LIMIT 1");
  tables.Bind(name_).Bind(ns).Bind(like + ".%");
  return tables.Step();
}

Result<std::vector<Namespace>> SqlCatalog::ListNamespaces(const Namespace& parent) {
  std::lock_guard lock(mu_);
  std::string prefix = parent.empty() ? "" : NamespaceToString(parent) + ".";
  std::set<std::string> names;
  for (const char* sql :
       {"SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?",
        "SELECT DISTINCT table_namespace FROM iceberg_tables WHERE catalog_name = ?"}) {
    Statement st(db_, sql);
    st.Bind(name_);
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      std::string ns = st.Text(0);
      if (!ns.starts_with(prefix) || ns.size() == prefix.size()) continue;
      std::string rest = ns.substr(prefix.size());
      names.insert(prefix + rest.substr(0, rest.find('.')));
    }
  }
  std::vector<Namespace> out;
  for (const auto& n : names) {
    auto ns = ParseNamespace(n);
    if (ns)
      out.push_back(std::move(*ns));  // names other tools wrote that floe cannot use are skipped
  }
  return out;
}

Status SqlCatalog::CreateNamespace(const Namespace& ns, const Properties& properties) {
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(std::string key, NamespaceKey(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(key));
  if (exists) return AlreadyExists("namespace {} already exists", key);
  Properties props = properties;
  props.emplace("exists", "true");
  FLOE_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE"));
  for (const auto& [k, v] : props) {
    Statement st(db_, "INSERT INTO iceberg_namespace_properties VALUES (?, ?, ?, ?)");
    st.Bind(name_).Bind(key).Bind(k).Bind(v);
    if (auto s = st.Run(); !s) {
      (void)Exec(db_, "ROLLBACK");
      return s;
    }
  }
  return Exec(db_, "COMMIT");
}

Result<Properties> SqlCatalog::LoadNamespaceProperties(const Namespace& ns) {
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(std::string key, NamespaceKey(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(key));
  if (!exists) return NotFound("namespace {} does not exist", key);
  Statement st(db_,
               "SELECT property_key, property_value FROM iceberg_namespace_properties "
               "WHERE catalog_name = ? AND namespace = ?");
  st.Bind(name_).Bind(key);
  Properties out;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    if (st.Text(0) != "exists") out[st.Text(0)] = st.Text(1);
  }
  return out;
}

Status SqlCatalog::UpdateNamespaceProperties(const Namespace& ns,
                                             const std::vector<std::string>& removals,
                                             const Properties& updates) {
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(std::string key, NamespaceKey(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(key));
  if (!exists) return NotFound("namespace {} does not exist", key);
  FLOE_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE"));
  auto run = [&]() -> Status {
    for (const auto& k : removals) {
      Statement st(db_,
                   "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND "
                   "namespace = ? AND property_key = ?");
      FLOE_RETURN_IF_ERROR(st.Bind(name_).Bind(key).Bind(k).Run());
    }
    for (const auto& [k, v] : updates) {
      Statement st(db_, "INSERT OR REPLACE INTO iceberg_namespace_properties VALUES (?, ?, ?, ?)");
      FLOE_RETURN_IF_ERROR(st.Bind(name_).Bind(key).Bind(k).Bind(v).Run());
    }
    return Ok();
  };
  if (auto s = run(); !s) {
    (void)Exec(db_, "ROLLBACK");
    return s;
  }
  return Exec(db_, "COMMIT");
}

Status SqlCatalog::DropNamespace(const Namespace& ns) {
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(std::string key, NamespaceKey(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(key));
  if (!exists) return NotFound("namespace {} does not exist", key);
  Statement tables(
      db_, "SELECT 1 FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? LIMIT 1");
  tables.Bind(name_).Bind(key);
  FLOE_ASSIGN_OR_RETURN(bool has_tables, tables.Step());
  if (has_tables) return InvalidArgument("namespace {} is not empty: drop its tables first", key);
  Statement st(db_,
               "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?");
  return st.Bind(name_).Bind(key).Run();
}

Result<std::vector<TableIdentifier>> SqlCatalog::ListTables(const Namespace& ns) {
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(std::string key, NamespaceKey(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(key));
  if (!exists) return NotFound("namespace {} does not exist", key);
  std::string sql = fmt::format(
      "SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
      "table_namespace = ?{} ORDER BY table_name",
      has_iceberg_type_ ? fmt::format(" AND {}", kIsTable) : "");
  Statement st(db_, sql);
  st.Bind(name_).Bind(key);
  std::vector<TableIdentifier> out;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(TableIdentifier{ns, st.Text(0)});
  }
  return out;
}

Result<std::string> SqlCatalog::MetadataLocationOf(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(std::string key, NamespaceKey(id.ns));
  FLOE_RETURN_IF_ERROR(ValidateName(id.name, "table"));
  std::string sql = fmt::format(
      "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? "
      "AND table_namespace = ? AND table_name = ?{}",
      has_iceberg_type_ ? fmt::format(" AND {}", kIsTable) : "");
  Statement st(db_, sql);
  st.Bind(name_).Bind(key).Bind(id.name);
  FLOE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return NotFound("table {} does not exist", id.ToString());
  if (st.IsNull(0) || st.Text(0).empty()) {
    return Corruption(
        "table {}: its row in sql catalog '{}' (iceberg_tables) has no "
        "metadata_location",
        id.ToString(), name_);
  }
  return st.Text(0);
}

Result<bool> SqlCatalog::TableExists(const TableIdentifier& id) {
  std::lock_guard lock(mu_);
  auto location = MetadataLocationOf(id);
  if (location) return true;
  if (location.error().code() == ErrorCode::kNotFound) return false;
  return std::unexpected(location.error());
}

std::string SqlCatalog::DefaultTableLocation(const TableIdentifier& id) {
  std::string ns = NamespaceToString(id.ns);
  Statement st(db_,
               "SELECT property_value FROM iceberg_namespace_properties WHERE catalog_name = ? "
               "AND namespace = ? AND property_key = 'location'");
  st.Bind(name_).Bind(ns);
  auto row = st.Step();
  if (row && *row && !st.Text(0).empty()) {
    std::string base = io::AbsoluteLocalPath(st.Text(0));
    while (!base.empty() && base.back() == '/') base.pop_back();
    return base + "/" + id.name;
  }
  if (warehouse_.empty()) return std::string();
  return fmt::format("{}/{}.db/{}", warehouse_, ns, id.name);
}

Result<LoadedTable> SqlCatalog::CreateTable(const TableIdentifier& id, TableMetadata metadata) {
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(std::string key, NamespaceKey(id.ns));
  FLOE_RETURN_IF_ERROR(ValidateName(id.name, "table"));
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(key));
  if (!ns_exists) return NotFound("namespace {} does not exist", key);
  auto existing = MetadataLocationOf(id);
  if (existing) return AlreadyExists("table {} already exists", id.ToString());
  if (metadata.location.empty()) metadata.location = DefaultTableLocation(id);
  if (metadata.location.empty()) {
    return InvalidArgument(
        "cannot create table {}: sql catalog '{}' has no 'warehouse' and the "
        "namespace no 'location'",
        id.ToString(), name_);
  }
  metadata.location = io::AbsoluteLocalPath(metadata.location);
  FLOE_ASSIGN_OR_RETURN(auto used, LocationInUse(*io_, metadata.location));
  // A table of this catalog file that has not committed yet counts too.
  if (!used) {
    FLOE_ASSIGN_OR_RETURN(used, RowWithin(metadata.location));
  }
  if (used) {
    return AlreadyExists(
        "cannot create table {}: its location {} already holds another table's "
        "metadata ({})",
        id.ToString(), io::RedactUri(metadata.location), io::RedactUri(*used));
  }
  std::string location = NextMetadataLocation(metadata.location, "");
  // Files written for the table before it is created (none in floe's own
  // paths) are durable before a row names them.
  FLOE_RETURN_IF_ERROR_CTX(deferred_->SyncDeferred(), "creating table {}", id.ToString());
  if (auto written = WriteNewMetadataFile(*io_, location, metadata); !written) {
    // No row names the file yet: whatever the failure, it must not stay.
    (void)io_->Delete(location);
    return std::unexpected(
        std::move(written).error().WithContext(fmt::format("creating table {}", id.ToString())));
  }
  if (auto s = InsertTableRow(key, id, location); !s) {
    (void)io_->Delete(location);
    return std::unexpected(s.error());
  }
  return LoadedTable{id, location, std::move(metadata)};
}

Result<std::optional<std::string>> SqlCatalog::RowWithin(const std::string& location,
                                                         const std::string& except) {
  // Only rows under the folder, as a plain path or a file:// URI, are
  // candidates (a range of the text, so SQLite compares them, not every row
  // through PathIsWithin: that made creating N tables quadratic).
  const std::string folder = location + "/metadata/";
  for (const std::string& prefix : {folder, "file://" + folder}) {
    Statement rows(db_,
                   "SELECT metadata_location FROM iceberg_tables WHERE metadata_location >= ? "
                   "AND metadata_location < ?");
    rows.Bind(prefix).Bind(prefix + "\xff");
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, rows.Step());
      if (!row) break;
      std::string other = rows.Text(0);
      if (!other.empty() && other != except && io::PathIsWithin(other, location + "/metadata")) {
        return other;
      }
    }
  }
  return std::nullopt;
}

Status SqlCatalog::InsertTableRow(const std::string& ns_key, const TableIdentifier& id,
                                  const std::string& metadata_location) {
  Statement st(db_,
               has_iceberg_type_
                   ? "INSERT INTO iceberg_tables VALUES (?, ?, ?, ?, NULL, 'TABLE')"
                   : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                     "metadata_location, previous_metadata_location) VALUES (?, ?, ?, ?, NULL)");
  auto s = st.Bind(name_).Bind(ns_key).Bind(id.name).Bind(metadata_location).Run();
  if (!s && s.error().code() == ErrorCode::kAlreadyExists) {
    return AlreadyExists("table {} already exists", id.ToString());
  }
  return s;
}

Status SqlCatalog::PointTableRow(const std::string& ns_key, const TableIdentifier& id,
                                 const std::string& metadata_location,
                                 const std::string& previous) {
  std::string sql = fmt::format(
      "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
      "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?{}",
      has_iceberg_type_ ? fmt::format(" AND {}", kIsTable) : "");
  Statement st(db_, sql);
  st.Bind(metadata_location);
  if (previous.empty()) {
    st.BindNull();
  } else {
    st.Bind(previous);
  }
  return st.Bind(name_).Bind(ns_key).Bind(id.name).Run();
}

Result<LoadedTable> SqlCatalog::RegisterTable(const TableIdentifier& id,
                                              const std::string& metadata_location,
                                              bool overwrite) {
  const std::string what =
      fmt::format("registering table {} at {}", id.ToString(), io::RedactUri(metadata_location));
  if (metadata_location.empty()) return InvalidArgument("{}: no metadata location", what);
  // A plain path is stored absolute; a URI (file://, s3://) as it is given.
  const std::string location = io::UriScheme(metadata_location).empty()
                                   ? io::AbsoluteLocalPath(metadata_location)
                                   : metadata_location;
  FLOE_ASSIGN_OR_RETURN(std::string key, NamespaceKey(id.ns));
  FLOE_RETURN_IF_ERROR(ValidateName(id.name, "table"));
  // The file must be table metadata (read before the row names it).
  auto metadata = ReadTableMetadata(*io_, location);
  if (!metadata) return std::unexpected(std::move(metadata).error().WithContext(what));
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(key));
  if (!ns_exists) return NotFound("{}: namespace {} does not exist", what, key);
  // The row's current location: replaced with `overwrite`, else refused.
  std::string current;
  if (auto existing = MetadataLocationOf(id)) {
    if (!overwrite) return AlreadyExists("{}: table {} already exists", what, id.ToString());
    current = std::move(*existing);
  }
  // Two rows of one catalog never share a table's files: dropping one with
  // its files would break the other. The row being overwritten is no other.
  FLOE_ASSIGN_OR_RETURN(auto used, RowWithin(io::AbsoluteLocalPath(metadata->location), current));
  if (used) {
    return AlreadyExists("{}: a table of sql catalog '{}' already lives at {} ({})", what, name_,
                         io::RedactUri(metadata->location), io::RedactUri(*used));
  }
  if (current.empty()) {
    auto inserted = InsertTableRow(key, id, location);
    if (inserted) return LoadedTable{id, location, std::move(*metadata)};
    // A row without a location is overwritten too.
    if (!overwrite || inserted.error().code() != ErrorCode::kAlreadyExists) {
      return std::unexpected(std::move(inserted).error().WithContext(what));
    }
  }
  FLOE_RETURN_IF_ERROR_CTX(PointTableRow(key, id, location, current), "{}", what);
  return LoadedTable{id, location, std::move(*metadata)};
}

Result<LoadedTable> SqlCatalog::LoadTable(const TableIdentifier& id) {
  std::string location;
  {
    std::lock_guard lock(mu_);
    FLOE_ASSIGN_OR_RETURN(location, MetadataLocationOf(id));
  }
  FLOE_ASSIGN_OR_RETURN(TableMetadata metadata, ReadTableMetadata(*io_, location));
  return LoadedTable{id, location, std::move(metadata)};
}

Result<LoadedTable> SqlCatalog::CommitTable(const LoadedTable& base, TableMetadata updated) {
  std::string location = NextMetadataLocation(updated.location, base.metadata_location);
  FLOE_ASSIGN_OR_RETURN(std::string key, NamespaceKey(base.id.ns));
  // The new metadata file is written under a hidden temporary name; the
  // group transaction's leader makes it durable, names it and swaps the
  // pointer (SwapBatch).
  std::string temporary = io::HiddenTemporaryBeside(location);
  // Written through the deferring FileIO: its sync waits for the leader.
  if (auto written = WriteTableMetadata(*io_, temporary, updated); !written) {
    (void)io_->Delete(temporary);
    return std::unexpected(std::move(written).error().WithContext(
        fmt::format("committing table {}", base.id.ToString())));
  }
  PointerSwap swap{key, base.id.name, base.metadata_location, location, temporary};
  Status swapped = SwapPointer(swap);
  if (!swapped) {
    // SQLite reports failure only for a transaction that did not commit.
    (void)io_->Delete(temporary);
    (void)io_->Delete(location);
    return std::unexpected(std::move(swapped).error().WithContext(
        fmt::format("committing table {}", base.id.ToString())));
  }
  if (!swap.changed) {
    (void)io_->Delete(location);
    return CommitConflict("table {} was changed concurrently (it no longer points at {})",
                          base.id.ToString(), base.metadata_location);
  }
  return LoadedTable{base.id, location, std::move(updated)};
}

Status SqlCatalog::SwapPointer(PointerSwap& swap) {
  std::unique_lock queue_lock(queue_mu_);
  queue_.push_back(&swap);
  while (!swap.done) {
    if (swapping_) {
      queue_cv_.wait(queue_lock);
      continue;
    }
    // Lead: swap everything queued so far (this one included) in one
    // transaction, while later callers queue up for the next one.
    swapping_ = true;
    std::vector<PointerSwap*> batch;
    batch.swap(queue_);
    queue_lock.unlock();
    Status s = SwapBatch(batch);
    queue_lock.lock();
    for (PointerSwap* p : batch) {
      p->status = !p->own_status ? p->own_status : s;
      p->done = true;
    }
    swapping_ = false;
    queue_cv_.notify_all();
  }
  return swap.status;
}

Status SqlCatalog::SwapBatch(const std::vector<PointerSwap*>& all) {
  // 1. Every file synced through this catalog's FileIO before these commits
  //    queued — their manifest lists and manifests, and the new metadata
  //    files under their temporary names — becomes durable, together.
  FLOE_RETURN_IF_ERROR_CTX(deferred_->SyncDeferred(), "making {} commits' files durable",
                           all.size());
  // 2. Each metadata file gets its name (never replacing a file); the names
  //    become durable together. A commit whose name is taken fails alone.
  std::vector<PointerSwap*> batch;
  batch.reserve(all.size());
  for (PointerSwap* p : all) {
    if (auto named = deferred_->RenameThenDefer(p->temporary, p->new_location, /*replace=*/false);
        !named) {
      p->own_status = std::move(named);
      continue;
    }
    batch.push_back(p);
  }
  FLOE_RETURN_IF_ERROR_CTX(deferred_->SyncDeferred(), "making {} metadata files' names durable",
                           batch.size());
  if (batch.empty()) return Ok();
  // 3. One transaction swaps the pointers.
  std::lock_guard lock(mu_);
  const bool one = batch.size() == 1;  // autocommit: one statement is one transaction
  if (!one) FLOE_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE"));
  for (PointerSwap* p : batch) {
    Statement st(db_, &swap_stmt_,
                 "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
                 "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND "
                 "metadata_location = ?");
    st.Bind(p->new_location)
        .Bind(p->base_location)
        .Bind(name_)
        .Bind(p->ns_key)
        .Bind(p->name)
        .Bind(p->base_location);
    if (auto s = st.Run(); !s) {
      if (!one && sqlite3_get_autocommit(db_) == 0) (void)Exec(db_, "ROLLBACK");
      return s;
    }
    p->changed = sqlite3_changes(db_) == 1;
  }
  if (one) return Ok();
  if (auto s = Exec(db_, "COMMIT"); !s) {
    // A COMMIT that failed (busy, I/O) did not commit: end the transaction.
    if (sqlite3_get_autocommit(db_) == 0) (void)Exec(db_, "ROLLBACK");
    return s;
  }
  return Ok();
}

Status SqlCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(std::string from_key, NamespaceKey(from.ns));
  FLOE_ASSIGN_OR_RETURN(std::string to_key, NamespaceKey(to.ns));
  FLOE_RETURN_IF_ERROR(ValidateName(to.name, "table"));
  FLOE_RETURN_IF_ERROR(MetadataLocationOf(from));
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(to_key));
  if (!ns_exists) return NotFound("namespace {} does not exist", to_key);
  Statement st(db_,
               "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE "
               "catalog_name = ? AND table_namespace = ? AND table_name = ?");
  auto s = st.Bind(to_key).Bind(to.name).Bind(name_).Bind(from_key).Bind(from.name).Run();
  if (!s && s.error().code() == ErrorCode::kAlreadyExists) {
    return AlreadyExists("table {} already exists", to.ToString());
  }
  return s;
}

Status SqlCatalog::DropTable(const TableIdentifier& id, bool purge) {
  LoadedTable table;
  if (purge) {
    FLOE_ASSIGN_OR_RETURN(table, LoadTable(id));
  }
  {
    std::lock_guard lock(mu_);
    FLOE_ASSIGN_OR_RETURN(std::string key, NamespaceKey(id.ns));
    // A row without a metadata location can still be dropped (not purged).
    if (auto row = MetadataLocationOf(id); !row && row.error().code() != ErrorCode::kCorruption) {
      return std::unexpected(row.error());
    }
    Statement st(db_,
                 "DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? "
                 "AND table_name = ?");
    FLOE_RETURN_IF_ERROR(st.Bind(name_).Bind(key).Bind(id.name).Run());
  }
  if (purge) {
    FLOE_ASSIGN_OR_RETURN(PurgeResult purged, PurgeTableFiles(*io_, table));
    if (!purged.errors.empty()) {
      return IoError("dropped table {}, but purging its files failed: {}", id.ToString(),
                     fmt::join(purged.errors, "; "));
    }
  }
  return Ok();
}

}  // namespace floe::iceberg
