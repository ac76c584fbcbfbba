// PlanSchemaMirror (schema.change.behavior: evolve) and the type-fit rule it
// shares with the resolver. Every plan is applied to a real UpdateSchema and
// the resulting schema is checked: names in order, types, field ids,
// required flags and identifier fields.

#include "floe/ingest/schema_mirror.h"

#include <gtest/gtest.h>

#include "floe/ingest/tests/schema_columns.h"

#include "floe/iceberg/update/schema_update.h"
#include "floe/ingest/type_fit.h"

namespace floe::ingest {
namespace {

using Kind = MirrorStep::Kind;
using types::NestedField;
using types::Schema;
using types::Type;
using types::TypePtr;

NestedField Field(int32_t id, std::string name, TypePtr type, bool required = false) {
  return NestedField{id, std::move(name), required, std::move(type), ""};
}

TypePtr Decimal(int precision, int scale) { return *Type::Decimal(precision, scale); }

/// The Iceberg table most tests start from: id (key), name, qty.
Schema Orders() {
  return Schema({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String()),
                 Field(3, "qty", Type::Int())},
                0, {1});
}

using test::Ids;
using test::Names;
using test::TypeNames;
std::vector<bool> Required(const Schema& s) {
  std::vector<bool> out;
  for (const auto& f : s.fields()) out.push_back(f.required);
  return out;
}
std::vector<Kind> Kinds(const SchemaMirrorPlan& plan) {
  std::vector<Kind> out;
  for (const auto& s : plan.steps) out.push_back(s.kind);
  return out;
}
bool Has(const SchemaMirrorPlan& plan, Kind kind) {
  for (const auto& s : plan.steps) {
    if (s.kind == kind) return true;
  }
  return false;
}

/// Applies `plan` to `table` through UpdateSchema, as the resolver does.
Result<iceberg::UpdateSchema::Result> ApplyPlan(const Schema& table, const SchemaMirrorPlan& plan,
                                                int32_t last_column_id = -1) {
  iceberg::UpdateSchema update(table,
                               last_column_id < 0 ? table.highest_field_id() : last_column_id, {});
  plan.ApplyTo(update);
  return update.Apply();
}

/// Plans and applies; fails the test on any error. The result keeps the
/// table's last column id in `*last_column_id` when given.
Schema Mirror(const Schema& table, const Schema& source, std::string_view from = {},
              std::string_view to = {}, int32_t* last_column_id = nullptr) {
  auto plan = PlanSchemaMirror("db.orders", table, source, from, to);
  EXPECT_TRUE(plan.has_value()) << plan.error().ToString();
  if (!plan) return table;
  auto applied = ApplyPlan(table, *plan, last_column_id ? *last_column_id : -1);
  EXPECT_TRUE(applied.has_value()) << plan->Describe() << ": " << applied.error().ToString();
  if (!applied) return table;
  if (last_column_id) *last_column_id = applied->last_column_id;
  return applied->schema;
}

// ------------------------------------------------------------ type fit

TEST(TypeFitTest, PromotionsAndTheirReverse) {
  EXPECT_EQ(FitOf(*Type::Long(), *Type::Long()), TypeFit::kSame);
  EXPECT_EQ(FitOf(*Type::Int(), *Type::Long()), TypeFit::kWider);
  EXPECT_EQ(FitOf(*Type::Long(), *Type::Int()), TypeFit::kNarrower);
  EXPECT_EQ(FitOf(*Type::Float(), *Type::Double()), TypeFit::kWider);
  EXPECT_EQ(FitOf(*Type::Double(), *Type::Float()), TypeFit::kNarrower);
  EXPECT_EQ(FitOf(*Decimal(10, 2), *Decimal(12, 2)), TypeFit::kWider);
  EXPECT_EQ(FitOf(*Decimal(12, 2), *Decimal(10, 2)), TypeFit::kNarrower);
  EXPECT_EQ(FitOf(*Decimal(10, 2), *Decimal(10, 2)), TypeFit::kSame);
  EXPECT_EQ(FitOf(*Decimal(10, 2), *Decimal(12, 3)), TypeFit::kIncompatible);  // scale differs
  EXPECT_EQ(FitOf(*Type::String(), *Type::Int()), TypeFit::kIncompatible);
  EXPECT_EQ(FitOf(*Type::Int(), *Type::String()), TypeFit::kIncompatible);
  EXPECT_EQ(FitOf(*Type::Long(), *Type::Double()), TypeFit::kIncompatible);
}

TEST(TypeFitTest, SameTypeIgnoresFieldIds) {
  auto a = Type::Struct({Field(5, "x", Type::Int()), Field(6, "y", Type::String())});
  auto b = Type::Struct({Field(50, "x", Type::Int()), Field(60, "y", Type::String())});
  auto c = Type::Struct({Field(5, "x", Type::Long()), Field(6, "y", Type::String())});
  EXPECT_TRUE(SameType(*a, *b));
  EXPECT_FALSE(SameType(*a, *c));
  EXPECT_EQ(FitOf(*a, *c), TypeFit::kIncompatible);  // no promotion inside structs
  EXPECT_TRUE(SameType(*Type::List(7, false, Type::Int()), *Type::List(70, false, Type::Int())));
  EXPECT_FALSE(SameType(*Decimal(10, 2), *Decimal(10, 3)));
}

// ------------------------------------------------------------ renames

TEST(PlanSchemaMirrorTest, RenameWithTheHintKeepsTheFieldId) {
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "full_name", Type::String()),
                 Field(3, "qty", Type::Int())},
                0, {1});
  auto plan = PlanSchemaMirror("db.orders", Orders(), source, "name", "full_name");
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  ASSERT_EQ(Kinds(*plan), std::vector<Kind>{Kind::kRename});
  EXPECT_EQ(plan->steps[0].name, "name");
  EXPECT_EQ(plan->steps[0].to, "full_name");
  EXPECT_EQ(plan->Describe(), "rename name to full_name");

  auto applied = ApplyPlan(Orders(), *plan);
  ASSERT_TRUE(applied.has_value()) << applied.error().ToString();
  EXPECT_EQ(Names(applied->schema), (std::vector<std::string>{"id", "full_name", "qty"}));
  EXPECT_EQ(Ids(applied->schema), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(applied->schema.identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_EQ(applied->last_column_id, 3);
}

TEST(PlanSchemaMirrorTest, RenameWithoutTheHintDropsAndAdds) {
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "full_name", Type::String()),
                 Field(3, "qty", Type::Int())},
                0, {1});
  auto plan = PlanSchemaMirror("db.orders", Orders(), source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_FALSE(Has(*plan, Kind::kRename));
  EXPECT_TRUE(Has(*plan, Kind::kAdd));
  EXPECT_TRUE(Has(*plan, Kind::kDelete));
  auto applied = ApplyPlan(Orders(), *plan);
  ASSERT_TRUE(applied.has_value()) << applied.error().ToString();
  // The new column sits where the source has it, with a new id; "name" (2) is gone.
  EXPECT_EQ(Names(applied->schema), (std::vector<std::string>{"id", "full_name", "qty"}));
  EXPECT_EQ(Ids(applied->schema), (std::vector<int32_t>{1, 4, 3}));
  EXPECT_FALSE(applied->schema.fields()[1].required);
  EXPECT_EQ(applied->last_column_id, 4);

  // A hint that does not fit (the old name is still in the source) is no rename either.
  Schema both({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String()),
               Field(3, "full_name", Type::String()), Field(4, "qty", Type::Int())},
              0, {1});
  auto stale = PlanSchemaMirror("db.orders", Orders(), both, "name", "full_name");
  ASSERT_TRUE(stale.has_value()) << stale.error().ToString();
  EXPECT_FALSE(Has(*stale, Kind::kRename));
  Schema result = Mirror(Orders(), both, "name", "full_name");
  EXPECT_EQ(Names(result), (std::vector<std::string>{"id", "name", "full_name", "qty"}));
  EXPECT_EQ(Ids(result), (std::vector<int32_t>{1, 2, 4, 3}));
}

