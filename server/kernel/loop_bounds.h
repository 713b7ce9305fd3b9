// The trip count of a canonical for loop (program.h, Stmt::kFor): exact integer arithmetic, so
// that no loop wraps around its variable's range and none runs forever. Both backends run a
// loop for exactly this many iterations, the n-th (from 0) with v = init + n * step.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "server/common/dtype.h"
#include "server/common/scalar.h"
#include "server/kernel/checked_kernel.h"
#include "server/kernel/program.h"

namespace arrayhub::kernel {

// The iterations of `for (v = init; v compare bound; v += step)` with v of integer dtype
// `variable`: v takes init, init + step, ... while the comparison holds (in mathematical
// integers) and v stays inside the dtype's range. `init` is a value of `variable`; `bound` any
// integer. Saturates at INT64_MAX.
int64_t TripCount(DType variable, __int128 init, __int128 bound, Stmt::Compare compare,
                  int64_t step);

// One loop of one call: v takes first + n * step (n in [0, trips)), which is always a value of
// v's dtype.
struct LoopPlan {
  int64_t first = 0;  // The start, sign-extended (uint64 starts: their bits).
  int64_t trips = 0;
};

// The values a call gives the invariant expressions (loop starts and bounds): per parameter
// (CheckedKernel::parameters() order), a scalar input's element (of its dtype) and a raw
// parameter's element count; other entries are ignored.
struct CallConstants {
  std::vector<ElementBytes> scalars;
  std::vector<int64_t> sizes;
};

// Every loop's plan, indexed by Stmt::loop. Both backends run loops by it.
std::vector<LoopPlan> PlanLoops(const Program& program, const CallConstants& constants);

}  // namespace arrayhub::kernel
