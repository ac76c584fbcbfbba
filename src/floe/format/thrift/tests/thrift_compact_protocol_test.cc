// Byte sequences hand-built from the Thrift compact protocol spec
// (thrift/doc/specs/thrift-compact-protocol.md).

#include <gtest/gtest.h>

#include <vector>

#include "floe/format/thrift/compact_protocol.h"

namespace floe::format::thrift {
namespace {

std::vector<uint8_t> Bytes(std::initializer_list<int> b) {
  std::vector<uint8_t> v;
  for (int x : b) v.push_back(static_cast<uint8_t>(x));
  return v;
}

std::vector<uint8_t> ToVector(const ByteBuffer& buf) {
  return {buf.data(), buf.data() + buf.size()};
}

TEST(ThriftCompactTest, VarintsAndZigZag) {
  ByteBuffer buf;
  CompactWriter::AppendVarint(&buf, 0);
  CompactWriter::AppendVarint(&buf, 1);
  CompactWriter::AppendVarint(&buf, 127);
  CompactWriter::AppendVarint(&buf, 128);
  CompactWriter::AppendVarint(&buf, 300);
  EXPECT_EQ(ToVector(buf), Bytes({0x00, 0x01, 0x7f, 0x80, 0x01, 0xac, 0x02}));

  EXPECT_EQ(CompactWriter::ZigZag(0), 0u);
  EXPECT_EQ(CompactWriter::ZigZag(-1), 1u);
  EXPECT_EQ(CompactWriter::ZigZag(1), 2u);
  EXPECT_EQ(CompactWriter::ZigZag(-2), 3u);
  EXPECT_EQ(CompactWriter::ZigZag(INT64_MAX), UINT64_MAX - 1);
  EXPECT_EQ(CompactWriter::ZigZag(INT64_MIN), UINT64_MAX);
  EXPECT_EQ(CompactReader::UnZigZag(UINT64_MAX), INT64_MIN);
  EXPECT_EQ(CompactReader::UnZigZag(3), -2);

  auto max = Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  CompactReader r(max);
  auto v = r.ReadVarint();
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, UINT64_MAX);
}

TEST(ThriftCompactTest, BadVarints) {
  auto truncated = Bytes({0x80, 0x80});
  CompactReader r1(truncated);
  auto v1 = r1.ReadVarint();
  ASSERT_FALSE(v1.has_value());
  EXPECT_EQ(v1.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(v1.error().message().find("offset 0"), std::string::npos);

  auto too_long = Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  CompactReader r2(too_long);
  EXPECT_FALSE(r2.ReadVarint().has_value());

  auto overflow = Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02});
  CompactReader r3(overflow);
  EXPECT_FALSE(r3.ReadVarint().has_value());

  // An i32 that does not fit.
  auto big = Bytes({0x80, 0x80, 0x80, 0x80, 0x20});
  CompactReader r4(big);
  EXPECT_FALSE(r4.ReadI32().has_value());
}