TEST(PlanSchemaMirrorTest, RenamedKeyColumnStaysTheKey) {
  Schema source({Field(1, "order_id", Type::Long(), true), Field(2, "name", Type::String()),
                 Field(3, "qty", Type::Int())},
                0, {1});
  auto plan = PlanSchemaMirror("db.orders", Orders(), source, "id", "order_id");
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  // The key is the same column under its new name: no identifier step.
  EXPECT_EQ(Kinds(*plan), std::vector<Kind>{Kind::kRename});
  Schema result = Mirror(Orders(), source, "id", "order_id");
  EXPECT_EQ(Names(result), (std::vector<std::string>{"order_id", "name", "qty"}));
  EXPECT_EQ(Ids(result), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(result.identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_TRUE(PlanSchemaMirror("db.orders", result, source, "id", "order_id")->empty());
}

TEST(PlanSchemaMirrorTest, TwoRenamesInSequenceAcrossTwoPlans) {
  int32_t last = 3;
  Schema first({Field(1, "id", Type::Long(), true), Field(2, "title", Type::String()),
                Field(3, "qty", Type::Int())},
               0, {1});
  Schema after_first = Mirror(Orders(), first, "name", "title", &last);
  EXPECT_EQ(Names(after_first), (std::vector<std::string>{"id", "title", "qty"}));
  EXPECT_EQ(Ids(after_first), (std::vector<int32_t>{1, 2, 3}));

  // The source numbers its fields on its own: ids are not what matches.
  Schema second({Field(7, "id", Type::Long(), true), Field(8, "title", Type::String()),
                 Field(9, "amount", Type::Int())},
                0, {7});
  auto plan = PlanSchemaMirror("db.orders", after_first, second, "qty", "amount");
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_EQ(Kinds(*plan), std::vector<Kind>{Kind::kRename});
  Schema after_second = Mirror(after_first, second, "qty", "amount", &last);
  EXPECT_EQ(Names(after_second), (std::vector<std::string>{"id", "title", "amount"}));
  EXPECT_EQ(Ids(after_second), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(TypeNames(after_second), (std::vector<std::string>{"long", "string", "int"}));
  EXPECT_EQ(after_second.identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_EQ(last, 3);

  // A second rename of the same column: title -> label, still field 2.
  Schema third({Field(1, "id", Type::Long(), true), Field(2, "label", Type::String()),
                Field(3, "amount", Type::Int())},
               0, {1});
  Schema after_third = Mirror(after_second, third, "title", "label", &last);
  EXPECT_EQ(Names(after_third), (std::vector<std::string>{"id", "label", "amount"}));
  EXPECT_EQ(Ids(after_third), (std::vector<int32_t>{1, 2, 3}));
}

// ------------------------------------------------------------ drop, add, order

TEST(PlanSchemaMirrorTest, TwoRenamesOfOneStatementKeepBothFieldIds) {
  // ALTER TABLE orders RENAME COLUMN name TO title, RENAME COLUMN qty TO amount
  Schema source({Field(7, "id", Type::Long(), true), Field(8, "title", Type::String()),
                 Field(9, "amount", Type::Int())},
                0, {7});
  auto plan = PlanSchemaMirror("db.orders", Orders(), source,
                               std::vector<ColumnRename>{{"name", "title"}, {"qty", "amount"}});
  ASSERT_TRUE(plan) << plan.error().ToString();
  EXPECT_EQ(Kinds(*plan), (std::vector<Kind>{Kind::kRename, Kind::kRename}));
  auto applied = ApplyPlan(Orders(), *plan);
  ASSERT_TRUE(applied) << applied.error().ToString();
  EXPECT_EQ(Names(applied->schema), (std::vector<std::string>{"id", "title", "amount"}));
  EXPECT_EQ(Ids(applied->schema), (std::vector<int32_t>{1, 2, 3}));
}

TEST(PlanSchemaMirrorTest, DropsAColumnTheSourceLacks) {
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "qty", Type::Int())}, 0, {1});
  auto plan = PlanSchemaMirror("db.orders", Orders(), source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_EQ(Kinds(*plan), std::vector<Kind>{Kind::kDelete});
  EXPECT_EQ(plan->steps[0].name, "name");
  EXPECT_EQ(plan->Describe(), "drop name");
  Schema result = Mirror(Orders(), source);
  EXPECT_EQ(Names(result), (std::vector<std::string>{"id", "qty"}));
  EXPECT_EQ(Ids(result), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(result.identifier_field_ids(), std::vector<int32_t>{1});
}

TEST(PlanSchemaMirrorTest, AddsAtTheEndWithoutMoves) {
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String()),
                 Field(3, "qty", Type::Int()), Field(4, "note", Type::String()),
                 Field(5, "code", Type::String(), true)},
                0, {1});
  auto plan = PlanSchemaMirror("db.orders", Orders(), source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_EQ(Kinds(*plan), (std::vector<Kind>{Kind::kAdd, Kind::kAdd}));
  EXPECT_EQ(plan->Describe(), "add note string, add code string");
  // "code" is NOT NULL in the source but can only be added as optional.
  ASSERT_EQ(plan->notes.size(), 1u);
  EXPECT_NE(plan->notes[0].find("'code'"), std::string::npos) << plan->notes[0];
  Schema result = Mirror(Orders(), source);
  EXPECT_EQ(Names(result), (std::vector<std::string>{"id", "name", "qty", "note", "code"}));
  EXPECT_EQ(Ids(result), (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(Required(result), (std::vector<bool>{true, false, false, false, false}));
}

TEST(PlanSchemaMirrorTest, AddFirstAndInTheMiddleFollowTheSourceOrder) {
  Schema first({Field(1, "tenant", Type::String()), Field(2, "id", Type::Long(), true),
                Field(3, "name", Type::String()), Field(4, "qty", Type::Int())},
               0, {2});
  auto plan = PlanSchemaMirror("db.orders", Orders(), first);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_TRUE(Has(*plan, Kind::kMoveFirst));
  EXPECT_EQ(plan->Describe(), "add tenant string, reorder columns");
  int32_t last = 3;
  Schema after_first = Mirror(Orders(), first, {}, {}, &last);
  EXPECT_EQ(Names(after_first), (std::vector<std::string>{"tenant", "id", "name", "qty"}));
  EXPECT_EQ(Ids(after_first), (std::vector<int32_t>{4, 1, 2, 3}));
  EXPECT_EQ(TypeNames(after_first), (std::vector<std::string>{"string", "long", "string", "int"}));

  Schema middle({Field(1, "tenant", Type::String()), Field(2, "id", Type::Long(), true),
                 Field(3, "name", Type::String()), Field(4, "price", *Type::Decimal(9, 2)),
                 Field(5, "qty", Type::Int())},
                0, {2});
  Schema after_middle = Mirror(after_first, middle, {}, {}, &last);
  EXPECT_EQ(Names(after_middle),
            (std::vector<std::string>{"tenant", "id", "name", "price", "qty"}));
  EXPECT_EQ(Ids(after_middle), (std::vector<int32_t>{4, 1, 2, 5, 3}));
  EXPECT_EQ(after_middle.fields()[3].type->ToString(), "decimal(9, 2)");
  EXPECT_EQ(after_middle.identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_EQ(last, 5);
}

TEST(PlanSchemaMirrorTest, ReordersExistingColumnsLikeTheSource) {
  Schema source({Field(1, "qty", Type::Int()), Field(2, "id", Type::Long(), true),
                 Field(3, "name", Type::String())},
                0, {2});
  Schema result = Mirror(Orders(), source);
  EXPECT_EQ(Names(result), (std::vector<std::string>{"qty", "id", "name"}));
  EXPECT_EQ(Ids(result), (std::vector<int32_t>{3, 1, 2}));
}

TEST(PlanSchemaMirrorTest, RenameDropAndAddInOneStatement) {
  // ALTER TABLE ... CHANGE name label ..., DROP qty, ADD note FIRST
  Schema source({Field(1, "note", Type::String()), Field(2, "id", Type::Long(), true),
                 Field(3, "label", Type::String())},
                0, {2});
  Schema result = Mirror(Orders(), source, "name", "label");
  EXPECT_EQ(Names(result), (std::vector<std::string>{"note", "id", "label"}));
  EXPECT_EQ(Ids(result), (std::vector<int32_t>{4, 1, 2}));
}

// ------------------------------------------------------------ types

TEST(PlanSchemaMirrorTest, WidensIntFloatAndDecimal) {
  Schema table({Field(1, "id", Type::Long(), true), Field(2, "i", Type::Int()),
                Field(3, "f", Type::Float(), true), Field(4, "d", Decimal(10, 2))},
               0, {1});
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "i", Type::Long()),
                 Field(3, "f", Type::Double(), true), Field(4, "d", Decimal(12, 2))},
                0, {1});
  auto plan = PlanSchemaMirror("db.m", table, source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_EQ(Kinds(*plan), (std::vector<Kind>{Kind::kWiden, Kind::kWiden, Kind::kWiden}));
  EXPECT_TRUE(plan->notes.empty());
  Schema result = Mirror(table, source);
  EXPECT_EQ(Names(result), (std::vector<std::string>{"id", "i", "f", "d"}));
  EXPECT_EQ(Ids(result), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(TypeNames(result),
            (std::vector<std::string>{"long", "long", "double", "decimal(12, 2)"}));
  EXPECT_EQ(Required(result), (std::vector<bool>{true, false, true, false}));
}

TEST(PlanSchemaMirrorTest, NarrowerSourceTypeKeepsTheIcebergTypeWithANote) {
  Schema table({Field(1, "id", Type::Long(), true), Field(2, "l", Type::Long()),
                Field(3, "dbl", Type::Double()), Field(4, "d", Decimal(12, 2))},
               0, {1});
  Schema source({Field(1, "id", Type::Int(), true), Field(2, "l", Type::Int()),
                 Field(3, "dbl", Type::Float()), Field(4, "d", Decimal(10, 2))},
                0, {1});
  auto plan = PlanSchemaMirror("db.m", table, source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_TRUE(plan->empty()) << plan->Describe();
  ASSERT_EQ(plan->notes.size(), 4u);
  EXPECT_NE(plan->notes[0].find("'id'"), std::string::npos) << plan->notes[0];
  EXPECT_NE(plan->notes[1].find("'l'"), std::string::npos) << plan->notes[1];
  EXPECT_NE(plan->notes[1].find("keeps type long"), std::string::npos) << plan->notes[1];
  EXPECT_NE(plan->notes[2].find("double"), std::string::npos) << plan->notes[2];
  EXPECT_NE(plan->notes[3].find("decimal(12, 2)"), std::string::npos) << plan->notes[3];
  Schema result = Mirror(table, source);
  EXPECT_EQ(TypeNames(result),
            (std::vector<std::string>{"long", "long", "double", "decimal(12, 2)"}));
}

TEST(PlanSchemaMirrorTest, StringToIntIsIncompatibleAndSaysWhere) {
  Schema table({Field(1, "id", Type::Long(), true), Field(2, "code", Type::String())}, 0, {1});
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "code", Type::Int())}, 0, {1});
  auto plan = PlanSchemaMirror("shop.orders", table, source);
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().code(), ErrorCode::kSchemaIncompatible);
  const std::string& m = plan.error().message();
  EXPECT_NE(m.find("shop.orders"), std::string::npos) << m;
  EXPECT_NE(m.find("'code'"), std::string::npos) << m;
  EXPECT_NE(m.find("from string to int"), std::string::npos) << m;

  // A change of decimal scale cannot be expressed either.
  Schema dec_table({Field(1, "p", Decimal(10, 2))});
  Schema dec_source({Field(1, "p", Decimal(12, 4))});
  auto dec = PlanSchemaMirror("shop.prices", dec_table, dec_source);
  ASSERT_FALSE(dec.has_value());
  EXPECT_EQ(dec.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(dec.error().message().find("decimal(10, 2) to decimal(12, 4)"), std::string::npos)
      << dec.error().message();
}

// ------------------------------------------------------------ nullability

TEST(PlanSchemaMirrorTest, AColumnThatBecameNullableBecomesOptional) {
  Schema table({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String(), true)}, 0,
               {1});
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String())}, 0, {1});
  auto plan = PlanSchemaMirror("db.t", table, source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_EQ(Kinds(*plan), std::vector<Kind>{Kind::kMakeOptional});
  EXPECT_EQ(plan->Describe(), "make name optional");
  Schema result = Mirror(table, source);
  EXPECT_EQ(Ids(result), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(Required(result), (std::vector<bool>{true, false}));
  EXPECT_TRUE(PlanSchemaMirror("db.t", result, source)->empty());
}

TEST(PlanSchemaMirrorTest, NotNullOnAnOptionalColumnIsANoteOnly) {
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String(), true),
                 Field(3, "qty", Type::Int())},
                0, {1});
  auto plan = PlanSchemaMirror("db.orders", Orders(), source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_TRUE(plan->empty()) << plan->Describe();
  ASSERT_EQ(plan->notes.size(), 1u);
  EXPECT_NE(plan->notes[0].find("'name'"), std::string::npos) << plan->notes[0];
  EXPECT_NE(plan->notes[0].find("optional"), std::string::npos) << plan->notes[0];
  Schema result = Mirror(Orders(), source);
  EXPECT_EQ(Required(result), (std::vector<bool>{true, false, false}));
}

