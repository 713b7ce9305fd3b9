// The element types of DESIGN.md and their fixed properties (size, NumPy name, kind).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace arrayhub {

// Numbered as in the wire contract's DType enum (proto value = enumerator value;
// server/transport/wire_enums.cc checks it).
enum class DType : uint8_t {
  kBool = 1,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kComplex64,
  kComplex128,
};

inline constexpr DType kAllDTypes[] = {
    DType::kBool,    DType::kInt8,    DType::kInt16,     DType::kInt32,      DType::kInt64,
    DType::kUInt8,   DType::kUInt16,  DType::kUInt32,    DType::kUInt64,     DType::kFloat16,
    DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128,
};

// `dtype`'s position in kAllDTypes: an index into tables with a row per dtype in that order.
constexpr size_t DTypeIndex(DType dtype) {
  return static_cast<size_t>(dtype) - static_cast<size_t>(DType::kBool);
}
static_assert(DTypeIndex(DType::kComplex128) + 1 == std::size(kAllDTypes));

// NumPy's dtype.kind: 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex.
enum class DTypeKind : uint8_t { kBool, kSigned, kUnsigned, kFloat, kComplex };

// Bytes per element.
int64_t ItemSize(DType dtype);
// NumPy's name: "bool", "int8", ..., "complex128".
std::string_view DTypeName(DType dtype);
DTypeKind KindOf(DType dtype);
// NumPy's dtype.kind letter of `kind`: b, i, u, f or c.
char KindLetter(DTypeKind kind);
// Inverse of DTypeName.
std::optional<DType> DTypeFromName(std::string_view name);
// Maps a wire enum value to a DType; nullopt for 0 (unspecified) and unknown values.
std::optional<DType> DTypeFromWire(int value);

inline bool IsInteger(DType d) {
  return KindOf(d) == DTypeKind::kSigned || KindOf(d) == DTypeKind::kUnsigned;
}
inline bool IsComplex(DType d) { return KindOf(d) == DTypeKind::kComplex; }
inline bool IsFloating(DType d) { return KindOf(d) == DTypeKind::kFloat; }

// The dtype of a complex dtype's components (complex64 -> float32, complex128 -> float64);
// other dtypes unchanged. Singular values, eigenvalues, abs and var of complex arrays have it.
DType RealDType(DType dtype);

}  // namespace arrayhub
