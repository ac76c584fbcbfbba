#pragma once
// What every fuzz target checks with: a failed check traps, so libFuzzer
// reports the input; a refused input is fine, but its message is built too.

#include "floe/common/result.h"

namespace floe::fuzz {

/// Traps unless `ok`.
inline void Check(bool ok) {
  if (!ok) __builtin_trap();
}

/// Whether a decoder accepted its input (`result` holds a value). A refusal's
/// message is built and dropped, so that the formatting of every error the
/// fuzzer reaches runs under the sanitizers too.
template <typename T>
bool Accepted(const Result<T>& result) {
  if (!result) (void)result.error().ToString();
  return result.has_value();
}

}  // namespace floe::fuzz
