#pragma once
/// JSON form of partition specs (spec Appendix C "Partition Specs"):
///   {"spec-id": 0, "fields": [{"source-id": 4, "field-id": 1000,
///                              "name": "ts_day", "transform": "day"}]}
/// and the bare field array that v1 metadata ("partition-spec") and manifest
/// key-value metadata use.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/partition_spec.h"

namespace floe::iceberg {

/// Reads a spec object, or a bare field array (spec id `default_spec_id`).
/// Fields without "field-id" (v1) get 1000, 1001, ... in order; a "source-ids"
/// list of one id is accepted for "source-id". Errors: `code` (kCorruption by
/// default, kInvalidArgument for requests) naming the field and index;
/// kNotSupported for multi-argument transforms (more than one source id).
Result<PartitionSpec> PartitionSpecFromJsonValue(const nlohmann::json& json,
                                                 int32_t default_spec_id = 0,
                                                 ErrorCode code = ErrorCode::kCorruption);
/// Parses JSON text, then as above. Unparseable text is `code` too.
Result<PartitionSpec> ParsePartitionSpecJson(std::string_view text, int32_t default_spec_id = 0,
                                             ErrorCode code = ErrorCode::kCorruption);

/// {"spec-id", "fields"} with fields in the spec's key order.
nlohmann::ordered_json PartitionSpecToJsonValue(const PartitionSpec& spec);
/// Only the fields array (v1 "partition-spec", manifest metadata).
nlohmann::ordered_json PartitionFieldsToJsonValue(const PartitionSpec& spec);
/// Compact JSON text of PartitionSpecToJsonValue.
std::string PartitionSpecToJsonText(const PartitionSpec& spec);

}  // namespace floe::iceberg
