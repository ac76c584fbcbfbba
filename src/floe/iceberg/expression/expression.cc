#include "floe/iceberg/expression/expression.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/common/quote.h"
#include "floe/iceberg/partition_field.h"

namespace floe::iceberg {

using types::Type;
using types::TypeId;
using types::TypePtr;

Operation NegateOperation(Operation op) {
  switch (op) {
    case Operation::kTrue:
      return Operation::kFalse;
    case Operation::kFalse:
      return Operation::kTrue;
    case Operation::kAnd:
      return Operation::kOr;
    case Operation::kOr:
      return Operation::kAnd;
    case Operation::kNot:
      return Operation::kNot;
    case Operation::kIsNull:
      return Operation::kNotNull;
    case Operation::kNotNull:
      return Operation::kIsNull;
    case Operation::kIsNan:
      return Operation::kNotNan;
    case Operation::kNotNan:
      return Operation::kIsNan;
    case Operation::kLt:
      return Operation::kGtEq;
    case Operation::kLtEq:
      return Operation::kGt;
    case Operation::kGt:
      return Operation::kLtEq;
    case Operation::kGtEq:
      return Operation::kLt;
    case Operation::kEq:
      return Operation::kNotEq;
    case Operation::kNotEq:
      return Operation::kEq;
    case Operation::kIn:
      return Operation::kNotIn;
    case Operation::kNotIn:
      return Operation::kIn;
    case Operation::kStartsWith:
      return Operation::kNotStartsWith;
    case Operation::kNotStartsWith:
      return Operation::kStartsWith;
  }
  return op;
}

Operation FlipOperation(Operation op) {
  switch (op) {
    case Operation::kLt:
      return Operation::kGt;
    case Operation::kLtEq:
      return Operation::kGtEq;
    case Operation::kGt:
      return Operation::kLt;
    case Operation::kGtEq:
      return Operation::kLtEq;
    default:
      return op;
  }
}

std::string_view OperationName(Operation op) {
  switch (op) {
    case Operation::kTrue:
      return "TRUE";
    case Operation::kFalse:
      return "FALSE";
    case Operation::kAnd:
      return "AND";
    case Operation::kOr:
      return "OR";
    case Operation::kNot:
      return "NOT";
    case Operation::kIsNull:
      return "IS NULL";
    case Operation::kNotNull:
      return "IS NOT NULL";
    case Operation::kIsNan:
      return "IS NAN";
    case Operation::kNotNan:
      return "IS NOT NAN";
    case Operation::kLt:
      return "<";
    case Operation::kLtEq:
      return "<=";
    case Operation::kGt:
      return ">";
    case Operation::kGtEq:
      return ">=";
    case Operation::kEq:
      return "=";
    case Operation::kNotEq:
      return "!=";
    case Operation::kIn:
      return "IN";
    case Operation::kNotIn:
      return "NOT IN";
    case Operation::kStartsWith:
      return "STARTS WITH";
    case Operation::kNotStartsWith:
      return "NOT STARTS WITH";
  }
  return "?";
}

ExprPtr Expression::True() {
  static const ExprPtr kTrueExpr = std::make_shared<Expression>(Operation::kTrue);
  return kTrueExpr;
}

ExprPtr Expression::False() {
  static const ExprPtr kFalseExpr = std::make_shared<Expression>(Operation::kFalse);
  return kFalseExpr;
}

ExprPtr Expression::Junction(Operation op, ExprPtr a, ExprPtr b) {
  const bool is_and = op == Operation::kAnd;
  const Operation deciding = is_and ? Operation::kFalse : Operation::kTrue;
  if (a->op() == deciding || b->op() == deciding) return is_and ? False() : True();
  const Operation neutral = is_and ? Operation::kTrue : Operation::kFalse;
  if (a->op() == neutral) return b;
  if (b->op() == neutral) return a;
  auto e = std::make_shared<Expression>(op);
  e->bound_ = a->is_bound() && b->is_bound();
  e->left_ = std::move(a);
  e->right_ = std::move(b);
  return e;
}

ExprPtr Expression::And(ExprPtr a, ExprPtr b) {
  return Junction(Operation::kAnd, std::move(a), std::move(b));
}

ExprPtr Expression::Or(ExprPtr a, ExprPtr b) {
  return Junction(Operation::kOr, std::move(a), std::move(b));
}

ExprPtr Expression::Not(ExprPtr a) {
  if (a->op() == Operation::kTrue) return False();
  if (a->op() == Operation::kFalse) return True();
  if (a->op() == Operation::kNot) return a->left();
  auto e = std::make_shared<Expression>(Operation::kNot);
  e->bound_ = a->is_bound();
  e->left_ = std::move(a);
  return e;
}

ExprPtr Expression::Predicate(Operation op, std::string column, std::vector<Literal> literals) {
  auto e = std::make_shared<Expression>(op);
  e->column_ = std::move(column);
  e->literals_ = std::move(literals);
  return e;
}

ExprPtr Expression::BoundPredicate(Operation op, int32_t field_id, std::string column, TypePtr type,
                                   std::vector<int> positions, std::vector<Literal> literals) {
  auto e = std::make_shared<Expression>(op);
  e->bound_ = true;
  e->field_id_ = field_id;
  e->column_ = std::move(column);
  e->type_ = std::move(type);
  e->positions_ = std::move(positions);
  e->literals_ = std::move(literals);
  return e;
}

namespace {

std::string QuoteColumn(const std::string& name) {
  bool plain =
      !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) plain = false;
  }
  return plain ? name : SqlQuoted(name, '`');
}

