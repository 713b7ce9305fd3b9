// CpuFft::Fft on FFTW (fftw_plans.h): one new-array execution per call over the whole
// (outer, length, inner) batch, or (outer, leading..., length, 1) for a multi-dimensional one, then
// the scale and conjugation NumPy's functions ask for.
#include <fmt/format.h>

#include <complex>
#include <functional>
#include <numeric>
#include <type_traits>

#include "server/backend/host/fftw_plans.h"
#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

void* Origin(const ArrayView& view) {
  return static_cast<std::byte*>(view.buffer->data()) + view.offset_bytes;
}

int64_t Elements(const ArrayView& view) {
  return std::accumulate(view.shape.begin(), view.shape.end(), int64_t{1}, std::multiplies<>());
}

template <typename R>
void Conjugate(std::complex<R>* data, int64_t count) {
  for (int64_t i = 0; i < count; ++i) data[i] = std::conj(data[i]);
}

template <typename T>
void Scale(T* data, int64_t count, double scale) {
  using R = decltype(std::abs(T()));
  const auto factor = static_cast<R>(scale);
  for (int64_t i = 0; i < count; ++i) data[i] *= factor;
}

template <typename R>
void Execute(const host::FftwPlan& plan, const FftCall& call) {
  void* in = Origin(call.input);
  void* out = Origin(call.output);
  if constexpr (std::is_same_v<R, float>) {
    switch (call.kind) {
      case FftKind::kComplex:
        return fftwf_execute_dft(plan.get_single(), static_cast<fftwf_complex*>(in),
                                 static_cast<fftwf_complex*>(out));
      case FftKind::kRealToComplex:
        return fftwf_execute_dft_r2c(plan.get_single(), static_cast<float*>(in),
                                     static_cast<fftwf_complex*>(out));
      case FftKind::kComplexToReal:
        return fftwf_execute_dft_c2r(plan.get_single(), static_cast<fftwf_complex*>(in),
                                     static_cast<float*>(out));
    }
  } else {
    switch (call.kind) {
      case FftKind::kComplex:
        return fftw_execute_dft(plan.get(), static_cast<fftw_complex*>(in),
                                static_cast<fftw_complex*>(out));
      case FftKind::kRealToComplex:
        return fftw_execute_dft_r2c(plan.get(), static_cast<double*>(in),
                                    static_cast<fftw_complex*>(out));
      case FftKind::kComplexToReal:
        return fftw_execute_dft_c2r(plan.get(), static_cast<fftw_complex*>(in),
                                    static_cast<double*>(out));
    }
  }
}

template <typename R>
absl::Status FftTyped(const FftCall& call) {
  using C = std::complex<R>;
  if (call.conjugate && call.kind == FftKind::kComplexToReal) {
    Conjugate(static_cast<C*>(Origin(call.input)), Elements(call.input));
  }
  const host::FftwKey key{
      .kind = call.kind,
      .forward =
          call.kind == FftKind::kComplex ? call.forward : call.kind == FftKind::kRealToComplex,
      .single = std::is_same_v<R, float>,
      .outer = call.input.shape[0],
      .leading = call.leading,
      .n = call.n,
      .inner = call.input.shape.back(),
      .input_alignment = fftw_alignment_of(static_cast<double*>(Origin(call.input))),
      .output_alignment = fftw_alignment_of(static_cast<double*>(Origin(call.output)))};
  const std::shared_ptr<const host::FftwPlan> plan =
      host::FftwPlanFor(key, Origin(call.input), Origin(call.output));
  if (plan == nullptr) {
    return absl::InternalError(fmt::format("FFTW could not plan a transform of {} points", call.n));
  }
  Execute<R>(*plan, call);
  const int64_t count = Elements(call.output);
  if (call.kind == FftKind::kComplexToReal) {
    if (call.scale != 1) Scale(static_cast<R*>(Origin(call.output)), count, call.scale);
    return absl::OkStatus();
  }
  C* out = static_cast<C*>(Origin(call.output));
  if (call.conjugate) Conjugate(out, count);
  if (call.scale != 1) Scale(out, count, call.scale);
  return absl::OkStatus();
}

}  // namespace

absl::Status CpuFft::Fft(QueueBinding& queue, const FftCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  const DType real =
      RealDType(call.kind == FftKind::kComplexToReal ? call.output.dtype : call.input.dtype);
  return real == DType::kFloat32 ? FftTyped<float>(call) : FftTyped<double>(call);
}

}  // namespace arrayhub
