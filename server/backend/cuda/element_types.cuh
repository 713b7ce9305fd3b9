// The CUDA backend's storage types for each dtype, and its visit of a dtype for a launch
// (common/dtype_visit.h's switch, as host::VisitDType on the host): kernels are templates over
// these, dispatched once per call, never per element. Compiled by nvcc only.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "server/common/dtype.h"
#include "server/common/dtype_visit.h"

namespace arrayhub::cuda_types {

// bool: one byte, nonzero is true (a struct, so that it is not taken for uint8's arithmetic).
struct Bool {
  uint8_t v;
};
// complex: two parts, aligned as their part, as the arrays' views are.
template <class R>
struct Complex {
  R re, im;
};

template <class T>
inline constexpr bool kIsComplex = false;
template <class R>
inline constexpr bool kIsComplex<Complex<R>> = true;

// The CUDA backend's element types (dtype_visit.h).
struct DeviceTypes {
  using Bool = cuda_types::Bool;
  using Half = __half;
  template <class R>
  using Complex = cuda_types::Complex<R>;
};

// Calls f(TypeTag<T>{}) with T the storage type of `dtype` on the device.
template <class F>
__host__ decltype(auto) VisitDType(DType dtype, F&& f) {
  return VisitDTypeAs<DeviceTypes>(dtype, static_cast<F&&>(f));
}

}  // namespace arrayhub::cuda_types
