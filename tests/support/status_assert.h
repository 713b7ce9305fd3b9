// Assertions on absl::StatusOr for tests: they fail with the status's message, so that a failure
// says what went wrong and not only that something did.
#pragma once

#include <gtest/gtest.h>

#include <utility>

// Assigns the value of an absl::StatusOr to `lhs` (a declaration or an lvalue), or fails the
// test and returns (in a function returning void).
#define AH_TEST_ASSIGN(lhs, expr) \
  AH_TEST_ASSIGN_IMPL(AH_TEST_CONCAT(_ah_test_assign_, __LINE__), lhs, expr)
#define AH_TEST_ASSIGN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                        \
  ASSERT_TRUE(tmp.ok()) << tmp.status();    \
  lhs = *std::move(tmp)
#define AH_TEST_CONCAT(a, b) AH_TEST_CONCAT_IMPL(a, b)
#define AH_TEST_CONCAT_IMPL(a, b) a##b
