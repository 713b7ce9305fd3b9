// The kernel language: every construct the grammar has, and every refusal with its exact
// message (docs/user-kernels.md).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "server/kernel/checked_kernel.h"
#include "server/kernel/limits.h"
#include "server/kernel/loop_bounds.h"
#include "server/kernel/program.h"
#include "tests/kernel/kernel_test_util.h"

namespace arrayhub::kernel {
namespace {

using testing::Array;
using testing::Elementwise;
using testing::Reduction;
using testing::ScalarArg;

constexpr DType kF32 = DType::kFloat32;
constexpr DType kF64 = DType::kFloat64;
constexpr DType kI32 = DType::kInt32;
constexpr DType kI64 = DType::kInt64;

// The error message of checking `source` ("" when it is accepted).
std::string Refusal(const KernelSource& source, const ArgumentTypes& types) {
  auto checked = CheckKernel(source, types);
  if (checked.ok()) return "";
  EXPECT_EQ(checked.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(checked.status().message());
}

// The usual frame of an operation under test: an array, a raw array and a scalar in; an
// array and a raw array out.
const ArgumentTypes kFrameTypes{{Array(kF32), Array(kF32), ScalarArg(kI64)},
                                {std::nullopt, std::nullopt}};
KernelSource Frame(const std::string& operation, const std::string& preamble = "") {
  return Elementwise("float32 x, raw float32 r, int32 n", "float32 y, raw float32 w", operation,
                     preamble);
}
std::string RefusalOf(const std::string& operation, const std::string& preamble = "") {
  return Refusal(Frame(operation, preamble), kFrameTypes);
}

std::shared_ptr<const CheckedKernel> Accept(const KernelSource& source,
                                            const ArgumentTypes& types) {
  auto checked = CheckKernel(source, types);
  EXPECT_TRUE(checked.ok()) << checked.status() << "\n" << source.operation;
  return checked.ok() ? *checked : nullptr;
}

const Program& ProgramOf(const std::shared_ptr<const CheckedKernel>& kernel) {
  static const Program kEmpty;
  return kernel == nullptr ? kEmpty : kernel->program();
}

TEST(KernelLangTest, CupyExamplesCheck) {
  auto var = Accept(testing::KmeansVar(),
                    {{Array(kF64), Array(kF64), Array(kF64), Array(kF64)}, {std::nullopt}});
  ASSERT_NE(var, nullptr);
  EXPECT_EQ(var->parameters()[4].dtype, kF64);
  auto sum = Accept(testing::KmeansSum(), {{Array(kF32), Array(DType::kBool)}, {std::nullopt}});
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->reduce_type(), kF32);
  auto count = Accept(testing::KmeansCount(), {{Array(DType::kBool)}, {std::nullopt}});
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->reduce_type(), kF32);
  // black_scholes passes r and v as Python floats: T comes from the arrays.
  auto bs = Accept(testing::BlackScholes(),
                   {{Array(kF32), Array(kF32), Array(kF32), ScalarArg(kF64), ScalarArg(kF64)},
                    {std::nullopt, std::nullopt}});
  ASSERT_NE(bs, nullptr);
  EXPECT_EQ(bs->parameters()[3].dtype, kF32);
  EXPECT_TRUE(bs->parameters()[3].scalar);
  ASSERT_EQ(bs->program().functions.size(), 1u);
  EXPECT_EQ(bs->program().functions[0].result, kF32);
}

// Every construct of the grammar is accepted (its evaluation: host_user_kernel_test.cc).
TEST(KernelLangTest, EveryConstructChecks) {
  const std::vector<std::string> operations = {
      "y = x",
      "y = x;",
      "y = 1 + 2u + 3l + 4ul + 5ll + 0x10 + 017 + 1.5 + 2.5f + 1e3 + .5 + true + false",
      "float32 a = x, b; b = a * 2; y = b",
      "const float64 c = 2; y = c",
      "double d = x; float f = d; int k = 3; unsigned u = 4u; long long q = 5; short s = 1;"
      " unsigned char uc = 2; signed char sc = 3; char ch = 4; size_t z = 5; ptrdiff_t p = 6;"
      " half h = 1; float16 g = 2; complex<float> cf = x; complex<double> cd = cf;"
      " thrust::complex<double> td = cd; bool o = true; unsigned long long ull = 7;"
      " long int li = 8; y = x",
      "type_x a = x; y = a",
      "y = x; y += 1; y -= 1; y *= 2; y /= 2",
      "int k = 7; k %= 3; k &= 1; k |= 2; k ^= 1; k <<= 2; k >>= 1; ++k; k++; --k; k--; y = k",
      "y = -x + +x - !x + (x < 1) + (x <= 1) + (x > 1) + (x >= 1) + (x == 1) + (x != 1)",
      "int k = n; y = (k & 1) | (k ^ 2) | ~k | (k << 1) | (k >> 1) | (k % 3)",
      "y = x > 0 && n > 0 || !(x < 0) ? 1 : 0",
      "y = (float64)x + static_cast<int>(x) + float32(n) + type_x(1)",
      "if (x > 0) y = 1; else if (x < 0) y = -1; else { y = 0; }",
      "float32 s = 0; for (int k = 0; k < 10; ++k) { if (k == 2) continue; if (k == 8) break;"
      " s += k; } y = s",
      "for (int k = 9; k >= 0; --k) { } for (int k = 0; k <= n; k++) { }"
      " for (long k = 10; k > 0; k -= 2) { } for (unsigned k = 0; k != 8; k += 2) { }"
      " for (int k = -n; k < r.size() - 1; k += 3) { } y = x",
      "for (int a = 0; a < 2; ++a) for (int b = 0; b < 3; ++b) y += a * b",
      "y = r[i % r.size()] + r[0] + _ind.size() + i; w[i] = x; w[0] += 1",
      "y = sqrt(x) + sqrtf(x) + exp(x) + log(x) + sin(x) + cos(x) + tan(x) + pow(x, 2) +"
      " fmod(x, 2) + floor(x) + ceil(x) + fabs(x) + erf(x) + erfc(x) + lgamma(x) + tgamma(x) +"
      " hypot(x, 1) + atan2(x, 1) + copysign(x, -1) + isnan(x) + isinf(x) + isfinite(x) +"
      " signbit(x) + min(x, 1) + max(n, 2) + abs(x) + abs(n) + expf(x) + powf(x, 2) + rsqrt(x) +"
      " cbrt(x) + log1p(x) + expm1(x) + exp2(x) + log2(x) + log10(x) + asin(x) + acos(x) +"
      " atan(x) + sinh(x) + cosh(x) + tanh(x) + asinh(x) + acosh(x) + atanh(x) + trunc(x) +"
      " round(x) + rint(x) + fmin(x, 1) + fmax(x, 1)",
      "complex<double> z = x; z = z * z + sqrt(z); y = real(z) + imag(conj(z)) + abs(z)",
      "/* comment */ y = x; // trailing comment",
      ";;{ } y = x",
  };
  for (const std::string& operation : operations) Accept(Frame(operation), kFrameTypes);
  // Preamble functions: qualifiers, const references, early returns, falling off the end,
  // calls of earlier functions.
  Accept(Frame("y = f(x) + g(n)", R"(
      __device__ inline float32 f(const float32& v) { if (v > 0) return v; return -v; }
      static __device__ __forceinline__ int h(int k) { for (int j = 0; j < 3; ++j) k += j; }
      __device__ float64 g(int k) { int m = h(k); return f(m) * 2; })"),
         kFrameTypes);
  // Reductions: reduce_type, identity, _in_ind.size(), several statements in post_map_expr.
  KernelSource mean = Reduction("T x", "T m, T s", "x * x", "a + b", "m = a / 2; s = sqrt(a)", "0");
  mean.reduce_type = "float64";
  auto checked = Accept(mean, {{Array(kF32)}, {std::nullopt, std::nullopt}});
  ASSERT_NE(checked, nullptr);
  EXPECT_EQ(checked->reduce_type(), kF64);
  Accept(Reduction("T x", "T m", "x + _in_ind.size() + i", "max(a, b)", "m = a", ""),
         {{Array(kI32)}, {std::nullopt}});
}

TEST(KernelLangTest, TreeIsResolved) {
  auto kernel = Accept(Frame("int k = 2; k += x; y = k << 40"), kFrameTypes);
  const Program& program = ProgramOf(kernel);
  ASSERT_EQ(program.operation.block.body.size(), 3u);
  // k += x is k = (int32)((float32)k + x).
  const Stmt& compound = program.operation.block.body[1];
  EXPECT_EQ(compound.kind, Stmt::Kind::kAssign);
  const Expr& value = compound.operands[0];
  EXPECT_EQ(value.kind, Expr::Kind::kCast);
  EXPECT_FALSE(value.implicit);
  EXPECT_EQ(value.dtype, kI32);
  EXPECT_EQ(value.operands[0].binary, BinaryOp::kAdd);
  EXPECT_EQ(value.operands[0].dtype, kF32);
  EXPECT_EQ(value.operands[0].operands[0].kind, Expr::Kind::kCast);
  EXPECT_TRUE(value.operands[0].operands[0].implicit);
  // A shift has its left operand's promoted type, whatever its count's.
  const Expr& shift = program.operation.block.body[2].operands[0].operands[0];
  EXPECT_EQ(shift.binary, BinaryOp::kShl);
  EXPECT_EQ(shift.dtype, kI32);
  EXPECT_EQ(program.operation.locals.size(), 1u);
  EXPECT_EQ(program.operation.locals[0].name, "k");
}

TEST(KernelLangTest, DeclarationsBelongToTheirBlock) {
  // int a = 1, b; declares both in the enclosing block: no block of their own hides them.
  auto kernel = Accept(Frame("int a = 1, b; b = a; y = b"), kFrameTypes);
  const Stmt& block = ProgramOf(kernel).operation.block;
  ASSERT_EQ(block.body.size(), 4u);
  EXPECT_EQ(block.body[0].kind, Stmt::Kind::kDeclare);
  EXPECT_TRUE(block.body[0].has_value);
  EXPECT_EQ(block.body[1].kind, Stmt::Kind::kDeclare);
  EXPECT_FALSE(block.body[1].has_value);
  // An if branch that declares several is a scope of its own, as in C++.
  kernel = Accept(Frame("if (x > 0) int a = 1, b = 2; y = x"), kFrameTypes);
  const Stmt& branch = ProgramOf(kernel).operation.block.body[0].body[0];
  EXPECT_EQ(branch.kind, Stmt::Kind::kBlock);
  EXPECT_EQ(branch.body.size(), 2u);
}

TEST(KernelLangTest, UsualArithmeticConversions) {
  const std::vector<std::pair<std::string, DType>> cases = {
      {"int8(1) + int8(1)", kI32},
      {"uint32(1) + int32(1)", DType::kUInt32},
      {"int64(1) + uint32(1)", kI64},
      {"uint64(1) + int64(1)", DType::kUInt64},
      {"float16(1) + int64(1)", DType::kFloat16},
      {"x + 1.0", kF64},
      {"x + 1.0f", kF32},
      {"complex<float>(x) + 1.0", DType::kComplex128},
      {"complex<float>(x) + 1", DType::kComplex64},
      {"sqrt(n)", kF64},
      {"sqrt(float16(1))", kF32},
      {"abs(int8(1))", kI32},
      {"abs(complex<double>(x))", kF64},
      {"x < 1", DType::kBool},
  };
  for (const auto& [expression, dtype] : cases) {
    KernelSource source = Elementwise("float32 x, int32 n", "T y", "y = " + expression);
    auto kernel = Accept(source, {{Array(kF32), Array(kI32)}, {dtype}});
    if (kernel == nullptr) continue;
    const Expr& value = kernel->program().operation.block.body[0].operands[0];
    EXPECT_EQ(value.dtype, dtype) << expression;
  }
}

TEST(KernelLangTest, OperationRefusals) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"y = *x;", "operation:1:5: pointers are not supported (unary * dereferences)"},
      {"y = &x;", "operation:1:5: the address-of operator & is not supported"},
      {"y = x->a;", "operation:1:6: pointers are not supported ('->')"},
      {"float32* p;", "operation:1:8: pointers are not supported"},
      {"float32 a[4];", "operation:1:10: arrays are not supported"},
      {"float32& q = x;", "operation:1:8: references are not supported"},
      {"while (true) { }",
       "operation:1:1: while loops are not supported: use a for loop with a bound"},
      {"do { } while (false);",
       "operation:1:1: do loops are not supported: use a for loop with a bound"},
      {"for (;;) { }",
       "operation:1:6: for loops need the form for (int k = start; k < bound; ++k) with start "
       "and bound invariant: declare the loop variable"},
      {"for (int k = 0; k < 10; k *= 2) { }",
       "operation:1:25: for loops need the form for (int k = start; k < bound; ++k) with start "
       "and bound invariant: the step is ++k, k++, --k, k--, k += c or k -= c"},
      {"for (int k = 0; 10 > k; ++k) { }",
       "operation:1:17: for loops need the form for (int k = start; k < bound; ++k) with start "
       "and bound invariant: the condition compares 'k' with a bound"},
      {"for (int k = 0; k < x; ++k) { }",
       "operation:1:21: the loop's bound must be an integer, not float32"},
      {"for (int k = 0; k < 10; ++k) { k = 3; }",
       "operation:1:32: cannot assign to loop variable 'k'"},
      {"for (int k = 0; k < i; ++k) { }",
       "operation:1:21: the loop's bound must be invariant: literals, scalar parameters, "
       "x.size() and arithmetic of those"},
      {"int m = 3; for (int k = 0; k < m; ++k) { }",
       "operation:1:32: the loop's bound must be invariant: literals, scalar parameters, "
       "x.size() and arithmetic of those"},
      {"for (int k = x; k < 10; ++k) { }",
       "operation:1:14: the loop's start must be invariant: literals, scalar parameters, "
       "x.size() and arithmetic of those"},
      {"for (float32 k = 0; k < 10; ++k) { }",
       "operation:1:6: the loop variable must be an integer, not float32"},
      {"goto end;", "operation:1:1: goto is not supported"},
      {"switch (n) { }", "operation:1:1: switch is not supported: use if and else"},
      {"y = system(x);", "operation:1:5: unknown function 'system'"},
      {"y = f(x);", "operation:1:5: unknown function 'f'"},
      {"y = __syncthreads();",
       "operation:1:5: '__syncthreads': identifiers starting with __ are reserved"},
      {"y = __ldg(x);", "operation:1:5: '__ldg': identifiers starting with __ are reserved"},
      {"x = 1;", "operation:1:1: cannot assign to input parameter 'x'"},
      {"r[0] = 1;", "operation:1:1: cannot assign to input parameter 'r'"},
      {"y = r;", "operation:1:5: raw parameter 'r' is used only as r[k] or r.size()"},
      {"y = r[1.5];", "operation:1:7: the index of 'r' is float64, not an integer"},
      {"y = x[0];", "operation:1:6: only raw parameters can be indexed"},
      {"y = \"s\";", "operation:1:5: string literals are not supported"},
      {"y = 'c';", "operation:1:5: character literals are not supported"},
      {"#include <stdio.h>", "operation:1:1: preprocessor directives are not supported"},
      {"y = q;", "operation:1:5: use of undeclared identifier 'q'"},
      {"return;", "operation:1:1: return is only allowed in preamble functions, not in operation"},
      {"break;", "operation:1:1: break outside a loop"},
      {"y = x = 1;", "operation:1:7: chained assignments are not supported"},
      {"y = x++;", "operation:1:6: ++ is a statement here, not part of an expression"},
      {"y = 1 + ++x;", "operation:1:9: ++ is a statement here, not part of an expression"},
      {"x + 1;",
       "operation:1:1: expected a statement: a declaration, an assignment, ++ or --, if, for, "
       "break, continue or a block"},
      {"const float32 c;", "operation:1:15: const 'c' needs an initialiser"},
      {"const float32 c = 1; c = 2;", "operation:1:22: cannot assign to const 'c'"},
      {"int i = 0;", "operation:1:5: 'i' is reserved"},
      {"float32 x = 1;", "operation:1:9: 'x' is a parameter"},
      {"int k = 0; int k = 1;", "operation:1:16: redeclaration of 'k'"},
      {"int k = 0; { int k = 1; }", "operation:1:18: redeclaration of 'k'"},
      {"int float32 = 0;", "operation:1:5: 'float32' names a type"},
      {"y = x % 2;",
       "operation:1:7: invalid operands to % (float32 and int32): % takes integers; use fmod"},
      {"y = x << 1;",
       "operation:1:7: invalid operands to << (float32 and int32): shifts take "
       "integers"},
      {"y = ~x;", "operation:1:5: invalid operand to ~ (float32): ~ takes integers"},
      {"complex<float> z = x; y = z < z;",
       "operation:1:29: invalid operands to < (complex64 and complex64): complex numbers are "
       "not ordered"},
      {"complex<float> z = x; y = z;",
       "operation:1:27: cannot convert complex64 to float32 implicitly; use real() or a cast"},
      {"complex<float> z = x; if (z) y = 1;",
       "operation:1:27: a complex64 value cannot be a condition"},
      {"y = floor(complex<float>(x));",
       "operation:1:5: 'floor' does not take complex arguments (complex64)"},
      {"y = real(x);", "operation:1:5: 'real' takes a complex argument, not float32"},
      {"y = sqrt(1, 2);", "operation:1:5: 'sqrt' takes 1 argument, 2 given"},
      {"y = static_cast<float64*>(x);", "operation:1:24: expected '>' of static_cast, found '*'"},
      {"y = reinterpret_cast<int>(x);", "operation:1:5: reinterpret_cast is not supported"},
      {"y = sizeof(x);", "operation:1:5: sizeof is not supported"},
      {"y = (complex<int>)x;",
       "operation:1:14: complex<int32> is not supported: use complex<float> or complex<double>"},
      {"long double d = 1;", "operation:1:1: long double is not supported"},
      {"{ y = x;", "operation:1:1: unterminated block: expected '}'"},
      {"y = 1 ? 2;", "operation:1:10: expected ':' of the conditional operator, found ';'"},
      {"y = 99999999999999999999;", "operation:1:5: integer literal is too large"},
      {"y = 9223372036854775808;",
       "operation:1:5: integer literal is too large for long long; add a u suffix"},
      {"y = 1x;", "operation:1:5: invalid suffix 'x' on integer literal"},
      {"y = 1.0q;", "operation:1:5: invalid suffix 'q' on floating literal"},
      {"y = x /* open", "operation:1:7: unterminated comment"},
      {"y = x @ 2;", "operation:1:7: unexpected character '@'"},
      {"y = x,\n  x;", "operation:1:6: the comma operator is not supported"},
      {"y = x;\n  y = ;", "operation:2:7: expected an expression, found ';'"},
  };
  for (const auto& [operation, message] : cases) {
    EXPECT_EQ(RefusalOf(operation), message) << operation;
  }
}

