#pragma once
/// Small tables that many tests start from, so that each test file does not
/// declare its own copy: a two-column schema and the metadata of a
/// one-column table as a catalog test creates it.
///
/// Header only, so that floe::testing does not depend on floe::types and
/// floe::iceberg: a test that includes it links them itself (its module does).

#include <string>
#include <utility>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/types/schema.h"

namespace floe::testing {

/// `id long` (required, field 1) and `s string` (optional, field 2), schema
/// id 0; `keyed`: `id` is the identifier field.
inline types::Schema IdStringSchema(bool keyed = false) {
  std::vector<types::NestedField> fields = {{1, "id", true, types::Type::Long(), ""},
                                            {2, "s", false, types::Type::String(), ""}};
  if (keyed) return types::Schema(std::move(fields), 0, {1});
  return types::Schema(std::move(fields), 0);
}

/// The uuid of OneColumnTableMetadata.
inline constexpr const char* kOneColumnTableUuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";

/// Format-version 2 metadata of a table of one required `id long` column,
/// unpartitioned and unsorted, with a fixed uuid and last-updated time and no
/// snapshots. An empty `location` lets the catalog choose one.
inline iceberg::TableMetadata OneColumnTableMetadata(std::string location = "") {
  iceberg::TableMetadata m;
  m.format_version = 2;
  m.table_uuid = kOneColumnTableUuid;
  m.last_updated_ms = 1'700'000'000'000;
  m.last_column_id = 1;
  m.schemas.push_back(
      types::Schema({types::NestedField{1, "id", true, types::Type::Long(), ""}}, 0));
  m.current_schema_id = 0;
  m.partition_specs.push_back(iceberg::PartitionSpec());
  m.sort_orders.push_back(iceberg::SortOrder());
  m.location = std::move(location);
  return m;
}

}  // namespace floe::testing
