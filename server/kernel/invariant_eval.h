// Evaluates the invariant expressions of a kernel (loop starts and bounds: literals, scalar
// parameters, raw sizes, and casts, operators, min, max and abs of those) with the language's
// semantics (program.h), once per call.
#pragma once

#include <cstdint>

#include "server/kernel/loop_bounds.h"
#include "server/kernel/program.h"

namespace arrayhub::kernel {

// A value of a real dtype: integers and bool as their bits sign-extended to 64 (unsigned ones
// zero-extended), floats as a double holding the dtype's value.
struct InvariantValue {
  DType dtype = DType::kInt64;
  uint64_t bits = 0;
  double real = 0;

  // An integer's value exactly.
  __int128 Integer() const;
};

InvariantValue EvaluateInvariant(const Expr& expr, const CallConstants& constants);

}  // namespace arrayhub::kernel