TEST(KernelLangTest, PreambleRefusals) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"__device__ float32 f(float32 v) { return f(v); }",
       "preamble:1:42: function 'f' calls itself: recursion is not supported"},
      {"__device__ float32 f(float32 v) { return g(v); }\n"
       "__device__ float32 g(float32 v) { return v; }",
       "preamble:1:42: unknown function 'g'"},
      {"float32 f(float32 v) { return v; }",
       "preamble:1:1: the preamble defines only __device__ functions: expected __device__"},
      {"__device__ void f(float32 v) { }",
       "preamble:1:12: functions must return a value: void is not supported"},
      {"__device__ float32 f(float32* v) { return 0; }",
       "preamble:1:29: pointers are not supported"},
      {"__device__ float32 f(float32& v) { return v; }",
       "preamble:1:29: reference parameters are not supported (const references are)"},
      {"template <typename U> __device__ U f(U v) { return v; }",
       "preamble:1:1: templates are not supported"},
      {"__device__ float32 f(float32 v) { y = v; return v; }",
       "preamble:1:35: parameter 'y' is not available in preamble"},
      {"__device__ float32 f(float32 v) { return r[0]; }",
       "preamble:1:42: parameter 'r' is not available in preamble"},
      {"__device__ float32 f(float32 v) { return; }", "preamble:1:35: 'f' must return a value"},
      {"__device__ float32 sqrt(float32 v) { return v; }",
       "preamble:1:20: 'sqrt' is a math function"},
      {"__device__ float32 f(float32 v) { return v; }\n__device__ float32 f(float32 v) { return v; "
       "}",
       "preamble:2:20: 'f' is a function"},
      {"#define N 3", "preamble:1:1: preprocessor directives are not supported"},
      {"struct S { int a; };",
       "preamble:1:1: struct is not supported: the preamble defines only __device__ functions"},
      {"__device__ float32 f(float32 v);",
       "preamble:1:32: function declarations without a body are not supported"},
  };
  for (const auto& [preamble, message] : cases) {
    EXPECT_EQ(RefusalOf("y = x", preamble), message) << preamble;
  }
  EXPECT_EQ(RefusalOf("y = f(x, x)", "__device__ float32 f(float32 v) { return v; }"),
            "operation:1:5: function 'f' takes 1 argument, 2 given");
  EXPECT_EQ(RefusalOf("y = f", "__device__ float32 f(float32 v) { return v; }"),
            "operation:1:5: function 'f' is not called");
}

