#include "server/kernel/type_rules.h"

#include <string_view>
#include <utility>

namespace arrayhub::kernel {
namespace {

int Bits(DType dtype) { return static_cast<int>(ItemSize(dtype)) * 8; }

// The real type standing for a type in a complex combination: integers do not widen thrust's
// component type (complex<float> * int is complex<float>).
std::optional<DType> RealPart(DType dtype) {
  if (IsComplex(dtype)) return RealDType(dtype);
  if (IsFloating(dtype)) return dtype;
  return std::nullopt;
}

}  // namespace

DType Promote(DType dtype) {
  if (dtype == DType::kBool) return DType::kInt32;
  if (IsInteger(dtype) && Bits(dtype) < 32) return DType::kInt32;
  return dtype;
}

DType Common(DType a, DType b) {
  if (IsComplex(a) || IsComplex(b)) {
    const std::optional<DType> ra = RealPart(a);
    const std::optional<DType> rb = RealPart(b);
    const DType real = ra && rb ? Common(*ra, *rb) : ra ? *ra : *rb;
    return real == DType::kFloat64 ? DType::kComplex128 : DType::kComplex64;
  }
  if (IsFloating(a) || IsFloating(b)) {
    if (!IsFloating(a)) return b;
    if (!IsFloating(b)) return a;
    return Bits(a) >= Bits(b) ? a : b;
  }
  a = Promote(a);
  b = Promote(b);
  if (a == b) return a;
  const bool sa = KindOf(a) == DTypeKind::kSigned;
  const bool sb = KindOf(b) == DTypeKind::kSigned;
  if (sa == sb) return Bits(a) >= Bits(b) ? a : b;
  const DType s = sa ? a : b;
  const DType u = sa ? b : a;
  if (Bits(u) >= Bits(s)) return u;
  return s;  // The signed type is wider, so it holds every value of the unsigned one.
}

bool CanCastSafely(DType from, DType to) {
  if (from == to || from == DType::kBool) return true;
  if (to == DType::kBool) return false;
  const DTypeKind fk = KindOf(from);
  const DTypeKind tk = KindOf(to);
  if (fk == DTypeKind::kComplex) return tk == DTypeKind::kComplex && Bits(to) >= Bits(from);
  if (fk == DTypeKind::kFloat) {
    if (tk == DTypeKind::kFloat) return Bits(to) >= Bits(from);
    return tk == DTypeKind::kComplex && Bits(to) >= 2 * Bits(from);
  }
  // Integers.
  const int bits = Bits(from);
  if (tk == DTypeKind::kFloat || tk == DTypeKind::kComplex) {
    // The narrowest float that holds every value: 8-bit in float16, 16-bit in float32, wider
    // ones in float64 (NumPy counts int64 -> float64 as safe).
    const int need = bits <= 8 ? 16 : bits <= 16 ? 32 : 64;
    return (tk == DTypeKind::kFloat ? Bits(to) : Bits(to) / 2) >= need;
  }
  if (fk == tk) return Bits(to) >= bits;
  return fk == DTypeKind::kUnsigned && Bits(to) > bits;  // Unsigned into a wider signed.
}

std::optional<DType> TypeFromWord(std::string_view word) {
  if (std::optional<DType> dtype = DTypeFromName(word)) return dtype;
  static constexpr std::pair<std::string_view, DType> kWords[] = {
      {"char", DType::kInt8},       {"short", DType::kInt16},     {"int", DType::kInt32},
      {"long", DType::kInt64},      {"unsigned", DType::kUInt32}, {"signed", DType::kInt32},
      {"float", DType::kFloat32},   {"double", DType::kFloat64},  {"half", DType::kFloat16},
      {"size_t", DType::kUInt64},   {"ptrdiff_t", DType::kInt64}, {"int8_t", DType::kInt8},
      {"int16_t", DType::kInt16},   {"int32_t", DType::kInt32},   {"int64_t", DType::kInt64},
      {"uint8_t", DType::kUInt8},   {"uint16_t", DType::kUInt16}, {"uint32_t", DType::kUInt32},
      {"uint64_t", DType::kUInt64},
  };
  for (const auto& [name, dtype] : kWords) {
    if (name == word) return dtype;
  }
  return std::nullopt;
}

}  // namespace arrayhub::kernel