TEST(ThriftCompactTest, FieldHeadersShortAndLongForm) {
  ByteBuffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.FieldI32(1, 5);         // delta 1, type 5: 0x15, zigzag(5)=10
  w.FieldI64(3, -1);        // delta 2, type 6: 0x26, zigzag(-1)=1
  w.FieldBinary(20, "ab");  // delta 17 > 15: long form 0x08, zigzag(20)=40
  w.FieldI16(2, 1);         // going backwards: long form 0x04, zigzag(2)=4, value 2
  w.EndStruct();
  EXPECT_EQ(ToVector(buf),
            Bytes({0x15, 0x0a, 0x26, 0x01, 0x08, 0x28, 0x02, 'a', 'b', 0x04, 0x04, 0x02, 0x00}));

  CompactReader r(buf.span());
  ASSERT_TRUE(r.BeginStruct().has_value());
  auto h = r.ReadFieldBegin();
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->id, 1);
  EXPECT_EQ(h->type, CompactType::kI32);
  EXPECT_EQ(*r.ReadI32(), 5);
  h = r.ReadFieldBegin();
  EXPECT_EQ(h->id, 3);
  EXPECT_EQ(*r.ReadI64(), -1);
  h = r.ReadFieldBegin();
  EXPECT_EQ(h->id, 20);
  EXPECT_EQ(h->type, CompactType::kBinary);
  EXPECT_EQ(*r.ReadBinary(), "ab");
  h = r.ReadFieldBegin();
  EXPECT_EQ(h->id, 2);
  EXPECT_EQ(h->type, CompactType::kI16);
  EXPECT_EQ(*r.ReadI16(), 1);
  h = r.ReadFieldBegin();
  EXPECT_EQ(h->type, CompactType::kStop);
  ASSERT_TRUE(r.EndStruct().has_value());
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftCompactTest, BoolsInFieldHeadersAndLists) {
  ByteBuffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.FieldBool(1, true);                            // 0x11
  w.FieldBool(2, false);                           // 0x12
  w.FieldListBegin(3, CompactType::kBoolTrue, 2);  // 0x19, 0x21
  w.WriteBool(true);
  w.WriteBool(false);
  w.EndStruct();
  EXPECT_EQ(ToVector(buf), Bytes({0x11, 0x12, 0x19, 0x21, 0x01, 0x02, 0x00}));

  CompactReader r(buf.span());
  ASSERT_TRUE(r.BeginStruct().has_value());
  auto h = r.ReadFieldBegin();
  EXPECT_EQ(h->type, CompactType::kBoolTrue);
  EXPECT_EQ(*r.ReadBool(), true);
  h = r.ReadFieldBegin();
  EXPECT_EQ(h->type, CompactType::kBoolFalse);
  EXPECT_EQ(*r.ReadBool(), false);
  h = r.ReadFieldBegin();
  EXPECT_EQ(h->type, CompactType::kList);
  auto lh = r.ReadListBegin();
  ASSERT_TRUE(lh.has_value());
  EXPECT_EQ(lh->size, 2u);
  EXPECT_EQ(*r.ReadBool(), true);
  EXPECT_EQ(*r.ReadBool(), false);
  r.ListEnd();
  EXPECT_EQ(r.ReadFieldBegin()->type, CompactType::kStop);
}

TEST(ThriftCompactTest, ListShortAndLongSize) {
  ByteBuffer buf;
  CompactWriter w(&buf);
  w.ListBegin(CompactType::kI32, 3);
  EXPECT_EQ(ToVector(buf), Bytes({0x35}));
  buf.Clear();
  w.ListBegin(CompactType::kBinary, 15);
  EXPECT_EQ(ToVector(buf), Bytes({0xf8, 0x0f}));
  buf.Clear();
  w.ListBegin(CompactType::kStruct, 300);
  EXPECT_EQ(ToVector(buf), Bytes({0xfc, 0xac, 0x02}));

  std::vector<uint8_t> long_list = Bytes({0xf5, 0x10});
  for (int i = 0; i < 16; ++i) long_list.push_back(static_cast<uint8_t>(i * 2));  // zigzag(i)
  CompactReader r(long_list);
  auto lh = r.ReadListBegin();
  ASSERT_TRUE(lh.has_value());
  EXPECT_EQ(lh->size, 16u);
  EXPECT_EQ(lh->element_type, CompactType::kI32);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(*r.ReadI32(), i);
}

TEST(ThriftCompactTest, ListSizeCheckedAgainstRemainingBytes) {
  // Claims 2^31 elements with 2 bytes left.
  auto bytes = Bytes({0xf5, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00, 0x00});
  CompactReader r(bytes);
  auto lh = r.ReadListBegin();
  ASSERT_FALSE(lh.has_value());
  EXPECT_EQ(lh.error().code(), ErrorCode::kCorruption);

  auto str = Bytes({0x10, 'a'});  // string of 16 bytes, 1 present
  CompactReader r2(str);
  EXPECT_FALSE(r2.ReadBinary().has_value());
}

