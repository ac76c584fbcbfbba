#pragma once
/// Inclusive projection of a row filter through a partition spec (spec "Scan
/// Planning"; the rules of Iceberg Java's ProjectionUtil): a filter on
/// partition values that is true for every partition that may hold a row
/// matching the row filter.
///
///   identity            every predicate, unchanged
///   bucket[N]           = and IN (on the bucket of the literal); nothing else
///   truncate[W] number  < v -> <= t(v-1); <= v -> <= t(v); > v -> >= t(v+1);
///                       >= v -> >= t(v); = and IN on t(v)
///   truncate[W] string  < and <= v -> <= t(v); > and >= v -> >= t(v);
///                       = and IN; STARTS WITH p -> = t(p) if p has >= W code
///                       points, else STARTS WITH p; NOT STARTS WITH p -> !=
///                       t(p) if p has exactly W code points, else STARTS WITH p
///                       when shorter
///   year/month/day/hour as truncate of numbers, in the source unit (one day
///                       for dates, one microsecond for timestamps)
///   void, unknown       nothing
/// IS NULL / NOT NULL project to every non-void transform. A predicate that
/// projects to nothing becomes true (the partition may match).

#include "floe/common/result.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// Projects `row_filter` (bound to `schema`, or unbound: it is then bound
/// case-insensitively) through `spec`. The result is bound to
/// `spec.PartitionType(schema)`: field ids are partition field ids and
/// positions index the partition tuple. Errors: binding errors, and
/// kInvalidArgument when the spec does not fit the schema.
Result<ExprPtr> ProjectInclusive(const ExprPtr& row_filter, const PartitionSpec& spec,
                                 const types::Schema& schema);

}  // namespace floe::iceberg
