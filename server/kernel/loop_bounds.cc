#include "server/kernel/loop_bounds.h"

#include <algorithm>
#include <limits>

#include "server/kernel/invariant_eval.h"

namespace arrayhub::kernel {
namespace {

struct Range {
  __int128 lo;
  __int128 hi;
};

Range RangeOf(DType dtype) {
  const int bits = static_cast<int>(ItemSize(dtype)) * 8;
  if (dtype == DType::kBool) return {0, 1};
  if (KindOf(dtype) == DTypeKind::kUnsigned) return {0, (__int128{1} << bits) - 1};
  return {-(__int128{1} << (bits - 1)), (__int128{1} << (bits - 1)) - 1};
}

// Values init, init + step, ... up to and including `last` (step > 0, or down to it, step <
// 0): how many there are.
__int128 CountTo(__int128 init, __int128 last, int64_t step) {
  if (step > 0) return last < init ? 0 : (last - init) / step + 1;
  return last > init ? 0 : (init - last) / -__int128{step} + 1;
}

void Plan(const Stmt& stmt, const CallConstants& constants, std::vector<LoopPlan>& plans) {
  if (stmt.kind == Stmt::Kind::kFor) {
    const InvariantValue init = EvaluateInvariant(stmt.operands[0], constants);
    const InvariantValue bound = EvaluateInvariant(stmt.operands[1], constants);
    LoopPlan& plan = plans[stmt.loop];
    plan.first = static_cast<int64_t>(init.bits);
    plan.trips = TripCount(init.dtype, init.Integer(), bound.Integer(), stmt.compare, stmt.step);
  }
  for (const Stmt& child : stmt.body) Plan(child, constants, plans);
}

}  // namespace

std::vector<LoopPlan> PlanLoops(const Program& program, const CallConstants& constants) {
  std::vector<LoopPlan> plans(program.loop_count);
  for (const Function& function : program.functions) Plan(function.body, constants, plans);
  Plan(program.operation.block, constants, plans);
  Plan(program.post_map.block, constants, plans);
  return plans;
}

int64_t TripCount(DType variable, __int128 init, __int128 bound, Stmt::Compare compare,
                  int64_t step) {
  const Range range = RangeOf(variable);
  if (step == 0 || init < range.lo || init > range.hi) return 0;
  // The last value the loop may take in its direction: where the comparison stops holding, or
  // the end of the dtype's range.
  const __int128 end = step > 0 ? range.hi : range.lo;
  __int128 count = 0;
  switch (compare) {
    case Stmt::Compare::kLess:
      if (init >= bound) return 0;
      count = CountTo(init, step > 0 ? std::min(bound - 1, end) : end, step);
      break;
    case Stmt::Compare::kLessEqual:
      if (init > bound) return 0;
      count = CountTo(init, step > 0 ? std::min(bound, end) : end, step);
      break;
    case Stmt::Compare::kGreater:
      if (init <= bound) return 0;
      count = CountTo(init, step < 0 ? std::max(bound + 1, end) : end, step);
      break;
    case Stmt::Compare::kGreaterEqual:
      if (init < bound) return 0;
      count = CountTo(init, step < 0 ? std::max(bound, end) : end, step);
      break;
    case Stmt::Compare::kNotEqual: {
      const __int128 distance = bound - init;
      if (distance == 0) return 0;
      const bool reaches = (distance > 0) == (step > 0) && distance % step == 0;
      count = CountTo(init, end, step);                       // Until it leaves the range ...
      if (reaches) count = std::min(count, distance / step);  // ... or meets the bound.
      break;
    }
  }
  return static_cast<int64_t>(std::min<__int128>(count, std::numeric_limits<int64_t>::max()));
}

}  // namespace arrayhub::kernel
