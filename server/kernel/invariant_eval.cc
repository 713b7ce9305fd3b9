#include "server/kernel/invariant_eval.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "server/common/float16.h"

namespace arrayhub::kernel {
namespace {

int Bits(DType dtype) { return static_cast<int>(ItemSize(dtype)) * 8; }
bool IsSigned(DType dtype) { return KindOf(dtype) == DTypeKind::kSigned; }

// `bits` truncated to the dtype's width and extended back to 64.
uint64_t Normalize(uint64_t bits, DType dtype) {
  if (dtype == DType::kBool) return bits != 0;
  const int width = Bits(dtype);
  if (width == 64) return bits;
  const uint64_t mask = (uint64_t{1} << width) - 1;
  bits &= mask;
  if (IsSigned(dtype) && (bits >> (width - 1)) != 0) bits |= ~mask;
  return bits;
}

double RoundTo(double value, DType dtype) {
  if (dtype == DType::kFloat32) return static_cast<float>(value);
  if (dtype == DType::kFloat16) return static_cast<float>(HalfFromDouble(value));
  return value;
}

InvariantValue Make(DType dtype, uint64_t bits) {
  InvariantValue v;
  v.dtype = dtype;
  v.bits = Normalize(bits, dtype);
  return v;
}

InvariantValue MakeReal(DType dtype, double real) {
  InvariantValue v;
  v.dtype = dtype;
  v.real = RoundTo(real, dtype);
  return v;
}

double AsDouble(const InvariantValue& v) {
  if (IsFloating(v.dtype)) return v.real;
  if (IsSigned(v.dtype)) return static_cast<double>(static_cast<int64_t>(v.bits));
  return static_cast<double>(v.bits);
}

bool Truth(const InvariantValue& v) { return IsFloating(v.dtype) ? v.real != 0 : v.bits != 0; }

// NumPy's astype and compute.h's rule: floats truncate into integers; NaN, infinities and
// values out of the integer's range give 0.
InvariantValue Cast(const InvariantValue& v, DType to) {
  if (to == DType::kBool) return Make(to, Truth(v) ? 1 : 0);
  if (IsFloating(to)) return MakeReal(to, AsDouble(v));
  if (!IsFloating(v.dtype)) return Make(to, v.bits);
  const double truncated = std::trunc(v.real);
  const double limit = std::ldexp(1.0, IsSigned(to) ? Bits(to) - 1 : Bits(to));
  const double lowest = IsSigned(to) ? -limit : 0.0;
  if (!(truncated >= lowest && truncated < limit)) return Make(to, 0);
  if (truncated < 0) return Make(to, static_cast<uint64_t>(static_cast<int64_t>(truncated)));
  return Make(to, static_cast<uint64_t>(truncated));
}

InvariantValue Integer(DType dtype, __int128 value) {
  return Make(dtype, static_cast<uint64_t>(value));
}

// x op y for a comparison op, on doubles or on 128-bit integers; none for any other op.
template <typename T>
std::optional<InvariantValue> Compare(BinaryOp op, T x, T y) {
  switch (op) {
    case BinaryOp::kLess:
      return Make(DType::kBool, x < y);
    case BinaryOp::kLessEqual:
      return Make(DType::kBool, x <= y);
    case BinaryOp::kGreater:
      return Make(DType::kBool, x > y);
    case BinaryOp::kGreaterEqual:
      return Make(DType::kBool, x >= y);
    case BinaryOp::kEqual:
      return Make(DType::kBool, x == y);
    case BinaryOp::kNotEqual:
      return Make(DType::kBool, x != y);
    default:
      return std::nullopt;
  }
}

InvariantValue Binary(BinaryOp op, const InvariantValue& a, const InvariantValue& b) {
  const DType t = a.dtype;
  if (op == BinaryOp::kLogicalAnd) return Make(DType::kBool, Truth(a) && Truth(b));
  if (op == BinaryOp::kLogicalOr) return Make(DType::kBool, Truth(a) || Truth(b));
  if (IsFloating(t)) {
    const double x = a.real;
    const double y = b.real;
    if (std::optional<InvariantValue> compared = Compare(op, x, y)) return *compared;
    switch (op) {
      case BinaryOp::kAdd:
        return MakeReal(t, x + y);
      case BinaryOp::kSub:
        return MakeReal(t, x - y);
      case BinaryOp::kMul:
        return MakeReal(t, x * y);
      case BinaryOp::kDiv:
        return MakeReal(t, x / y);
      default:
        return MakeReal(t, 0);  // The checker allows no other operator on floats.
    }
  }
  const __int128 x = a.Integer();
  const __int128 y = b.Integer();
  if (std::optional<InvariantValue> compared = Compare(op, x, y)) return *compared;
  const uint64_t mask = static_cast<uint64_t>(Bits(t) - 1);
  switch (op) {
    case BinaryOp::kAdd:
      return Integer(t, x + y);
    case BinaryOp::kSub:
      return Integer(t, x - y);
    case BinaryOp::kMul:
      return Make(t, a.bits * b.bits);  // Modular: the low bits of the product.
    case BinaryOp::kDiv:
      return Integer(t, y == 0 ? 0 : x / y);  // Exact in 128 bits; INT_MIN / -1 wraps.
    case BinaryOp::kMod:
      return Integer(t, y == 0 ? 0 : x % y);
    case BinaryOp::kShl:
      return Make(t, a.bits << (b.bits & mask));
    case BinaryOp::kShr:
      if (IsSigned(t))
        return Make(t, static_cast<uint64_t>(static_cast<int64_t>(a.bits) >> (b.bits & mask)));
      return Make(t, a.bits >> (b.bits & mask));
    case BinaryOp::kBitAnd:
      return Make(t, a.bits & b.bits);
    case BinaryOp::kBitOr:
      return Make(t, a.bits | b.bits);
    case BinaryOp::kBitXor:
      return Make(t, a.bits ^ b.bits);
    default:
      return Make(t, 0);
  }
}

InvariantValue Load(DType dtype, const ElementBytes& bytes) {
  if (IsFloating(dtype)) {
    if (dtype == DType::kFloat64) {
      double v;
      std::memcpy(&v, bytes.data(), sizeof v);
      return MakeReal(dtype, v);
    }
    if (dtype == DType::kFloat32) {
      float v;
      std::memcpy(&v, bytes.data(), sizeof v);
      return MakeReal(dtype, v);
    }
    Imath::half v;
    std::memcpy(&v, bytes.data(), sizeof v);
    return MakeReal(dtype, static_cast<float>(v));
  }
  uint64_t bits = 0;
  std::memcpy(&bits, bytes.data(), static_cast<size_t>(ItemSize(dtype)));  // Little-endian.
  return Make(dtype, bits);
}

}  // namespace

__int128 InvariantValue::Integer() const {
  if (IsSigned(dtype)) return static_cast<int64_t>(bits);
  return bits;
}

InvariantValue EvaluateInvariant(const Expr& expr, const CallConstants& constants) {
  switch (expr.kind) {
    case Expr::Kind::kLiteral:
      return IsFloating(expr.dtype) ? MakeReal(expr.dtype, expr.float_value)
                                    : Make(expr.dtype, expr.int_value);
    case Expr::Kind::kParam:
      return Load(expr.dtype, constants.scalars[expr.index]);
    case Expr::Kind::kRawSize:
      return Make(DType::kInt64, static_cast<uint64_t>(constants.sizes[expr.index]));
    case Expr::Kind::kCast:
      return Cast(EvaluateInvariant(expr.operands[0], constants), expr.dtype);
    case Expr::Kind::kUnary: {
      const InvariantValue v = EvaluateInvariant(expr.operands[0], constants);
      switch (expr.unary) {
        case UnaryOp::kNegate:
          return IsFloating(v.dtype) ? MakeReal(v.dtype, -v.real) : Make(v.dtype, 0 - v.bits);
        case UnaryOp::kLogicalNot:
          return Make(DType::kBool, !Truth(v));
        case UnaryOp::kBitNot:
          return Make(v.dtype, ~v.bits);
      }
      return v;
    }
    case Expr::Kind::kBinary: {
      const InvariantValue a = EvaluateInvariant(expr.operands[0], constants);
      if (expr.binary == BinaryOp::kLogicalAnd && !Truth(a)) return Make(DType::kBool, 0);
      if (expr.binary == BinaryOp::kLogicalOr && Truth(a)) return Make(DType::kBool, 1);
      return Binary(expr.binary, a, EvaluateInvariant(expr.operands[1], constants));
    }
    case Expr::Kind::kConditional:
      return EvaluateInvariant(
          expr.operands[Truth(EvaluateInvariant(expr.operands[0], constants)) ? 1 : 2], constants);
    case Expr::Kind::kMath: {
      const InvariantValue a = EvaluateInvariant(expr.operands[0], constants);
      if (expr.math == MathFn::kAbs) {
        if (IsFloating(a.dtype)) return MakeReal(a.dtype, std::fabs(a.real));
        return a.Integer() < 0 ? Make(a.dtype, 0 - a.bits) : a;
      }
      const InvariantValue b = EvaluateInvariant(expr.operands[1], constants);
      const bool max = expr.math == MathFn::kMax;
      if (IsFloating(a.dtype)) {
        return MakeReal(a.dtype, max ? std::fmax(a.real, b.real) : std::fmin(a.real, b.real));
      }
      return (a.Integer() < b.Integer()) == max ? b : a;
    }
    default:
      return Make(expr.dtype, 0);  // The checker lets no other kind into an invariant.
  }
}

}  // namespace arrayhub::kernel
