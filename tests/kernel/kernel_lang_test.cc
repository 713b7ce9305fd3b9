// The kernel language: every construct the grammar has, and every refusal with its exact
// message (docs/user-kernels.md).
#include <gtest/gtest.h>

#include "server/kernel/checked_kernel.h"
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

// Checks `source` with `types` and returns the error message ("" when it is accepted).
std::string Refusal(const KernelSource& source, const ArgumentTypes& types) {
  auto checked = CheckKernel(source, types);
  if (checked.ok()) return "";
  EXPECT_EQ(checked.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(checked.status().message());
}

// One float32 array in, one out: the usual shape of an operation under test.
std::string RefusalOf(const std::string& operation, const std::string& preamble = "") {
  return Refusal(Elementwise("float32 x, raw float32 r, int32 n", "float32 y, raw float32 w",
                             operation, preamble),
                 {{Array(kF32), Array(kF32), ScalarArg(kI64)}, {std::nullopt, std::nullopt}});
}

std::shared_ptr<const CheckedKernel> Accept(const KernelSource& source,
                                            const ArgumentTypes& types) {
  auto checked = CheckKernel(source, types);
  EXPECT_TRUE(checked.ok()) << checked.status();
  return checked.ok() ? *checked : nullptr;
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
  EXPECT_EQ(bs->program().functions.size(), 1u);
  EXPECT_EQ(bs->program().functions[0].result, kF32);
}

TEST(KernelLangTest, Refusals) {
  EXPECT_EQ(RefusalOf("y = *x;"),
            "operation:1:5: pointers are not supported (unary * dereferences)");
  EXPECT_EQ(RefusalOf("y = system(x);"), "operation:1:5: unknown function 'system'");
}

}  // namespace
}  // namespace arrayhub::kernel
