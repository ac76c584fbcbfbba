#include "floe/iceberg/catalog/hadoop_catalog.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <random>

#include <fmt/ranges.h>

#include "floe/iceberg/json/metadata_json.h"

namespace floe::iceberg {
namespace {

constexpr std::string_view kVersionHint = "version-hint.text";

std::string BaseName(std::string_view path) {
  return std::string(path.substr(path.rfind('/') + 1));
}

// "v12.metadata.json" -> 12; anything else -> 0.
int64_t VersionOfFile(std::string_view file) {
  if (!file.starts_with("v") || !file.ends_with(".metadata.json")) return 0;
  std::string_view digits =
      file.substr(1, file.size() - 1 - std::string_view(".metadata.json").size());
  int64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  return ec == std::errc() && p == digits.data() + digits.size() ? v : 0;
}

}  // namespace

HadoopCatalog::HadoopCatalog(std::string name, std::string warehouse, io::FileIO* file_io)
    : name_(std::move(name)), warehouse_(io::AbsoluteLocalPath(warehouse)), io_(file_io) {
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
    // An empty version file is the leftover of an interrupted write, and a
    // hint without version files that of an interrupted drop: no table.
    if (VersionOfFile(file) > 0 && e.size > 0) return true;
  }
  return false;
}

Result<bool> HadoopCatalog::VersionIsComplete(const std::string& table_path, int64_t version) {
  auto file = io_->OpenInput(VersionLocation(table_path, version));
  if (!file) {
    if (file.error().code() == ErrorCode::kNotFound) return false;
    return std::unexpected(file.error());
  }
  // floe publishes version files whole (write, sync, link); an empty one was
  // left by an interrupted write of an older writer and holds nothing.
  return (*file)->size() > 0;
}

Result<int64_t> HadoopCatalog::CurrentVersion(const std::string& table_path) {
  const std::string hint_path = table_path + "/metadata/" + std::string(kVersionHint);
  std::optional<int64_t> hinted;
  auto hint = io_->ReadAll(hint_path);
  if (!hint && hint.error().code() != ErrorCode::kNotFound) {
    return std::unexpected(hint.error());
  }
  if (hint) {
    std::string_view text = *hint;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
      text.remove_suffix(1);
    }
    int64_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    // Not a number: as Iceberg's HadoopTableOperations, use the newest version file.
    if (ec == std::errc() && p == text.data() + text.size() && v > 0) hinted = v;
  }
  int64_t version = 0;
  bool hint_usable = false;
  if (hinted) {
    FLOE_ASSIGN_OR_RETURN(hint_usable, VersionIsComplete(table_path, *hinted));
  }
  if (hint_usable) {
    version = *hinted;
  } else {
    FLOE_ASSIGN_OR_RETURN(auto entries, io_->List(table_path + "/metadata"));
    for (const auto& e : entries) {
      int64_t v = VersionOfFile(BaseName(e.path));
      if (v > 0 && e.size > 0) version = std::max(version, v);
    }
    // No version file: no table, whatever a hint left by an interrupted drop says.
    if (version == 0) return 0;
    if (hinted && *hinted > version) {
      // The hint is written after its version file: it may lag, never lead.
      return Corruption("{} names version {}, but {} does not exist (the newest is v{})", hint_path,
                        *hinted, VersionLocation(table_path, *hinted), version);
    }
  }
  // The hint may lag, and a commit may have published a version since: probe forward.
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool next, VersionIsComplete(table_path, version + 1));
    if (!next) return version;
    ++version;
  }
}

Result<std::string> HadoopCatalog::ExistingNamespacePath(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string path, NamespacePath(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, io_->Exists(path));
  if (!exists) return NotFound("namespace {} does not exist", NamespaceToString(ns));
  return path;
}

