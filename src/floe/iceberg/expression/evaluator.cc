#include "floe/iceberg/expression/evaluator.h"

#include <cmath>

#include "floe/iceberg/expression/connectives.h"
#include "floe/iceberg/expression/literal.h"
#include "floe/iceberg/expression/projection.h"
#include "floe/iceberg/single_value.h"

namespace floe::iceberg {

using types::Type;
using types::TypeId;
using types::Value;

namespace {

Status CheckBound(const ExprPtr& e) {
  if (!e) return InvalidArgument("no filter expression");
  if (e->op() == Operation::kTrue || e->op() == Operation::kFalse) return Ok();
  if (!e->is_bound()) return InvalidArgument("filter '{}' is not bound to a schema", e->ToString());
  return Ok();
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// ---------------------------------------------------------------- rows

bool GetValue(const Expression& p, types::Row row, Value* out) {
  std::span<const Value> level = row;
  const auto& pos = p.positions();
  for (size_t d = 0; d < pos.size(); ++d) {
    size_t i = static_cast<size_t>(pos[d]);
    if (i >= level.size()) return false;
    const Value& v = level[i];
    if (d + 1 == pos.size()) {
      *out = v;
      return true;
    }
    if (v.kind != Value::Kind::kStruct) {
      *out = Value::Null();
      return true;
    }
    level = v.as_children();
  }
  return false;
}

bool EvalPredicate(const Expression& p, const Value& v) {
  switch (p.op()) {
    case Operation::kIsNull:
      return v.is_null();
    case Operation::kNotNull:
      return !v.is_null();
    case Operation::kIsNan:
      return IsNaN(v);
    case Operation::kNotNan:
      return !v.is_null() && !IsNaN(v);
    default:
      break;
  }
  if (v.is_null()) return false;
  const Type& type = *p.type();
  const bool nan = IsNaN(v);
  switch (p.op()) {
    case Operation::kLt:
      return !nan && CompareValues(type, v, p.literal().value()) < 0;
    case Operation::kLtEq:
      return !nan && CompareValues(type, v, p.literal().value()) <= 0;
    case Operation::kGt:
      return !nan && CompareValues(type, v, p.literal().value()) > 0;
    case Operation::kGtEq:
      return !nan && CompareValues(type, v, p.literal().value()) >= 0;
    case Operation::kEq:
      return !nan && CompareValues(type, v, p.literal().value()) == 0;
    case Operation::kNotEq:
      return nan || CompareValues(type, v, p.literal().value()) != 0;
    case Operation::kIn:
    case Operation::kNotIn: {
      bool found = false;
      if (!nan) {
        for (const auto& l : p.literals()) {
          if (CompareValues(type, v, l.value()) == 0) {
            found = true;
            break;
          }
        }
      }
      return p.op() == Operation::kIn ? found : !found;
    }
    case Operation::kStartsWith:
      return v.kind == Value::Kind::kBytes &&
             StartsWith(v.as_bytes(), p.literal().value().as_bytes());
    case Operation::kNotStartsWith:
      return v.kind == Value::Kind::kBytes &&
             !StartsWith(v.as_bytes(), p.literal().value().as_bytes());
    default:
      return false;
  }
}

bool EvalRow(const Expression& e, types::Row row) {
  auto child = [row](const Expression& c) { return EvalRow(c, row); };
  if (auto decided = EvalConnective(e, child)) return *decided;
  if (e.op() == Operation::kNot) return !EvalRow(*e.left(), row);
  Value v;
  if (!GetValue(e, row, &v)) return false;
  return EvalPredicate(e, v);
}

// ---------------------------------------------------------------- shared bound checks

// The result of comparing against [lower, upper] bounds (either may be absent).
// Returns false when the predicate cannot match any non-null, non-NaN value.
bool RangeMayMatch(const Expression& p, const std::optional<Value>& lower,
                   const std::optional<Value>& upper) {
  const Type& type = *p.type();
  // Bounds that are NaN (written by old writers) say nothing.
  bool use_lower = lower.has_value() && !IsNaN(*lower);
  bool use_upper = upper.has_value() && !IsNaN(*upper);
  auto cmp = [&](const Value& a, const Value& b) { return CompareValues(type, a, b); };
  switch (p.op()) {
    case Operation::kLt:
      return !(use_lower && cmp(*lower, p.literal().value()) >= 0);
    case Operation::kLtEq:
      return !(use_lower && cmp(*lower, p.literal().value()) > 0);
    case Operation::kGt:
      return !(use_upper && cmp(*upper, p.literal().value()) <= 0);
    case Operation::kGtEq:
      return !(use_upper && cmp(*upper, p.literal().value()) < 0);
    case Operation::kEq:
      if (use_lower && cmp(*lower, p.literal().value()) > 0) return false;
      if (use_upper && cmp(*upper, p.literal().value()) < 0) return false;
      return true;
    case Operation::kIn:
      for (const auto& l : p.literals()) {
        bool above_lower = !use_lower || cmp(*lower, l.value()) <= 0;
        bool below_upper = !use_upper || cmp(*upper, l.value()) >= 0;
        if (above_lower && below_upper) return true;
      }
      return false;
    case Operation::kStartsWith: {
      std::string_view prefix = p.literal().value().as_bytes();
      // Compare the bounds cut to the prefix length: a truncated lower bound is
      // still <= every value, a truncated upper bound still >= every value.
      if (use_lower) {
        std::string_view lo = lower->as_bytes();
        std::string_view cut = lo.substr(0, std::min(lo.size(), prefix.size()));
        if (cut.compare(prefix) > 0) return false;
      }
      if (use_upper) {
        std::string_view hi = upper->as_bytes();
        std::string_view cut = hi.substr(0, std::min(hi.size(), prefix.size()));
        if (cut.compare(prefix) < 0) return false;
      }
      return true;
    }
    case Operation::kNotStartsWith: {
      // Every value starts with the prefix only if both bounds do: values
      // between two strings with a common prefix share it. (A truncated
      // upper bound that was incremented no longer starts with the prefix
      // when the increment changed it, which keeps this conservative.)
      std::string_view prefix = p.literal().value().as_bytes();
      if (use_lower && use_upper && StartsWith(lower->as_bytes(), prefix) &&
          StartsWith(upper->as_bytes(), prefix)) {
        return false;
      }
      return true;
    }
    default:
      return true;
  }
}

// ---------------------------------------------------------------- file metrics

std::optional<int64_t> Lookup(const std::map<int32_t, int64_t>* m, int32_t id) {
  if (m == nullptr) return std::nullopt;
  auto it = m->find(id);
  if (it == m->end()) return std::nullopt;
  return it->second;
}

std::optional<Value> Bound(const std::map<int32_t, std::string>* m, const Expression& p) {
  if (m == nullptr) return std::nullopt;
  auto it = m->find(p.field_id());
  if (it == m->end()) return std::nullopt;
  auto v = DeserializeBound(*p.type(), it->second);
  if (!v || v->is_null()) return std::nullopt;
  return *v;
}

bool MetricsMayMatch(const Expression& e, const FileMetrics& m) {
  auto child = [&m](const Expression& c) { return MetricsMayMatch(c, m); };
  if (auto decided = EvalConnective(e, child)) return *decided;
  if (e.op() == Operation::kNot) return true;  // not produced by Bind; stay conservative
  const int32_t id = e.field_id();
  auto values = Lookup(m.value_counts, id);
  auto nulls = Lookup(m.null_value_counts, id);
  auto nans = Lookup(m.nan_value_counts, id);
  const bool only_nulls = values && nulls && *values - *nulls == 0;
  const bool only_nans = values && nans && *nans == *values;
  // NaN and null counts together cover every value.
  const bool only_nulls_and_nans = values && nulls && nans && *nulls + *nans == *values;
  switch (e.op()) {
    case Operation::kIsNull:
      return !(nulls && *nulls == 0);
    case Operation::kNotNull:
      return !only_nulls;
    case Operation::kIsNan:
      if (nans && *nans == 0) return false;
      return !only_nulls;
    case Operation::kNotNan:
      if (only_nans) return false;
      return !only_nulls;
    default:
      break;
  }
  // Comparisons never match null; only != and NOT IN match NaN.
  if (only_nulls) return false;
  if (e.op() == Operation::kNotEq || e.op() == Operation::kNotIn) return true;
  if (only_nans || only_nulls_and_nans) return false;
  return RangeMayMatch(e, Bound(m.lower_bounds, e), Bound(m.upper_bounds, e));
}

// ---------------------------------------------------------------- manifest summaries

std::optional<Value> SummaryBound(const std::optional<std::string_view>& bytes,
                                  const Expression& p) {
  if (!bytes) return std::nullopt;
  auto v = DeserializeBound(*p.type(), *bytes);
  if (!v || v->is_null()) return std::nullopt;
  return *v;
}

bool SummaryMayMatch(const Expression& e, std::span<const PartitionFieldSummaryView> s) {
  auto child = [s](const Expression& c) { return SummaryMayMatch(c, s); };
  if (auto decided = EvalConnective(e, child)) return *decided;
  if (e.op() == Operation::kNot) return true;
  size_t pos = e.positions().empty() ? s.size() : static_cast<size_t>(e.positions()[0]);
  if (pos >= s.size()) return true;
  const PartitionFieldSummaryView& f = s[pos];
  const bool floating = e.type()->id() == TypeId::kFloat || e.type()->id() == TypeId::kDouble;
  // No bounds: every value is null or NaN. Only when NaN is known absent (or
  // the type has no NaN) does that mean every value is null.
  const bool no_bounds = !f.lower_bound.has_value();
  const bool all_null =
      no_bounds && f.contains_null && (!floating || (f.contains_nan && !*f.contains_nan));
  const bool all_nan =
      no_bounds && !f.contains_null && floating && f.contains_nan && *f.contains_nan;
  switch (e.op()) {
    case Operation::kIsNull:
      return f.contains_null;
    case Operation::kNotNull:
      return !all_null;
    case Operation::kIsNan:
      if (!floating) return false;
      if (f.contains_nan && !*f.contains_nan) return false;
      return !all_null;
    case Operation::kNotNan:
      return !all_nan;
    default:
      break;
  }
  if (e.op() == Operation::kNotEq || e.op() == Operation::kNotIn) return true;
  if (no_bounds) return false;  // only nulls and NaNs: no comparison matches
  return RangeMayMatch(e, SummaryBound(f.lower_bound, e), SummaryBound(f.upper_bound, e));
}

}  // namespace

Result<RowEvaluator> RowEvaluator::Make(ExprPtr bound_filter) {
  FLOE_RETURN_IF_ERROR(CheckBound(bound_filter));
  return RowEvaluator(RewriteNot(bound_filter));
}

bool RowEvaluator::Eval(types::Row row) const { return EvalRow(*expr_, row); }

Result<InclusiveMetricsEvaluator> InclusiveMetricsEvaluator::Make(ExprPtr bound_filter) {
  FLOE_RETURN_IF_ERROR(CheckBound(bound_filter));
  return InclusiveMetricsEvaluator(RewriteNot(bound_filter));
}

bool InclusiveMetricsEvaluator::Eval(const FileMetrics& metrics) const {
  if (metrics.record_count == 0) return false;
  return MetricsMayMatch(*expr_, metrics);
}

Result<ManifestEvaluator> ManifestEvaluator::Make(const ExprPtr& row_filter,
                                                  const PartitionSpec& spec,
                                                  const types::Schema& schema) {
  FLOE_ASSIGN_OR_RETURN(ExprPtr projected, ProjectInclusive(row_filter, spec, schema));
  return ManifestEvaluator(std::move(projected));
}

bool ManifestEvaluator::Eval(std::span<const PartitionFieldSummaryView> summaries) const {
  return SummaryMayMatch(*expr_, summaries);
}

}  // namespace floe::iceberg
