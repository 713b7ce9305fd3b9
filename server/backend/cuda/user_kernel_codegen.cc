#include "server/backend/cuda/user_kernel_codegen.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "server/backend/cuda/device_math.h"
#include "server/backend/cuda/elementwise_codegen.h"

namespace arrayhub {

namespace {

using kernel::BinaryOp;
using kernel::Expr;
using kernel::KernelKind;
using kernel::MathFn;
using kernel::Parameter;
using kernel::Stmt;
using kernel::UnaryOp;

// What the generated code adds to device_math.h: the language's integer division, remainder
// and shifts, float16 rounding, complex arithmetic, and the raw-access failure record.
constexpr char kSupport[] = R"ahcuda(
// ---- User kernels (user_kernel_codegen.h) ----
// float16 values are held in float; each operation that gives one rounds to binary16.
__device__ __forceinline__ float ah_r16(float x) { return ah_h2f(ah_f2h(x)); }
template <class T> __device__ __forceinline__ T ah_uk_zero() { return T(); }
template <class T> __device__ __forceinline__ T ah_uk_div(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (ah_int<T>::is_signed) {
    if (b == T(-1)) return ah_wrap_sub(T(0), a);  // INT_MIN / -1 wraps.
  }
  return a / b;
}
template <class T> __device__ __forceinline__ T ah_uk_mod(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (ah_int<T>::is_signed) {
    if (b == T(-1)) return T(0);
  }
  return a % b;
}
template <class T, class C> __device__ __forceinline__ T ah_uk_shl(T a, C c) {
  typedef typename ah_int<T>::wide W;
  return (T)((W)a << ((unsigned long long)c & (ah_int<T>::bits - 1)));
}
template <class T, class C> __device__ __forceinline__ T ah_uk_shr(T a, C c) {
  return (T)(a >> (int)((unsigned long long)c & (ah_int<T>::bits - 1)));
}
template <class T> __device__ __forceinline__ T ah_uk_abs(T a) {
  if constexpr (ah_int<T>::is_signed) {
    return a < 0 ? ah_wrap_sub(T(0), a) : a;
  } else {
    return a;
  }
}
template <class T> __device__ __forceinline__ T ah_uk_min(T a, T b) { return b < a ? b : a; }
template <class T> __device__ __forceinline__ T ah_uk_max(T a, T b) { return a < b ? b : a; }
template <class R> __device__ __forceinline__ ah_complex<R> ah_uk_cadd(ah_complex<R> a, ah_complex<R> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class R> __device__ __forceinline__ ah_complex<R> ah_uk_csub(ah_complex<R> a, ah_complex<R> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class R> __device__ __forceinline__ ah_complex<R> ah_uk_cneg(ah_complex<R> a) {
  return {-a.re, -a.im};
}
template <class R> __device__ __forceinline__ bool ah_uk_ceq(ah_complex<R> a, ah_complex<R> b) {
  return a.re == b.re && a.im == b.im;
}
__device__ __forceinline__ bool ah_uk_signbit(float x) { return __float_as_int(x) < 0; }
__device__ __forceinline__ bool ah_uk_signbit(double x) { return __double_as_longlong(x) < 0; }
// The first raw access out of range, of all threads: parameter + 1, index, size.
__device__ __noinline__ void ah_uk_fail(unsigned long long* error, int parameter, long long index,
                                        long long size) {
  if (atomicCAS(error, 0ull, (unsigned long long)(parameter + 1)) == 0ull) {
    error[1] = (unsigned long long)index;
    error[2] = (unsigned long long)size;
  }
}
// The byte offset of element k (C order) of a walk of `rank` extents at dims[at], whose byte
// strides follow them.
__device__ __forceinline__ long long ah_uk_walk(const long long* dims, long long rank, long long k) {
  if (rank == 1) return k * dims[1];
  long long offset = 0;
  for (long long d = rank - 1; d >= 0; --d) {
    const long long extent = dims[d];
    const long long q = k / extent;
    offset += (k - q * extent) * dims[rank + d];
    k = q;
  }
  return offset;
}
)ahcuda";

bool IsFloat(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kFloat32 || dtype == DType::kFloat64;
}
bool IsComplexType(DType dtype) {
  return dtype == DType::kComplex64 || dtype == DType::kComplex128;
}

// `value` (held as `from`'s value type) converted to `to`'s value type, NumPy's astype.
std::string Convert(const std::string& value, DType from, DType to) {
  if (from == to) return value;
  if (to == DType::kFloat16) {
    return fmt::format("ah_h2f(ah_cast<ah_half>(({}){}))", WorkingType(from), value);
  }
  return fmt::format("ah_cast<{}>(({}){})", WorkingType(to), WorkingType(from), value);
}

// A stored element at `address` (an expression of type char*) as a value.
std::string Load(DType dtype, const std::string& address) {
  return fmt::format("ah_cast<{}>(*reinterpret_cast<const {}*>({}))", WorkingType(dtype),
                     StorageType(dtype), address);
}
std::string StoreTo(DType dtype, const std::string& address, const std::string& value) {
  return fmt::format("*reinterpret_cast<{0}*>({1}) = ah_cast<{0}>(({2})({3}));\n",
                     StorageType(dtype), address, WorkingType(dtype), value);
}

std::string Literal(const Expr& e) {
  if (e.dtype == DType::kBool) return e.int_value != 0 ? "true" : "false";
  if (IsFloat(e.dtype)) {
    const double v = e.float_value;
    std::string text;
    if (std::isnan(v)) {
      text = "ah_nan<double>()";
    } else if (std::isinf(v)) {
      text = v > 0 ? "ah_inf<double>()" : "(-ah_inf<double>())";
    } else {
      text = fmt::format("{:a}", v);  // Exact.
    }
    if (e.dtype == DType::kFloat16) return fmt::format("ah_h2f(ah_d2h({}))", text);
    return fmt::format("(({}){})", WorkingType(e.dtype), text);
  }
  return fmt::format("(({})0x{:x}ull)", WorkingType(e.dtype), e.int_value);
}

// The address of parameter `index`'s element where the code is: off<index> is its byte offset.
std::string ParamAddress(int index) { return fmt::format("(args.base[{0}] + off{0})", index); }

class Printer {
 public:
  Printer(const UserKernelDefinition& d, std::vector<int> raw_slot)
      : d_(d), raw_slot_(std::move(raw_slot)) {}

  absl::Status status() const { return status_; }

  std::string Print(const Expr& e) {
    const auto& ops = e.operands;
    auto operand = [&](size_t k) { return Print(ops[k]); };
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return Literal(e);
      case Expr::Kind::kLocal:
        return fmt::format("l{}", e.index);
      case Expr::Kind::kParam:
        return ParamValue(e.index);
      case Expr::Kind::kIndex:
        return "i";
      case Expr::Kind::kIndSize:
        return "args.ind_size";
      case Expr::Kind::kRawSize:
        return fmt::format("args.raw_size[{}]", raw_slot_[static_cast<size_t>(e.index)]);
      case Expr::Kind::kRawLoad:
        return fmt::format("ah_raw_get{}(args, (long long)({}))", e.index, operand(0));
      case Expr::Kind::kCast:
        return Convert(operand(0), ops[0].dtype, e.dtype);
      case Expr::Kind::kUnary:
        return Unary(e, operand(0));
      case Expr::Kind::kBinary:
        return Binary(e, operand(0), operand(1));
      case Expr::Kind::kConditional:
        return fmt::format("(({}) ? ({}) : ({}))", operand(0), operand(1), operand(2));
      case Expr::Kind::kCall: {
        std::string call = fmt::format("ah_fn{}(args", e.index);
        for (size_t k = 0; k < ops.size(); ++k) call += ", " + operand(k);
        return call + ")";
      }
      case Expr::Kind::kMath: {
        std::vector<std::string> args;
        for (size_t k = 0; k < ops.size(); ++k) args.push_back(operand(k));
        return Math(e, args);
      }
    }
    Fail(e.pos, "an expression of unknown kind");
    return "0";
  }

  // Statements, each line indented by `indent` spaces.
  void PrintStmt(const Stmt& s, int indent, std::string& out) {
    const std::string pad(static_cast<size_t>(indent), ' ');
    switch (s.kind) {
      case Stmt::Kind::kBlock:
        out += pad + "{\n";
        for (const Stmt& inner : s.body) PrintStmt(inner, indent + 2, out);
        out += pad + "}\n";
        return;
      case Stmt::Kind::kDeclare:
        if (s.has_value) {
          out += fmt::format("{}{} l{} = {};\n", pad, WorkingType(LocalType(s.index)), s.index,
                             Print(s.operands[0]));
        } else {
          out += fmt::format("{}{} l{}{{}};\n", pad, WorkingType(LocalType(s.index)), s.index);
        }
        return;
      case Stmt::Kind::kAssign:
        switch (s.target) {
          case Stmt::Target::kLocal:
            out += fmt::format("{}l{} = {};\n", pad, s.index, Print(s.operands[0]));
            return;
          case Stmt::Target::kOutput: {
            const DType dtype = d_.parameters[static_cast<size_t>(s.index)].dtype;
            out += pad + StoreTo(dtype, ParamAddress(s.index), Print(s.operands[0]));
            return;
          }
          case Stmt::Target::kRaw:
            out += fmt::format("{}ah_raw_set{}(args, (long long)({}), {});\n", pad, s.index,
                               Print(s.operands[0]), Print(s.operands[1]));
            return;
        }
        return;
      case Stmt::Kind::kIf:
        out += fmt::format("{}if ({}) {{\n", pad, Print(s.operands[0]));
        PrintStmt(s.body[0], indent + 2, out);
        if (s.body.size() > 1) {
          out += pad + "} else {\n";
          PrintStmt(s.body[1], indent + 2, out);
        }
        out += pad + "}\n";
        return;
      case Stmt::Kind::kFor: {
        // The trip count and first value come from the host (loop_bounds.h), so the loop runs
        // exactly as the host evaluator's; v is recomputed from the trip number, which never
        // wraps where C's v += step would.
        const std::string type(WorkingType(LocalType(s.index)));
        out += fmt::format(
            "{0}for (long long t{1} = 0, n{1} = args.loop_trips[{1}]; t{1} < n{1}; ++t{1}) {{\n"
            "{0}  {2} l{3} = ({2})((unsigned long long)args.loop_first[{1}] + "
            "(unsigned long long)t{1} * (unsigned long long)({4}ll));\n",
            pad, s.loop, type, s.index, s.step);
        PrintStmt(s.body[0], indent + 2, out);
        out += pad + "}\n";
        return;
      }
      case Stmt::Kind::kBreak:
        out += pad + "break;\n";
        return;
      case Stmt::Kind::kContinue:
        out += pad + "continue;\n";
        return;
      case Stmt::Kind::kReturn:
        out += fmt::format("{}return {};\n", pad, Print(s.operands[0]));
        return;
    }
  }

  // The locals of the body being printed.
  void SetLocals(const std::vector<kernel::Local>* locals) { locals_ = locals; }

 private:
  DType LocalType(int index) const {
    if (locals_ == nullptr || index < 0 || static_cast<size_t>(index) >= locals_->size()) {
      return DType::kInt32;
    }
    return (*locals_)[static_cast<size_t>(index)].dtype;
  }

  // A non-raw parameter's value: scalars and inputs were read once into p<k>; outputs are read
  // where they are, since the kernel may have written them.
  std::string ParamValue(int index) const {
    const Parameter& p = d_.parameters[static_cast<size_t>(index)];
    if (!p.output) return fmt::format("p{}", index);
    return Load(p.dtype, ParamAddress(index));
  }

  std::string Unary(const Expr& e, const std::string& a) {
    switch (e.unary) {
      case UnaryOp::kNegate:
        if (IsComplexType(e.dtype)) return fmt::format("ah_uk_cneg({})", a);
        if (IsFloat(e.dtype)) return fmt::format("(-({}))", a);
        return fmt::format("ah_wrap_sub(({0})0, ({0})({1}))", WorkingType(e.dtype), a);
      case UnaryOp::kLogicalNot:
        return fmt::format("(!({}))", a);
      case UnaryOp::kBitNot:
        return fmt::format("(({})~({}))", WorkingType(e.dtype), a);
    }
    return a;
  }

  std::string Binary(const Expr& e, const std::string& a, const std::string& b) {
    const DType t = e.operands[0].dtype;  // The operand type (shifts: the left operand's).
    const std::string_view type = WorkingType(t);
    const bool complex = IsComplexType(t);
    const bool real = IsFloat(t);
    // float16 results round to binary16 after the float operation.
    auto rounded = [&](std::string value) {
      return t == DType::kFloat16 ? fmt::format("ah_r16({})", value) : value;
    };
    switch (e.binary) {
      case BinaryOp::kAdd:
        if (complex) return fmt::format("ah_uk_cadd({}, {})", a, b);
        if (real) return rounded(fmt::format("(({}) + ({}))", a, b));
        return fmt::format("ah_wrap_add(({0})({1}), ({0})({2}))", type, a, b);
      case BinaryOp::kSub:
        if (complex) return fmt::format("ah_uk_csub({}, {})", a, b);
        if (real) return rounded(fmt::format("(({}) - ({}))", a, b));
        return fmt::format("ah_wrap_sub(({0})({1}), ({0})({2}))", type, a, b);
      case BinaryOp::kMul:
        if (complex) return fmt::format("ah_cmul({}, {})", a, b);
        if (real) return rounded(fmt::format("(({}) * ({}))", a, b));
        return fmt::format("ah_wrap_mul(({0})({1}), ({0})({2}))", type, a, b);
      case BinaryOp::kDiv:
        if (complex) return fmt::format("ah_cdiv({}, {})", a, b);
        if (real) return rounded(fmt::format("(({}) / ({}))", a, b));
        return fmt::format("ah_uk_div(({0})({1}), ({0})({2}))", type, a, b);
      case BinaryOp::kMod:
        return fmt::format("ah_uk_mod(({0})({1}), ({0})({2}))", type, a, b);
      case BinaryOp::kShl:
        return fmt::format("ah_uk_shl(({})({}), {})", type, a, b);
      case BinaryOp::kShr:
        return fmt::format("ah_uk_shr(({})({}), {})", type, a, b);
      case BinaryOp::kBitAnd:
        return fmt::format("(({})(({}) & ({})))", type, a, b);
      case BinaryOp::kBitOr:
        return fmt::format("(({})(({}) | ({})))", type, a, b);
      case BinaryOp::kBitXor:
        return fmt::format("(({})(({}) ^ ({})))", type, a, b);
      case BinaryOp::kLess:
        return fmt::format("(({}) < ({}))", a, b);
      case BinaryOp::kLessEqual:
        return fmt::format("(({}) <= ({}))", a, b);
      case BinaryOp::kGreater:
        return fmt::format("(({}) > ({}))", a, b);
      case BinaryOp::kGreaterEqual:
        return fmt::format("(({}) >= ({}))", a, b);
      case BinaryOp::kEqual:
        if (complex) return fmt::format("ah_uk_ceq({}, {})", a, b);
        return fmt::format("(({}) == ({}))", a, b);
      case BinaryOp::kNotEqual:
        if (complex) return fmt::format("(!ah_uk_ceq({}, {}))", a, b);
        return fmt::format("(({}) != ({}))", a, b);
      case BinaryOp::kLogicalAnd:
        return fmt::format("(({}) && ({}))", a, b);
      case BinaryOp::kLogicalOr:
        return fmt::format("(({}) || ({}))", a, b);
    }
    Fail(e.pos, "an unknown operator");
    return "0";
  }

  std::string Math(const Expr& e, const std::vector<std::string>& args) {
    const DType arg = e.operands.empty() ? e.dtype : e.operands[0].dtype;
    const bool single = arg == DType::kFloat32 || arg == DType::kFloat16;
    auto rounded = [&](std::string value) {
      return e.dtype == DType::kFloat16 ? fmt::format("ah_r16({})", value) : value;
    };
    switch (e.math) {
      case MathFn::kIsnan:
        return fmt::format("ah_isnan({})", args[0]);
      case MathFn::kIsinf:
        return fmt::format("ah_isinf({})", args[0]);
      case MathFn::kIsfinite:
        return fmt::format("(!ah_isnan({0}) && !ah_isinf({0}))", args[0]);
      case MathFn::kSignbit:
        return fmt::format("ah_uk_signbit({})", args[0]);
      case MathFn::kMin:
      case MathFn::kMax: {
        const bool min = e.math == MathFn::kMin;
        if (IsComplexType(arg)) break;
        if (IsFloat(arg)) {
          return rounded(fmt::format("{}{}({}, {})", min ? "fmin" : "fmax", single ? "f" : "",
                                     args[0], args[1]));
        }
        return fmt::format("ah_uk_{}(({})({}), ({})({}))", min ? "min" : "max", WorkingType(arg),
                           args[0], WorkingType(arg), args[1]);
      }
      case MathFn::kAbs:
        if (IsComplexType(arg)) {
          return fmt::format("hypot{}(({}).re, ({}).im)", arg == DType::kComplex64 ? "f" : "",
                             args[0], args[0]);
        }
        if (IsFloat(arg)) return fmt::format("fabs{}({})", single ? "f" : "", args[0]);
        return fmt::format("ah_uk_abs(({})({}))", WorkingType(arg), args[0]);
      case MathFn::kReal:
        return IsComplexType(arg) ? fmt::format("(({}).re)", args[0]) : args[0];
      case MathFn::kImag:
        return IsComplexType(arg) ? fmt::format("(({}).im)", args[0])
                                  : fmt::format("(({})0)", WorkingType(e.dtype));
      case MathFn::kConj:
        return IsComplexType(arg)
                   ? fmt::format("{}{{({}).re, -({}).im}}", WorkingType(arg), args[0], args[0])
                   : args[0];
      default: {  // The real functions of one or two arguments: the C library's names.
        if (!IsFloat(arg)) break;
        std::string call = fmt::format("{}{}(", kernel::MathFnName(e.math), single ? "f" : "");
        for (size_t k = 0; k < args.size(); ++k) call += (k ? ", " : "") + args[k];
        return rounded(call + ")");
      }
    }
    Fail(e.pos, fmt::format("{} of {}", kernel::MathFnName(e.math), DTypeName(arg)));
    return "0";
  }

  void Fail(const kernel::SourcePos& pos, std::string what) {
    if (status_.ok()) {
      status_ = absl::UnimplementedError(
          fmt::format("kernel {}: {}:{}:{}: the CUDA backend cannot compile {}", d_.name,
                      kernel::PartName(pos.part), pos.line, pos.column, what));
    }
  }

  const UserKernelDefinition& d_;
  std::vector<int> raw_slot_;
  const std::vector<kernel::Local>* locals_ = nullptr;
  absl::Status status_;
};

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

struct Counts {
  int arrays = 0;   // Non-raw array parameters (inputs and outputs).
  int raws = 0;     // Raw parameters.
  int scalars = 0;  // Scalar inputs.
};

Counts CountsOf(const UserKernelDefinition& d) {
  Counts c;
  for (const Parameter& p : d.parameters) {
    if (p.raw) {
      ++c.raws;
    } else if (p.scalar) {
      ++c.scalars;
    } else {
      ++c.arrays;
    }
  }
  return c;
}

}  // namespace

UserKernelDefinition DefinitionOf(const kernel::CheckedKernel& kernel) {
  return {.kind = kernel.kind(),
          .name = kernel.name(),
          .parameters = kernel.parameters(),
          .reduce_type = kernel.reduce_type(),
          .program = &kernel.program()};
}

absl::StatusOr<UserKernelLayout> LayoutOf(const UserKernelDefinition& d) {
  const Counts c = CountsOf(d);
  const size_t raws = static_cast<size_t>(std::max(c.raws, 1));
  const size_t loops = static_cast<size_t>(std::max(d.program->loop_count, 1));
  UserKernelLayout layout;
  layout.base = 10 * sizeof(int64_t);
  layout.raw_size = layout.base + sizeof(char*) * std::max<size_t>(d.parameters.size(), 1);
  layout.raw_rank = layout.raw_size + sizeof(int64_t) * raws;
  layout.raw_at = layout.raw_rank + sizeof(int64_t) * raws;
  layout.loop_first = layout.raw_at + sizeof(int64_t) * raws;
  layout.loop_trips = layout.loop_first + sizeof(int64_t) * loops;
  layout.scalar = RoundUp(layout.loop_trips + sizeof(int64_t) * loops, 16);
  layout.dims = layout.scalar + 16 * static_cast<size_t>(std::max(c.scalars, 1));
  layout.size = kUserKernelArgumentBytes;
  layout.capacity = layout.dims >= layout.size
                        ? 0
                        : static_cast<int64_t>((layout.size - layout.dims) / sizeof(int64_t));
  // The least a call needs: one-dimensional walks (reductions: one output and one reduced
  // dimension, and the index's strides).
  const int64_t walks = d.kind == KernelKind::kElementwise ? 1 + c.arrays : 2 * (c.arrays + 2);
  const int64_t needed = walks + 2 * c.raws;
  if (layout.capacity < needed) {
    return absl::InvalidArgumentError(fmt::format(
        "kernel {}: its {} parameters and {} loops leave too little of the {} bytes of CUDA kernel "
        "parameters for the shapes and strides of its arrays; use fewer parameters or loops",
        d.name, d.parameters.size(), d.program->loop_count, kUserKernelArgumentBytes));
  }
  return layout;
}

absl::StatusOr<std::string> UserKernelSource(const UserKernelDefinition& d) {
  absl::StatusOr<UserKernelLayout> layout = LayoutOf(d);
  if (!layout.ok()) return layout.status();
  const Counts c = CountsOf(d);
  const kernel::Program& program = *d.program;
  const bool reduction = d.kind == KernelKind::kReduction;

  // Slots of raw and scalar parameters, and the order of array parameters in dims.
  std::vector<int> raw_slot(d.parameters.size(), -1);
  std::vector<int> scalar_slot(d.parameters.size(), -1);
  std::vector<int> array_slot(d.parameters.size(), -1);
  {
    int raws = 0, scalars = 0, arrays = 0;
    for (size_t k = 0; k < d.parameters.size(); ++k) {
      const Parameter& p = d.parameters[k];
      if (p.raw) {
        raw_slot[k] = raws++;
      } else if (p.scalar) {
        scalar_slot[k] = scalars++;
      } else {
        array_slot[k] = arrays++;
      }
    }
  }
  Printer printer(d, raw_slot);

  std::string src(kDeviceMath);
  src += kSupport;
  src += fmt::format(
      "struct ah_args {{\n"
      "  long long n, k, ind_size, rank, red_rank, group, splits;\n"
      "  unsigned long long* error;\n"
      "  char* partials;\n"
      "  unsigned int* arrivals;\n"
      "  char* base[{0}];\n"
      "  long long raw_size[{1}], raw_rank[{1}], raw_at[{1}];\n"
      "  long long loop_first[{2}], loop_trips[{2}];\n"
      "  alignas(16) unsigned char scalar[{3}][16];\n"
      "  long long dims[{4}];\n"
      "}};\n"
      "static_assert(sizeof(ah_args) == {5}, \"the host's layout (LayoutOf)\");\n",
      std::max<size_t>(d.parameters.size(), 1), std::max(c.raws, 1),
      std::max(program.loop_count, 1), std::max(c.scalars, 1), layout->capacity, layout->size);

  // Raw access: bounds-checked, element k of the parameter's own C-order walk.
  for (size_t k = 0; k < d.parameters.size(); ++k) {
    const Parameter& p = d.parameters[k];
    if (!p.raw) continue;
    const int slot = raw_slot[k];
    const std::string address = fmt::format(
        "args.base[{0}] + ah_uk_walk(args.dims + args.raw_at[{1}], args.raw_rank[{1}], index)", k,
        slot);
    src += fmt::format(
        "__device__ __forceinline__ {0} ah_raw_get{1}(const ah_args& args, long long index) {{\n"
        "  if ((unsigned long long)index >= (unsigned long long)args.raw_size[{2}]) {{\n"
        "    ah_uk_fail(args.error, {1}, index, args.raw_size[{2}]);\n"
        "    return ah_uk_zero<{0}>();\n"
        "  }}\n"
        "  return {3};\n"
        "}}\n",
        WorkingType(p.dtype), k, slot, Load(p.dtype, address));
    if (p.output) {
      src += fmt::format(
          "__device__ __forceinline__ void ah_raw_set{0}(const ah_args& args, long long index, "
          "{1} value) {{\n"
          "  if ((unsigned long long)index >= (unsigned long long)args.raw_size[{2}]) {{\n"
          "    ah_uk_fail(args.error, {0}, index, args.raw_size[{2}]);\n"
          "    return;\n"
          "  }}\n"
          "  {3}"
          "}}\n",
          k, WorkingType(p.dtype), slot, StoreTo(p.dtype, address, "value"));
    }
  }

  // Preamble functions, renamed ah_fn<k> (their own names might be ours), each taking the
  // arguments for its loops' plans.
  for (size_t f = 0; f < program.functions.size(); ++f) {
    const kernel::Function& fn = program.functions[f];
    printer.SetLocals(&fn.locals);
    std::string params = "const ah_args& args";
    for (int k = 0; k < fn.parameter_count; ++k) {
      params += fmt::format(", {} l{}", WorkingType(fn.locals[static_cast<size_t>(k)].dtype), k);
    }
    std::string body;
    printer.PrintStmt(fn.body, 2, body);
    src += fmt::format("__device__ {0} ah_fn{1}({2}) {{\n{3}  return ah_uk_zero<{0}>();\n}}\n",
                       WorkingType(fn.result), f, params, body);
  }

  // Scalars and array inputs as values, read once per index (scalars once per thread).
  std::string scalars;
  for (size_t k = 0; k < d.parameters.size(); ++k) {
    const Parameter& p = d.parameters[k];
    if (scalar_slot[k] < 0) continue;
    scalars += fmt::format("  const {} p{} = {};\n", WorkingType(p.dtype), k,
                           Load(p.dtype, fmt::format("args.scalar[{}]", scalar_slot[k])));
  }
  std::string inputs;
  for (size_t k = 0; k < d.parameters.size(); ++k) {
    const Parameter& p = d.parameters[k];
    if (array_slot[k] < 0 || p.output) continue;
    inputs += fmt::format("    const {} p{} = {};\n", WorkingType(p.dtype), k,
                          Load(p.dtype, ParamAddress(static_cast<int>(k))));
  }

  const std::string header = fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({}) {}(const __grid_constant__ ah_args "
      "args) {{\n",
      kUserKernelThreads, kUserKernelEntry);

  if (!reduction) {
    // Grid-stride over the indices; each array's byte offset from i by its strides (rank 1,
    // the dense and the broadcast-free common case, without a division).
    std::string offsets = "    long long ";
    std::string walk_one;
    std::string walk;
    for (size_t k = 0, a = 0; k < d.parameters.size(); ++k) {
      if (array_slot[k] < 0) continue;
      offsets += fmt::format("{}off{} = 0", a ? ", " : "", k);
      walk_one += fmt::format("      off{} = i * args.dims[{}];\n", k, 1 + a);
      walk += fmt::format("        off{} += c * args.dims[args.rank * {} + d];\n", k, 1 + a);
      ++a;
    }
    offsets += c.arrays ? ";\n" : "";
    if (c.arrays == 0) offsets.clear();
    printer.SetLocals(&program.operation.locals);
    std::string body;
    printer.PrintStmt(program.operation.block, 4, body);
    src += header + scalars;
    src += fmt::format(
        "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < args.n;\n"
        "       i += (long long)gridDim.x * blockDim.x) {{\n"
        "{0}"
        "    if (args.rank == 1) {{\n{1}"
        "    }} else if (args.ind_size <= 0xffffffffll) {{  // 32-bit divisions: much cheaper\n"
        "      unsigned int rest = (unsigned int)i;\n"
        "      for (long long d = args.rank - 1; d >= 0; --d) {{\n"
        "        const unsigned int q = rest / (unsigned int)args.dims[d];\n"
        "        const long long c = rest - q * (unsigned int)args.dims[d];\n"
        "        rest = q;\n{2}"
        "      }}\n"
        "    }} else {{\n"
        "      long long rest = i;\n"
        "      for (long long d = args.rank - 1; d >= 0; --d) {{\n"
        "        const long long q = rest / args.dims[d];\n"
        "        const long long c = rest - q * args.dims[d];\n"
        "        rest = q;\n{2}"
        "      }}\n"
        "    }}\n"
        "{3}{4}"
        "  }}\n}}\n",
        offsets, walk_one, walk, inputs, body);
    if (!printer.status().ok()) return printer.status();
    return src;
  }

  // Reduction: see the kernel's comments.
  const std::string_view acc_type = WorkingType(d.reduce_type);
  printer.SetLocals(nullptr);
  src += fmt::format(
      "struct ah_acc {{ {0} value; bool has; }};\n"
      "static_assert(sizeof(ah_acc) <= 32, \"partial slots are 32 bytes\");\n"
      "__device__ __forceinline__ {0} ah_reduce(const ah_args& args, {0} l0, {0} l1) {{\n"
      "  return {1};\n}}\n"
      "__device__ __forceinline__ void ah_combine(const ah_args& args, ah_acc& a, const ah_acc& b) "
      "{{\n"
      "  if (!b.has) return;\n"
      "  a.value = a.has ? ah_reduce(args, a.value, b.value) : b.value;\n"
      "  a.has = true;\n}}\n",
      acc_type, printer.Print(program.reduce_expr));
  const std::string identity = program.has_identity ? printer.Print(program.identity)
                                                    : fmt::format("ah_uk_zero<{}>()", acc_type);

  // Per array parameter: its offset over the output dimensions (oo<k>) and, in the map, over
  // the reduced ones too (off<k>); the index i likewise (its strides come last).
  const int walks = c.arrays + 1;
  std::string out_offsets = "    long long oi = 0";
  std::string out_one = "      oi = j * args.dims[R * " + std::to_string(walks) + "];\n";
  std::string out_walk = "        oi += c * args.dims[R * " + std::to_string(walks) + " + d];\n";
  std::string red_offsets = "        long long i = oi";
  std::string red_one =
      "          i += r * args.dims[R * " + std::to_string(walks) + " + args.rank];\n";
  std::string red_walk =
      "            i += c * args.dims[R * " + std::to_string(walks) + " + args.rank + d];\n";
  std::string post_offsets;
  for (size_t k = 0, a = 0; k < d.parameters.size(); ++k) {
    if (array_slot[k] < 0) continue;
    ++a;
    out_offsets += fmt::format(", oo{} = 0", k);
    out_one += fmt::format("      oo{} = j * args.dims[R * {}];\n", k, a);
    out_walk += fmt::format("        oo{} += c * args.dims[R * {} + d];\n", k, a);
    if (d.parameters[k].output) {
      post_offsets += fmt::format("        const long long off{0} = oo{0};\n", k);
      continue;
    }
    red_offsets += fmt::format(", off{0} = oo{0}", k);
    red_one += fmt::format("          off{} += r * args.dims[R * {} + args.rank];\n", k, a);
    red_walk += fmt::format("            off{} += c * args.dims[R * {} + args.rank + d];\n", k, a);
  }
  const std::string map = printer.Print(program.map_expr);
  printer.SetLocals(&program.post_map.locals);
  std::string post_map;
  printer.PrintStmt(program.post_map.block, 8, post_map);
  if (!printer.status().ok()) return printer.status();

  src += header + scalars;
  src += fmt::format(
      R"(  // Blocks of {0} threads; `group` threads (a power of two) reduce one output, so a block
  // serves {0} / group outputs per pass, and `splits` blocks share each output (each its part
  // of the reduced elements; the last to finish combines their partial results). Blocks come
  // in runs of `splits`, one run per set of outputs, striding over the outputs.
  __shared__ ah_acc shared[{0}];
  const long long R = args.rank + args.red_rank;
  const long long group = args.group;
  const long long lane = threadIdx.x & (group - 1);
  const long long per_block = {0} / group;
  const long long split = blockIdx.x % args.splits;
  const long long runs = gridDim.x / args.splits;
  const long long chunk = (args.k + args.splits - 1) / args.splits;
  const long long r_begin = split * chunk;
  const long long r_end = min(args.k, r_begin + chunk);
  for (long long first = (long long)(blockIdx.x / args.splits) * per_block; first < args.n;
       first += runs * per_block) {{
    const long long j = first + threadIdx.x / group;
{1};
    ah_acc acc;
    acc.has = false;
    acc.value = ah_uk_zero<{2}>();
    if (j < args.n) {{
      if (args.rank == 1) {{
{3}      }} else if (args.ind_size <= 0xffffffffll) {{  // 32-bit divisions: much cheaper
        unsigned int rest = (unsigned int)j;
        for (long long d = args.rank - 1; d >= 0; --d) {{
          const unsigned int q = rest / (unsigned int)args.dims[d];
          const long long c = rest - q * (unsigned int)args.dims[d];
          rest = q;
{4}        }}
      }} else {{
        long long rest = j;
        for (long long d = args.rank - 1; d >= 0; --d) {{
          const long long q = rest / args.dims[d];
          const long long c = rest - q * args.dims[d];
          rest = q;
{4}        }}
      }}
      for (long long r = r_begin + lane; r < r_end; r += group) {{
{5};
        if (args.red_rank == 1) {{
{6}        }} else if (args.ind_size <= 0xffffffffll) {{
          unsigned int rest = (unsigned int)r;
          for (long long d = args.red_rank - 1; d >= 0; --d) {{
            const unsigned int q = rest / (unsigned int)args.dims[args.rank + d];
            const long long c = rest - q * (unsigned int)args.dims[args.rank + d];
            rest = q;
{7}          }}
        }} else {{
          long long rest = r;
          for (long long d = args.red_rank - 1; d >= 0; --d) {{
            const long long q = rest / args.dims[args.rank + d];
            const long long c = rest - q * args.dims[args.rank + d];
            rest = q;
{7}          }}
        }}
{8}        const {2} v = {9};
        acc.value = acc.has ? ah_reduce(args, acc.value, v) : v;
        acc.has = true;
      }}
    }}
    shared[threadIdx.x] = acc;
    __syncthreads();
    for (long long s = group / 2; s > 0; s /= 2) {{
      if (lane < s) ah_combine(args, shared[threadIdx.x], shared[threadIdx.x + s]);
      __syncthreads();
    }}
    if (lane == 0 && j < args.n) {{
      ah_acc total = shared[threadIdx.x];
      bool finish = args.splits == 1;
      if (!finish) {{
        char* slots = args.partials + 32 * j * args.splits;
        *reinterpret_cast<ah_acc*>(slots + 32 * split) = total;
        __threadfence();
        finish = atomicAdd(&args.arrivals[j], 1u) == (unsigned int)(args.splits - 1);
        if (finish) {{
          __threadfence();
          total.has = false;
          for (long long s = 0; s < args.splits; ++s) {{
            union {{ ah_acc acc; unsigned long long words[4]; }} part;
            for (int w = 0; w < 4; ++w) {{
              part.words[w] = __ldcg(reinterpret_cast<const unsigned long long*>(slots + 32 * s) + w);
            }}
            ah_combine(args, total, part.acc);
          }}
        }}
      }}
      if (finish) {{
        const {2} l0 = total.has ? total.value : {10};
{11}{12}      }}
    }}
    __syncthreads();
  }}
}}
)",
      kUserKernelThreads, out_offsets, acc_type, out_one, out_walk, red_offsets, red_one, red_walk,
      inputs, map, identity, post_offsets, post_map);
  return src;
}

}  // namespace arrayhub
