#include "server/core/promotion.h"

#include <algorithm>
#include <array>
#include <iterator>

namespace arrayhub {
namespace {

// The size of the float that NumPy deems to hold every value of an integer type: 8-bit
// integers go to float16, 16-bit ones to float32, wider ones to float64 (which rounds 64-bit
// values, yet NumPy counts int64 -> float64 as safe).
int64_t FloatSizeFor(DType integer) { return std::min<int64_t>(2 * ItemSize(integer), 8); }

// Bytes of one real component: a float's size, half a complex one's.
int64_t RealSize(DType d) { return IsComplex(d) ? ItemSize(d) / 2 : ItemSize(d); }

// NumPy's order of kinds for same_kind casting: b < u < i < f < c.
int KindRank(DType d) {
  switch (KindOf(d)) {
    case DTypeKind::kBool:
      return 0;
    case DTypeKind::kUnsigned:
      return 1;
    case DTypeKind::kSigned:
      return 2;
    case DTypeKind::kFloat:
      return 3;
    case DTypeKind::kComplex:
      return 4;
  }
  return 4;
}

// Candidates for promotion, smallest first: promote_types(a, b) is the first that both a and b
// cast to safely (an unsigned type comes before the signed one of its size, which holds
// neither a bool nor a uint8 better).
constexpr DType kPromotionOrder[] = {
    DType::kBool,    DType::kUInt8,   DType::kInt8,      DType::kUInt16,     DType::kInt16,
    DType::kUInt32,  DType::kInt32,   DType::kUInt64,    DType::kInt64,      DType::kFloat16,
    DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128,
};

// The rules themselves; CanCastSafely and PromoteTypes answer from tables of them (below).
bool SafeCastRule(DType from, DType to) {
  if (from == to || KindOf(from) == DTypeKind::kBool) return true;
  const int64_t from_size = ItemSize(from);
  const int64_t to_size = ItemSize(to);
  switch (KindOf(to)) {
    case DTypeKind::kBool:
      return false;
    case DTypeKind::kUnsigned:
      return KindOf(from) == DTypeKind::kUnsigned && to_size >= from_size;
    case DTypeKind::kSigned:
      return (KindOf(from) == DTypeKind::kSigned && to_size >= from_size) ||
             (KindOf(from) == DTypeKind::kUnsigned && to_size > from_size);
    case DTypeKind::kFloat:
    case DTypeKind::kComplex:
      if (IsInteger(from)) return RealSize(to) >= FloatSizeFor(from);
      // Real to complex widens by the component; complex never goes to real.
      return (IsFloating(from) || IsComplex(to)) && RealSize(to) >= RealSize(from);
  }
  return false;
}

DType PromotionRule(DType a, DType b) {
  for (DType candidate : kPromotionOrder) {
    if (SafeCastRule(a, candidate) && SafeCastRule(b, candidate)) return candidate;
  }
  return DType::kComplex128;  // Unreachable: every dtype casts safely to complex128.
}

// Every op asks these questions many times (a ufunc's loop search tries each loop's inputs in
// turn), so each answer is one load from a table built once.
constexpr size_t kDTypes = std::size(kAllDTypes);

size_t IndexOf(DType d) { return static_cast<size_t>(d) - static_cast<size_t>(DType::kBool); }

struct CastTables {
  std::array<std::array<bool, kDTypes>, kDTypes> safe;       // [from][to]
  std::array<std::array<DType, kDTypes>, kDTypes> promoted;  // [a][b]
};

const CastTables& Tables() {
  static const CastTables tables = [] {
    CastTables built;
    for (DType a : kAllDTypes) {
      for (DType b : kAllDTypes) {
        built.safe[IndexOf(a)][IndexOf(b)] = SafeCastRule(a, b);
        built.promoted[IndexOf(a)][IndexOf(b)] = PromotionRule(a, b);
      }
    }
    return built;
  }();
  return tables;
}

}  // namespace

bool CanCastSafely(DType from, DType to) { return Tables().safe[IndexOf(from)][IndexOf(to)]; }

// Every safe cast also keeps or raises the kind, so the kind order alone decides.
bool CanCastSameKind(DType from, DType to) { return KindRank(from) <= KindRank(to); }

DType PromoteTypes(DType a, DType b) { return Tables().promoted[IndexOf(a)][IndexOf(b)]; }

}  // namespace arrayhub