TEST(KernelLangTest, ParameterRefusals) {
  struct Case {
    std::string in, out;
    ArgumentTypes types;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"T x, T y",
       "T z",
       {{Array(kF32), Array(kF64)}, {std::nullopt}},
       "in_params:1:8: type is mismatched: 'y' is float64, but T is float32 (from 'x')"},
      {"T x",
       "T z, S w",
       {{Array(kF32)}, {std::nullopt, std::nullopt}},
       "out_params:1:6: cannot determine the type of output 'w': no argument binds S; pass out="},
      {"T x",
       "T z",
       {{Array(kF32)}, {kF64}},
       "out_params:1:3: type is mismatched: 'z' is float64, but T is float32 (from 'x')"},
      {"T x",
       "float32 z",
       {{Array(kF32)}, {kF64}},
       "out_params:1:9: type is mismatched: out= for 'z' is float64, not float32"},
      {"float32 x",
       "T z",
       {{Array(kF64)}, {std::nullopt}},
       "in_params:1:9: type is mismatched: 'x' is float64, which does not cast safely to "
       "float32"},
      {"raw T x",
       "T z",
       {{ScalarArg(kF32)}, {std::nullopt}},
       "in_params:1:7: raw parameter 'x' needs an array, not a scalar"},
      {"T x, T x",
       "T z",
       {{Array(kF32), Array(kF32)}, {std::nullopt}},
       "in_params:1:8: duplicate parameter name 'x'"},
      {"T i",
       "T z",
       {{Array(kF32)}, {std::nullopt}},
       "in_params:1:3: parameter name 'i' is reserved"},
      {"T _x",
       "T z",
       {{Array(kF32)}, {std::nullopt}},
       "in_params:1:3: parameter name '_x' is reserved"},
      {"int x",
       "T z",
       {{Array(kF32)}, {std::nullopt}},
       "in_params:1:1: 'int' is not a dtype name here: write a NumPy dtype name (int32, "
       "float32, float64, ...) or a placeholder"},
      {"T x",
       "T z",
       {{Array(kF32), Array(kF32)}, {std::nullopt}},
       "in_params:1:1: wrong number of arguments: 1 input parameter, 2 arguments given"},
      {"T x y",
       "T z",
       {{Array(kF32)}, {std::nullopt}},
       "in_params:1:5: expected ',' or the end, found 'y'"},
      {"T* x", "T z", {{Array(kF32)}, {std::nullopt}}, "in_params:1:2: pointers are not supported"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Refusal(Elementwise(c.in, c.out, "z = 0"), c.types), c.message) << c.in;
  }
  // Placeholders: arrays first, then scalars (which take the arrays' type), then out=.
  auto kernel = Accept(Elementwise("T s, T x", "T z, U w", "z = s + x; w = x"),
                       {{ScalarArg(kF64), Array(kF32)}, {std::nullopt, kI64}});
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->parameters()[0].dtype, kF32);
  EXPECT_EQ(kernel->parameters()[3].dtype, kI64);
  // A scalar alone binds its placeholder; a fixed type takes any scalar.
  kernel = Accept(Elementwise("T s, float32 f", "T z", "z = s + f"),
                  {{ScalarArg(kI64), ScalarArg(kF64)}, {std::nullopt}});
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->parameters()[2].dtype, kI64);
  EXPECT_EQ(Refusal(Elementwise("T x", "T z", "z = x"), {{Array(kF32)}, {std::nullopt}}), "");
  KernelSource bad_name = Elementwise("T x", "T z", "z = x");
  bad_name.name = "my kernel";
  EXPECT_EQ(Refusal(bad_name, {{Array(kF32)}, {std::nullopt}}),
            "name:1:1: kernel name 'my kernel' is not an identifier");
}

