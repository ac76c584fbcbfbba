#include "floe/iceberg/snapshot.h"

namespace floe::iceberg {

std::string_view SnapshotRefTypeName(SnapshotRefType type) {
  return type == SnapshotRefType::kBranch ? "branch" : "tag";
}

std::optional<std::string> Snapshot::SummaryValue(std::string_view key) const {
  if (key == "operation") {
    if (operation.empty()) return std::nullopt;
    return operation;
  }
  auto it = summary.find(std::string(key));
  if (it == summary.end()) return std::nullopt;
  return it->second;
}

}  // namespace floe::iceberg