void Append(const Expression& e, bool parenthesize, std::string* out) {
  switch (e.op()) {
    case Operation::kTrue:
      out->append("true");
      return;
    case Operation::kFalse:
      out->append("false");
      return;
    case Operation::kAnd:
    case Operation::kOr: {
      if (parenthesize) out->push_back('(');
      Append(*e.left(), e.left()->op() != e.op(), out);
      out->append(e.op() == Operation::kAnd ? " AND " : " OR ");
      Append(*e.right(), e.right()->op() != e.op(), out);
      if (parenthesize) out->push_back(')');
      return;
    }
    case Operation::kNot:
      out->append("NOT (");
      Append(*e.left(), false, out);
      out->push_back(')');
      return;
    default:
      break;
  }
  out->append(QuoteColumn(e.column()));
  out->push_back(' ');
  out->append(OperationName(e.op()));
  if (e.is_unary_predicate()) return;
  if (e.op() == Operation::kIn || e.op() == Operation::kNotIn) {
    out->append(" (");
    for (size_t i = 0; i < e.literals().size(); ++i) {
      if (i > 0) out->append(", ");
      out->append(e.literals()[i].ToString());
    }
    out->push_back(')');
    return;
  }
  out->push_back(' ');
  out->append(e.literals().empty() ? "?" : e.literal().ToString());
}

bool IsFloating(const Type& t) { return t.id() == TypeId::kFloat || t.id() == TypeId::kDouble; }

Result<ExprPtr> BindPredicate(const Expression& p, const Type& struct_type, bool case_sensitive) {
  FLOE_ASSIGN_OR_RETURN(ResolvedColumn column,
                        ResolveColumn(struct_type, p.column(), case_sensitive));
  const TypePtr& type = column.field->type;
  if (!type->is_primitive()) {
    return InvalidArgument("cannot filter on column '{}' of type {}: only primitive columns",
                           column.name, type->ToString());
  }
  auto make = [&](Operation op, std::vector<Literal> literals = {}) {
    return Expression::BoundPredicate(op, column.field_id, column.name, type, column.positions,
                                      std::move(literals));
  };
  const bool required = column.field->required;
  switch (p.op()) {
    case Operation::kIsNull:
      return required ? Expression::False() : make(p.op());
    case Operation::kNotNull:
      return required ? Expression::True() : make(p.op());
    case Operation::kIsNan:
    case Operation::kNotNan:
      if (!IsFloating(*type)) {
        return InvalidArgument("{} needs a float or double column; '{}' is {}",
                               OperationName(p.op()), column.name, type->ToString());
      }
      return make(p.op());
    default:
      break;
  }
  if (p.literals().empty()) {
    return InvalidArgument("predicate {} on '{}' has no value", OperationName(p.op()), column.name);
  }
  std::vector<Literal> converted;
  for (const Literal& lit : p.literals()) {
    if (lit.is_null()) {
      return InvalidArgument("cannot compare column '{}' with null; use IS NULL or IS NOT NULL",
                             column.name);
    }
    auto c = lit.To(type);
    if (!c) {
      return InvalidArgument("column '{}': {}", column.name, c.error().message());
    }
    converted.push_back(std::move(*c));
  }
  // Null never matches a comparison, so "always" below means "for non-null values".
  ExprPtr not_null = required ? Expression::True() : make(Operation::kNotNull);
  switch (p.op()) {
    case Operation::kStartsWith:
    case Operation::kNotStartsWith:
      if (type->id() != TypeId::kString) {
        return InvalidArgument("{} needs a string column; '{}' is {}", OperationName(p.op()),
                               column.name, type->ToString());
      }
      return make(p.op(), std::move(converted));
    case Operation::kIn:
    case Operation::kNotIn: {
      std::vector<Literal> kept;
      for (auto& l : converted) {
        if (l.special() == Literal::Special::kNone) kept.push_back(std::move(l));
      }
      std::sort(kept.begin(), kept.end(), [&](const Literal& a, const Literal& b) {
        return CompareValues(*type, a.value(), b.value()) < 0;
      });
      kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
      const bool in = p.op() == Operation::kIn;
      if (kept.empty()) return in ? Expression::False() : not_null;
      if (kept.size() == 1) return make(in ? Operation::kEq : Operation::kNotEq, std::move(kept));
      return make(p.op(), std::move(kept));
    }
    default:
      break;
  }
  const Literal& lit = converted.front();
  if (lit.is_above_max()) {
    switch (p.op()) {
      case Operation::kLt:
      case Operation::kLtEq:
      case Operation::kNotEq:
        return not_null;
      default:
        return Expression::False();
    }
  }
  if (lit.is_below_min()) {
    switch (p.op()) {
      case Operation::kGt:
      case Operation::kGtEq:
      case Operation::kNotEq:
        return not_null;
      default:
        return Expression::False();
    }
  }
  return make(p.op(), std::move(converted));
}