TEST(KernelLangTest, ReductionRefusals) {
  const ArgumentTypes types{{Array(kF32)}, {std::nullopt}};
  EXPECT_EQ(Refusal(Reduction("T x", "T z", "y", "a + b", "z = a", "0"), types),
            "map_expr:1:1: use of undeclared identifier 'y'");
  EXPECT_EQ(Refusal(Reduction("T x", "T z", "z", "a + b", "z = a", "0"), types),
            "map_expr:1:1: parameter 'z' is not available in map_expr");
  EXPECT_EQ(Refusal(Reduction("T x", "T z", "x", "a + x", "z = a", "0"), types),
            "reduce_expr:1:5: parameter 'x' is not available in reduce_expr");
  EXPECT_EQ(Refusal(Reduction("T x", "T z", "x", "a + b", "z = x", "0"), types),
            "post_map_expr:1:5: parameter 'x' is not available in post_map_expr");
  EXPECT_EQ(Refusal(Reduction("T x", "T z", "x", "a + b", "z = i", "0"), types),
            "post_map_expr:1:5: 'i' is not available in post_map_expr");
  EXPECT_EQ(Refusal(Reduction("T x", "T z", "x", "a + b", "a = 1", "0"), types),
            "post_map_expr:1:1: cannot assign to const 'a'");
  EXPECT_EQ(Refusal(Reduction("T x", "T z", "x", "a + b", "z = a", "x"), types),
            "identity:1:1: parameter 'x' is not available in identity");
  EXPECT_EQ(Refusal(Reduction("T x", "T z", "x", "a +", "z = a", "0"), types),
            "reduce_expr:1:4: expected an expression");
  EXPECT_EQ(Refusal(Reduction("T x", "T z", "x;", "a + b", "z = a", "0"), types),
            "map_expr:1:2: unexpected ';' after the end");
  EXPECT_EQ(Refusal(Reduction("T x", "raw T z", "x", "a + b", "z[0] = a", "0"), types),
            "out_params:1:1: a reduction's output 'z' cannot be raw");
  KernelSource typed = Reduction("T x", "T z", "x", "a + b", "z = a", "0");
  typed.reduce_type = "float128";
  EXPECT_EQ(Refusal(typed, types), "reduce_type:1:1: expected a type, found 'float128'");
}

