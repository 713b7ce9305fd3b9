// User kernels (RunKernel): the request after decoding, and CuPy's rules for the shapes of one
// call (ElementwiseKernel's broadcasting and size=, ReductionKernel's axis and keepdims).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "server/common/dtype.h"
#include "server/common/scalar.h"
#include "server/common/shape.h"
#include "server/kernel/checked_kernel.h"

namespace arrayhub {

// One in_params argument: an array handle, or a scalar with its dtype (a NumPy scalar's;
// absent: the Python scalar's default dtype).
struct KernelArgumentSpec {
  std::optional<std::string> handle;
  std::optional<Scalar> scalar;
  std::optional<DType> scalar_dtype;
};

struct RunKernelSpec {
  kernel::KernelSource source;
  std::vector<KernelArgumentSpec> arguments;
  // One per out_params entry (a handle to write, empty for a new array), or none: all new.
  std::vector<std::string> outputs;
  std::optional<int64_t> size;               // Elementwise: CuPy's size=.
  std::optional<std::vector<int64_t>> axes;  // Reduction: absent reduces every axis.
  bool keepdims = false;
};

// What the shapes of one call's arguments are, for the rules below: per in_params entry the
// shape of an array argument that is not raw (nullopt for scalars and raw arrays), per
// out_params entry the shape of the out= array given for a parameter that is not raw.
struct KernelShapes {
  std::vector<std::optional<Shape>> inputs;
  std::vector<std::optional<Shape>> outputs;
};

struct KernelIteration {
  Shape shape;                       // The indices the kernel iterates (i, _ind.size()).
  std::vector<int64_t> reduce_axes;  // Reduction: sorted, distinct.
  Shape output_shape;                // Each new output's shape (keepdims applied).
  Shape written_shape;               // The shape the backend writes: without the reduced axes.
};

// CuPy's rules. Elementwise: the non-raw array arguments broadcast (NumPy's rules and message);
// size= only when no such argument exists ("Specified 'size' can be used only if all of the
// ndarray are 'raw'.") and then the shape is (size,); with neither, an out= array decides it,
// else "Loop size is undecided."; an out= array must have the shape ("Out shape is mismatched:
// (2, 3) while (3,) is expected."); a raw output with no out= (true in raw_outputs) needs
// size= ("Output array size is Undecided"). Reduction: the arguments broadcast as above
// (scalars alone reduce a 0-d shape); `axes` as numpy.sum takes them; a zero-size reduction
// without an identity is "zero-size array to reduction operation NAME which has no identity";
// out= must have the result's shape. Shapes past the server's limits are refused (CheckShape).
absl::StatusOr<KernelIteration> ResolveKernelIteration(
    const kernel::KernelSource& source, const KernelShapes& shapes,
    const std::vector<bool>& raw_outputs, std::optional<int64_t> size,
    const std::optional<std::vector<int64_t>>& axes, bool keepdims);

// The cache key of a source and the types bound to it: every field, length-prefixed, so that
// no two different sources or bindings share one.
std::string KernelCacheKey(const kernel::KernelSource& source, const kernel::ArgumentTypes& types);

}  // namespace arrayhub