Result<std::vector<Namespace>> HadoopCatalog::ListNamespaces(const Namespace& parent) {
  // The warehouse (the empty parent) is listed without an existence check.
  FLOE_ASSIGN_OR_RETURN(std::string path,
                        parent.empty() ? NamespacePath(parent) : ExistingNamespacePath(parent));
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
  FLOE_ASSIGN_OR_RETURN(std::string path, ExistingNamespacePath(ns));
  if (ns.empty()) return NotFound("namespace {} does not exist", NamespaceToString(ns));
  return Properties{{"location", path}};
}

Status HadoopCatalog::UpdateNamespaceProperties(const Namespace& ns,
                                                const std::vector<std::string>&,
                                                const Properties&) {
  return NotSupported("the hadoop catalog does not store namespace properties");
}

Status HadoopCatalog::DropNamespace(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string path, ExistingNamespacePath(ns));
  if (ns.empty()) return NotFound("namespace {} does not exist", NamespaceToString(ns));
  FLOE_ASSIGN_OR_RETURN(auto entries, io_->List(path));
  if (!entries.empty()) {
    return InvalidArgument("namespace {} is not empty", NamespaceToString(ns));
  }
  return io_->DeleteDirectory(path);
}

Result<std::vector<TableIdentifier>> HadoopCatalog::ListTables(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string path, ExistingNamespacePath(ns));
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

Status HadoopCatalog::RemoveIncompleteVersions(const std::string& table_path) {
  FLOE_ASSIGN_OR_RETURN(auto entries, io_->List(table_path + "/metadata"));
  for (const auto& e : entries) {
    if (!e.is_directory && e.size == 0 && VersionOfFile(BaseName(e.path)) > 0) {
      FLOE_RETURN_IF_ERROR(io_->Delete(e.path));
    }
  }
  return Ok();
}

Result<LoadedTable> HadoopCatalog::CreateTable(const TableIdentifier& id, TableMetadata metadata) {
  FLOE_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  FLOE_ASSIGN_OR_RETURN(std::string ns_path, NamespacePath(id.ns));
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, io_->Exists(ns_path));
  if (!ns_exists) return NotFound("namespace {} does not exist", NamespaceToString(id.ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, IsTable(path));
  if (exists) return AlreadyExists("table {} already exists", id.ToString());
  if (metadata.location.empty()) metadata.location = path;
  if (io::AbsoluteLocalPath(metadata.location) != path) {
    return InvalidArgument("a hadoop catalog table lives at {}, not {}", path,
                           io::RedactUri(metadata.location));
  }
  metadata.location = path;
  FLOE_ASSIGN_OR_RETURN(auto used, LocationInUse(*io_, path));
  if (used) {
    return AlreadyExists(
        "cannot create table {}: its location {} already holds another table's "
        "metadata ({})",
        id.ToString(), path, *used);
  }
  FLOE_RETURN_IF_ERROR(RemoveIncompleteVersions(path));
  std::string location = VersionLocation(path, 1);
  auto written = WriteNewMetadataFile(*io_, location, metadata);
  if (!written) {
    if (written.error().code() == ErrorCode::kAlreadyExists) {
      return AlreadyExists("table {} already exists", id.ToString());
    }
    // The file is either absent (the table does not exist) or whole (it does):
    // the rename may have failed only after the name appeared.
    auto complete = VersionIsComplete(path, 1);
    if (!complete || !*complete) {
      return std::unexpected(
          std::move(written).error().WithContext(fmt::format("creating table {}", id.ToString())));
    }
  }
  // The table exists now. A missing hint only makes readers list the folder.
  (void)io_->WriteAtomically(path + "/metadata/" + std::string(kVersionHint), "1");
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

Result<LoadedTable> HadoopCatalog::CommitTable(const LoadedTable& base, TableMetadata updated) {
  FLOE_ASSIGN_OR_RETURN(std::string path, TablePath(base.id));
  FLOE_ASSIGN_OR_RETURN(int64_t version, CurrentVersion(path));
  if (version == 0) return NotFound("table {} does not exist", base.id.ToString());
  if (VersionLocation(path, version) != io::LocalPath(base.metadata_location)) {
    return CommitConflict("table {} was changed concurrently: it is at version {} now",
                          base.id.ToString(), version);
  }
  std::string next = VersionLocation(path, version + 1);
  // An empty v(N+1) is the leftover of an interrupted in-place write: remove it.
  if (auto leftover = io_->OpenInput(next); leftover && (*leftover)->size() == 0) {
    FLOE_RETURN_IF_ERROR(io_->Delete(next));
  }
  // Written to a temporary, synced, then linked to v(N+1) without replacing:
  // of two racing writers exactly one creates the name.
  auto written = WriteNewMetadataFile(*io_, next, updated);
  if (!written) {
    if (written.error().code() == ErrorCode::kAlreadyExists) {
      return CommitConflict("table {} was changed concurrently: version {} exists",
                            base.id.ToString(), version + 1);
    }
    auto exists = VersionIsComplete(path, version + 1);
    if (exists && !*exists) {
      // Nothing was published: a plain failure.
      return std::unexpected(std::move(written).error().WithContext(
          fmt::format("committing table {}", base.id.ToString())));
    }
    // The link may have happened before the error: the caller must reload and look.
    return CommitStateUnknown(
        "table {}: publishing version {} failed ({}); the commit may or may "
        "not have happened",
        base.id.ToString(), version + 1, written.error().ToString());
  }
  // The commit has happened. A failure to update the hint only makes
  // readers probe one step further.
  (void)io_->WriteAtomically(path + "/metadata/" + std::string(kVersionHint),
                             std::to_string(version + 1));
  return LoadedTable{base.id, next, std::move(updated)};
}

Result<LoadedTable> HadoopCatalog::RegisterTable(const TableIdentifier& id,
                                                 const std::string& metadata_location, bool) {
  return NotSupported(
      "registering table {} at {}: the hadoop catalog cannot register tables (a table is the "
      "version files of its folder in the warehouse); register it in a sql or rest catalog",
      id.ToString(), io::RedactUri(metadata_location));
}

Status HadoopCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier&) {
  return NotSupported(
      "the hadoop catalog cannot rename tables (their files hold absolute paths): {}",
      from.ToString());
}

