// DataReader: projection by field id across schema evolution (added, renamed,
// reordered, promoted columns, nested structs), row positions across row
// groups skipped by the filter.

#include <algorithm>

#include <gtest/gtest.h>

#include "floe/format/parquet/reader.h"
#include "floe/iceberg/data/data_reader.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/iceberg/tests/scan_test_util.h"

namespace floe::iceberg {
namespace {

using scantest::RowValues;
using scantest::Str;
using scantest::TestTable;
using types::NestedField;
using types::Type;
using types::Value;

types::TypePtr PointV0() {
  return Type::Struct({{11, "x", false, Type::Int(), ""}, {12, "y", false, Type::Float(), ""}});
}
types::TypePtr PointV1() {
  // y promoted, x moved after y, z added.
  return Type::Struct({{12, "y", false, Type::Double(), ""},
                       {11, "x", false, Type::Long(), ""},
                       {13, "z", false, Type::String(), ""}});
}

types::Schema SchemaV0() {
  return types::Schema({{1, "id", true, Type::Int(), ""},
                        {2, "name", false, Type::String(), ""},
                        {3, "ratio", false, Type::Float(), ""},
                        {4, "price", false, Type::Decimal(9, 2).value(), ""},
                        {5, "pt", false, PointV0(), ""},
                        {6, "tags", false, Type::List(7, false, Type::Int()), ""}},
                       0);
}

types::Schema SchemaV1() {
  return types::Schema({{8, "added", false, Type::String(), ""},
                        {2, "full_name", false, Type::String(), ""},
                        {1, "id", true, Type::Long(), ""},
                        {3, "ratio", false, Type::Double(), ""},
                        {4, "price", false, Type::Decimal(18, 2).value(), ""},
                        {5, "pt", false, PointV1(), ""},
                        {6, "tags", false, Type::List(7, false, Type::Long()), ""}},
                       1);
}

TEST(DataReaderEvolutionTest, ReadsOldFilesWithTheNewSchemaById) {
  TestTable t("evolve", SchemaV0());
  Value pt0[] = {Value::Int32(3), Value::Float(0.5f)};
  Value tags0[] = {Value::Int32(1), Value::Int32(2)};
  DataFile f = t.WriteData({{Value::Int32(1), Str("ann"), Value::Float(0.25f),
                             Value::Decimal(12345), Value::Struct(pt0, 2), Value::List(tags0, 2)},
                            {Value::Int32(2), Value::Null(), Value::Null(), Value::Null(),
                             Value::Null(), Value::Null()}});
  t.Commit("append", {{f}});
  t.EvolveSchema(SchemaV1());
  auto rows = scantest::ScanJson(t.io(), t.metadata(), {});
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0], R"({"added":null,"full_name":"ann","id":1,"ratio":0.25,"price":"123.45",)"
                        R"("pt":{"y":0.5,"x":3,"z":null},"tags":[1,2]})");
  EXPECT_EQ((*rows)[1],
            R"({"added":null,"full_name":null,"id":2,"ratio":null,"price":null,"pt":null,)"
            R"("tags":null})");

  // Renamed column in a filter and projection, by its new name.
  TableScanOptions o;
  o.filter = *ParseFilter("full_name = 'ann' AND id < 5000000000");
  o.columns = {"id", "added"};
  rows = scantest::ScanJson(t.io(), t.metadata(), o);
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(*rows, std::vector<std::string>{R"({"id":1,"added":null})"});

  // A filter on a column added later: null in old files.
  o.filter = *ParseFilter("added IS NULL");
  o.columns = {"id"};
  rows = scantest::ScanJson(t.io(), t.metadata(), o);
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->size(), 2u);
  o.filter = *ParseFilter("added = 'x'");
  rows = scantest::ScanJson(t.io(), t.metadata(), o);
  ASSERT_TRUE(rows.has_value());
  EXPECT_TRUE(rows->empty());

  // Time travel to the snapshot reads its own schema.
  TableScanOptions old;
  old.snapshot_id = t.metadata().snapshots[0].snapshot_id;
  old.columns = {"name"};
  rows = scantest::ScanJson(t.io(), t.metadata(), old);
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ((*rows)[0], R"({"name":"ann"})");
}

