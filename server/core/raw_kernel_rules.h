// RunRawKernel's request, as core sees it, and the checks that need no array: the NVRTC
// options' allowlist and the launch dimensions' bounds.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/backend/raw_kernel.h"
#include "server/common/dtype.h"
#include "server/common/scalar.h"

namespace arrayhub {

struct RawKernelArgumentSpec {
  std::optional<std::string> handle;  // An array, passed as a pointer.
  std::optional<Scalar> scalar;       // Else a scalar of scalar_dtype.
  DType scalar_dtype = DType::kFloat64;
};

struct RunRawKernelSpec {
  RawKernelSource source;
  std::vector<int64_t> grid;
  std::vector<int64_t> block;
  int64_t shared_mem = 0;
  std::vector<RawKernelArgumentSpec> arguments;
};

// INVALID_ARGUMENT naming the option unless it is on the allowlist: macros (-D, -U), the
// language standard, math and code-generation switches. Nothing that reads files (include
// paths, pre-includes) or picks the target (the backend does).
absl::Status CheckRawKernelOption(const std::string& option);

// INVALID_ARGUMENT unless `dims` (grid or block, named by `field`) has 1 to 3 entries, each
// from 1 to CUDA's fixed bound for that axis; `out` gets them with unused axes 1. The device's
// own limits are the backend's to check.
absl::Status RawLaunchDims(const std::vector<int64_t>& dims, const char* field, bool block,
                           std::array<uint32_t, 3>& out);

}  // namespace arrayhub
