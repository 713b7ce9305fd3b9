#include "server/kernel/math_functions.h"

#include <fmt/format.h>

#include <string>

#include "server/kernel/kernel_error.h"
#include "server/kernel/type_rules.h"

namespace arrayhub::kernel {
namespace {

enum class Shape : uint8_t { kUnary, kBinary, kPredicate, kMinMax, kAbs, kComplexPart };

struct Entry {
  MathFn fn;
  std::string_view name;
  Shape shape;
  bool complex = false;     // Takes complex arguments (std::complex has it).
  bool float_form = false;  // Has a float form: the name with an f.
};

constexpr Entry kEntries[] = {
    {MathFn::kSqrt, "sqrt", Shape::kUnary, true, true},
    {MathFn::kCbrt, "cbrt", Shape::kUnary, false, true},
    {MathFn::kExp, "exp", Shape::kUnary, true, true},
    {MathFn::kExp2, "exp2", Shape::kUnary, false, true},
    {MathFn::kExpm1, "expm1", Shape::kUnary, false, true},
    {MathFn::kLog, "log", Shape::kUnary, true, true},
    {MathFn::kLog2, "log2", Shape::kUnary, false, true},
    {MathFn::kLog10, "log10", Shape::kUnary, true, true},
    {MathFn::kLog1p, "log1p", Shape::kUnary, false, true},
    {MathFn::kSin, "sin", Shape::kUnary, true, true},
    {MathFn::kCos, "cos", Shape::kUnary, true, true},
    {MathFn::kTan, "tan", Shape::kUnary, true, true},
    {MathFn::kAsin, "asin", Shape::kUnary, true, true},
    {MathFn::kAcos, "acos", Shape::kUnary, true, true},
    {MathFn::kAtan, "atan", Shape::kUnary, true, true},
    {MathFn::kSinh, "sinh", Shape::kUnary, true, true},
    {MathFn::kCosh, "cosh", Shape::kUnary, true, true},
    {MathFn::kTanh, "tanh", Shape::kUnary, true, true},
    {MathFn::kAsinh, "asinh", Shape::kUnary, true, true},
    {MathFn::kAcosh, "acosh", Shape::kUnary, true, true},
    {MathFn::kAtanh, "atanh", Shape::kUnary, true, true},
    {MathFn::kErf, "erf", Shape::kUnary, false, true},
    {MathFn::kErfc, "erfc", Shape::kUnary, false, true},
    {MathFn::kLgamma, "lgamma", Shape::kUnary, false, true},
    {MathFn::kTgamma, "tgamma", Shape::kUnary, false, true},
    {MathFn::kFloor, "floor", Shape::kUnary, false, true},
    {MathFn::kCeil, "ceil", Shape::kUnary, false, true},
    {MathFn::kTrunc, "trunc", Shape::kUnary, false, true},
    {MathFn::kRound, "round", Shape::kUnary, false, true},
    {MathFn::kRint, "rint", Shape::kUnary, false, true},
    {MathFn::kFabs, "fabs", Shape::kUnary, false, true},
    {MathFn::kRsqrt, "rsqrt", Shape::kUnary, false, true},
    {MathFn::kPow, "pow", Shape::kBinary, true, true},
    {MathFn::kFmod, "fmod", Shape::kBinary, false, true},
    {MathFn::kHypot, "hypot", Shape::kBinary, false, true},
    {MathFn::kAtan2, "atan2", Shape::kBinary, false, true},
    {MathFn::kCopysign, "copysign", Shape::kBinary, false, true},
    {MathFn::kFmin, "fmin", Shape::kBinary, false, true},
    {MathFn::kFmax, "fmax", Shape::kBinary, false, true},
    {MathFn::kIsnan, "isnan", Shape::kPredicate},
    {MathFn::kIsinf, "isinf", Shape::kPredicate},
    {MathFn::kIsfinite, "isfinite", Shape::kPredicate},
    {MathFn::kSignbit, "signbit", Shape::kPredicate},
    {MathFn::kMin, "min", Shape::kMinMax},
    {MathFn::kMax, "max", Shape::kMinMax},
    {MathFn::kAbs, "abs", Shape::kAbs, true},
    {MathFn::kReal, "real", Shape::kComplexPart, true},
    {MathFn::kImag, "imag", Shape::kComplexPart, true},
    {MathFn::kConj, "conj", Shape::kComplexPart, true},
};

const Entry& EntryOf(MathFn fn) {
  for (const Entry& entry : kEntries) {
    if (entry.fn == fn) return entry;
  }
  return kEntries[0];
}

// The type a floating function computes in for an argument of `dtype`: float16 as float32
// (CuPy's float16 converts to float for the math library), integers as float64 (C++'s
// overloads for integers).
DType FloatingOf(DType dtype) {
  if (dtype == DType::kFloat16) return DType::kFloat32;
  if (IsFloating(dtype) || IsComplex(dtype)) return dtype;
  return DType::kFloat64;
}

}  // namespace

std::string_view MathFnName(MathFn fn) { return EntryOf(fn).name; }

std::optional<MathName> FindMathFunction(std::string_view name) {
  for (const Entry& entry : kEntries) {
    if (entry.name == name) return MathName{entry.fn, false};
    if (entry.float_form && name.size() == entry.name.size() + 1 && name.back() == 'f' &&
        name.substr(0, entry.name.size()) == entry.name) {
      return MathName{entry.fn, true};
    }
  }
  return std::nullopt;
}

MathTypes TypeMathCall(MathName name, std::string_view spelled, const std::vector<DType>& given,
                       SourcePos pos) {
  const Entry& entry = EntryOf(name.fn);
  const size_t arity = entry.shape == Shape::kBinary || entry.shape == Shape::kMinMax ? 2 : 1;
  if (given.size() != arity) {
    Fail(pos, fmt::format("'{}' takes {} argument{}, {} given", spelled, arity,
                          arity == 1 ? "" : "s", given.size()));
  }
  DType common = given[0];
  if (arity == 2) common = Common(given[0], given[1]);
  const bool complex = IsComplex(common);
  if (complex && (!entry.complex || name.float_form)) {
    Fail(pos, fmt::format("'{}' does not take complex arguments ({})", spelled, DTypeName(common)));
  }
  if (!complex && entry.shape == Shape::kComplexPart) {
    Fail(pos, fmt::format("'{}' takes a complex argument, not {}", spelled, DTypeName(common)));
  }
  switch (entry.shape) {
    case Shape::kUnary:
    case Shape::kBinary: {
      const DType type = name.float_form ? DType::kFloat32 : FloatingOf(common);
      return {std::vector<DType>(arity, type), type};
    }
    case Shape::kPredicate:
      return {{FloatingOf(common)}, DType::kBool};
    case Shape::kMinMax:
      return {{common, common}, common};
    case Shape::kAbs:
      if (complex) return {{common}, RealDType(common)};
      if (IsFloating(common)) return {{FloatingOf(common)}, FloatingOf(common)};
      return {{Promote(common)}, Promote(common)};
    case Shape::kComplexPart:
      return {{common}, name.fn == MathFn::kConj ? common : RealDType(common)};
  }
  return {{common}, common};
}

}  // namespace arrayhub::kernel
