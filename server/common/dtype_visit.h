// The one switch that turns a runtime dtype into a C++ element type, for both backends: each
// names its own types for the dtypes whose C++ type is its choice (bool, float16, complex) in
// a type table, and passes it here.
#pragma once

#include <cstdint>

#include "server/common/dtype.h"

namespace arrayhub {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with T the element type of `dtype` under `Types`, which names
//   Types::Bool, Types::Half and Types::Complex<R> (R float or double);
// the integer and real dtypes are the fixed-width types. Dtypes are dispatched once per call
// this way, never per element. Every path calls f, so f's return type is the visit's.
template <typename Types, typename F>
constexpr decltype(auto) VisitDTypeAs(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kBool:
      return f(TypeTag<typename Types::Bool>{});
    case DType::kInt8:
      return f(TypeTag<int8_t>{});
    case DType::kInt16:
      return f(TypeTag<int16_t>{});
    case DType::kInt32:
      return f(TypeTag<int32_t>{});
    case DType::kInt64:
      return f(TypeTag<int64_t>{});
    case DType::kUInt8:
      return f(TypeTag<uint8_t>{});
    case DType::kUInt16:
      return f(TypeTag<uint16_t>{});
    case DType::kUInt32:
      return f(TypeTag<uint32_t>{});
    case DType::kUInt64:
      return f(TypeTag<uint64_t>{});
    case DType::kFloat16:
      return f(TypeTag<typename Types::Half>{});
    case DType::kFloat32:
      return f(TypeTag<float>{});
    case DType::kFloat64:
      return f(TypeTag<double>{});
    case DType::kComplex64:
      return f(TypeTag<typename Types::template Complex<float>>{});
    case DType::kComplex128:
      break;
  }
  return f(TypeTag<typename Types::template Complex<double>>{});
}

// Calls f(TypeTag<W>{}) with W the unsigned integer of `size` bytes, or `Bytes16` for 16 (the
// caller's two-word type): for code that moves elements by value, whatever their dtype, as
// whole words. `size` is an item size: 1, 2, 4, 8 or 16.
template <typename Bytes16, typename F>
decltype(auto) VisitWordOfSize(int64_t size, F&& f) {
  switch (size) {
    case 1:
      return f(TypeTag<uint8_t>{});
    case 2:
      return f(TypeTag<uint16_t>{});
    case 4:
      return f(TypeTag<uint32_t>{});
    case 8:
      return f(TypeTag<uint64_t>{});
    default:
      break;
  }
  return f(TypeTag<Bytes16>{});
}

}  // namespace arrayhub