Status HadoopCatalog::DropTable(const TableIdentifier& id, bool purge) {
  FLOE_ASSIGN_OR_RETURN(LoadedTable table, LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  // The catalog's record of the table: its hint, version files and
  // temporaries of interrupted writes. Manifests and data stay unless purged.
  // The hint goes first and the version files oldest first, so a drop
  // interrupted at any point leaves either the table at its current version
  // (run the drop again) or no table.
  FLOE_RETURN_IF_ERROR(io_->Delete(path + "/metadata/" + std::string(kVersionHint)));
  FLOE_ASSIGN_OR_RETURN(auto entries, io_->List(path + "/metadata"));
  std::vector<std::pair<int64_t, std::string>> record;
  for (const auto& e : entries) {
    if (e.is_directory) continue;
    std::string file = BaseName(e.path);
    if (VersionOfFile(file) > 0) {
      record.emplace_back(VersionOfFile(file), e.path);
    } else if (file.starts_with(".") && file.ends_with(".tmp")) {
      record.emplace_back(0, e.path);
    }
  }
  std::sort(record.begin(), record.end());
  for (const auto& [version, file] : record) FLOE_RETURN_IF_ERROR(io_->Delete(file));
  if (purge) {
    FLOE_ASSIGN_OR_RETURN(PurgeResult purged, PurgeTableFiles(*io_, table));
    if (!purged.errors.empty()) {
      return IoError("dropped table {}, but purging its files failed: {}", id.ToString(),
                     fmt::join(purged.errors, "; "));
    }
  }
  (void)io_->DeleteDirectory(path + "/metadata");
  (void)io_->DeleteDirectory(path + "/data");
  (void)io_->DeleteDirectory(path);
  return Ok();
}

}  // namespace floe::iceberg
