#pragma once
/// OneOf: whether a value equals one of a few candidates, written as one
/// expression instead of a `switch` whose cases all `return true`.

#include <concepts>

namespace floe {

/// Whether `value == candidate` for at least one of `candidates` (false when
/// there are none). The comparisons run left to right and stop at the first
/// match; with constant candidates the compiler makes of them what it makes
/// of the equivalent `switch` or `||` chain, so it costs nothing on hot paths.
///
///   if (OneOf(id, TypeId::kTimestamp, TypeId::kTimestampTz)) ...
template <typename T, typename... Candidates>
requires(std::equality_comparable_with<const T&, const Candidates&>&&...) constexpr bool OneOf(
    const T& value, const Candidates&... candidates) {
  return ((value == candidates) || ...);
}

}  // namespace floe