// ------------------------------------------------------------ primary key

TEST(PlanSchemaMirrorTest, KeyTakesInARequiredColumn) {
  Schema table({Field(1, "id", Type::Long(), true), Field(2, "region", Type::String(), true),
                Field(3, "name", Type::String())},
               0, {1});
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "region", Type::String(), true),
                 Field(3, "name", Type::String())},
                0, {1, 2});
  auto plan = PlanSchemaMirror("db.t", table, source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  ASSERT_EQ(Kinds(*plan), std::vector<Kind>{Kind::kSetIdentifiers});
  EXPECT_EQ(plan->steps[0].identifiers, (std::vector<std::string>{"id", "region"}));
  Schema result = Mirror(table, source);
  EXPECT_EQ(Ids(result), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(result.identifier_field_ids(), (std::vector<int32_t>{1, 2}));
  EXPECT_TRUE(PlanSchemaMirror("db.t", result, source)->empty());
}

TEST(PlanSchemaMirrorTest, KeyWithAnOptionalColumnIsIncompatible) {
  // "name" is optional in Iceberg and cannot become required.
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String(), true),
                 Field(3, "qty", Type::Int())},
                0, {1, 2});
  auto plan = PlanSchemaMirror("shop.orders", Orders(), source);
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(plan.error().message().find("shop.orders"), std::string::npos);
  EXPECT_NE(plan.error().message().find("'name'"), std::string::npos) << plan.error().message();

  // So is a key on a column the statement adds (it can only be added optional).
  Schema added({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String()),
                Field(3, "qty", Type::Int()), Field(4, "code", Type::String(), true)},
               0, {1, 4});
  auto plan2 = PlanSchemaMirror("shop.orders", Orders(), added);
  ASSERT_FALSE(plan2.has_value());
  EXPECT_EQ(plan2.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(plan2.error().message().find("'code'"), std::string::npos) << plan2.error().message();
}

