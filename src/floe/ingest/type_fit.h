#pragma once
/// How a source column's type fits an Iceberg column's type: the one rule
/// that both schema evolution (TableResolver, lenient) and schema mirroring
/// (PlanSchemaMirror, evolve) follow. Field ids are ignored (source schemas
/// number their fields on their own).

#include "floe/types/type.h"

namespace floe::ingest {

enum class TypeFit {
  kSame,          ///< equal types
  kNarrower,      ///< the source is narrower: its values widen into the column
                  ///< (int into long, float into double, a decimal of lower precision)
  kWider,         ///< the column can be widened to the source's type
  kIncompatible,  ///< no Iceberg type promotion joins them
};

/// Equal types, ignoring field ids.
bool SameType(const types::Type& a, const types::Type& b);

/// How a source column of type `source` fits a table column of type `table`.
TypeFit FitOf(const types::Type& table, const types::Type& source);

}  // namespace floe::ingest
