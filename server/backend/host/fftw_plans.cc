#include "server/backend/host/fftw_plans.h"

#include <algorithm>
#include <list>
#include <mutex>

namespace arrayhub::host {
namespace {

// FFTW's planner (plan creation and destruction) is one global state for the process.
std::mutex& PlannerMutex() {
  static std::mutex mutex;
  return mutex;
}

struct Entry {
  FftwKey key;
  std::shared_ptr<const FftwPlan> plan;
};

// Most recently used first. Guarded by PlannerMutex().
std::list<Entry>& Cache() {
  static std::list<Entry> cache;
  return cache;
}

// The batch as FFTW's guru interface describes it: the last transformed axis's points `inner`
// apart, each leading axis's a whole block of the axes after it apart; batches over outer
// (whole stacks apart) and inner (adjacent).
struct Dims {
  int rank = 1;
  fftw_iodim64 transform[1 + kMaxFftLeadingAxes];
  fftw_iodim64 batch[2];
};

Dims DimsOf(const FftwKey& key) {
  const int64_t complex_length = key.n / 2 + 1;
  const int64_t in_length = key.kind == FftKind::kComplexToReal ? complex_length : key.n;
  const int64_t out_length = key.kind == FftKind::kRealToComplex ? complex_length : key.n;
  Dims d;
  d.rank = 1 + static_cast<int>(key.leading.size());
  d.transform[d.rank - 1] = {.n = key.n, .is = key.inner, .os = key.inner};
  int64_t in_block = in_length * key.inner;
  int64_t out_block = out_length * key.inner;
  for (int j = d.rank - 2; j >= 0; --j) {
    d.transform[j] = {.n = key.leading[j], .is = in_block, .os = out_block};
    in_block *= key.leading[j];
    out_block *= key.leading[j];
  }
  d.batch[0] = {.n = key.outer, .is = in_block, .os = out_block};
  d.batch[1] = {.n = key.inner, .is = 1, .os = 1};
  return d;
}

unsigned FlagsOf(const FftwKey& key) {
  // Out-of-place c2c and r2c preserve their input by default; c2r may destroy it (fft.h).
  unsigned flags = FFTW_ESTIMATE;
  if (key.input_alignment != 0 || key.output_alignment != 0) flags |= FFTW_UNALIGNED;
  return flags;
}

std::shared_ptr<const FftwPlan> MakePlan(const FftwKey& key, void* input, void* output) {
  Dims d = DimsOf(key);
  const unsigned flags = FlagsOf(key);
  const int sign = key.forward ? FFTW_FORWARD : FFTW_BACKWARD;
  fftw_plan plan = nullptr;
  fftwf_plan plan_single = nullptr;
  switch (key.kind) {
    case FftKind::kComplex:
      if (key.single) {
        plan_single = fftwf_plan_guru64_dft(d.rank, d.transform, 2, d.batch,
                                            static_cast<fftwf_complex*>(input),
                                            static_cast<fftwf_complex*>(output), sign, flags);
      } else {
        plan =
            fftw_plan_guru64_dft(d.rank, d.transform, 2, d.batch, static_cast<fftw_complex*>(input),
                                 static_cast<fftw_complex*>(output), sign, flags);
      }
      break;
    case FftKind::kRealToComplex:
      if (key.single) {
        plan_single =
            fftwf_plan_guru64_dft_r2c(d.rank, d.transform, 2, d.batch, static_cast<float*>(input),
                                      static_cast<fftwf_complex*>(output), flags);
      } else {
        plan =
            fftw_plan_guru64_dft_r2c(d.rank, d.transform, 2, d.batch, static_cast<double*>(input),
                                     static_cast<fftw_complex*>(output), flags);
      }
      break;
    case FftKind::kComplexToReal:
      if (key.single) {
        plan_single = fftwf_plan_guru64_dft_c2r(d.rank, d.transform, 2, d.batch,
                                                static_cast<fftwf_complex*>(input),
                                                static_cast<float*>(output), flags);
      } else {
        plan = fftw_plan_guru64_dft_c2r(d.rank, d.transform, 2, d.batch,
                                        static_cast<fftw_complex*>(input),
                                        static_cast<double*>(output), flags);
      }
      break;
  }
  if (plan == nullptr && plan_single == nullptr) return nullptr;
  return std::make_shared<const FftwPlan>(plan, plan_single);
}

}  // namespace

FftwPlan::~FftwPlan() {
  const std::lock_guard lock(PlannerMutex());
  if (plan_ != nullptr) fftw_destroy_plan(plan_);
  if (plan_single_ != nullptr) fftwf_destroy_plan(plan_single_);
}

std::shared_ptr<const FftwPlan> FftwPlanFor(const FftwKey& key, void* input, void* output) {
  std::shared_ptr<const FftwPlan> evicted;  // Destroyed after the lock is released.
  const std::lock_guard lock(PlannerMutex());
  std::list<Entry>& cache = Cache();
  auto found = std::find_if(cache.begin(), cache.end(),
                            [&](const Entry& entry) { return entry.key == key; });
  if (found != cache.end()) {
    cache.splice(cache.begin(), cache, found);
    return cache.front().plan;
  }
  std::shared_ptr<const FftwPlan> plan = MakePlan(key, input, output);
  if (plan == nullptr) return nullptr;
  cache.push_front({key, plan});
  if (static_cast<int>(cache.size()) > kMaxFftwPlans) {
    evicted = std::move(cache.back().plan);
    cache.pop_back();
  }
  return plan;
}

int FftwCachedPlans() {
  const std::lock_guard lock(PlannerMutex());
  return static_cast<int>(Cache().size());
}

}  // namespace arrayhub::host
