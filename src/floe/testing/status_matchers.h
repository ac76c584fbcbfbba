#pragma once
/// Assertions on Status and Result<T> for gtest, printing the error (code,
/// message and context) when one fails:
///
///   FLOE_ASSERT_OK(file_io.Delete(path));            // fatal
///   FLOE_EXPECT_OK(table.Refresh());                 // non-fatal
///   FLOE_ASSERT_OK_AND_ASSIGN(auto file, io.OpenInput(path));
///   auto rows = ValueOrDie(ReadRows(path));          // outside a TEST body
///
/// `expr` is evaluated once. FLOE_ASSERT_OK_AND_ASSIGN declares or assigns
/// `lhs` in the enclosing scope, so it cannot be the body of an `if` without
/// braces.

#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

#include "floe/common/result.h"

#define FLOE_ASSERT_OK(expr)                                                           \
  do {                                                                                 \
    auto&& floe_ok_ = (expr);                                                          \
    ASSERT_TRUE(floe_ok_.has_value()) << #expr << ": " << floe_ok_.error().ToString(); \
  } while (false)

#define FLOE_EXPECT_OK(expr)                                                           \
  do {                                                                                 \
    auto&& floe_ok_ = (expr);                                                          \
    EXPECT_TRUE(floe_ok_.has_value()) << #expr << ": " << floe_ok_.error().ToString(); \
  } while (false)

#define FLOE_TESTING_CONCAT_INNER_(a, b) a##b
#define FLOE_TESTING_CONCAT_(a, b) FLOE_TESTING_CONCAT_INNER_(a, b)
#define FLOE_ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr)                    \
  auto tmp = (expr);                                                       \
  ASSERT_TRUE(tmp.has_value()) << #expr << ": " << tmp.error().ToString(); \
  lhs = std::move(*tmp)
#define FLOE_ASSERT_OK_AND_ASSIGN(lhs, expr) \
  FLOE_ASSERT_OK_AND_ASSIGN_IMPL_(FLOE_TESTING_CONCAT_(floe_result_, __LINE__), lhs, expr)

namespace floe::testing {

/// The value of `result`; a failed result ends the test program with its
/// error (for helpers that return values, where ASSERT_* cannot be used).
template <typename T>
T ValueOrDie(Result<T> result) {
  if (!result) {
    ADD_FAILURE() << "ValueOrDie: " << result.error().ToString();
    std::abort();
  }
  return std::move(*result);
}

}  // namespace floe::testing