TEST(DataReaderEvolutionTest, AdapterRules) {
  EXPECT_EQ(MakeValueAdapter(*Type::Int(), *Type::Long(), "c")->kind,
            ValueAdapter::Kind::kIntToLong);
  EXPECT_EQ(
      MakeValueAdapter(*Type::Decimal(9, 2).value(), *Type::Decimal(20, 2).value(), "c")->kind,
      ValueAdapter::Kind::kCopy);
  auto bad = MakeValueAdapter(*Type::Long(), *Type::Int(), "c");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_FALSE(MakeValueAdapter(*Type::Decimal(9, 2).value(), *Type::Decimal(9, 3).value(), "c")
                   .has_value());
  EXPECT_FALSE(MakeValueAdapter(*PointV0(), *Type::Int(), "c").has_value());
  // Same struct: copied as is (no allocation per row).
  EXPECT_EQ(MakeValueAdapter(*PointV0(), *PointV0(), "c")->kind, ValueAdapter::Kind::kCopy);
  auto date = MakeValueAdapter(*Type::Date(), *Type::Timestamp(), "c");
  ASSERT_TRUE(date.has_value());
  Arena arena;
  EXPECT_EQ(AdaptValue(*date, Value::Int32(1), &arena).i64, 86'400'000'000LL);
}

TEST(DataReaderEvolutionTest, PositionsCountFromTheFileStartAcrossSkippedRowGroups) {
  types::Schema schema({{1, "id", true, Type::Long(), ""}, {2, "s", false, Type::String(), ""}}, 0);
  TestTable t("positions", schema);
  std::vector<RowValues> rows;
  for (int64_t i = 0; i < 3000; ++i) rows.push_back({Value::Int64(i), Str("padding-value")});
  format::parquet::WriterOptions small;
  small.row_group_size_bytes = 2048;
  small.page_row_limit = 100;
  small.dictionary_enabled = false;
  DataFile f = t.WriteData(rows, {}, small);
  {
    auto in = t.io().OpenInput(f.file_path);
    auto r = format::parquet::ParquetReader::Open(std::move(*in));
    ASSERT_TRUE(r.has_value());
    ASSERT_GT((*r)->num_row_groups(), 3) << "the test needs several row groups";
  }
  t.Commit("append", {{f}});
  // id == position in this file.
  DataFile pos = t.WritePositionDeletes(
      {{f.file_path, 2999}, {f.file_path, 10}, {f.file_path, 2500}, {f.file_path, 2750}});
  t.Commit("delete", {{pos}});

  TableScanOptions o;
  o.filter = *ParseFilter("id >= 2500");
  o.columns = {"id"};
  for (bool row_group_filter : {true, false}) {
    DataReaderOptions ro;
    ro.row_group_filter = row_group_filter;
    ro.batch_rows = 64;
    auto got = scantest::ScanJson(t.io(), t.metadata(), o, ro);
    ASSERT_TRUE(got.has_value()) << got.error().ToString();
    std::vector<std::string> want;
    for (int64_t i = 2500; i < 3000; ++i) {
      if (i == 2500 || i == 2750 || i == 2999) continue;
      want.push_back("{\"id\":" + std::to_string(i) + "}");
    }
    EXPECT_EQ(*got, want) << "row_group_filter=" << row_group_filter;
  }

  // The reader actually skipped row groups.
  TableScanOptions plan;
  plan.filter = *ParseFilter("id >= 2500");
  auto scan = TableScan::Make(t.io(), t.metadata(), plan);
  auto tasks = scan->PlanFiles();
  ASSERT_TRUE(tasks.has_value());
  auto reader = DataReader::Open(t.io(), (*tasks)[0], scan->schema(), scan->projected_schema(),
                                 scan->bound_filter());
  ASSERT_TRUE(reader.has_value()) << reader.error().ToString();
  Arena arena;
  std::vector<Value> values;
  while (true) {
    values.clear();
    auto n = (*reader)->ReadBatch(&arena, &values);
    ASSERT_TRUE(n.has_value());
    if (*n == 0) break;
  }
  EXPECT_LT((*reader)->rows_read(), 3000);
  EXPECT_EQ((*reader)->rows_deleted(), 3);
}

}  // namespace
}  // namespace floe::iceberg
