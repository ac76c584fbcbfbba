#include "floe/cdc/change.h"

#include <cstring>

namespace floe::cdc {

std::string_view SchemaChangeKindName(SchemaChangeKind kind) {
  switch (kind) {
    case SchemaChangeKind::kCreateTable:
      return "create_table";
    case SchemaChangeKind::kDropTable:
      return "drop_table";
    case SchemaChangeKind::kRenameTable:
      return "rename_table";
    case SchemaChangeKind::kTruncateTable:
      return "truncate_table";
    case SchemaChangeKind::kAddColumn:
      return "add_column";
    case SchemaChangeKind::kDropColumn:
      return "drop_column";
    case SchemaChangeKind::kRenameColumn:
      return "rename_column";
    case SchemaChangeKind::kModifyColumn:
      return "modify_column";
    case SchemaChangeKind::kPrimaryKeyChange:
      return "primary_key_change";
    case SchemaChangeKind::kAlterOther:
      return "alter_other";
  }
  return "?";
}

types::Row ChangeBatch::CopyRow(types::Row values) {
  auto* out = arena->AllocateArray<types::Value>(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    new (&out[i]) types::Value(types::DeepCopy(values[i], arena.get()));
  }
  return {out, values.size()};
}

void ChangeBatch::Clear() {
  events.clear();
  arena->Reset();
  ends_transaction = false;
  resume = SourcePosition();
}

}  // namespace floe::cdc