// Each limit of limits.h, exceeded by one, is refused with its message.
TEST(KernelLangTest, LimitsAreChecked) {
  std::string big = "y = x;";
  while (big.size() <= static_cast<size_t>(kMaxSourceBytes)) big += " // padding padding";
  const KernelSource frame = Frame(big);
  const size_t bytes =
      big.size() + frame.in_params.size() + frame.out_params.size() + frame.name.size();
  EXPECT_EQ(RefusalOf(big), "name:1:1: the kernel's source is " + std::to_string(bytes) +
                                " bytes, more than 65536");

  std::string tokens = "y = x";
  for (int k = 0; k < kMaxTokens / 2; ++k) tokens += "+x";
  // The budget spans every part: in_params and out_params took their tokens first.
  EXPECT_EQ(RefusalOf(tokens), "operation:1:16372: more than 16384 tokens");

  std::string nested = "y = ";
  for (int k = 0; k <= kMaxDepth; ++k) nested += "(";
  nested += "x";
  for (int k = 0; k <= kMaxDepth; ++k) nested += ")";
  EXPECT_NE(RefusalOf(nested).find("nested more than 128 levels deep"), std::string::npos);

  std::string chain = "y = x";
  for (int k = 0; k <= kMaxDepth; ++k) chain += " + x";
  EXPECT_NE(RefusalOf(chain).find("nested more than 128 levels deep"), std::string::npos);

  std::string locals;
  for (int k = 0; k <= kMaxLocals; ++k) locals += "int v" + std::to_string(k) + " = 0; ";
  EXPECT_NE(RefusalOf(locals).find("more than 256 local variables"), std::string::npos);

  std::string functions;
  for (int k = 0; k <= kMaxFunctions; ++k) {
    functions += "__device__ int f" + std::to_string(k) + "(int v) { return v; }\n";
  }
  EXPECT_EQ(RefusalOf("y = x", functions), "preamble:65:1: more than 64 functions");

  std::string loops;
  for (int k = 0; k <= kMaxLoopNesting; ++k) {
    loops += "for (int k" + std::to_string(k) + " = 0; k" + std::to_string(k) + " < 2; ++k" +
             std::to_string(k) + ") ";
  }
  loops += "y += 1;";
  EXPECT_NE(RefusalOf(loops).find("loops nested more than 8 deep"), std::string::npos);

  // Each function calls the previous one twice: inlined, the tree doubles per function.
  std::string doubling = "__device__ float32 f0(float32 v) { return v * v + v; }\n";
  for (int k = 1; k < 24; ++k) {
    doubling += "__device__ float32 f" + std::to_string(k) + "(float32 v) { return f" +
                std::to_string(k - 1) + "(v) + f" + std::to_string(k - 1) + "(v); }\n";
  }
  EXPECT_NE(RefusalOf("y = f23(x)", doubling).find("nodes with every call inlined"),
            std::string::npos);

  // y += n is five nodes in four tokens: y = (float32)(y + (float32)n).
  std::string nodes = "y = 0;";
  for (int k = 0; k < 3300; ++k) nodes += " y += n;";
  EXPECT_NE(RefusalOf(nodes).find("more than 16384 nodes"), std::string::npos);
}

