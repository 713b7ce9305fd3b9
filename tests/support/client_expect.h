// EXPECT_CLIENT_ERROR(statement, code, fragment): `statement` throws an
// arrayhub::client::Error with that StatusCode whose text contains `fragment`. Arrays the
// statement returns are waited for, so that the error of a pipelined op, which the client
// raises where the caller next waits, surfaces in the statement too; a pipelined call that
// returns nothing (UfuncOut, MatmulOut) needs a Synchronize() in the statement.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "arrayhub/client.h"

namespace arrayhub::testing {

inline void Settle(const client::Array& array) { (void)array.info(); }
inline void Settle(const std::vector<client::Array>& arrays) {
  for (const client::Array& array : arrays) Settle(array);
}
template <typename T>
void Settle(const T&) {}

// Runs `statement` and waits for the arrays it returns.
template <typename Statement>
void RunSettled(Statement&& statement) {
  if constexpr (std::is_void_v<decltype(statement())>) {
    statement();
  } else {
    Settle(statement());
  }
}

}  // namespace arrayhub::testing

#define EXPECT_CLIENT_ERROR(statement, expected_code, fragment)                     \
  try {                                                                             \
    ::arrayhub::testing::RunSettled([&] { return statement; });                     \
    ADD_FAILURE() << "no error from " #statement;                                   \
  } catch (const ::arrayhub::client::Error& e) {                                    \
    EXPECT_EQ(e.code(), ::arrayhub::client::StatusCode::expected_code) << e.what(); \
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what(); \
  }