TEST(PlanSchemaMirrorTest, KeyChangeTogetherWithDroppingTheOldKeyColumn) {
  // ALTER TABLE ... DROP PRIMARY KEY, DROP id, ADD PRIMARY KEY (code)
  Schema table({Field(1, "id", Type::Long(), true), Field(2, "code", Type::String(), true),
                Field(3, "name", Type::String())},
               0, {1});
  Schema source({Field(1, "code", Type::String(), true), Field(2, "name", Type::String())}, 0, {1});
  auto plan = PlanSchemaMirror("db.t", table, source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_TRUE(Has(*plan, Kind::kDelete));
  EXPECT_TRUE(Has(*plan, Kind::kSetIdentifiers));
  auto applied = ApplyPlan(table, *plan);
  ASSERT_TRUE(applied.has_value()) << plan->Describe() << ": " << applied.error().ToString();
  EXPECT_EQ(Names(applied->schema), (std::vector<std::string>{"code", "name"}));
  EXPECT_EQ(Ids(applied->schema), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(applied->schema.identifier_field_ids(), std::vector<int32_t>{2});
  EXPECT_TRUE(PlanSchemaMirror("db.t", applied->schema, source)->empty());
}

TEST(PlanSchemaMirrorTest, KeyShrinksAndTheOldKeyColumnBecomesNullable) {
  // ALTER TABLE ... DROP PRIMARY KEY, ADD PRIMARY KEY (id), MODIFY region NULL
  Schema table({Field(1, "id", Type::Long(), true), Field(2, "region", Type::String(), true)}, 0,
               {1, 2});
  Schema source({Field(1, "id", Type::Long(), true), Field(2, "region", Type::String())}, 0, {1});
  auto plan = PlanSchemaMirror("db.t", table, source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  auto applied = ApplyPlan(table, *plan);
  ASSERT_TRUE(applied.has_value()) << plan->Describe() << ": " << applied.error().ToString();
  EXPECT_EQ(Required(applied->schema), (std::vector<bool>{true, false}));
  EXPECT_EQ(applied->schema.identifier_field_ids(), std::vector<int32_t>{1});
}

// ------------------------------------------------------------ idempotence

TEST(PlanSchemaMirrorTest, AnEqualSchemaGivesAnEmptyPlan) {
  // The source numbers its fields on its own.
  Schema source({Field(10, "id", Type::Long(), true), Field(20, "name", Type::String()),
                 Field(30, "qty", Type::Int())},
                0, {10});
  auto plan = PlanSchemaMirror("db.orders", Orders(), source);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_TRUE(plan->empty()) << plan->Describe();
  EXPECT_TRUE(plan->notes.empty());
  EXPECT_EQ(plan->Describe(), "");
}

TEST(PlanSchemaMirrorTest, ReplayingAnAppliedStatementPlansNothing) {
  Schema table({Field(1, "id", Type::Int(), true), Field(2, "name", Type::String(), true),
                Field(3, "qty", Type::Int()), Field(4, "old", Type::String())},
               0, {1});
  // Rename name -> full_name (made nullable), widen id and qty, drop old, add note first.
  Schema source({Field(1, "note", Type::String()), Field(2, "id", Type::Long(), true),
                 Field(3, "full_name", Type::String()), Field(4, "qty", Type::Long())},
                0, {2});
  int32_t last = 4;
  Schema applied = Mirror(table, source, "name", "full_name", &last);
  EXPECT_EQ(Names(applied), (std::vector<std::string>{"note", "id", "full_name", "qty"}));
  EXPECT_EQ(Ids(applied), (std::vector<int32_t>{5, 1, 2, 3}));
  EXPECT_EQ(TypeNames(applied), (std::vector<std::string>{"string", "long", "string", "long"}));
  EXPECT_EQ(Required(applied), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(applied.identifier_field_ids(), std::vector<int32_t>{1});

  // The same statement again (a replay after a restart), with the same hint.
  auto again = PlanSchemaMirror("db.orders", applied, source, "name", "full_name");
  ASSERT_TRUE(again.has_value()) << again.error().ToString();
  EXPECT_TRUE(again->empty()) << again->Describe();
  EXPECT_TRUE(again->notes.empty());
}

}  // namespace
}  // namespace floe::ingest
