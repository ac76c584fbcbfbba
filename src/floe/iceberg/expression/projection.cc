#include "floe/iceberg/expression/projection.h"

#include <functional>
#include <optional>

#include "floe/iceberg/transform.h"

namespace floe::iceberg {

using types::Type;
using types::TypeId;
using types::TypePtr;
using types::Value;

namespace {

struct Target {
  int32_t field_id;
  std::string name;
  TypePtr result_type;
  int position;
  const Transform* transform;
  TypePtr source_type;
};

// Applies the transform to a literal and copies the result.
Result<Literal> ApplyTo(const Target& t, const Value& v) {
  FLOE_ASSIGN_OR_RETURN(Value out, t.transform->Apply(*t.source_type, v));
  return Literal::FromValue(t.result_type, out);
}

// The literal one step above (+1) or below (-1) `lit` in the source unit, or
// nullopt when it would overflow (then the projection is dropped).
std::optional<Literal> Step(const Literal& lit, int delta) {
  const Value& v = lit.value();
  const TypePtr& type = lit.type();
  switch (v.kind) {
    case Value::Kind::kInt32: {
      int64_t n = int64_t{v.i32} + delta;
      if (n < INT32_MIN || n > INT32_MAX) return std::nullopt;
      return *Literal::FromValue(type, Value::Int32(static_cast<int32_t>(n)));
    }
    case Value::Kind::kInt64: {
      int64_t n;
      if (__builtin_add_overflow(v.i64, int64_t{delta}, &n)) return std::nullopt;
      return *Literal::FromValue(type, Value::Int64(n));
    }
    case Value::Kind::kDecimal:
      return *Literal::FromValue(type, Value::Decimal(v.decimal + delta));
    default:
      return std::nullopt;
  }
}

ExprPtr Make(const Target& t, Operation op, std::vector<Literal> literals = {}) {
  return Expression::BoundPredicate(op, t.field_id, t.name, t.result_type, {t.position},
                                    std::move(literals));
}

// Projects one bound predicate through one partition field; nullptr = no projection.
Result<ExprPtr> ProjectPredicate(const Expression& p, const Target& t) {
  const Transform& tr = *t.transform;
  if (tr.is_void() || tr.is_unknown()) return ExprPtr();
  if (p.op() == Operation::kIsNull || p.op() == Operation::kNotNull) return Make(t, p.op());
  if (tr.is_identity()) {
    return Expression::BoundPredicate(p.op(), t.field_id, t.name, t.result_type, {t.position},
                                      p.literals());
  }
  if (p.op() == Operation::kIsNan || p.op() == Operation::kNotNan) return ExprPtr();

  auto apply_all = [&](Operation op) -> Result<ExprPtr> {
    std::vector<Literal> out;
    for (const auto& l : p.literals()) {
      FLOE_ASSIGN_OR_RETURN(Literal x, ApplyTo(t, l.value()));
      bool dup = false;
      for (const auto& y : out) dup = dup || y == x;
      if (!dup) out.push_back(std::move(x));
    }
    if (op == Operation::kIn && out.size() == 1) op = Operation::kEq;
    return Make(t, op, std::move(out));
  };
  auto apply_one = [&](Operation op, const Literal& l) -> Result<ExprPtr> {
    FLOE_ASSIGN_OR_RETURN(Literal x, ApplyTo(t, l.value()));
    return Make(t, op, {std::move(x)});
  };

  if (tr.kind() == TransformKind::kBucket) {
    if (p.op() == Operation::kEq) return apply_all(Operation::kEq);
    if (p.op() == Operation::kIn) return apply_all(Operation::kIn);
    return ExprPtr();
  }

  const TypeId source = t.source_type->id();
  const bool is_bytes = source == TypeId::kString || source == TypeId::kBinary;
  switch (p.op()) {
    case Operation::kEq:
      return apply_all(Operation::kEq);
    case Operation::kIn:
      return apply_all(Operation::kIn);
    case Operation::kLt:
      if (is_bytes) return apply_one(Operation::kLtEq, p.literal());
      if (auto prev = Step(p.literal(), -1)) return apply_one(Operation::kLtEq, *prev);
      return ExprPtr();
    case Operation::kLtEq:
      return apply_one(Operation::kLtEq, p.literal());
    case Operation::kGt:
      if (is_bytes) return apply_one(Operation::kGtEq, p.literal());
      if (auto next = Step(p.literal(), +1)) return apply_one(Operation::kGtEq, *next);
      return ExprPtr();
    case Operation::kGtEq:
      return apply_one(Operation::kGtEq, p.literal());
    case Operation::kStartsWith:
    case Operation::kNotStartsWith: {
      if (source != TypeId::kString || tr.kind() != TransformKind::kTruncate) return ExprPtr();
      std::string_view prefix = p.literal().value().as_bytes();
      int64_t code_points = 0;
      for (size_t i = 0; i < prefix.size(); ++i) {
        if ((static_cast<uint8_t>(prefix[i]) & 0xc0) != 0x80) ++code_points;
      }
      if (p.op() == Operation::kStartsWith) {
        if (code_points >= tr.param()) return apply_one(Operation::kEq, p.literal());
        return Make(t, Operation::kStartsWith, p.literals());
      }
      if (code_points == tr.param()) return apply_one(Operation::kNotEq, p.literal());
      if (code_points < tr.param()) return Make(t, Operation::kNotStartsWith, p.literals());
      return ExprPtr();
    }
    default:
      return ExprPtr();  // !=, NOT IN: no inclusive projection
  }
}

}  // namespace

Result<ExprPtr> ProjectInclusive(const ExprPtr& row_filter, const PartitionSpec& spec,
                                 const types::Schema& schema) {
  ExprPtr bound = row_filter;
  if (!row_filter->is_bound()) {
    FLOE_ASSIGN_OR_RETURN(bound, Bind(row_filter, schema, /*case_sensitive=*/false));
  }
  bound = RewriteNot(bound);
  FLOE_RETURN_IF_ERROR(spec.PartitionType(schema));

  struct SourcedTarget {
    int32_t source_id;
    Target target;
  };
  std::vector<SourcedTarget> targets;
  const auto& fields = spec.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& f = fields[i];
    if (f.transform.is_unknown() || f.transform.is_void()) continue;
    const types::NestedField* source = schema.FindField(f.source_id);
    if (source == nullptr) continue;
    FLOE_ASSIGN_OR_RETURN(TypePtr result_type, f.transform.ResultType(source->type));
    targets.push_back({f.source_id, Target{f.field_id, f.name, result_type, static_cast<int>(i),
                                           &f.transform, source->type}});
  }

  // NOT was pushed down above, so only and/or nodes reach the predicates.
  return MapPredicates(bound, [&](const ExprPtr& e) -> Result<ExprPtr> {
    ExprPtr result = Expression::True();
    for (const auto& st : targets) {
      if (st.source_id != e->field_id()) continue;
      FLOE_ASSIGN_OR_RETURN(ExprPtr p, ProjectPredicate(*e, st.target));
      if (p) result = Expression::And(result, p);
    }
    return result;
  });
}

}  // namespace floe::iceberg
