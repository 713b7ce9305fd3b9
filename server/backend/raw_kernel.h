// What core hands a backend to run a raw CUDA kernel (RunRawKernel, --allow-raw-kernels only):
// the client's source, compiled once by PrepareRawKernel, and one launch's configuration and
// arguments. Core has checked the options against its allowlist, the dimensions against CUDA's
// fixed bounds and the caller's write rights on every array.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/backend/compute.h"

namespace arrayhub {

struct RawKernelSource {
  std::string code;
  std::string name;  // The entry's extern "C" name.
  std::vector<std::string> options;
};

// A backend's loaded form of one RawKernelSource (CUDA: the kernel of the loaded library).
class PreparedRawKernel {
 public:
  virtual ~PreparedRawKernel() = default;
};

struct RawKernelArgument {
  bool array = false;
  ArrayView view{};       // array: passed as a pointer to the view's first element.
  ElementBytes scalar{};  // !array: passed by value, scalar_size bytes of it.
  int64_t scalar_size = 0;
};

// One launch: grid and block with unused dimensions 1, dynamic shared memory in bytes. The
// kernel may write every array it is given; their buffers live until the launch is done.
struct RawKernelCall {
  std::shared_ptr<const PreparedRawKernel> prepared;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t shared_mem = 0;
  std::vector<RawKernelArgument> arguments;
};

// CUDA C++ kernels as clients send them (cupy.RawKernel), compiled on the RPC's thread like
// user kernels. Backends without CUDA answer FAILED_PRECONDITION (RawKernelsNeedCuda).
class RawKernels {
 public:
  virtual ~RawKernels() = default;

  virtual absl::StatusOr<std::shared_ptr<const PreparedRawKernel>> PrepareRawKernel(
      const RawKernelSource& source) = 0;
  virtual absl::Status RunRawKernel(QueueBinding& queue, const RawKernelCall& call) = 0;
};

}  // namespace arrayhub
