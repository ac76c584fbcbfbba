#include "floe/iceberg/catalog.h"

#include <charconv>
#include <optional>
#include <set>

#include "floe/common/random.h"
#include "floe/iceberg/json/metadata_json.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/update/expire_snapshots.h"

namespace floe::iceberg {
namespace {}  // namespace

std::string NamespaceToString(const Namespace& ns) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) out += '.';
    out += ns[i];
  }
  return out;
}

std::string TableIdentifier::ToString() const {
  return ns.empty() ? name : NamespaceToString(ns) + "." + name;
}

Status ValidateName(std::string_view name, std::string_view what) {
  if (name.empty()) return InvalidArgument("{} name is empty", what);
  if (name == "." || name == "..")
    return InvalidArgument("{} name '{}' is not allowed", what, name);
  for (unsigned char c : name) {
    if (c == '/' || c == '\\') {
      return InvalidArgument("{} name '{}' contains a path separator", what, name);
    }
    if (c < 0x20 || c == 0x7f) {
      return InvalidArgument("{} name contains a control character (byte 0x{:02x})", what, c);
    }
  }
  return Ok();
}

Result<Namespace> ParseNamespace(std::string_view text) {
  Namespace ns;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    std::string_view part = text.substr(start, dot == std::string_view::npos ? dot : dot - start);
    FLOE_RETURN_IF_ERROR(ValidateName(part, "namespace"));
    ns.emplace_back(part);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return ns;
}

Result<TableIdentifier> TableIdentifier::Parse(std::string_view text) {
  size_t dot = text.rfind('.');
  if (dot == std::string_view::npos) {
    return InvalidArgument("table '{}' needs a namespace: write it as namespace.table", text);
  }
  TableIdentifier id;
  FLOE_ASSIGN_OR_RETURN(id.ns, ParseNamespace(text.substr(0, dot)));
  id.name = std::string(text.substr(dot + 1));
  FLOE_RETURN_IF_ERROR(ValidateName(id.name, "table"));
  return id;
}

std::string NextMetadataLocation(const std::string& table_location,
                                 const std::string& previous_metadata_location) {
  int64_t version = 0;
  if (!previous_metadata_location.empty()) {
    std::string_view file = previous_metadata_location;
    file = file.substr(file.rfind('/') + 1);
    if (file.starts_with("v")) file.remove_prefix(1);  // Hadoop-style vN.metadata.json
    int64_t parsed = 0;
    auto [p, ec] = std::from_chars(file.data(), file.data() + file.size(), parsed);
    if (ec == std::errc() && p != file.data()) version = parsed;
  }
  std::string base = table_location;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return fmt::format("{}/metadata/{:05d}-{}.metadata.json", base, version + 1, RandomUuid());
}

Status WriteNewMetadataFile(io::FileIO& io, const std::string& location,
                            const TableMetadata& metadata) {
  return io.WriteNew(location, SerializeTableMetadata(metadata));
}

Result<std::optional<std::string>> LocationInUse(io::FileIO& io, const std::string& location) {
  std::string base = location;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  FLOE_ASSIGN_OR_RETURN(auto entries, io.List(base + "/metadata"));
  for (const auto& e : entries) {
    if (e.is_directory) continue;
    std::string_view file = std::string_view(e.path).substr(e.path.rfind('/') + 1);
    // Hidden temporaries and empty files (interrupted in-place writes) are no table.
    if (file.starts_with(".") || !file.ends_with(".metadata.json") || e.size == 0) continue;
    auto metadata = ReadTableMetadata(io, e.path);
    if (!metadata) return e.path;  // unreadable: assume it matters
    // A first metadata file that never got a commit is what a create that was
    // interrupted before its catalog entry leaves: it holds no files to share.
    if (metadata->snapshots.empty() && metadata->metadata_log.empty()) continue;
    return e.path;
  }
  return std::optional<std::string>();
}

Result<PurgeResult> PurgeTableFiles(io::FileIO& io, const LoadedTable& table,
                                    const PurgeOptions& options) {
  const TableMetadata& m = table.metadata;
  if (m.location.empty())
    return InvalidArgument("table {} has no location to purge", table.id.ToString());
  PurgeResult result;
  // Ordered groups: content files, manifests, manifest lists and statistics, metadata files.
  std::vector<std::string> content, manifests, lists, metadata_files;
  std::set<std::string> seen;
  auto add = [&](std::vector<std::string>& group, const std::string& path) {
    if (!path.empty() && seen.insert(path).second) group.push_back(path);
  };
  for (const Snapshot& s : m.snapshots) {
    add(lists, s.manifest_list);
    auto files = SnapshotManifests(io, s, m.format_version);
    if (!files) {
      result.errors.push_back(files.error().ToString());
      continue;
    }
    for (const auto& manifest : *files) {
      if (seen.contains(manifest.manifest_path)) continue;
      add(manifests, manifest.manifest_path);
      auto entries = ReadManifest(io, manifest, m);
      if (!entries) {
        result.errors.push_back(entries.error().ToString());
        continue;
      }
      for (const auto& e : *entries) add(content, e.data_file.file_path);
    }
  }
  for (const auto& f : m.statistics) add(lists, f.statistics_path);
  for (const auto& f : m.partition_statistics) add(lists, f.statistics_path);
  for (const auto& entry : m.metadata_log) add(metadata_files, entry.metadata_file);
  add(metadata_files, table.metadata_location);

  std::set<std::string> folders;
  for (const auto* group : {&content, &manifests, &lists, &metadata_files}) {
    for (const auto& path : *group) {
      if (!options.delete_outside_location && !IsInsideTable(m, path)) {
        result.skipped_outside_location.push_back(path);
        continue;
      }
      if (auto s = io.Delete(path); !s) {
        result.errors.push_back(s.error().ToString());
        continue;
      }
      ++result.deleted_files;
      std::string local(io::LocalPath(path));
      size_t slash = local.rfind('/');
      if (slash != std::string::npos && slash > 0) folders.insert(local.substr(0, slash));
    }
  }
  // Remove folders left empty, deepest first, up to and including the location.
  std::string base(io::LocalPath(m.location));
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  folders.insert(base + "/data");
  folders.insert(base + "/metadata");
  std::set<std::string> all;
  for (std::string dir : folders) {
    while (io::PathIsWithin(dir, base) && all.insert(dir).second) {
      if (dir == base) break;
      dir = dir.substr(0, dir.rfind('/'));
    }
  }
  all.insert(base);
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (io::PathIsWithin(*it, base)) (void)io.DeleteDirectory(*it);
  }
  return result;
}

Result<PurgeResult> DropAndPurgeTable(Catalog& catalog, const TableIdentifier& id,
                                      const PurgeOptions& options) {
  FLOE_ASSIGN_OR_RETURN(LoadedTable table, catalog.LoadTable(id));
  FLOE_RETURN_IF_ERROR(catalog.DropTable(id, /*purge=*/false));
  return PurgeTableFiles(catalog.file_io(), table, options);
}

}  // namespace floe::iceberg
