// What core hands a backend to run a user kernel (server/kernel/checked_kernel.h): the checked
// program, compiled once per backend by PrepareUserKernel, and one call's arguments.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "server/backend/compute.h"
#include "server/kernel/checked_kernel.h"

namespace arrayhub {

// A backend's compiled form of one CheckedKernel (host: the evaluator's program; CUDA: the
// loaded NVRTC function). Core caches it beside the CheckedKernel, keyed by its key().
class PreparedUserKernel {
 public:
  virtual ~PreparedUserKernel() = default;
};

// One argument per parameter, in CheckedKernel::parameters() order.
struct UserKernelArgument {
  enum class Kind : uint8_t {
    kArray,   // Element i of the iteration: a view broadcast to the call's shape (outputs: the
              // call's shape for elementwise, the reduced shape for reductions; never stride 0).
    kRaw,     // The whole view, indexed by the kernel: x[k] is element k of the view in C order,
              // x.size() its element count. A k outside [0, size) fails the call.
    kScalar,  // One value of the parameter's dtype.
  };
  Kind kind = Kind::kArray;
  ArrayView view{};       // kArray, kRaw (the view's dtype is the parameter's).
  ElementBytes scalar{};  // kScalar: one element of the parameter's dtype.
};

// Elementwise: the program runs once for every index of `shape` (i: the C-order flat index).
// Reduction: map_expr runs for every index of `shape`; the values combine with reduce_expr
// over `reduce_axes` (starting from the identity when there is one; in any order and grouping:
// reduce_expr is taken to be associative and commutative, as CuPy does), and post_map_expr
// writes each output element, whose shape is `shape` without `reduce_axes`. A reduction over
// zero elements with no identity is refused by core before it gets here.
// Outputs overlap no input and no other output (core copies when a client's out= would).
// Failure (a raw index out of range) returns INVALID_ARGUMENT naming the parameter, the index
// and the size; the outputs' contents are then unspecified (core gave the kernel temporaries).
struct UserKernelCall {
  std::shared_ptr<const kernel::CheckedKernel> kernel;
  std::shared_ptr<const PreparedUserKernel> prepared;
  Shape shape;
  std::vector<int64_t> reduce_axes;  // Reduction: sorted, distinct, in [0, rank).
  std::vector<UserKernelArgument> arguments;
};

// Kernels users write in ArrayHub's kernel language (docs/user-kernels.md).
class UserKernels {
 public:
  virtual ~UserKernels() = default;

  // Compiles `kernel` for this backend. Called on the RPC's thread, never a queue's, so a
  // compile never stalls queued work; core caches the result.
  virtual absl::StatusOr<std::shared_ptr<const PreparedUserKernel>> PrepareUserKernel(
      std::shared_ptr<const kernel::CheckedKernel> kernel) = 0;
  virtual absl::Status RunUserKernel(QueueBinding& queue, const UserKernelCall& call) = 0;
};

}  // namespace arrayhub
