// User kernels through the C++ client (Client::RunKernel), on fresh random data: CuPy's
// squared_diff ElementwiseKernel with a broadcast argument and a scalar, its l2norm
// ReductionKernel over one axis, an out= output, and a refusal naming the line and column; a raw
// CUDA kernel refused by a daemon started without --allow-raw-kernels.
#include <gtest/gtest.h>

#include <cmath>

#include "arrayhub/client.h"
#include "tests/support/seeded_client_test.h"

namespace arrayhub::testing {
namespace {

using client::KernelOptions;
using client::KernelSource;

class KernelTest : public SeededClientTest {};

TEST_F(KernelTest, ElementwiseBroadcastsAndTakesScalars) {
  const std::vector<double> x = Random(6);
  const std::vector<double> y = Random(3);
  const client::Array a = client().Upload(x, {2, 3});
  const client::Array b = client().Upload(y, {3});
  const KernelSource squared_diff{.in_params = "T x, T y, float64 w",
                                  .out_params = "T z",
                                  .operation = "z = w * (x - y) * (x - y)",
                                  .name = "squared_diff"};
  std::vector<client::Array> results = client().RunKernel(squared_diff, {a, b, 2.0});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].shape(), (std::vector<int64_t>{2, 3}));
  const std::vector<double> got = Get(results[0]);
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(got[i], 2 * (x[i] - y[i % 3]) * (x[i] - y[i % 3]), 1e-14) << i << SeedNote();
  }
  // out=: the same array comes back filled, and no new output is answered.
  const client::Array out = client().Upload(std::vector<double>(6, 0.0), {2, 3});
  EXPECT_TRUE(client().RunKernel(squared_diff, {a, b, 1.0}, KernelOptions{.out = {&out}}).empty());
  const std::vector<double> written = Get(out);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(written[i], got[i] / 2, 1e-14) << SeedNote();
}

TEST_F(KernelTest, ReductionOverOneAxis) {
  const std::vector<double> x = Random(12);
  const client::Array a = client().Upload(x, {3, 4});
  const KernelSource l2norm{.reduction = true,
                            .in_params = "T x",
                            .out_params = "T y",
                            .map_expr = "x * x",
                            .reduce_expr = "a + b",
                            .post_map_expr = "y = sqrt(a)",
                            .identity = "0",
                            .name = "l2norm"};
  std::vector<client::Array> results =
      client().RunKernel(l2norm, {a}, KernelOptions{.axis = {{1}}});
  ASSERT_EQ(results.size(), 1u);
  const std::vector<double> got = Get(results[0]);
  ASSERT_EQ(got.size(), 3u);
  for (int r = 0; r < 3; ++r) {
    double sum = 0;
    for (int c = 0; c < 4; ++c) sum += x[r * 4 + c] * x[r * 4 + c];
    EXPECT_NEAR(got[r], std::sqrt(sum), 1e-14) << r << SeedNote();
  }
}

TEST_F(KernelTest, RefusalNamesLineAndColumn) {
  const client::Array a = client().Upload(std::vector<double>{1, 2}, {2});
  const KernelSource bad{.in_params = "T x",
                         .out_params = "T y",
                         .operation = "y = x;\ny = system(x);",
                         .name = "bad"};
  try {
    client().RunKernel(bad, {a});
    FAIL() << "an unknown function ran";
  } catch (const client::Error& error) {
    EXPECT_EQ(error.code(), client::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(error.what()).find("operation:2:"), std::string::npos) << error.what();
  }
}

TEST_F(KernelTest, RawKernelsAreOffWithoutTheFlag) {
  const client::Array a = client().Upload(std::vector<float>{1, 2}, {2});
  const client::RawKernelLaunch launch{
      .code = "extern \"C\" __global__ void k(float* x, float by) { x[threadIdx.x] *= by; }",
      .name = "k",
      .grid = {1},
      .block = {2}};
  try {
    client().RunRawKernel(launch, {a, 2.0f});
    FAIL() << "a raw kernel ran without --allow-raw-kernels";
  } catch (const client::Error& error) {
    EXPECT_EQ(error.code(), client::StatusCode::kPermissionDenied);
    EXPECT_EQ(error.message(),
              "raw kernels are disabled: start arrayhubd with --allow-raw-kernels (single "
              "tenant only)");
  }
}

}  // namespace
}  // namespace arrayhub::testing
