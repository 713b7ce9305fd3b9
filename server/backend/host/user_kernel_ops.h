// The host evaluator's typed lane loops: each applies one operation of the kernel language
// (program.h) to the first n lanes of slots, with the language's C semantics made total
// (integer division by zero gives 0, signed overflow wraps, shift counts are masked, casts
// follow host_types.h's Convert). A loop over lanes of one type vectorises; the evaluator
// dispatches once per block, never per element.
#pragma once

#include <cstddef>

#include "server/common/dtype.h"
#include "server/kernel/program.h"

namespace arrayhub::host {

// dst = op(src[0], src[1], src[2]) lane by lane, for lanes [0, n).
using LaneFn = void (*)(int n, std::byte* dst, const std::byte* const* src);

// Each returns nullptr for a combination the checker never produces.
LaneFn CastLanes(DType from, DType to);
LaneFn UnaryLanes(kernel::UnaryOp op, DType dtype);
// Operands of `operand` dtype (a shift's count too: the compiler casts it to the left's type,
// which keeps the masked count).
LaneFn BinaryLanes(kernel::BinaryOp op, DType operand);
// `argument`: the dtype of the (first) argument, as the checker converted it.
LaneFn MathLanes(kernel::MathFn fn, DType argument);
// dst = src[0] (bool) ? src[1] : src[2].
LaneFn SelectLanes(DType dtype);

}  // namespace arrayhub::host
