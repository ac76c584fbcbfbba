#pragma once
/// JSON form of `TableSchema`, used by the schema history file (one schema per
/// line) and by tests:
///   {"db": "app", "table": "t", "charset": "utf8mb4", "collation": "",
///    "comment": "", "engine": "innodb", "last_field_id": 3,
///    "primary_key": ["id"],
///    "columns": [{"name": "id", "type": "BIGINT", "unsigned": true,
///                 "nullable": false, "field_id": 1, ...}, ...]}
/// Members equal to their default are omitted from columns.

#include <nlohmann/json.hpp>

#include "floe/cdc/mysql/table_schema.h"
#include "floe/common/result.h"

namespace floe::cdc::mysql {

nlohmann::json TableSchemaToJson(const TableSchema& schema);
/// kCorruption naming the bad member ("columns[2].type: unknown type 'FOO'").
Result<TableSchema> TableSchemaFromJson(const nlohmann::json& json);

}  // namespace floe::cdc::mysql
