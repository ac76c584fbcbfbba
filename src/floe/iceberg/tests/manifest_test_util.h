#pragma once
// Shared fixtures of the manifest tests: a schema with a column of every
// primitive type, a spec with every transform, and sample data files.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"

namespace floe::iceberg::testutil {

inline types::Schema EveryTypeSchema() {
  using types::Type;
  return types::Schema(
      {
          {1, "id", true, Type::Long(), ""},
          {2, "i", false, Type::Int(), ""},
          {3, "flag", false, Type::Boolean(), ""},
          {4, "f", false, Type::Float(), ""},
          {5, "d", false, Type::Double(), ""},
          {6, "amount", false, Type::Decimal(9, 2).value(), ""},
          {7, "big", false, Type::Decimal(38, 10).value(), ""},
          {8, "day", false, Type::Date(), ""},
          {9, "t", false, Type::Time(), ""},
          {10, "ts", false, Type::Timestamp(), ""},
          {11, "tstz", false, Type::TimestampTz(), ""},
          {12, "s", false, Type::String(), ""},
          {13, "u", false, Type::Uuid(), ""},
          {14, "fx", false, Type::Fixed(4).value(), ""},
          {15, "bin", false, Type::Binary(), ""},
      },
      /*schema_id=*/0);
}

/// Every transform; identity of every type. Field ids from 1000.
inline PartitionSpec EveryTransformSpec() {
  std::vector<PartitionField> f;
  int32_t id = 1000;
  auto add = [&](int32_t source, std::string name, Transform t) {
    f.push_back(PartitionField{source, id++, std::move(name), t});
  };
  const char* names[] = {"",    "id", "i",  "flag", "f", "d", "amount", "big",
                         "day", "t",  "ts", "tstz", "s", "u", "fx",     "bin"};
  for (int32_t source = 1; source <= 15; ++source)
    add(source, names[source], Transform::Identity());
  add(1, "id_bucket", Transform::Bucket(16).value());
  add(12, "s_trunc", Transform::Truncate(3).value());
  add(6, "amount_trunc", Transform::Truncate(50).value());
  add(10, "ts_year", Transform::Year());
  add(11, "tstz_month", Transform::Month());
  add(10, "ts_day", Transform::Day());
  add(11, "tstz_hour", Transform::Hour());
  add(2, "i_null", Transform::Void());
  return PartitionSpec(1, std::move(f));
}

inline std::string UuidBytes(uint8_t seed) {
  std::string s(16, '\0');
  for (int i = 0; i < 16; ++i) s[static_cast<size_t>(i)] = static_cast<char>(seed + i);
  return s;
}

/// A partition tuple of EveryTransformSpec; `k` varies the values, `nulls`
/// makes every value null.
inline std::vector<Literal> EveryTransformTuple(int k, bool nulls = false) {
  std::vector<Literal> p;
  const types::TypePtr types[] = {types::Type::Long(),
                                  types::Type::Int(),
                                  types::Type::Boolean(),
                                  types::Type::Float(),
                                  types::Type::Double(),
                                  types::Type::Decimal(9, 2).value(),
                                  types::Type::Decimal(38, 10).value(),
                                  types::Type::Date(),
                                  types::Type::Time(),
                                  types::Type::Timestamp(),
                                  types::Type::TimestampTz(),
                                  types::Type::String(),
                                  types::Type::Uuid(),
                                  types::Type::Fixed(4).value(),
                                  types::Type::Binary()};
  if (nulls) {
    for (const auto& t : types) p.push_back(Literal::Null(t));
    for (auto t : {types::Type::Int(), types::Type::String(), types::Type::Decimal(9, 2).value(),
                   types::Type::Int(), types::Type::Int(), types::Type::Date(), types::Type::Int(),
                   types::Type::Int()}) {
      p.push_back(Literal::Null(t));
    }
    return p;
  }
  p.push_back(Literal::Long(1000000000000LL * k - 7));
  p.push_back(Literal::Int(-5 + k));
  p.push_back(Literal::Boolean(k % 2 == 0));
  p.push_back(Literal::Float(1.5f * static_cast<float>(k)));
  p.push_back(Literal::Double(-2.25 * k));
  p.push_back(Literal::Decimal(12345 * k - 1, 9, 2).value());
  p.push_back(Literal::Decimal(
                  static_cast<types::int128_t>(k) * 1000000000000000000LL * 1000000000000LL, 38, 10)
                  .value());
  p.push_back(Literal::Date(19000 + k));
  p.push_back(Literal::Time(3600LL * 1000000 * k));
  p.push_back(Literal::Timestamp(1700000000000000LL + k));
  p.push_back(Literal::TimestampTz(1600000000000000LL - k));
  p.push_back(Literal::String("value-" + std::to_string(k)));
  p.push_back(Literal::Uuid(UuidBytes(static_cast<uint8_t>(k))).value());
  p.push_back(Literal::Fixed(std::string("ab") + static_cast<char>(k) + "\xff").value());
  p.push_back(Literal::Binary(std::string("\0\x01", 2) + std::to_string(k)));
  p.push_back(Literal::Int(k % 16));
  p.push_back(Literal::String("val"));
  p.push_back(Literal::Decimal(12300 * k, 9, 2).value());
  p.push_back(Literal::Int(53 + k));
  p.push_back(Literal::Int(640 + k));
  p.push_back(Literal::Date(19675 + k));
  p.push_back(Literal::Int(444444 + k));
  p.push_back(Literal::Null(types::Type::Int()));
  return p;
}

inline DataFile SampleDataFile(std::string path, std::vector<Literal> partition, int64_t rows) {
  DataFile f;
  f.content = DataFileContent::kData;
  f.file_path = std::move(path);
  f.file_format = "parquet";
  f.partition = std::move(partition);
  f.record_count = rows;
  f.file_size_in_bytes = 1000 + rows;
  f.column_sizes = {{1, 100}, {12, 250}};
  f.value_counts = {{1, rows}, {12, rows}};
  f.null_value_counts = {{1, 0}, {12, 2}};
  f.nan_value_counts = {{5, 1}};
  f.lower_bounds = {{1, std::string("\x01\0\0\0\0\0\0\0", 8)}, {12, "aa"}};
  f.upper_bounds = {{1, std::string("\x09\0\0\0\0\0\0\0", 8)}, {12, "zz"}};
  f.split_offsets = {4, 1000};
  f.sort_order_id = 0;
  return f;
}

inline TableMetadata MetadataFor(const types::Schema& schema, const PartitionSpec& spec,
                                 int format_version) {
  TableMetadata m;
  m.format_version = format_version;
  m.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  m.location = "/tmp/table";
  m.schemas = {schema};
  m.current_schema_id = schema.schema_id();
  m.last_column_id = schema.highest_field_id();
  m.partition_specs = {spec};
  if (spec.spec_id() != 0) m.partition_specs.insert(m.partition_specs.begin(), PartitionSpec());
  m.default_spec_id = spec.spec_id();
  m.last_partition_id = spec.last_assigned_field_id();
  m.sort_orders = {SortOrder()};
  m.last_updated_ms = 1700000000000;
  return m;
}

}  // namespace floe::iceberg::testutil
