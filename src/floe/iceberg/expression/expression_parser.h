#pragma once
/// A SQL-like parser for user filters (docs/iceberg-expressions.md):
///
///   id = 5 AND (ts >= '2024-01-01T00:00:00' OR name IS NULL)
///   region IN ('eu', 'us') AND NOT (x < 3)
///   "Weird Column" <> -1.5 OR `other`.nested STARTS WITH 'ab'
///
/// Keywords are case-insensitive: AND OR NOT IN IS NULL NAN TRUE FALSE
/// STARTS WITH LIKE BETWEEN. Columns are bare identifiers (dotted for nested
/// fields) or quoted with double quotes or backticks (doubled to escape).
/// Strings use single quotes ('' escapes a quote). Numbers may be negative,
/// decimal ("12.30" keeps its scale) or in exponent form (a double).
/// Comparisons: = == != <> < <= > >=, with the column on either side.
/// `x BETWEEN a AND b` is `x >= a AND x <= b`; `x LIKE 'ab%'` is STARTS WITH
/// (other LIKE patterns are refused). The result is unbound (see Bind).

#include <string_view>

#include "floe/common/result.h"
#include "floe/iceberg/expression/expression.h"

namespace floe::iceberg {

/// How deep parentheses and NOT may nest in a filter.
inline constexpr int kMaxFilterDepth = 100;
/// How many comparisons (and TRUE/FALSE terms) a filter may hold.
inline constexpr int kMaxFilterTerms = 1000;

/// Parses a filter. Errors: kInvalidArgument "at position N (near '...')"
/// (1-based) for syntax errors, unterminated strings or quoted names,
/// comparisons with null (suggesting IS NULL), and filters that nest deeper
/// than kMaxFilterDepth or hold more than kMaxFilterTerms terms (never a
/// stack overflow, whatever the input).
Result<ExprPtr> ParseFilter(std::string_view text);

}  // namespace floe::iceberg