Result<ExprPtr> BindImpl(const ExprPtr& expr, const Type& struct_type, bool case_sensitive) {
  return MapPredicates(expr, [&](const ExprPtr& p) -> Result<ExprPtr> {
    if (p->is_bound()) return p;
    return BindPredicate(*p, struct_type, case_sensitive);
  });
}

ExprPtr Negate(const ExprPtr& e);

ExprPtr Negate(const ExprPtr& e) {
  switch (e->op()) {
    case Operation::kTrue:
      return Expression::False();
    case Operation::kFalse:
      return Expression::True();
    case Operation::kAnd:
      return Expression::Or(Negate(e->left()), Negate(e->right()));
    case Operation::kOr:
      return Expression::And(Negate(e->left()), Negate(e->right()));
    case Operation::kNot:
      return RewriteNot(e->left());
    default:
      break;
  }
  Operation op = NegateOperation(e->op());
  if (e->is_bound()) {
    return Expression::BoundPredicate(op, e->field_id(), e->column(), e->type(), e->positions(),
                                      e->literals());
  }
  return Expression::Predicate(op, e->column(), e->literals());
}

}  // namespace

std::string Expression::ToString() const {
  std::string out;
  Append(*this, false, &out);
  return out;
}

// NOT is pushed down before binding so that folded predicates (for example
// `int_col != 1e12` -> `int_col NOT NULL`) are never negated afterwards.
Result<ExprPtr> Bind(const ExprPtr& expr, const Type& struct_type, bool case_sensitive) {
  return BindImpl(RewriteNot(expr), struct_type, case_sensitive);
}

Result<ExprPtr> Bind(const ExprPtr& expr, const types::Schema& schema, bool case_sensitive) {
  return BindImpl(RewriteNot(expr), *schema.as_struct(), case_sensitive);
}

ExprPtr RewriteNot(const ExprPtr& expr) {
  switch (expr->op()) {
    case Operation::kAnd:
      return Expression::And(RewriteNot(expr->left()), RewriteNot(expr->right()));
    case Operation::kOr:
      return Expression::Or(RewriteNot(expr->left()), RewriteNot(expr->right()));
    case Operation::kNot:
      return Negate(expr->left());
    default:
      return expr;
  }
}

Result<ExprPtr> MapPredicates(const ExprPtr& expr,
                              const std::function<Result<ExprPtr>(const ExprPtr&)>& map) {
  switch (expr->op()) {
    case Operation::kTrue:
    case Operation::kFalse:
      return expr;
    case Operation::kAnd:
    case Operation::kOr: {
      FLOE_ASSIGN_OR_RETURN(ExprPtr l, MapPredicates(expr->left(), map));
      FLOE_ASSIGN_OR_RETURN(ExprPtr r, MapPredicates(expr->right(), map));
      return expr->op() == Operation::kAnd ? Expression::And(l, r) : Expression::Or(l, r);
    }
    case Operation::kNot: {
      FLOE_ASSIGN_OR_RETURN(ExprPtr c, MapPredicates(expr->left(), map));
      return Expression::Not(c);
    }
    default:
      return map(expr);
  }
}

}  // namespace floe::iceberg
