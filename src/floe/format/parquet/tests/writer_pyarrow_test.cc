// Round trip through pyarrow: write a file with every Iceberg type, nested
// values and nulls, then let pyarrow read it back and check the values, the
// logical types and the field ids. Skipped when the repository's
// .cache/venv (with pyarrow) does not exist; the interop suite in
// tests/interop is the main proof.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "floe/format/parquet/statistics.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file_io.h"

namespace floe::format::parquet {
namespace {

using types::NestedField;
using types::Type;
using types::Value;

// The venv python, by its lexical path (not resolved: the venv is found from it).
std::string VenvPython() {
  std::error_code ec;
  auto root = std::filesystem::weakly_canonical(std::string(FLOE_TEST_DATA_DIR) + "/../..", ec);
  if (ec) return "";
  return (root / ".cache/venv/bin/python").string();
}

TEST(WriterPyarrowTest, RoundTrip) {
  std::string python = VenvPython();
  if (python.empty() || access(python.c_str(), X_OK) != 0) GTEST_SKIP() << "no " << python;

  types::Schema schema(
      {NestedField{1, "id", true, Type::Long()}, NestedField{2, "i", false, Type::Int()},
       NestedField{3, "b", false, Type::Boolean()}, NestedField{4, "f", false, Type::Float()},
       NestedField{5, "d", false, Type::Double()},
       NestedField{6, "dec9", false, *Type::Decimal(9, 2)},
       NestedField{7, "dec18", false, *Type::Decimal(18, 4)},
       NestedField{8, "dec38", false, *Type::Decimal(38, 0)},
       NestedField{9, "day", false, Type::Date()}, NestedField{10, "tm", false, Type::Time()},
       NestedField{11, "ts", false, Type::Timestamp()},
       NestedField{12, "tstz", false, Type::TimestampTz()},
       NestedField{13, "s", false, Type::String()}, NestedField{14, "u", false, Type::Uuid()},
       NestedField{15, "fx", false, *Type::Fixed(2)}, NestedField{16, "bin", false, Type::Binary()},
       NestedField{17, "l", false, Type::List(18, false, Type::Int())},
       NestedField{19, "m", false, Type::Map(20, Type::String(), 21, true, Type::Long())}});

  std::string dir = testing::TempDir() + "/floe_writer_pyarrow_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::string path = dir + "/t.parquet";
  io::LocalFileIO fio;
  auto out = fio.CreateOutput(path, true);
  ASSERT_TRUE(out.has_value());
  WriterOptions options;
  options.page_row_limit = 7;  // several pages per chunk
  auto writer = ParquetWriter::Open(std::move(*out), schema, options);
  ASSERT_TRUE(writer.has_value()) << writer.error().ToString();
  std::string uuid("\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67\x89\xab\xcd\xef", 16);
  types::int128_t big = static_cast<types::int128_t>(1) << 100;
  for (int r = 0; r < 50; ++r) {
    Value list[] = {Value::Int32(r), Value::Null(), Value::Int32(-r)};
    Value map[] = {Value::Bytes("k"), Value::Int64(r * 10)};
    Value row[] = {Value::Int64(r),
                   r % 5 == 0 ? Value::Null() : Value::Int32(r * 3),
                   Value::Bool(r % 2 == 0),
                   Value::Float(0.5f * static_cast<float>(r)),
                   Value::Double(-1.25 * r),
                   Value::Decimal(-12345 + r),
                   Value::Decimal(static_cast<types::int128_t>(r) * 1000000000000LL),
                   Value::Decimal(r % 2 == 0 ? big : -big),
                   Value::Int32(19000 + r),
                   Value::Int64(3600000000LL + r),
                   Value::Int64(1700000000000000LL + r),
                   Value::Int64(1700000000000000LL - r),
                   Value::Bytes(r % 3 == 0 ? "h\xC3\xA9llo" : "abc"),
                   Value::Bytes(uuid),
                   Value::Bytes(std::string_view("\x00\xff", 2)),
                   Value::Bytes(std::string_view("\x00\x01\x02", 3)),
                   Value::List(list, r % 4 == 0 ? 0 : 3),
                   r % 6 == 0 ? Value::Null() : Value::Map(map, 1)};
    auto appended = (*writer)->Append(row);
    ASSERT_TRUE(appended.has_value()) << appended.error().ToString();
  }
  auto metrics = (*writer)->Close();
  ASSERT_TRUE(metrics.has_value()) << metrics.error().ToString();

  std::string script = dir + "/check.py";
  std::ofstream(script) << R"PY(
import sys, decimal, datetime, uuid
import pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
rows = t.to_pylist()
assert len(rows) == 50, len(rows)
r = rows[3]
assert r['id'] == 3 and r['i'] == 9 and r['b'] is False and r['f'] == 1.5 and r['d'] == -3.75, r
assert r['dec9'] == decimal.Decimal('-123.42'), r['dec9']
assert r['dec18'] == decimal.Decimal('300000000.0000'), r['dec18']
assert r['dec38'] == decimal.Decimal(-(1 << 100)), r['dec38']
assert r['day'] == datetime.date(1970, 1, 1) + datetime.timedelta(days=19003)
assert r['tm'] == datetime.time(1, 0, 0, 3), r['tm']
assert r['ts'] == datetime.datetime(2023, 11, 14, 22, 13, 20, 3), r['ts']
assert r['tstz'].utcoffset() == datetime.timedelta(0)
assert r['s'] == 'h\u00e9llo' and rows[4]['s'] == 'abc'
assert str(uuid.UUID(bytes=r['u'].bytes if hasattr(r['u'], 'bytes') else r['u'])) == '01234567-89ab-cdef-0123-456789abcdef'
assert r['fx'] == b'\x00\xff' and r['bin'] == b'\x00\x01\x02'
assert r['l'] == [3, None, -3] and rows[4]['l'] == []
assert r['m'] == [('k', 30)] and rows[6]['m'] is None
assert rows[5]['i'] is None
meta = pq.ParquetFile(sys.argv[1]).metadata
ids = [f.metadata[b'PARQUET:field_id'] for f in t.schema]
assert ids == [str(i).encode() for i in [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,19]], ids
assert t.schema.field('l').type.value_field.metadata[b'PARQUET:field_id'] == b'18'
st = meta.row_group(0).column(0).statistics
assert st.min == 0 and st.max == 49 and st.null_count == 0
assert meta.row_group(0).column(1).statistics.null_count == 10
assert b'iceberg.schema' in meta.metadata
assert meta.created_by == 'floe version 0.1.0'
print('ok')
)PY";
  std::string command = python + " " + script + " " + path + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), pipe)) output.append(buf, n);
  int rc = pclose(pipe);
  EXPECT_EQ(rc, 0) << output;
  EXPECT_EQ(output, "ok\n");

  // The metrics agree with what was written.
  EXPECT_EQ(metrics->record_count, 50);
  EXPECT_EQ(metrics->null_value_counts.at(2), 10);
  EXPECT_EQ(metrics->value_counts.at(18), 13 * 1 + 37 * 3);  // empty lists count one entry
  EXPECT_FALSE(metrics->lower_bounds.contains(18));
  EXPECT_EQ(metrics->lower_bounds.at(13), "abc");
  EXPECT_EQ(metrics->upper_bounds.at(13), "h\xC3\xA9llo");
  EXPECT_EQ(metrics->lower_bounds.at(6), MinimalDecimalBytes(-12345));
  EXPECT_EQ(metrics->nan_value_counts.at(4), 0);
  EXPECT_EQ(metrics->file_size_in_bytes, static_cast<int64_t>(std::filesystem::file_size(path)));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::format::parquet