TEST(KernelLangTest, LoopsArePlannedAndCharged) {
  auto kernel = Accept(Frame("float32 s = 0;"
                             " for (int k = 0; k < n; ++k) { for (int j = 2; j <= r.size(); j += 2)"
                             " s += 1; } y = s"),
                       kFrameTypes);
  ASSERT_NE(kernel, nullptr);
  const Program& program = kernel->program();
  ASSERT_EQ(program.loop_count, 2);
  CallConstants constants;
  constants.scalars.resize(5);
  constants.sizes.assign(5, 0);
  const int32_t n = 5;
  std::memcpy(constants.scalars[2].data(), &n, sizeof n);
  constants.sizes[1] = 9;
  const std::vector<LoopPlan> plans = PlanLoops(program, constants);
  EXPECT_EQ(plans[0].first, 0);
  EXPECT_EQ(plans[0].trips, 5);
  EXPECT_EQ(plans[1].first, 2);
  EXPECT_EQ(plans[1].trips, 4);  // 2, 4, 6, 8.
  const int64_t small = kernel->WorkPerElement({Scalar::Int(5)}, {9});
  const int64_t large = kernel->WorkPerElement({Scalar::Int(500)}, {9000});
  EXPECT_GT(small, 20);
  EXPECT_GT(large, small * 1000);
}

