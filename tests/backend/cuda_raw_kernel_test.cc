// Raw CUDA kernels (RawKernels::PrepareRawKernel and RunRawKernel) on the CUDA backend: a saxpy
// with pointer and scalar arguments against a host reference on fresh random data (the seed is
// printed with every failure), a module's second kernel, and the refusals of arguments that do
// not match the kernel's parameters, of a block larger than the device allows and of code that
// does not compile. Runs only with a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tests/backend/backend_io.h"
#include "tests/backend/cuda_fixture.h"
#include "tests/support/test_queue.h"
#include "tests/support/test_seed.h"

namespace arrayhub {
namespace {

constexpr char kCode[] = R"(
extern "C" __global__ void saxpy(const float* x, const float* y, float a, float* out,
                                 unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
extern "C" __global__ void scale(double* x, double by, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) x[i] *= by;
}
)";

template <typename T>
RawKernelArgument ScalarArgument(T value) {
  RawKernelArgument argument{.array = false, .view = {}, .scalar = {}, .scalar_size = sizeof(T)};
  std::memcpy(argument.scalar.data(), &value, sizeof(T));
  return argument;
}

RawKernelArgument Pointer(Buffer& buffer, DType dtype, int64_t n) {
  return {
      .array = true,
      .view = {.buffer = &buffer, .offset_bytes = 0, .dtype = dtype, .shape = {n}, .strides = {1}},
      .scalar = {},
      .scalar_size = 0};
}

class CudaRawKernelTest : public CudaFixture {
 protected:
  std::shared_ptr<const PreparedRawKernel> Prepare(const char* name) {
    absl::StatusOr<std::shared_ptr<const PreparedRawKernel>> prepared =
        cuda_->raw_kernels().PrepareRawKernel(
            {.code = kCode, .name = name, .options = {"-std=c++17"}});
    EXPECT_TRUE(prepared.ok()) << prepared.status();
    return prepared.ok() ? *prepared : nullptr;
  }
};

TEST_F(CudaRawKernelTest, SaxpyMatchesTheHostWithPointerAndScalarArguments) {
  const testing::SeedTrace seed;
  std::mt19937_64 rng(testing::BaseSeed());
  std::normal_distribution<float> normal;
  constexpr unsigned int kN = 100'003;
  std::vector<float> x(kN), y(kN);
  for (unsigned int i = 0; i < kN; ++i) x[i] = normal(rng), y[i] = normal(rng);
  const float a = normal(rng);
  absl::StatusOr<std::shared_ptr<Buffer>> dx = Upload(*cuda_, x);
  absl::StatusOr<std::shared_ptr<Buffer>> dy = Upload(*cuda_, y);
  absl::StatusOr<std::shared_ptr<Buffer>> out = Upload(*cuda_, std::vector<float>(kN));
  ASSERT_TRUE(dx.ok() && dy.ok() && out.ok());
  RawKernelCall call{
      .prepared = Prepare("saxpy"),
      .grid = {(kN + 255) / 256, 1, 1},
      .block = {256, 1, 1},
      .shared_mem = 0,
      .arguments = {Pointer(**dx, DType::kFloat32, kN), Pointer(**dy, DType::kFloat32, kN),
                    ScalarArgument(a), Pointer(**out, DType::kFloat32, kN), ScalarArgument(kN)}};
  ASSERT_NE(call.prepared, nullptr);
  ASSERT_TRUE(cuda_->raw_kernels().RunRawKernel(TestQueue(*cuda_), call).ok());
  absl::StatusOr<std::vector<float>> got = Download<float>(*cuda_, **out);
  ASSERT_TRUE(got.ok()) << got.status();
  for (unsigned int i = 0; i < kN; ++i) {
    // Within a few roundings of the terms: NVRTC may contract a * x + y into one FMA.
    const float scale = std::abs(a * x[i]) + std::abs(y[i]);
    ASSERT_NEAR((*got)[i], a * x[i] + y[i], 4e-7f * scale) << i;
  }

  // The module's other kernel, with a double and a long long.
  std::vector<double> z(1000);
  std::normal_distribution<double> normal64;
  for (double& v : z) v = normal64(rng);
  absl::StatusOr<std::shared_ptr<Buffer>> dz = Upload(*cuda_, z);
  ASSERT_TRUE(dz.ok());
  RawKernelCall scale{.prepared = Prepare("scale"),
                      .grid = {8, 1, 1},
                      .block = {128, 1, 1},
                      .shared_mem = 0,
                      .arguments = {Pointer(**dz, DType::kFloat64, 1000), ScalarArgument(-2.5),
                                    ScalarArgument(static_cast<long long>(1000))}};
  ASSERT_TRUE(cuda_->raw_kernels().RunRawKernel(TestQueue(*cuda_), scale).ok());
  absl::StatusOr<std::vector<double>> scaled = Download<double>(*cuda_, **dz);
  ASSERT_TRUE(scaled.ok());
  for (size_t i = 0; i < z.size(); ++i) ASSERT_EQ((*scaled)[i], z[i] * -2.5) << i;

  // Arguments that do not match the parameters, and a block too large: refused, not launched.
  RawKernelCall wrong = call;
  wrong.arguments.pop_back();
  EXPECT_EQ(cuda_->raw_kernels().RunRawKernel(TestQueue(*cuda_), wrong).code(),
            absl::StatusCode::kInvalidArgument);
  wrong = call;
  wrong.arguments[2] = ScalarArgument(static_cast<double>(a));
  EXPECT_EQ(cuda_->raw_kernels().RunRawKernel(TestQueue(*cuda_), wrong).code(),
            absl::StatusCode::kInvalidArgument);
  wrong = call;
  wrong.block = {1024, 2, 1};
  EXPECT_EQ(cuda_->raw_kernels().RunRawKernel(TestQueue(*cuda_), wrong).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(CudaRawKernelTest, CodeThatDoesNotCompileOrLacksTheKernelIsTheClients) {
  EXPECT_EQ(
      cuda_->raw_kernels()
          .PrepareRawKernel(
              {.code = "extern \"C\" __global__ void k() { nope }", .name = "k", .options = {}})
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cuda_->raw_kernels()
                .PrepareRawKernel({.code = kCode, .name = "missing", .options = {}})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace arrayhub
