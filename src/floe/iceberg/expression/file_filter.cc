#include "floe/iceberg/expression/file_filter.h"

#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "floe/iceberg/expression/connectives.h"
#include "floe/iceberg/expression/literal.h"
#include "floe/iceberg/expression/projection.h"
#include "floe/iceberg/single_value.h"

namespace floe::iceberg {

namespace {

struct ColumnFacts {
  std::optional<int64_t> nulls;
  std::optional<int64_t> nans;
  std::optional<Literal> lower, upper;
};

bool IsFloating(const types::Type& t) {
  return t.id() == types::TypeId::kFloat || t.id() == types::TypeId::kDouble;
}

/// What the file's metadata says about column `field_id`.
ColumnFacts Facts(const Expression& pred, const DataFile& file, const PartitionSpec* spec) {
  ColumnFacts f;
  const int32_t id = pred.field_id();
  if (spec != nullptr) {
    const auto& fields = spec->fields();
    for (size_t i = 0; i < fields.size() && i < file.partition.size(); ++i) {
      if (fields[i].source_id != id || !fields[i].transform.is_identity()) continue;
      const Literal& v = file.partition[i];
      if (v.is_null()) {
        f.nulls = file.record_count;
        return f;
      }
      auto converted = v.To(pred.type());
      if (!converted) break;
      f.nulls = 0;
      f.nans = IsNaN(converted->value()) ? file.record_count : 0;
      f.lower = *converted;
      f.upper = *converted;
      return f;
    }
  }
  if (auto it = file.null_value_counts.find(id); it != file.null_value_counts.end()) {
    f.nulls = it->second;
  }
  if (IsFloating(*pred.type())) {
    if (auto it = file.nan_value_counts.find(id); it != file.nan_value_counts.end()) {
      f.nans = it->second;
    }
  } else {
    f.nans = 0;
  }
  if (auto it = file.lower_bounds.find(id); it != file.lower_bounds.end()) {
    if (auto v = DeserializeBoundLiteral(pred.type(), it->second)) f.lower = std::move(*v);
  }
  if (auto it = file.upper_bounds.find(id); it != file.upper_bounds.end()) {
    if (auto v = DeserializeBoundLiteral(pred.type(), it->second)) f.upper = std::move(*v);
  }
  return f;
}

int Compare(const Expression& pred, const Literal& a, const Literal& b) {
  return CompareValues(*pred.type(), a.value(), b.value());
}

/// True only when every row of the file satisfies `e`.
bool StrictEval(const Expression& e, const DataFile& file, const PartitionSpec* spec) {
  auto child = [&file, spec](const Expression& c) { return StrictEval(c, file, spec); };
  if (auto decided = EvalConnective(e, child)) return *decided;
  if (e.op() == Operation::kNot) return false;
  ColumnFacts f = Facts(e, file, spec);
  if (e.op() == Operation::kIsNull) return f.nulls && *f.nulls == file.record_count;
  if (e.op() == Operation::kNotNull) return f.nulls && *f.nulls == 0;
  // Every other predicate needs a value in every row.
  if (!f.nulls || *f.nulls != 0 || !f.nans || *f.nans != 0) return false;
  if (!f.lower || !f.upper || f.lower->is_null() || f.upper->is_null()) return false;
  const auto& lits = e.literals();
  switch (e.op()) {
    case Operation::kLt:
      return Compare(e, *f.upper, lits[0]) < 0;
    case Operation::kLtEq:
      return Compare(e, *f.upper, lits[0]) <= 0;
    case Operation::kGt:
      return Compare(e, *f.lower, lits[0]) > 0;
    case Operation::kGtEq:
      return Compare(e, *f.lower, lits[0]) >= 0;
    case Operation::kEq:
      return Compare(e, *f.lower, lits[0]) == 0 && Compare(e, *f.upper, lits[0]) == 0;
    case Operation::kNotEq:
      return Compare(e, lits[0], *f.lower) < 0 || Compare(e, lits[0], *f.upper) > 0;
    case Operation::kIn:
      if (Compare(e, *f.lower, *f.upper) != 0) return false;
      for (const auto& l : lits) {
        if (Compare(e, *f.lower, l) == 0) return true;
      }
      return false;
    case Operation::kNotIn:
      for (const auto& l : lits) {
        if (!(Compare(e, l, *f.lower) < 0 || Compare(e, l, *f.upper) > 0)) return false;
      }
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<FileFilter> FileFilter::Make(const ExprPtr& filter, const TableMetadata& metadata) {
  const types::Schema* schema = metadata.CurrentSchema();
  if (schema == nullptr) return InvalidArgument("table has no current schema");
  ExprPtr bound = filter;
  if (!filter->is_bound() && filter->op() != Operation::kTrue &&
      filter->op() != Operation::kFalse) {
    FLOE_ASSIGN_OR_RETURN(bound, Bind(filter, *schema, /*case_sensitive=*/false));
  }
  FLOE_ASSIGN_OR_RETURN(auto metrics, InclusiveMetricsEvaluator::Make(bound));
  return FileFilter(std::move(bound), &metadata, std::move(metrics));
}

namespace {

// The evaluator in `cache` for partition spec `spec_id`, made by `make(spec)`
// on first use. kCorruption when the table has no such spec (`user`, the
// manifest or file that names it).
template <typename Evaluator, typename Make>
Result<const Evaluator*> EvaluatorForSpec(std::map<int32_t, std::unique_ptr<Evaluator>>& cache,
                                          const TableMetadata& metadata, int32_t spec_id,
                                          std::string_view user, Make make) {
  auto it = cache.find(spec_id);
  if (it != cache.end()) return it->second.get();
  const PartitionSpec* spec = metadata.SpecById(spec_id);
  if (spec == nullptr) {
    return Corruption("{} uses partition spec {}, which the table lacks", user, spec_id);
  }
  FLOE_ASSIGN_OR_RETURN(Evaluator ev, make(*spec));
  auto* p = new Evaluator(std::move(ev));
  cache[spec_id].reset(p);
  return p;
}

}  // namespace

Result<const ManifestEvaluator*> FileFilter::ManifestEvaluatorFor(int32_t spec_id) {
  return EvaluatorForSpec(
      manifest_evaluators_, *metadata_, spec_id, "manifest", [&](const PartitionSpec& spec) {
        return ManifestEvaluator::Make(bound_, spec, *metadata_->CurrentSchema());
      });
}

Result<const RowEvaluator*> FileFilter::PartitionEvaluatorFor(int32_t spec_id) {
  return EvaluatorForSpec(partition_evaluators_, *metadata_, spec_id, "file",
                          [&](const PartitionSpec& spec) -> Result<RowEvaluator> {
                            FLOE_ASSIGN_OR_RETURN(
                                ExprPtr projected,
                                ProjectInclusive(bound_, spec, *metadata_->CurrentSchema()));
                            return RowEvaluator::Make(projected);
                          });
}

Result<bool> FileFilter::ManifestMayMatch(const ManifestFile& manifest) {
  if (bound_->op() == Operation::kTrue) return true;
  FLOE_ASSIGN_OR_RETURN(const ManifestEvaluator* ev,
                        ManifestEvaluatorFor(manifest.partition_spec_id));
  std::vector<PartitionFieldSummaryView> views;
  views.reserve(manifest.partitions.size());
  for (const auto& s : manifest.partitions) {
    PartitionFieldSummaryView v;
    v.contains_null = s.contains_null;
    v.contains_nan = s.contains_nan;
    if (s.lower_bound) v.lower_bound = std::string_view(*s.lower_bound);
    if (s.upper_bound) v.upper_bound = std::string_view(*s.upper_bound);
    views.push_back(v);
  }
  return ev->Eval(views);
}

FileMetrics MetricsOf(const DataFile& file) {
  FileMetrics m;
  m.record_count = file.record_count;
  m.value_counts = &file.value_counts;
  m.null_value_counts = &file.null_value_counts;
  m.nan_value_counts = &file.nan_value_counts;
  m.lower_bounds = &file.lower_bounds;
  m.upper_bounds = &file.upper_bounds;
  return m;
}

Result<FileMatch> FileFilter::Match(const DataFile& file, int32_t spec_id) {
  if (bound_->op() == Operation::kTrue) return FileMatch::kAll;
  if (bound_->op() == Operation::kFalse) return FileMatch::kNone;
  const PartitionSpec* spec = metadata_->SpecById(spec_id);
  FLOE_ASSIGN_OR_RETURN(const RowEvaluator* partition_ev, PartitionEvaluatorFor(spec_id));
  std::vector<types::Value> tuple;
  tuple.reserve(file.partition.size());
  for (const auto& l : file.partition) tuple.push_back(l.value());
  if (!partition_ev->Eval(tuple)) return FileMatch::kNone;
  if (!metrics_.Eval(MetricsOf(file))) return FileMatch::kNone;
  if (file.record_count == 0) return FileMatch::kAll;
  return StrictEval(*bound_, file, spec) ? FileMatch::kAll : FileMatch::kSome;
}

void WholeFileSelection::Or(ExprPtr filter) {
  filter_ = filter_ ? Expression::Or(filter_, std::move(filter)) : std::move(filter);
}

Status WholeFileSelection::Bind(const TableMetadata& base) {
  bound_.reset();
  if (!filter_) return Ok();
  FLOE_ASSIGN_OR_RETURN(FileFilter bound, FileFilter::Make(filter_, base));
  bound_.emplace(std::move(bound));
  return Ok();
}

Result<bool> WholeFileSelection::ManifestMaySelect(const ManifestFile& manifest) {
  if (!bound_ || manifest.content != ManifestContent::kData) return false;
  return bound_->ManifestMayMatch(manifest);
}

Result<bool> WholeFileSelection::Selects(const DataFile& file, int32_t spec_id,
                                         std::string_view verb, std::string_view remedy) {
  if (!bound_ || file.is_delete()) return false;
  FLOE_ASSIGN_OR_RETURN(FileMatch match, bound_->Match(file, spec_id));
  if (match == FileMatch::kSome) {
    return InvalidArgument(
        "cannot {} by filter {}: data file {} holds rows that may not match it{}", verb,
        bound_->bound_filter()->ToString(), file.file_path, remedy);
  }
  return match == FileMatch::kAll;
}

}  // namespace floe::iceberg
