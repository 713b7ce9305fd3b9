// Batches through the C++ client, on fresh random data each run: results of dependent ops
// against the same expressions evaluated here, only kept results left on the server, and
// errors that name the op and leave nothing behind.
#include "arrayhub/batch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "arrayhub/client.h"
#include "tests/support/client_expect.h"
#include "tests/support/seeded_client_test.h"
#include "tests/support/test_server.h"

namespace arrayhub::testing {
namespace {

using client::Array;
using client::Batch;
using client::Client;
using client::DType;
using client::Shape;
using client::Step;

class ClientBatchTest : public SeededClientTest {
 protected:
  std::set<std::string> Listed() {
    std::set<std::string> handles;
    for (const client::ArrayInfo& info : client().List()) handles.insert(info.handle);
    return handles;
  }
};

void ExpectNear(const std::vector<double>& got, const std::vector<double>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-12) << i;
}

TEST_F(ClientBatchTest, DependentOpsKeepOnlyTheStepsAsked) {
  const std::vector<double> ha = Random(12), hb = Random(4);
  Array a = client().Upload(ha, {3, 4});
  Array b = client().Upload(hb, {4});
  const std::set<std::string> before = Listed();

  Batch batch(client());
  const Step t = batch.Multiply(a, b);
  const Step u = batch.Add(t, 1.0);
  const Step r = batch.Sqrt(batch.Abs(batch.Subtract(u, a)));
  const Step m = batch.Maximum(r, batch.Exp(t));
  EXPECT_EQ(batch.size(), 7);
  std::vector<Array> kept = batch.Run({m, u});
  ASSERT_EQ(kept.size(), 2u);

  std::vector<double> expected_m(12), expected_u(12);
  for (int i = 0; i < 12; ++i) {
    const double ti = ha[i] * hb[i % 4];
    expected_u[i] = ti + 1.0;
    expected_m[i] = std::max(std::sqrt(std::abs(expected_u[i] - ha[i])), std::exp(ti));
  }
  EXPECT_EQ(kept[0].shape(), (Shape{3, 4}));
  ExpectNear(Get(kept[0]), expected_m);
  ExpectNear(Get(kept[1]), expected_u);
  std::set<std::string> expected = before;
  expected.insert(kept[0].handle());
  expected.insert(kept[1].handle());
  EXPECT_EQ(Listed(), expected);
}

TEST_F(ClientBatchTest, CreationViewsProductsReductionsAndArrayOps) {
  const std::vector<double> hm = Random(6);
  Array m = client().Upload(hm, {2, 3});

  Batch batch(client());
  const Step grid = batch.Reshape(batch.Arange(0, 6, 1, DType::kFloat64), {3, 2});
  const Step product = batch.Matmul(m, grid);  // (2, 2)
  const Step sums = batch.Sum(product, {.axis = std::vector<int64_t>{0}});
  const Step joined = batch.Concatenate({batch.Ravel(batch.Transpose(grid)), sums});
  const Step sorted = batch.Sort(batch.Negative(joined));
  const Step ones = batch.Astype(batch.Ones({2}), DType::kInt32);
  std::vector<Array> kept = batch.Run({product, sorted, ones});

  std::vector<double> expected_product(4, 0.0);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 3; ++k) expected_product[i * 2 + j] += hm[i * 3 + k] * (k * 2 + j);
    }
  }
  ExpectNear(Get(kept[0]), expected_product);
  std::vector<double> expected_sorted = {0,
                                         2,
                                         4,
                                         1,
                                         3,
                                         5,
                                         expected_product[0] + expected_product[2],
                                         expected_product[1] + expected_product[3]};
  for (double& value : expected_sorted) value = -value;
  std::sort(expected_sorted.begin(), expected_sorted.end());
  ExpectNear(Get(kept[1]), expected_sorted);
  EXPECT_EQ(kept[2].dtype(), DType::kInt32);
  EXPECT_EQ(client().Download<int32_t>(kept[2]), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(client().List().size(), 4u);  // m and the three kept.
}

TEST_F(ClientBatchTest, UfuncOutWritesTheExistingArray) {
  Array x = client().Upload(std::vector<double>{1, 2, 3}, {3});
  Batch batch(client());
  const Step written = batch.UfuncOut(x, "multiply", {x, 10.0});
  const Step y = batch.Add(written, 1.0);
  EXPECT_CLIENT_ERROR(batch.Run({written}), kInvalidArgument,
                      "wrote into an existing array (UfuncOut)");
  std::vector<Array> kept = batch.Run({y});
  EXPECT_EQ(Get(x), (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(Get(kept[0]), (std::vector<double>{11, 21, 31}));
}

TEST_F(ClientBatchTest, AFailingOpThrowsItsErrorAndLeavesNothing) {
  Array x = client().Upload(std::vector<double>{1, 2, 3}, {3});
  Array m = client().Ones({2, 2});
  const std::set<std::string> before = Listed();
  Batch batch(client());
  const Step t = batch.Multiply(x, 2.0);
  const Step bad = batch.Matmul(t, m);
  EXPECT_CLIENT_ERROR(batch.Run({t, bad}), kInvalidArgument,
                      "ops[1] (matmul): matmul: Input operand 1 has a mismatch");
  EXPECT_EQ(Listed(), before);
}

TEST_F(ClientBatchTest, StepsAreCheckedWhereTheyAreUsed) {
  Array x = client().Arange(0, 4, 1, DType::kFloat64);
  Batch first(client()), second(client());
  const Step mine = first.Negative(x);
  EXPECT_CLIENT_ERROR(second.Add(mine, 1.0), kInvalidArgument, "belongs to another Batch");
  EXPECT_CLIENT_ERROR(second.Run({mine}), kInvalidArgument, "belongs to another Batch");
  EXPECT_CLIENT_ERROR(first.Diagonal(mine, 0, 1, 1), kInvalidArgument,
                      "axis1 and axis2 cannot be the same");
  EXPECT_CLIENT_ERROR(first.Reshape(2.0, {1}), kInvalidArgument,
                      "a view needs an array or a batch step");
  EXPECT_EQ(first.size(), 1);  // Refused ops are not recorded.
  // Outside its batch, a step is refused by the server.
  EXPECT_CLIENT_ERROR(client().Ufunc("add", {x, mine}), kInvalidArgument,
                      "operands[1] refers to a batch result outside a Batch request");
  // split gives several arrays: its step can be neither read nor kept.
  const Step parts = first.ArrayOp("split", {x}, {.ints = {2}});
  EXPECT_CLIENT_ERROR(first.Run({parts}), kInvalidArgument,
                      "keep[0] = 1 names ops[1] (array_op split), which gives several arrays");
}

}  // namespace
}  // namespace arrayhub::testing