TEST(KernelLangTest, TripCountsNeverWrap) {
  using C = Stmt::Compare;
  EXPECT_EQ(TripCount(kI32, 0, 10, C::kLess, 1), 10);
  EXPECT_EQ(TripCount(kI32, 0, 10, C::kLessEqual, 3), 4);  // 0 3 6 9
  EXPECT_EQ(TripCount(kI32, 10, 0, C::kGreater, -2), 5);
  EXPECT_EQ(TripCount(kI32, 0, 10, C::kGreaterEqual, 1), 0);
  EXPECT_EQ(TripCount(kI32, 0, 7, C::kNotEqual, 2), int64_t{1} << 30);  // Until INT_MAX.
  EXPECT_EQ(TripCount(DType::kInt8, 0, 200, C::kLess, 1), 128);         // 0 .. 127.
  EXPECT_EQ(TripCount(DType::kInt8, 0, 200, C::kNotEqual, 1), 128);
  EXPECT_EQ(TripCount(DType::kUInt8, 5, 0, C::kGreaterEqual, -1), 6);  // 5 .. 0.
  EXPECT_EQ(TripCount(kI64, 0, 1, C::kLess, -1), INT64_MAX);           // Saturates.
  EXPECT_EQ(TripCount(DType::kUInt64, 0, 0, C::kGreaterEqual, 1), INT64_MAX);
}

}  // namespace
}  // namespace arrayhub::kernel
