#include "floe/iceberg/catalog/hadoop_catalog.h"

#include <charconv>
#include <random>

#include "floe/iceberg/metadata_json.h"

namespace floe::iceberg {
namespace {

constexpr std::string_view kVersionHint = "version-hint.text";

std::string BaseName(std::string_view path) {
  return std::string(path.substr(path.rfind('/') + 1));
}

// "v12.metadata.json" -> 12; anything else -> 0.
int64_t VersionOfFile(std::string_view file) {
  if (!file.starts_with("v") || !file.ends_with(".metadata.json")) return 0;
  std::string_view digits = file.substr(1, file.size() - 1 - std::string_view(".metadata.json").size());
  int64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  return ec == std::errc() && p == digits.data() + digits.size() ? v : 0;
}

}  // namespace

HadoopCatalog::HadoopCatalog(std::string name, std::string warehouse, io::FileIO* file_io)
    : name_(std::move(name)), warehouse_(io::LocalPath(warehouse)), io_(file_io) {
  while (warehouse_.size() > 1 && warehouse_.back() == '/') warehouse_.pop_back();
}

std::string HadoopCatalog::VersionLocation(const std::string& table_location, int64_t version) {
  return fmt::format("{}/metadata/v{}.metadata.json", table_location, version);
}

Result<std::string> HadoopCatalog::NamespacePath(const Namespace& ns) {
  std::string path = warehouse_;
  for (const auto& level : ns) {
    FLOE_RETURN_IF_ERROR(ValidateName(level, "namespace"));
    path += "/" + level;
  }
  return path;
}

Result<std::string> HadoopCatalog::TablePath(const TableIdentifier& id) {
  if (id.ns.empty()) return InvalidArgument("table '{}' needs a namespace", id.name);
  FLOE_ASSIGN_OR_RETURN(std::string path, NamespacePath(id.ns));
  FLOE_RETURN_IF_ERROR(ValidateName(id.name, "table"));
  return path + "/" + id.name;
}

std::string HadoopCatalog::DefaultTableLocation(const TableIdentifier& id) {
  auto path = TablePath(id);
  return path ? *path : std::string();
}

Result<bool> HadoopCatalog::IsTable(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto entries, io_->List(path + "/metadata"));
  for (const auto& e : entries) {
    std::string file = BaseName(e.path);
    if (file == kVersionHint || VersionOfFile(file) > 0) return true;
  }
  return false;
}

Result<int64_t> HadoopCatalog::CurrentVersion(const std::string& table_path) {
  int64_t version = 0;
  auto hint = io_->ReadAll(table_path + "/metadata/" + std::string(kVersionHint));
  if (hint) {
    std::string_view text = *hint;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
    if (ec != std::errc()) version = 0;
  }
  if (version == 0) {
    // No usable hint: take the newest version file.
    FLOE_ASSIGN_OR_RETURN(auto entries, io_->List(table_path + "/metadata"));
    for (const auto& e : entries) version = std::max(version, VersionOfFile(BaseName(e.path)));
    return version;
  }
  // The hint is written after the version file, so it may lag: probe forward.
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool next, io_->Exists(VersionLocation(table_path, version + 1)));
    if (!next) return version;
    ++version;
  }
}

