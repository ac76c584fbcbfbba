#pragma once
/// What every evaluation of a bound Expression shares: `true` and `false`
/// are themselves, `and` and `or` combine their children's results (the
/// right child evaluated only when the left does not decide). Each
/// evaluator (evaluator.h, file_filter.h) adds what `not` and a predicate
/// mean to it.
#include <optional>

#include "floe/iceberg/expression/expression.h"

namespace floe::iceberg {

/// The value of `e` when it is kTrue, kFalse, kAnd or kOr, with `eval`
/// (`bool(const Expression&)`) evaluating its children; nullopt for kNot
/// and for a predicate.
template <typename Eval>
std::optional<bool> EvalConnective(const Expression& e, const Eval& eval) {
  switch (e.op()) {
    case Operation::kTrue:
      return true;
    case Operation::kFalse:
      return false;
    case Operation::kAnd:
      return eval(*e.left()) && eval(*e.right());
    case Operation::kOr:
      return eval(*e.left()) || eval(*e.right());
    default:
      return std::nullopt;
  }
}

}  // namespace floe::iceberg
