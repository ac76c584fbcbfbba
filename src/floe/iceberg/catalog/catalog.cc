#include "floe/iceberg/catalog/catalog.h"

#include <charconv>
#include <random>

#include "floe/iceberg/metadata_json.h"

namespace floe::iceberg {
namespace {

std::string RandomUuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xF000ull) | 0x4000ull;                       // version 4
  lo = (lo & ~(0xC000ull << 48)) | (0x8000ull << 48);       // variant 10
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff,
                     hi & 0xffff, lo >> 48, lo & 0xffffffffffffull);
}

// Deletes every file under `dir`, depth first. Errors are collected.
void DeleteTree(io::FileIO& io, const std::string& dir, std::string* errors) {
  auto entries = io.List(dir);
  if (!entries) {
    *errors += entries.error().ToString() + "; ";
    return;
  }
  for (const auto& e : *entries) {
    if (e.is_directory) {
      DeleteTree(io, e.path, errors);
      (void)io.DeleteDirectory(e.path);
    } else if (auto s = io.Delete(e.path); !s) {
      *errors += s.error().ToString() + "; ";
    }
  }
}

}  // namespace

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
  if (name == "." || name == "..") return InvalidArgument("{} name '{}' is not allowed", what, name);
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

Status PurgeTableFiles(io::FileIO& io, const LoadedTable& table) {
  // Every file floe or the reference writers put for a table lives under its
  // location (data/ and metadata/); a table whose files live elsewhere is
  // only dropped, not purged, beyond its own folders.
  std::string errors;
  std::string base = table.metadata.location;
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (base.empty()) return InvalidArgument("table {} has no location to purge", table.id.ToString());
  for (const char* folder : {"/data", "/metadata"}) {
    DeleteTree(io, base + folder, &errors);
    (void)io.DeleteDirectory(base + folder);
  }
  if (!errors.empty()) return IoError("purging {}: {}", table.id.ToString(), errors);
  return Ok();
}

}  // namespace floe::iceberg
