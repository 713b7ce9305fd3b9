// Early-return helpers for absl::Status / absl::StatusOr, the error type of every layer below
// transport (transport maps them to grpc::Status).
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define AH_CONCAT_INNER(a, b) a##b
#define AH_CONCAT(a, b) AH_CONCAT_INNER(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define AH_RETURN_IF_ERROR(expr)                                \
  do {                                                          \
    if (::absl::Status _ah_status = (expr); !_ah_status.ok()) { \
      return _ah_status;                                        \
    }                                                           \
  } while (0)

// `AH_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from an absl::StatusOr or returns its error.
#define AH_ASSIGN_OR_RETURN(lhs, expr) \
  AH_ASSIGN_OR_RETURN_IMPL(AH_CONCAT(_ah_statusor_, __LINE__), lhs, expr)
#define AH_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
