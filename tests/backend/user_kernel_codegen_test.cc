// The CUDA source generated for user kernels compiles with NVRTC for sm_90 (no device needed):
// CuPy's kmeans and black_scholes kernels over float32 and float64, and kernels that use every
// construct of the language (raw reads and writes, loops with break and continue, preamble
// functions with loops, integer division and shifts, casts, float16 and complex values, every
// math function) in both kinds. Running them is cuda_user_kernel_test's.
#include "server/backend/cuda/user_kernel_codegen.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "server/backend/cuda/kernel_cache.h"
#include "tests/kernel/kernel_test_util.h"

namespace arrayhub {
namespace {

using kernel::ArgumentTypes;
using kernel::KernelSource;
using kernel::testing::Array;
using kernel::testing::ScalarArg;

constexpr int kArch = 90;

void ExpectCompiles(const KernelSource& source, const ArgumentTypes& types) {
  SCOPED_TRACE(source.name);
  auto checked = kernel::CheckKernel(source, types);
  ASSERT_TRUE(checked.ok()) << checked.status();
  absl::StatusOr<std::string> cuda = UserKernelSource(DefinitionOf(**checked));
  ASSERT_TRUE(cuda.ok()) << cuda.status();
  const absl::StatusOr<std::string> binary = CompileWithNvrtc(*cuda, source.name, kArch);
  EXPECT_TRUE(binary.ok()) << binary.status();
}

TEST(UserKernelCodegenTest, CupyExamplesCompile) {
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    SCOPED_TRACE(DTypeName(t));
    ExpectCompiles(kernel::testing::KmeansVar(),
                   {{Array(t), Array(t), Array(t), Array(t)}, {std::nullopt}});
    ExpectCompiles(kernel::testing::KmeansSum(), {{Array(t), Array(DType::kBool)}, {std::nullopt}});
    ExpectCompiles(
        kernel::testing::BlackScholes(),
        {{Array(t), Array(t), Array(t), ScalarArg(DType::kFloat64), ScalarArg(DType::kFloat64)},
         {std::nullopt, std::nullopt}});
  }
  ExpectCompiles(kernel::testing::KmeansCount(), {{Array(DType::kBool)}, {std::nullopt}});
}

// Every statement and operator over the integer, float16 and complex types.
TEST(UserKernelCodegenTest, EveryConstructCompiles) {
  KernelSource source = kernel::testing::Elementwise(
      "T x, raw T table, int32 n, I k, float16 h, complex64 z", "T y, raw I hits, complex64 w",
      R"(
    T acc = 0;
    for (int j = 0; j < n; ++j) {
      if (j == 3) continue;
      if (j > 100) break;
      acc += table[(i + j) % table.size()] * (T)j;
    }
    I q = k / (I)(i - 2) + k % (I)3 - (k << 3) + (k >> 1);
    q = (q & 7) | (q ^ 5);
    q = ~q;
    const bool flag = !(q < 0) && (acc != 0 || x >= 1);
    hits[i % hits.size()] = flag ? q : -q;
    const float16 h2 = h * h + (float16)1.5;
    const int from_float = (int)(x * 1e10);
    y = twice(acc) + (T)h2 + (T)from_float + min(x, acc) + max(x, (T)2) + abs(x);
    w = z * z / conj(z) + (complex64)real(z) - (complex64)imag(z);
    w = abs(z) > 1 ? w : z;
    )",
      R"(
    __device__ T twice(T v) {
      T r = 0;
      for (int j = 0; j < 2; j++) r += v;
      return r;
    }
    )");
  // Each value type with an index type of another width and signedness.
  for (const auto& [t, index] :
       {std::pair{DType::kFloat32, DType::kInt32}, std::pair{DType::kFloat64, DType::kUInt64},
        std::pair{DType::kInt32, DType::kInt8}, std::pair{DType::kFloat16, DType::kInt64}}) {
    SCOPED_TRACE(DTypeName(t));
    ExpectCompiles(source, {{Array(t), Array(t), ScalarArg(DType::kInt64), ScalarArg(index),
                             ScalarArg(DType::kFloat16), Array(DType::kComplex64)},
                            {std::nullopt, index, std::nullopt}});
  }
}

TEST(UserKernelCodegenTest, EveryMathFunctionCompiles) {
  std::string operation = "y = 0;\n";
  for (const char* one : {"sqrt",   "cbrt",  "exp",   "exp2",  "expm1", "log",  "log2", "log10",
                          "log1p",  "sin",   "cos",   "tan",   "asin",  "acos", "atan", "sinh",
                          "cosh",   "tanh",  "asinh", "acosh", "atanh", "erf",  "erfc", "lgamma",
                          "tgamma", "floor", "ceil",  "trunc", "round", "rint", "fabs", "rsqrt"}) {
    operation += fmt::format("y += {}(x);\n", one);
  }
  for (const char* two : {"pow", "fmod", "hypot", "atan2", "copysign", "fmin", "fmax"}) {
    operation += fmt::format("y += {}(x, x);\n", two);
  }
  operation += "if (isnan(x) || isinf(x) || !isfinite(x) || signbit(x)) y = 1;\n";
  const KernelSource source = kernel::testing::Elementwise("T x", "T y", operation);
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
    SCOPED_TRACE(DTypeName(t));
    ExpectCompiles(source, {{Array(t)}, {std::nullopt}});
  }
}

TEST(UserKernelCodegenTest, ReductionsCompile) {
  // A maximum with raw reads in the map and a scalar in post_map, over a float, an unsigned
  // integer (promoted to int in the map) and float16.
  const KernelSource source = kernel::testing::Reduction(
      "T x, raw T r, T s", "T y", "x + r[i % r.size()]", "max(a, b)", "y = a * s", "");
  for (DType t : {DType::kFloat64, DType::kUInt8, DType::kFloat16}) {
    SCOPED_TRACE(DTypeName(t));
    ExpectCompiles(source, {{Array(t), Array(t), ScalarArg(t)}, {std::nullopt}});
  }
  const KernelSource complex_sum =
      kernel::testing::Reduction("complex128 x", "complex128 y", "x * x", "a + b", "y = a", "0");
  ExpectCompiles(complex_sum, {{Array(DType::kComplex128)}, {std::nullopt}});
}

// Each loop's plan takes 16 bytes of the 4 KiB argument block: a kernel with so many loops that
// no room is left for the arrays' shapes and strides is refused, naming itself.
TEST(UserKernelCodegenTest, AKernelWhoseArgumentsCannotFitIsRefused) {
  std::string operation = "y = 0;\n";
  for (int k = 0; k < 250; ++k) operation += "for (int j = 0; j < 2; ++j) y += x;\n";
  KernelSource source = kernel::testing::Elementwise("T x", "T y", operation);
  source.name = "many_loops";
  auto checked = kernel::CheckKernel(source, {{Array(DType::kFloat32)}, {std::nullopt}});
  ASSERT_TRUE(checked.ok()) << checked.status();
  const absl::StatusOr<std::string> cuda = UserKernelSource(DefinitionOf(**checked));
  EXPECT_EQ(cuda.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cuda.status().message(),
            "kernel many_loops: its 2 parameters and 250 loops leave too little of the 4096 bytes "
            "of CUDA kernel parameters for the shapes and strides of its arrays; use fewer "
            "parameters or loops");
}

}  // namespace
}  // namespace arrayhub
