// The checked tree of a user kernel: what CheckKernel produces and what every backend runs (the
// host evaluator interprets it, the CUDA backend prints it as CUDA C). Plain tagged structs, no
// visitors: a backend switches on `kind`.
//
// Everything is resolved: every expression carries its DType, and the checker has made every
// conversion explicit, so a backend never applies C's conversion rules itself:
// - the operands of a binary operator have the operator's operand type (kCast nodes inserted,
//   `implicit` set), except the shifts, whose right operand keeps its own (promoted) type;
// - comparisons and && || ! give bool; && || ?: evaluate their right/branch operands only
//   where C would (short circuit), which matters for raw reads that may be out of range;
// - a function's arguments, a return's value, an assignment's value and a declaration's
//   initialiser already have the type of what receives them;
// - compound assignments and ++/-- are rewritten as plain assignments: `x += v` is
//   `x = (T)(x + v)` (the target's index, for raw targets, is a copy of the expression, free of
//   side effects as every expression is).
// Expressions have no side effects: assignment is a statement, never a value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/common/dtype.h"

namespace arrayhub::kernel {

// Which of the kernel's source strings a position is in; messages print PartName.
enum class Part : uint8_t {
  kInParams,
  kOutParams,
  kOperation,
  kMapExpr,
  kReduceExpr,
  kPostMapExpr,
  kIdentity,
  kReduceType,
  kPreamble,
  kName,
};
// "in_params", "out_params", "operation", "map_expr", "reduce_expr", "post_map_expr",
// "identity", "reduce_type", "preamble", "name".
std::string_view PartName(Part part);

// 1-based line and column (in bytes) in one part's source.
struct SourcePos {
  Part part = Part::kOperation;
  int line = 1;
  int column = 1;
};

enum class UnaryOp : uint8_t {
  kNegate,      // -x (integers wrap)
  kLogicalNot,  // !x, operand bool
  kBitNot,      // ~x, integers only
};

enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,  // Integers: truncates toward zero; x / 0 is 0; INT_MIN / -1 wraps to INT_MIN.
  kMod,  // Integers only (C's %): sign of the dividend; x % 0 is 0; INT_MIN % -1 is 0.
  kShl,  // Integers: the count is masked to the left operand's width (count & (bits - 1)).
  kShr,  // Signed: arithmetic shift. Masked as kShl.
  kBitAnd,
  kBitOr,
  kBitXor,
  kLess,  // Comparisons give bool. Complex: only kEqual and kNotEqual.
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kEqual,
  kNotEqual,
  kLogicalAnd,  // bool operands; the right one runs only where the left is true.
  kLogicalOr,   // bool operands; the right one runs only where the left is false.
};

// The whitelisted math functions (CUDA's math library, as NumPy's ufuncs use them). Argument
// and result types are resolved by the checker (math_functions.h lists each one's rule);
// the call's operands already have the argument types.
enum class MathFn : uint8_t {
  // One real argument, same-type result; float16 computes in float32 and gives float32 (as
  // CuPy's float16 converts to float for the math library); integers compute in float64.
  kSqrt,
  kCbrt,
  kExp,
  kExp2,
  kExpm1,
  kLog,
  kLog2,
  kLog10,
  kLog1p,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kTanh,
  kAsinh,
  kAcosh,
  kAtanh,
  kErf,
  kErfc,
  kLgamma,
  kTgamma,
  kFloor,
  kCeil,
  kTrunc,
  kRound,  // Half away from zero (C's round).
  kRint,   // Half to even.
  kFabs,
  kRsqrt,  // 1 / sqrt(x)
  // Two real arguments of one type.
  kPow,
  kFmod,
  kHypot,
  kAtan2,
  kCopysign,
  kFmin,  // NaN-ignoring, as C's fmin.
  kFmax,
  // One real argument, bool result.
  kIsnan,
  kIsinf,
  kIsfinite,
  kSignbit,
  // Any arithmetic type (min, max: two operands of one type, C's usual conversions; floats
  // behave as fmin/fmax). abs: integers keep their promoted type (abs(INT_MIN) wraps),
  // floats their type, complex gives its real type.
  kMin,
  kMax,
  kAbs,
  // Complex helpers: real(z), imag(z) give the real type; conj(z) the complex type.
  kReal,
  kImag,
  kConj,
};
std::string_view MathFnName(MathFn fn);

