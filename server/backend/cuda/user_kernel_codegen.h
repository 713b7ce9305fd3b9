// CUDA source for one user kernel (server/kernel/program.h): the checked tree printed as CUDA C,
// one translation unit per CheckedKernel, compiled once by NVRTC (kernel_cache.h) whatever the
// shapes and layouts of later calls: those arrive at run time in the argument block.
//
// Every operation of the tree becomes an explicit call or cast with the host evaluator's
// semantics (docs/user-kernels.md): integer arithmetic wraps, division and remainder by zero
// give 0, float-to-integer casts give 0 for NaN and out-of-range values (NumPy's astype, as
// device_math.h's ah_cast), float16 values compute in float and round after each operation.
// Raw parameters are read and written only after a bounds check; a bad index records the first
// failure (parameter, index, size) in a device error word and skips the access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/kernel/checked_kernel.h"
#include "server/kernel/program.h"

namespace arrayhub {

inline constexpr char kUserKernelEntry[] = "ah_user_kernel";
inline constexpr int kUserKernelThreads = 256;
// The kernel parameter space every device supports (newer ones take more).
inline constexpr size_t kUserKernelArgumentBytes = 4096;

// What the generator needs of a CheckedKernel (tests build one from a hand-made Program).
struct UserKernelDefinition {
  kernel::KernelKind kind = kernel::KernelKind::kElementwise;
  std::string name;
  std::vector<kernel::Parameter> parameters;
  DType reduce_type = DType::kFloat32;
  const kernel::Program* program = nullptr;
};
UserKernelDefinition DefinitionOf(const kernel::CheckedKernel& kernel);

// The kernel's single argument, `ah_args`, as the device compiler lays it out (8-byte words,
// the scalar slots 16-byte aligned):
//   long long n;            // elementwise: indices; reduction: output elements
//   long long k;            // reduction: elements reduced into each output
//   long long ind_size;     // _ind.size(): the indices of the call's shape
//   long long rank;         // elementwise: the walk's dimensions; reduction: the outputs'
//   long long red_rank;     // reduction: the reduced walk's dimensions
//   long long group;        // reduction: threads per output, a power of two <= the block
//   long long splits;       // reduction: blocks per output (1: no partial results)
//   unsigned long long* error;  // 3 words: parameter + 1, index, size; null without raw
//   char* partials;         // reduction, splits > 1: splits partial results per output
//   unsigned int* arrivals; // reduction, splits > 1: blocks done per output, zeroed
//   char* base[parameters];       // each array or raw parameter's first element; null
//   long long raw_size[raws];     // per raw parameter: its elements,
//   long long raw_rank[raws];     //   the dimensions of its C-order walk,
//   long long raw_at[raws];       //   where in dims its extents start (its strides follow)
//   long long loop_first[loops];  // per loop of the program: its first value (as 64 bits)
//   long long loop_trips[loops];  //   and its iterations (kernel/loop_bounds.h)
//   alignas(16) unsigned char scalar[scalars][16];  // each scalar input's stored bytes
//   long long dims[capacity];     // the walks, up to the 4 KiB of kernel parameters:
// elementwise: extents[rank], then per array parameter (parameter order) its byte strides[rank];
// reduction: output extents[rank], reduced extents[red_rank], then per array parameter its
// strides over the output and over the reduced dimensions (outputs: 0 over the reduced ones),
// then the element strides of the index i (a C-order walk of the call's shape) likewise.
// Each count above is at least 1 (an unused slot), so that no array is empty.
struct UserKernelLayout {
  size_t base = 0, raw_size = 0, raw_rank = 0, raw_at = 0, loop_first = 0, loop_trips = 0,
         scalar = 0, dims = 0, size = 0;
  int64_t capacity = 0;  // Words of dims.
};
// INVALID_ARGUMENT when the parameters leave no room for the walks of even a one-dimensional
// call.
absl::StatusOr<UserKernelLayout> LayoutOf(const UserKernelDefinition& definition);

// The complete source (device_math.h's prelude, the user kernel support, the kernel
// kUserKernelEntry), or LayoutOf's error.
absl::StatusOr<std::string> UserKernelSource(const UserKernelDefinition& definition);

}  // namespace arrayhub