TEST(ThriftCompactTest, NestedStructsRestoreFieldIds) {
  ByteBuffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.FieldI32(5, 1);
  w.FieldStructBegin(6);
  w.FieldI32(1, 2);
  w.EndStruct();
  w.FieldI32(7, 3);  // delta from 6, not from the inner struct's 1
  w.EndStruct();
  EXPECT_EQ(ToVector(buf), Bytes({0x55, 0x02, 0x1c, 0x15, 0x04, 0x00, 0x15, 0x06, 0x00}));

  CompactReader r(buf.span());
  ASSERT_TRUE(r.BeginStruct().has_value());
  EXPECT_EQ(r.ReadFieldBegin()->id, 5);
  EXPECT_EQ(*r.ReadI32(), 1);
  auto h = r.ReadFieldBegin();
  EXPECT_EQ(h->id, 6);
  ASSERT_TRUE(r.BeginStruct().has_value());
  EXPECT_EQ(r.ReadFieldBegin()->id, 1);
  EXPECT_EQ(*r.ReadI32(), 2);
  EXPECT_EQ(r.ReadFieldBegin()->type, CompactType::kStop);
  ASSERT_TRUE(r.EndStruct().has_value());
  h = r.ReadFieldBegin();
  EXPECT_EQ(h->id, 7);
  EXPECT_EQ(*r.ReadI32(), 3);
}

TEST(ThriftCompactTest, SkipsUnknownFieldsOfEveryType) {
  ByteBuffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.FieldBool(1, true);
  w.FieldI8(2, -3);
  w.FieldI16(3, 300);
  w.FieldI64(4, 1LL << 40);
  w.FieldDouble(5, 1.5);
  w.FieldBinary(6, "hello");
  w.FieldListBegin(7, CompactType::kStruct, 2);
  w.BeginStruct();
  w.FieldI32(1, 1);
  w.EndStruct();
  w.BeginStruct();
  w.FieldListBegin(1, CompactType::kBoolTrue, 1);
  w.WriteBool(false);
  w.EndStruct();
  w.FieldStructBegin(8);
  w.FieldBinary(1, "x");
  w.EndStruct();
  w.EndStruct();
  // A map<i32,string> field (id 9) with 2 entries, and a set<i64> (id 10), by hand.
  buf.Resize(buf.size() - 1);  // drop the stop byte
  const uint8_t map_and_set[] = {0x1b, 0x02, 0x58, 0x02, 0x01, 'a',  0x04, 0x01,
                                 'b',  0x1a, 0x26, 0x02, 0x04, 0x15, 0x2a, 0x00};
  buf.Append(map_and_set, sizeof(map_and_set));

  CompactReader r(buf.span());
  ASSERT_TRUE(r.BeginStruct().has_value());
  int skipped = 0;
  while (true) {
    auto h = r.ReadFieldBegin();
    ASSERT_TRUE(h.has_value()) << h.error().ToString();
    if (h->type == CompactType::kStop) break;
    if (h->id == 11) {
      EXPECT_EQ(*r.ReadI32(), 21);
      continue;
    }
    ASSERT_TRUE(r.Skip(h->type).has_value()) << "field " << h->id;
    ++skipped;
  }
  EXPECT_EQ(skipped, 10);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftCompactTest, NestingDepthLimit) {
  // 100 nested structs: field 1 of type struct, repeatedly.
  std::vector<uint8_t> bytes(100, 0x1c);
  bytes.insert(bytes.end(), 101, 0x00);
  CompactReader r(bytes);
  auto s = r.Skip(CompactType::kStruct);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(s.error().message().find("nesting"), std::string::npos);

  // Within the limit it works.
  std::vector<uint8_t> ok(10, 0x1c);
  ok.insert(ok.end(), 11, 0x00);
  CompactReader r2(ok);
  EXPECT_TRUE(r2.Skip(CompactType::kStruct).has_value());
  EXPECT_EQ(r2.remaining(), 0u);
}

TEST(ThriftCompactTest, UnknownTypeAndTruncation) {
  auto bad_type = Bytes({0x1d});
  CompactReader r(bad_type);
  auto h = r.ReadFieldBegin();
  ASSERT_FALSE(h.has_value());
  EXPECT_EQ(h.error().code(), ErrorCode::kCorruption);

  auto truncated_double = Bytes({0x01, 0x02, 0x03});
  CompactReader r2(truncated_double);
  EXPECT_FALSE(r2.ReadDouble().has_value());

  CompactReader r3(std::span<const uint8_t>{});
  EXPECT_FALSE(r3.ReadFieldBegin().has_value());
}

TEST(ThriftCompactTest, DoubleIsLittleEndian) {
  ByteBuffer buf;
  CompactWriter w(&buf);
  w.WriteDouble(1.0);
  EXPECT_EQ(ToVector(buf), Bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  CompactReader r(buf.span());
  EXPECT_EQ(*r.ReadDouble(), 1.0);
}

}  // namespace
}  // namespace floe::format::thrift
