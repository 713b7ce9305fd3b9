#include "server/backend/cuda/cufft_plans.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <list>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace arrayhub {
namespace {

struct Idle {
  CufftKey key;
  cufftHandle handle;
  size_t work_bytes;
};

std::mutex& CacheMutex() {
  static std::mutex mutex;
  return mutex;
}

// Most recently returned first. Guarded by CacheMutex().
std::list<Idle>& Cache() {
  static std::list<Idle> cache;
  return cache;
}

}  // namespace

absl::Status CufftStatus(cufftResult result, std::string_view what) {
  if (result == CUFFT_SUCCESS) return absl::OkStatus();
  const std::string message = fmt::format("{}: cufftResult {}", what, static_cast<int>(result));
  if (result == CUFFT_ALLOC_FAILED) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

absl::StatusOr<CufftPlan> CufftPlan::For(const CufftKey& key) {
  {
    const std::lock_guard lock(CacheMutex());
    std::list<Idle>& cache = Cache();
    auto found =
        std::find_if(cache.begin(), cache.end(), [&](const Idle& idle) { return idle.key == key; });
    if (found != cache.end()) {
      CufftPlan plan(key, found->handle, found->work_bytes);
      cache.erase(found);
      return plan;
    }
  }
  cufftHandle handle = 0;
  if (const cufftResult result = cufftCreate(&handle); result != CUFFT_SUCCESS) {
    return CufftStatus(result, "cufftCreate");
  }
  std::vector<long long> n(key.leading.begin(), key.leading.end());
  n.push_back(key.n);
  const bool basic = !key.leading.empty();
  // Ignored for rank 1, but must not be null for the strides to apply; null (the basic
  // layout) for more.
  long long inembed = key.n;
  long long onembed = key.n;
  size_t work_bytes = 0;
  cufftResult result = cufftSetAutoAllocation(handle, 0);
  if (result == CUFFT_SUCCESS) {
    result = cufftMakePlanMany64(handle, static_cast<int>(n.size()), n.data(),
                                 basic ? nullptr : &inembed, key.istride, key.idist,
                                 basic ? nullptr : &onembed, key.ostride, key.odist, key.type,
                                 key.batch, &work_bytes);
  }
  if (result != CUFFT_SUCCESS) {
    cufftDestroy(handle);
    return CufftStatus(result,
                       fmt::format("cufftMakePlanMany64 of {} points, batch {}", key.n, key.batch));
  }
  return CufftPlan(key, handle, work_bytes);
}

CufftPlan::CufftPlan(CufftPlan&& other) noexcept
    : key_(other.key_),
      handle_(other.handle_),
      work_bytes_(other.work_bytes_),
      owned_(std::exchange(other.owned_, false)) {}

CufftPlan::~CufftPlan() {
  if (!owned_) return;
  std::optional<cufftHandle> evicted;
  {
    const std::lock_guard lock(CacheMutex());
    std::list<Idle>& cache = Cache();
    cache.push_front({key_, handle_, work_bytes_});
    if (static_cast<int>(cache.size()) > kMaxCufftPlans) {
      evicted = cache.back().handle;
      cache.pop_back();
    }
  }
  // Work enqueued with the plan may still read its tables, on any stream: let it finish
  // first (evictions are rare: a server cycling through more layouts than the cache holds).
  if (evicted) {
    (void)cudaDeviceSynchronize();
    cufftDestroy(*evicted);
  }
}

int CachedCufftPlans() {
  const std::lock_guard lock(CacheMutex());
  return static_cast<int>(Cache().size());
}

}  // namespace arrayhub
