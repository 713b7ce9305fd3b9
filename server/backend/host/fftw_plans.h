// FFTW plans for the host backend's transforms (fft.h's batches of one- and
// multi-dimensional transforms), shared by every thread. FFTW's planner is not thread-safe: plans
// are made and destroyed under one process-wide lock, with FFTW_ESTIMATE (a heuristic: nothing is
// measured while a request waits), and executed with FFTW's new-array functions, which are. Plans
// are kept per layout and alignment, the least recently used dropped past kMaxPlans.
#pragma once

#include <fftw3.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "server/backend/fft.h"

namespace arrayhub::host {

// What a plan is made for: the transform, its batch and the arrays' alignment (FFTW's plans
// for aligned arrays use SIMD loads that others must not run).
struct FftwKey {
  FftKind kind = FftKind::kComplex;
  bool forward = true;
  bool single = false;  // float32/complex64; else float64/complex128.
  int64_t outer = 1;
  std::vector<int64_t> leading;  // FftCall::leading: further transformed axes.
  int64_t n = 1;
  int64_t inner = 1;
  int input_alignment = 0;  // fftw_alignment_of of each array.
  int output_alignment = 0;
  bool operator==(const FftwKey&) const = default;
};

// One plan of either precision; destroyed under the planner's lock.
class FftwPlan {
 public:
  FftwPlan(fftw_plan plan, fftwf_plan plan_single) : plan_(plan), plan_single_(plan_single) {}
  ~FftwPlan();
  FftwPlan(const FftwPlan&) = delete;
  FftwPlan& operator=(const FftwPlan&) = delete;
  fftw_plan get() const { return plan_; }
  fftwf_plan get_single() const { return plan_single_; }

 private:
  fftw_plan plan_;
  fftwf_plan plan_single_;
};

// How many plans the cache keeps (each a few KiB of twiddle factors and code choices).
inline constexpr int kMaxFftwPlans = 64;

// The plan for `key`, made for `input` and `output` (not touched while planning); null when
// FFTW cannot make one. Holding the result keeps the plan alive past its eviction.
std::shared_ptr<const FftwPlan> FftwPlanFor(const FftwKey& key, void* input, void* output);

// Plans in the cache now (for tests of its bound).
int FftwCachedPlans();

}  // namespace arrayhub::host
