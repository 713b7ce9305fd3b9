// The trip count of a canonical for loop (program.h, Stmt::kFor): exact integer arithmetic, so
// that no loop wraps around its variable's range and none runs forever. Both backends run a
// loop for exactly this many iterations, the n-th (from 0) with v = init + n * step.
#pragma once

#include <cstdint>

#include "server/common/dtype.h"
#include "server/kernel/program.h"

namespace arrayhub::kernel {

// The iterations of `for (v = init; v compare bound; v += step)` with v of integer dtype
// `variable`: v takes init, init + step, ... while the comparison holds (in mathematical
// integers) and v stays inside the dtype's range. `init` is a value of `variable`; `bound` any
// integer. Saturates at INT64_MAX.
int64_t TripCount(DType variable, __int128 init, __int128 bound, Stmt::Compare compare,
                  int64_t step);

}  // namespace arrayhub::kernel
