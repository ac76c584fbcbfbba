#include "floe/types/value.h"

#include <gtest/gtest.h>

#include <string>

#include "floe/common/arena.h"
#include "floe/types/type.h"

namespace floe::types {
namespace {

TEST(ValueTest, KindOfEveryTypeId) {
  EXPECT_EQ(KindOf(TypeId::kBoolean), Value::Kind::kBool);
  EXPECT_EQ(KindOf(TypeId::kDate), Value::Kind::kInt32);
  EXPECT_EQ(KindOf(TypeId::kTimestampTz), Value::Kind::kInt64);
  EXPECT_EQ(KindOf(TypeId::kTime), Value::Kind::kInt64);
  EXPECT_EQ(KindOf(TypeId::kDecimal), Value::Kind::kDecimal);
  EXPECT_EQ(KindOf(TypeId::kUuid), Value::Kind::kBytes);
  EXPECT_EQ(KindOf(TypeId::kFixed), Value::Kind::kBytes);
  EXPECT_EQ(KindOf(TypeId::kMap), Value::Kind::kMap);
}

TEST(ValueTest, DeepCopyOutlivesTheMemoryItPointedInto) {
  Arena arena;
  Value copy;
  {
    std::string text = "a string that goes away";
    std::string key = "k";
    Value entries[2] = {Value::Bytes(key), Value::Int64(7)};
    Value fields[3] = {Value::Bytes(text), Value::Map(entries, 1), Value::Int32(-3)};
    copy = DeepCopy(Value::Struct(fields, 3), &arena);
    text.assign(text.size(), 'x');
    key = "z";
    entries[1] = Value::Int64(0);
  }
  ASSERT_EQ(copy.kind, Value::Kind::kStruct);
  ASSERT_EQ(copy.size, 3u);
  EXPECT_EQ(copy.children[0].as_bytes(), "a string that goes away");
  ASSERT_EQ(copy.children[1].map_size(), 1u);
  EXPECT_EQ(copy.children[1].children[0].as_bytes(), "k");
  EXPECT_EQ(copy.children[1].children[1].i64, 7);
  EXPECT_EQ(copy.children[2].i32, -3);
  EXPECT_TRUE(SameValue(DeepCopy(Value(), &arena), Value()));
  EXPECT_EQ(DeepCopy(Value::Bytes(""), &arena).size, 0u);
}

}  // namespace
}  // namespace floe::types
