#pragma once
/// Filter expressions (docs/iceberg-expressions.md): true/false, AND/OR/NOT,
/// and predicates on one column: IS NULL, NOT NULL, IS NAN, NOT NAN, <, <=,
/// >, >=, =, !=, IN, NOT IN, STARTS WITH, NOT STARTS WITH.
///
/// An expression is first *unbound* (columns by name, literals as parsed),
/// then *bound* to a schema: names become field ids and row positions, and
/// literals are converted to the column types. Evaluators take bound
/// expressions. Expressions are immutable and shared (`ExprPtr`); all
/// functions are thread-safe.
///
/// Null semantics are SQL's for filtering: a predicate other than IS NULL /
/// NOT NULL on a null value is false (so `x != 5` and `x NOT IN (...)` do not
/// match nulls), and NOT is pushed down to the predicates (`RewriteNot`)
/// before evaluation, so `NOT (x < 3)` is `x >= 3` and also false for null.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/expression/literal.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

enum class Operation : uint8_t {
  kTrue,
  kFalse,
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kNotNull,
  kIsNan,
  kNotNan,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kEq,
  kNotEq,
  kIn,
  kNotIn,
  kStartsWith,
  kNotStartsWith,
};

/// The operation that is true exactly when `op` is false for a non-null
/// value (kLt <-> kGtEq, kIn <-> kNotIn, kAnd <-> kOr, ...).
Operation NegateOperation(Operation op);
/// The comparison with its operands swapped (`5 < x` is `x > 5`).
Operation FlipOperation(Operation op);
/// "=", "<", "IN", "IS NULL", ...
std::string_view OperationName(Operation op);

class Expression;
using ExprPtr = std::shared_ptr<const Expression>;

class Expression {
 public:
  Operation op() const { return op_; }
  bool is_predicate() const { return op_ >= Operation::kIsNull; }
  bool is_unary_predicate() const { return op_ >= Operation::kIsNull && op_ <= Operation::kNotNan; }
  bool is_bound() const { return bound_; }

  /// And/Or: both children; Not: `left()` is the child.
  const ExprPtr& left() const { return left_; }
  const ExprPtr& right() const { return right_; }

  /// Predicates: the column as written (unbound) or the schema's dotted name (bound).
  const std::string& column() const { return column_; }
  /// Bound predicates: the field id, its type, and its positions in a row
  /// (positions[0] in the top-level row, then in nested structs).
  int32_t field_id() const { return field_id_; }
  const types::TypePtr& type() const { return type_; }
  const std::vector<int>& positions() const { return positions_; }
  /// Comparison predicates have one literal; IN/NOT IN one or more (bound:
  /// distinct, sorted); unary predicates none.
  const std::vector<Literal>& literals() const { return literals_; }
  const Literal& literal() const { return literals_.front(); }

  /// "id = 5 AND (ts >= '2024-01-01T00:00:00' OR name IS NULL)".
  std::string ToString() const;

  static ExprPtr True();
  static ExprPtr False();
  /// Simplifies with true/false operands.
  static ExprPtr And(ExprPtr a, ExprPtr b);
  static ExprPtr Or(ExprPtr a, ExprPtr b);
  static ExprPtr Not(ExprPtr a);
  /// An unbound predicate on a column name.
  static ExprPtr Predicate(Operation op, std::string column, std::vector<Literal> literals = {});
  /// A bound predicate (for binders and projections); literals must already
  /// have the column's type.
  static ExprPtr BoundPredicate(Operation op, int32_t field_id, std::string column,
                                types::TypePtr type, std::vector<int> positions,
                                std::vector<Literal> literals = {});

  Expression(Operation op) : op_(op) {}

 private:
  /// And (`op` kAnd) or Or (kOr): a false (AND) or true (OR) operand decides
  /// the result, the other constant drops out.
  static ExprPtr Junction(Operation op, ExprPtr a, ExprPtr b);

  Operation op_;
  bool bound_ = false;
  ExprPtr left_, right_;
  std::string column_;
  int32_t field_id_ = 0;
  types::TypePtr type_;
  std::vector<int> positions_;
  std::vector<Literal> literals_;
};

/// Binds `expr` to `schema`: resolves columns (dotted names reach into
/// structs; with `case_sensitive` false a unique case-insensitive match is
/// used), converts literals to the column types, and simplifies:
/// IS NULL on a required column is false, NOT NULL true; a literal out of
/// the column type's range folds the comparison (e.g. `int_col < 1e12` is
/// `int_col NOT NULL`); IN lists are de-duplicated, and IN of one value is =.
/// NOT is pushed down first (`RewriteNot`), so the result has no kNot nodes.
/// Errors: kInvalidArgument for unknown columns (naming them and listing the
/// schema's columns), non-primitive columns, literals that do not convert
/// (naming literal, column and type), null literals in comparisons, IS NAN
/// on a non-floating column, STARTS WITH on a non-string column.
Result<ExprPtr> Bind(const ExprPtr& expr, const types::Schema& schema, bool case_sensitive = true);
/// The same against any struct type (such as a partition type).
Result<ExprPtr> Bind(const ExprPtr& expr, const types::Type& struct_type,
                     bool case_sensitive = true);

/// Pushes NOT down to predicates (De Morgan, negated operations). The result
/// has no kNot nodes.
ExprPtr RewriteNot(const ExprPtr& expr);

/// Rebuilds `expr` with every predicate replaced by `map(predicate)`: true
/// and false stay as they are, and/or/not are rebuilt over the mapped
/// children with And, Or and Not (so constant children simplify). Errors: the
/// first error `map` returns, unchanged.
Result<ExprPtr> MapPredicates(const ExprPtr& expr,
                              const std::function<Result<ExprPtr>(const ExprPtr&)>& map);

}  // namespace floe::iceberg
