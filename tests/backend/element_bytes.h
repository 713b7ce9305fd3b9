// Elements as bytes, for the suites that build arrays of every dtype by hand: counts, raw
// loads and stores, and reals rounded to a floating dtype as NumPy rounds them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "server/backend/backend.h"
#include "server/common/float16.h"

namespace arrayhub {

// The number of elements of `shape`.
inline int64_t Count(std::span<const int64_t> shape) {
  int64_t count = 1;
  for (const int64_t extent : shape) count *= extent;
  return count;
}

template <typename T>
void Put(T value, std::byte* out) {
  std::memcpy(out, &value, sizeof(T));
}

template <typename T>
T Get(const std::byte* in) {
  T value;
  std::memcpy(&value, in, sizeof(T));
  return value;
}

// `value` as an element of the float16, float32 or float64 `dtype` (each rounded once).
inline void StoreReal(DType dtype, double value, std::byte* out) {
  if (dtype == DType::kFloat16) return Put(HalfFromDouble(value).bits(), out);
  if (dtype == DType::kFloat32) return Put(static_cast<float>(value), out);
  Put(value, out);
}

}  // namespace arrayhub