Result<std::vector<Namespace>> HadoopCatalog::ListNamespaces(const Namespace& parent) {
  FLOE_ASSIGN_OR_RETURN(std::string path, NamespacePath(parent));
  if (!parent.empty()) {
    FLOE_ASSIGN_OR_RETURN(bool exists, io_->Exists(path));
    if (!exists) return NotFound("namespace {} does not exist", NamespaceToString(parent));
  }
  FLOE_ASSIGN_OR_RETURN(auto entries, io_->List(path));
  std::vector<Namespace> out;
  for (const auto& e : entries) {
    if (!e.is_directory) continue;
    std::string name = BaseName(e.path);
    if (name.starts_with(".") || !ValidateName(name, "namespace")) continue;
    FLOE_ASSIGN_OR_RETURN(bool table, IsTable(e.path));
    if (table) continue;
    Namespace ns = parent;
    ns.push_back(name);
    out.push_back(std::move(ns));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status HadoopCatalog::CreateNamespace(const Namespace& ns, const Properties& properties) {
  if (ns.empty()) return InvalidArgument("namespace is empty");
  if (!properties.empty()) {
    return NotSupported("the hadoop catalog does not store namespace properties");
  }
  FLOE_ASSIGN_OR_RETURN(std::string path, NamespacePath(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, io_->Exists(path));
  if (exists) return AlreadyExists("namespace {} already exists", NamespaceToString(ns));
  return io::CreateDirectories(path);
}

Result<Properties> HadoopCatalog::LoadNamespaceProperties(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string path, NamespacePath(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, io_->Exists(path));
  if (!exists || ns.empty()) return NotFound("namespace {} does not exist", NamespaceToString(ns));
  return Properties{{"location", path}};
}

Status HadoopCatalog::UpdateNamespaceProperties(const Namespace& ns, const std::vector<std::string>&,
                                                const Properties&) {
  return NotSupported("the hadoop catalog does not store namespace properties");
}

Status HadoopCatalog::DropNamespace(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string path, NamespacePath(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, io_->Exists(path));
  if (!exists || ns.empty()) return NotFound("namespace {} does not exist", NamespaceToString(ns));
  FLOE_ASSIGN_OR_RETURN(auto entries, io_->List(path));
  if (!entries.empty()) {
    return InvalidArgument("namespace {} is not empty", NamespaceToString(ns));
  }
  return io_->DeleteDirectory(path);
}

Result<std::vector<TableIdentifier>> HadoopCatalog::ListTables(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string path, NamespacePath(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, io_->Exists(path));
  if (!exists) return NotFound("namespace {} does not exist", NamespaceToString(ns));
  FLOE_ASSIGN_OR_RETURN(auto entries, io_->List(path));
  std::vector<TableIdentifier> out;
  for (const auto& e : entries) {
    if (!e.is_directory) continue;
    FLOE_ASSIGN_OR_RETURN(bool table, IsTable(e.path));
    if (table) out.push_back(TableIdentifier{ns, BaseName(e.path)});
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return out;
}

Result<bool> HadoopCatalog::TableExists(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  return IsTable(path);
}

Result<LoadedTable> HadoopCatalog::CreateTable(const TableIdentifier& id, TableMetadata metadata) {
  FLOE_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  FLOE_ASSIGN_OR_RETURN(std::string ns_path, NamespacePath(id.ns));
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, io_->Exists(ns_path));
  if (!ns_exists) return NotFound("namespace {} does not exist", NamespaceToString(id.ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, IsTable(path));
  if (exists) return AlreadyExists("table {} already exists", id.ToString());
  if (metadata.location.empty()) metadata.location = path;
  if (io::LocalPath(metadata.location) != path) {
    return InvalidArgument("a hadoop catalog table lives at {}, not {}", path, metadata.location);
  }
  std::string location = VersionLocation(path, 1);
  auto written = WriteTableMetadata(*io_, location, metadata);
  if (!written) {
    if (written.error().code() == ErrorCode::kAlreadyExists) {
      return AlreadyExists("table {} already exists", id.ToString());
    }
    return std::unexpected(written.error());
  }
  FLOE_RETURN_IF_ERROR(io_->WriteAtomically(path + "/metadata/" + std::string(kVersionHint), "1"));
  return LoadedTable{id, location, std::move(metadata)};
}

Result<LoadedTable> HadoopCatalog::LoadTable(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  FLOE_ASSIGN_OR_RETURN(int64_t version, CurrentVersion(path));
  if (version == 0) return NotFound("table {} does not exist", id.ToString());
  std::string location = VersionLocation(path, version);
  FLOE_ASSIGN_OR_RETURN(TableMetadata metadata, ReadTableMetadata(*io_, location));
  return LoadedTable{id, location, std::move(metadata)};
}

Result<LoadedTable> HadoopCatalog::CommitTable(const LoadedTable& base, const TableMetadata& updated) {
  FLOE_ASSIGN_OR_RETURN(std::string path, TablePath(base.id));
  FLOE_ASSIGN_OR_RETURN(int64_t version, CurrentVersion(path));
  if (version == 0) return NotFound("table {} does not exist", base.id.ToString());
  if (VersionLocation(path, version) != io::LocalPath(base.metadata_location)) {
    return CommitConflict("table {} was changed concurrently: it is at version {} now",
                          base.id.ToString(), version);
  }
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string tmp = fmt::format("{}/metadata/.{:016x}.metadata.json.tmp", path, rng());
  FLOE_RETURN_IF_ERROR(WriteTableMetadata(*io_, tmp, updated));
  std::string next = VersionLocation(path, version + 1);
  auto renamed = io_->Rename(tmp, next, /*replace=*/false);
  if (!renamed) {
    (void)io_->Delete(tmp);
    if (renamed.error().code() == ErrorCode::kAlreadyExists) {
      return CommitConflict("table {} was changed concurrently: version {} exists",
                            base.id.ToString(), version + 1);
    }
    // The rename may have happened before the error (a link made, the
    // temporary name not removed): the caller must reload and look.
    return CommitStateUnknown("table {}: publishing version {} failed ({}); the commit may or may "
                              "not have happened",
                              base.id.ToString(), version + 1, renamed.error().ToString());
  }
  // The commit has happened. A failure to update the hint only makes
  // readers probe one step further.
  (void)io_->WriteAtomically(path + "/metadata/" + std::string(kVersionHint),
                             std::to_string(version + 1));
  return LoadedTable{base.id, next, updated};
}

Status HadoopCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier&) {
  return NotSupported("the hadoop catalog cannot rename tables (their files hold absolute paths): {}",
                      from.ToString());
}

Status HadoopCatalog::DropTable(const TableIdentifier& id, bool purge) {
  FLOE_ASSIGN_OR_RETURN(LoadedTable table, LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  if (purge) {
    FLOE_RETURN_IF_ERROR(PurgeTableFiles(*io_, table));
  } else {
    // The metadata folder is the hadoop catalog's record of the table.
    FLOE_ASSIGN_OR_RETURN(auto entries, io_->List(path + "/metadata"));
    for (const auto& e : entries) FLOE_RETURN_IF_ERROR(io_->Delete(e.path));
  }
  (void)io_->DeleteDirectory(path + "/metadata");
  (void)io_->DeleteDirectory(path + "/data");
  (void)io_->DeleteDirectory(path);
  return Ok();
}

}  // namespace floe::iceberg
