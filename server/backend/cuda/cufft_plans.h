// cuFFT plans for the CUDA backend's transforms, kept as CuPy's plan cache keeps them: per
// layout, type and device, the least recently used dropped past kMaxCufftPlans. A call takes
// its plan out of the cache and puts it back when it has enqueued its work, so no two threads
// ever set one plan's stream or work area at once (another call wanting the same layout
// meanwhile makes a plan of its own). Plans allocate no work area: each execution gets one
// from the call's stream (cufftSetAutoAllocation off), freed in stream order.
#pragma once

#include <cufft.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace arrayhub {

// OK for CUFFT_SUCCESS; RESOURCE_EXHAUSTED when cuFFT could not allocate, INTERNAL otherwise.
absl::Status CufftStatus(cufftResult result, std::string_view what);

// cufftMakePlanMany64's advanced layout of a rank-1 transform, or with `leading` lengths the
// basic (C-contiguous) layout of a multi-dimensional one, whose strides and distances are
// implied (left 1 and 0 here).
struct CufftKey {
  int device = 0;
  cufftType type = CUFFT_C2C;
  std::vector<int64_t> leading = {};
  int64_t n = 1;
  int64_t batch = 1;
  int64_t istride = 1;
  int64_t idist = 1;
  int64_t ostride = 1;
  int64_t odist = 1;
  bool operator==(const CufftKey&) const = default;
};

inline constexpr int kMaxCufftPlans = 16;  // CuPy's default plan cache size.

// A plan taken from the cache (or made); back into it on destruction.
class CufftPlan {
 public:
  // The cached plan for `key` on the current device, or a new one.
  static absl::StatusOr<CufftPlan> For(const CufftKey& key);
  CufftPlan(CufftPlan&& other) noexcept;
  CufftPlan& operator=(CufftPlan&&) = delete;
  ~CufftPlan();

  cufftHandle handle() const { return handle_; }
  size_t work_bytes() const { return work_bytes_; }

 private:
  CufftPlan(const CufftKey& key, cufftHandle handle, size_t work_bytes)
      : key_(key), handle_(handle), work_bytes_(work_bytes) {}

  CufftKey key_;
  cufftHandle handle_ = 0;
  size_t work_bytes_ = 0;
  bool owned_ = true;
};

// Plans idle in the cache now (for tests of its bound).
int CachedCufftPlans();

}  // namespace arrayhub
