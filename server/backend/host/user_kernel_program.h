// The host backend's compiled form of a user kernel (CpuUserKernels::PrepareUserKernel): the
// checked tree turned into lists of slot operations. A slot holds one value per lane of a
// block of indices (up to `lanes` of them), so each operation is one typed loop over a block:
// the dispatch cost is paid once per block, not per element (user_kernel_run.cc runs it).
// Control flow runs under lane masks, as a GPU runs divergent threads: if/else, && || ?: with
// raw reads in them, break, continue and return narrow the lanes an operation touches; loops
// are uniform (their trip counts are the call's, loop_bounds.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "server/backend/host/user_kernel_ops.h"
#include "server/backend/user_kernel.h"
#include "server/common/scalar.h"
#include "server/kernel/checked_kernel.h"

namespace arrayhub::host {

struct SlotOp {
  enum class Kind : uint8_t {
    kCompute,   // dst = fn(src...), every lane.
    kFill,      // dst = value, every lane.
    kIndex,     // dst = each lane's index i (int64).
    kCopy,      // dst = src[0] on the active lanes.
    kRawLoad,   // dst = param[src[0]] on the active lanes (range-checked); 0 elsewhere.
    kRawStore,  // param[src[0]] = src[1] on the active lanes (range-checked).
    kIf,        // body where src[0], other where not.
    kFor,       // loop `loop`: dst (the variable, of `dtype`) = first + n * step; body.
    kBreak,
    kContinue,
    kReturn,  // dst (the function's result) = src[0] on the active lanes, which then stop.
    kCall,    // Function `function` with `args`; dst = its result.
    kAnd,     // dst = src[0] && src[1], body (computing src[1]) only where src[0].
    kOr,      // dst = src[0] || src[1], body only where !src[0].
    kSelect,  // dst = src[0] ? src[1] : src[2]; body computes src[1], other src[2], each
              // only on its lanes.
  };
  Kind kind = Kind::kCompute;
  LaneFn fn = nullptr;
  int dst = -1;
  int src[3] = {-1, -1, -1};
  int param = -1;
  int loop = 0;
  int64_t step = 0;
  DType dtype = DType::kInt64;
  ElementBytes value{};
  int function = -1;
  std::vector<int> args;
  std::vector<SlotOp> body;
  std::vector<SlotOp> other;
};

// A slot that holds one value in every lane for the whole call, filled once before the first
// block: a literal, a scalar argument, a raw size or _ind.size().
struct ConstantSlot {
  enum class Kind : uint8_t { kValue, kScalar, kRawSize, kIndSize };
  Kind kind = Kind::kValue;
  int slot = -1;
  int param = -1;  // kScalar, kRawSize.
  ElementBytes value{};
};

struct CompiledFunction {
  std::vector<SlotOp> code;
  std::vector<int> parameters;  // Slots.
  int result = -1;              // Slot.
};

class HostUserKernel final : public PreparedUserKernel {
 public:
  std::shared_ptr<const kernel::CheckedKernel> kernel;
  std::vector<DType> slots;  // Each slot's dtype.
  std::vector<ConstantSlot> constants;
  int lanes = 256;  // Lanes per block: slots fit a bounded arena.
  std::vector<CompiledFunction> functions;
  // Per parameter: the slot of its element i (non-raw array inputs and outputs), else -1.
  std::vector<int> element_slots;
  // Per parameter: an output whose element must be read from memory first (it is read, or
  // assigned on some lanes only, before the operation assigns it everywhere).
  std::vector<bool> load_output;

  std::vector<SlotOp> operation;  // Elementwise.

  // Reduction.
  std::vector<SlotOp> map;
  int map_result = -1;
  std::vector<SlotOp> reduce;
  int reduce_a = -1;
  int reduce_b = -1;
  int reduce_result = -1;
  std::vector<SlotOp> post_map;
  int post_map_a = -1;
  std::vector<SlotOp> identity;
  int identity_result = -1;
  int work = -1;  // A slot of the reduce type for the block's partial values.
};

std::shared_ptr<const HostUserKernel> CompileUserKernel(
    std::shared_ptr<const kernel::CheckedKernel> kernel);

// Runs `call` (user_kernel.h's contract); throws Stopped when the call should stop.
absl::Status RunHostUserKernel(const UserKernelCall& call);

}  // namespace arrayhub::host