struct Expr {
  enum class Kind : uint8_t {
    kLiteral,      // int_value (integers and bool, two's complement bits) or float_value.
    kLocal,        // index: a local of the enclosing Body or Function.
    kParam,        // index: a non-raw parameter: element i of an array input or output, or a
                   // scalar input's value.
    kIndex,        // The elementwise index i (int64): the C-order flat index into the shape.
    kIndSize,      // _ind.size() (int64): the number of indices of the call's shape.
    kRawSize,      // index: x.size() (int64) of raw parameter `index`.
    kRawLoad,      // index: x[operands[0]] of raw parameter `index`; operands[0] is int64.
                   // An index outside [0, size) fails the call (backends check).
    kCast,         // (dtype)operands[0]; `implicit` when the checker inserted it. Rules as
                   // NumPy's astype: floats to integers truncate, NaN and out-of-range give 0;
                   // complex to real drops the imaginary part; nonzero to bool is true.
    kUnary,        // unary operands[0]; dtype is the operand's (bool for kLogicalNot).
    kBinary,       // operands[0] binary operands[1].
    kConditional,  // operands[0] (bool) ? operands[1] : operands[2]; both branches of dtype.
    kCall,         // index: Program::functions[index] (defined earlier), with operands as its
                   // arguments (already of the parameters' types).
    kMath,         // math(operands...).
  };
  Kind kind = Kind::kLiteral;
  DType dtype = DType::kInt32;
  SourcePos pos;
  uint64_t int_value = 0;  // kLiteral of bool or an integer dtype.
  double float_value = 0;  // kLiteral of a floating dtype (never complex: no complex literals).
  int index = 0;
  bool implicit = false;  // kCast.
  UnaryOp unary = UnaryOp::kNegate;
  BinaryOp binary = BinaryOp::kAdd;
  MathFn math = MathFn::kSqrt;
  std::vector<Expr> operands;
};

// A local variable of a Body or Function, numbered by its place in `locals`. Every declaration
// makes a new one (names never shadow: a redeclaration is refused), so a number names one
// variable for the whole body. A local declared without an initialiser starts at zero.
struct Local {
  std::string name;
  DType dtype = DType::kInt32;
  bool is_const = false;
  SourcePos pos;
};

struct Stmt {
  enum class Kind : uint8_t {
    kBlock,     // body, in order; a scope (a declaration's locals are its enclosing block's).
    kDeclare,   // local = index; value: the initialiser (operands[0]) when has_value.
    kAssign,    // target = value (see Target).
    kIf,        // operands[0] (bool); body[0] then; body[1] else when present.
    kFor,       // See below.
    kBreak,     // Leaves the innermost kFor.
    kContinue,  // Next iteration of the innermost kFor.
    kReturn,    // Functions only: operands[0], of the function's result type.
  };
  enum class Target : uint8_t {
    kLocal,   // index: a local (not const, not a loop variable).
    kOutput,  // index: a non-raw output parameter: its element i.
    kRaw,     // index: a raw output parameter, element operands[0] (int64, range-checked).
  };
  // kFor: `for (T v = init; v CMP bound; v += step) body[0]`, where local = index is v (an
  // integer dtype), operands[0] the init (of v's dtype) and operands[1] the bound (an integer
  // expression), both invariant: literals, scalar parameters, raw sizes, and casts,
  // operators and min/max/abs of those, so they are the same for every index of a call.
  // compare is the comparison and step a nonzero constant (++v is +1, --v is -1, v -= c is
  // -c). The body never assigns v. The trip count is exact arithmetic, not C's: the loop runs
  // for v = init, init + step, ... while the comparison holds in mathematical integers AND v
  // is a value of v's dtype, so no loop wraps around and none is unbounded. A backend does
  // not evaluate init and bound itself: PlanLoops (loop_bounds.h) gives every loop's first
  // value and trip count for a call's scalars and sizes.
  enum class Compare : uint8_t { kLess, kLessEqual, kGreater, kGreaterEqual, kNotEqual };

  Kind kind = Kind::kBlock;
  SourcePos pos;
  int index = 0;
  int loop = 0;            // kFor: its number in Program::loop_count (LoopPlans in loop_bounds.h).
  bool has_value = false;  // kDeclare.
  Target target = Target::kLocal;
  Compare compare = Compare::kLess;
  int64_t step = 1;
  // kAssign: operands = {value} for kLocal and kOutput, {raw index, value} for kRaw.
  std::vector<Expr> operands;
  std::vector<Stmt> body;
};

// A preamble function: `__device__ [inline] R name(P1 a, P2 b) { ... }`. Its parameters are
// its locals 0 .. parameter_count - 1 (assignable copies, as in C). A call that runs off the
// end without a return gives the result type's zero.
struct Function {
  std::string name;
  DType result = DType::kFloat32;
  int parameter_count = 0;
  std::vector<Local> locals;
  Stmt body;  // kBlock.
  SourcePos pos;
};

// Statements with their locals: the elementwise operation, the reduction's post_map_expr.
struct Body {
  std::vector<Local> locals;
  Stmt block;  // kBlock.
};

struct Program {
  std::vector<Function> functions;  // Preamble order; a call only names an earlier function.
  int loop_count = 0;               // The kFor statements of all parts and functions.

  // Elementwise: runs for every index i.
  Body operation;

  // Reduction (CheckedKernel::reduce_type() is the type R of a and b):
  Expr map_expr;     // Of dtype R; may read inputs, i, raw elements and sizes.
  Expr reduce_expr;  // Of dtype R; kLocal 0 is a, kLocal 1 is b (both R); nothing else.
  // Local 0 is a (R, const); assigns the (non-raw) outputs; may read scalar inputs.
  Body post_map;
  bool has_identity = false;
  Expr identity;  // When has_identity: a constant expression of dtype R.
};

}  // namespace arrayhub::kernel
