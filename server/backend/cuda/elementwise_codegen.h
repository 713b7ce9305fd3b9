// CUDA source for one elementwise kernel, specialised for what a call needs: its steps (each
// an op with its loop and result dtypes, reading inputs and earlier steps), the inputs' stored
// dtypes, the outputs' dtypes and the memory layout. A single elementwise op is a program of
// one step; a Batch's chain of ops is one program whose intermediate values stay in registers.
// Calls with equal signatures share one compiled kernel (see kernel_cache.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "server/common/dtype.h"
#include "server/common/ops.h"

namespace arrayhub {

// The C++ type an element of `dtype` is stored as in device memory (device_math.h's names),
// and the type its value is computed in: float for float16 (rounded back when stored), bool
// for bool. Shared with the user-kernel printer (user_kernel_codegen.cc).
std::string_view StorageType(DType dtype);
std::string_view WorkingType(DType dtype);

inline constexpr int kElementwiseThreads = 256;
inline constexpr char kElementwiseEntry[] = "ah_elementwise";

struct ElementwiseSignature {
  struct Input {
    DType dtype = DType::kFloat32;  // As stored.
    bool scalar = false;            // Passed by value in the arguments, not read from memory.
  };
  struct Step {
    ElementwiseOp op = ElementwiseOp::kCopy;
    DType compute = DType::kFloat32;
    DType result = DType::kFloat32;
    std::vector<int> operands;  // Value numbers, as FusedElementwiseCall::Step::operands.
  };
  struct Output {
    int step = 0;
    DType dtype = DType::kFloat32;  // As stored.
  };
  // A step's value folded over every element (FusedElementwiseCall::Reduction): each thread
  // folds its elements, each block its threads, and the last block to finish folds the
  // blocks' results in block order (deterministic for a given grid) and stores the one result.
  struct Reduction {
    ReduceOp op = ReduceOp::kSum;  // FusableReduction's ops.
    int step = 0;
    DType accumulate = DType::kFloat64;
    DType output = DType::kFloat64;  // As stored.
  };
  std::vector<Input> inputs;
  std::vector<Step> steps;
  std::vector<Output> outputs;
  std::optional<Reduction> reduction{};
  // 0: every array (the outputs too) is dense and in the same order, so element i is at index
  // i of each. Otherwise the arrays are strided with this many (coalesced) dimensions.
  int rank = 0;
  // rank 0: elements per thread per step, read and written as one aligned vector (1 = none).
  int vector_width = 1;
  // rank > 0: element indices fit 32 bits, which makes the index arithmetic cheaper.
  bool index32 = false;

  int array_inputs() const;
  int scalar_inputs() const;
};

// A string that identifies the kernel: equal keys, equal sources.
std::string KernelKey(const ElementwiseSignature& signature);

// The complete CUDA source (device_math.h's prelude plus the kernel `kElementwiseEntry`).
std::string KernelSource(const ElementwiseSignature& signature);

// The kernel's single argument, `ah_args`, as the device compiler lays it out:
//   long long n;                                   // elements
//   char* out[max(outputs, 1)];                    // each output's first element
//   const char* in[max(array inputs, 1)];          // each array input's, in input order
//   alignas(16) unsigned char scalar[max(scalar inputs, 1)][16];  // stored bytes, in order
//   long long shape[rank];                         // rank > 0 only
//   long long stride[outputs + array inputs][rank];  // bytes; outputs' rows first
//   void* reduced;        // with a reduction only: where its result goes,
//   unsigned* arrivals;   // the counter the blocks count themselves in (zero before and after),
//   void* partials;       // and one accumulator per block (kReducePartialBytes at most)
// padded to 16 bytes.
struct ElementwiseArgsLayout {
  size_t out = 0, in = 0, scalar = 0, shape = 0, stride = 0, reduction = 0, size = 0;  // Bytes.
};
ElementwiseArgsLayout ArgsLayoutOf(const ElementwiseSignature& signature);

}  // namespace arrayhub
