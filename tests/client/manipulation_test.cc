// Views, indexing and array manipulation through the C++ client, on fresh random data each
// run: every result is checked against the same expression evaluated here with plain loops, or
// against NumPy 2.4's values and messages where a test names the NumPy expression.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "arrayhub/client.h"
#include "tests/support/client_expect.h"
#include "tests/support/seeded_client_test.h"
#include "tests/support/test_server.h"

namespace arrayhub::testing {
namespace {

using client::Array;
using client::Client;
using client::DType;
using client::kEllipsis;
using client::kNewAxis;
using client::Order;
using client::Shape;
using client::Slice;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class ManipulationTest : public SeededClientTest {
 protected:
  std::vector<int64_t> GetInts(const Array& array) { return client().Download<int64_t>(array); }
  Array Ints(std::vector<int64_t> values) {
    const auto n = static_cast<int64_t>(values.size());
    return client().Upload(values, {n});
  }
};

// A view shares its base's memory and names it.
void ExpectViewOf(const Array& view, const Array& base) {
  EXPECT_FALSE(view.info().owns_data);
  EXPECT_EQ(view.info().base_handle, base.handle());
}

// --- views -----------------------------------------------------------------------------------

TEST_F(ManipulationTest, ReshapeGivesAViewThatWritesThrough) {
  const std::vector<double> host = Random(12);
  Array a = client().Upload(host, {3, 4});
  Array r = client().Reshape(a, {2, -1});
  EXPECT_EQ(r.shape(), (Shape{2, 6}));
  EXPECT_EQ(r.info().strides, (std::vector<int64_t>{6, 1}));
  ExpectViewOf(r, a);
  EXPECT_EQ(Get(r), host);
  client().SetItem(r, {1, 0}, 99.0);
  EXPECT_EQ(Get(a)[6], 99.0);
}

TEST_F(ManipulationTest, ReshapeCopiesWhenStridesCannotExpressIt) {
  const std::vector<double> host = Random(12);
  Array a = client().Upload(host, {3, 4});
  // a.reshape(4, 3, order="F"): r[i, j] is element i + 4 j of a read in Fortran order.
  Array f = client().Reshape(a, {4, 3}, Order::kF);
  EXPECT_TRUE(f.info().owns_data);
  EXPECT_TRUE(f.info().f_contiguous);
  const std::vector<double> got = Get(f);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) {
      const int k = i + 4 * j;
      EXPECT_EQ(got[i * 3 + j], host[(k % 3) * 4 + k / 3]) << i << "," << j;
    }
  }
  // a.T.reshape(12): a copy of a.T in C order.
  Array t = client().Transpose(a);
  Array flat = client().Reshape(t, {12});
  EXPECT_TRUE(flat.info().owns_data);
  const std::vector<double> flat_values = Get(flat);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(flat_values[i * 3 + j], host[j * 4 + i]);
  }
  // a.T.ravel("F") is a view again; a.T.ravel() a copy.
  ExpectViewOf(client().Ravel(t, Order::kF), a);
  EXPECT_EQ(Get(client().Ravel(t, Order::kF)), host);
  EXPECT_EQ(Get(client().Ravel(t)), flat_values);
}

TEST_F(ManipulationTest, ReshapeErrorsQuoteNumPy) {
  Array a = client().Arange(0, 12);
  EXPECT_CLIENT_ERROR(client().Reshape(a, {5, 3}), kInvalidArgument,
                      "cannot reshape array of size 12 into shape (5,3)");
  EXPECT_CLIENT_ERROR(client().Reshape(a, {-1, -1}), kInvalidArgument,
                      "can only specify one unknown dimension");
}

TEST_F(ManipulationTest, TransposeAndSwapAxesPermuteAxes) {
  const std::vector<double> host = Random(24);
  auto x = [&](int i, int j, int k) { return host[(i * 3 + j) * 4 + k]; };
  Array a = client().Upload(host, {2, 3, 4});
  Array t = client().Transpose(a);
  Array p = client().Transpose(a, {1, -1, 0});
  Array s = client().SwapAxes(a, 0, -1);
  EXPECT_EQ(t.shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(p.shape(), (Shape{3, 4, 2}));
  EXPECT_EQ(s.shape(), (Shape{4, 3, 2}));
  ExpectViewOf(t, a);
  const std::vector<double> tv = Get(t), pv = Get(p), sv = Get(s);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(tv[(k * 3 + j) * 2 + i], x(i, j, k));
        EXPECT_EQ(pv[(j * 4 + k) * 2 + i], x(i, j, k));
        EXPECT_EQ(sv[(k * 3 + j) * 2 + i], x(i, j, k));
      }
    }
  }
  EXPECT_CLIENT_ERROR(client().Transpose(a, {0, 0, 1}), kInvalidArgument,
                      "repeated axis in transpose");
  EXPECT_CLIENT_ERROR(client().Transpose(a, {0, 1}), kInvalidArgument, "axes don't match array");
  EXPECT_CLIENT_ERROR(client().SwapAxes(a, 0, 3), kInvalidArgument,
                      "axis 3 is out of bounds for array of dimension 3");
}

TEST_F(ManipulationTest, DiagonalIsAReadOnlyView) {
  const std::vector<double> host = Random(24);
  Array m = client().Upload(std::vector<double>(host.begin(), host.begin() + 12), {3, 4});
  // m.diagonal(1), m.diagonal(-1)
  Array d = client().Diagonal(m, 1);
  ExpectViewOf(d, m);
  EXPECT_FALSE(d.info().writable);
  EXPECT_EQ(Get(d), (std::vector<double>{host[1], host[6], host[11]}));
  EXPECT_EQ(Get(client().Diagonal(m, -1)), (std::vector<double>{host[4], host[9]}));
  // x.diagonal(0, 1, 2)[i, j] == x[i, j, j]
  Array x = client().Upload(host, {2, 3, 4});
  Array dx = client().Diagonal(x, 0, 1, 2);
  EXPECT_EQ(dx.shape(), (Shape{2, 3}));
  const std::vector<double> dv = Get(dx);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(dv[i * 3 + j], host[(i * 3 + j) * 4 + j]);
  }
  EXPECT_CLIENT_ERROR(client().SetItem(d, {0}, 1.0), kInvalidArgument,
                      "assignment destination is read-only");
  // np.zeros((3, 3)).diagonal(0, 0, 0), np.zeros(3).diagonal()
  EXPECT_CLIENT_ERROR(client().Diagonal(m, 0, 0, 0), kInvalidArgument,
                      "axis1 and axis2 cannot be the same");
  EXPECT_CLIENT_ERROR(client().Diagonal(client().Zeros({3})), kInvalidArgument,
                      "diag requires an array of at least two dimensions");
}

TEST_F(ManipulationTest, SqueezeAndExpandDims) {
  Array a = client().Upload(std::vector<double>{1, 2, 3}, {1, 3, 1});
  EXPECT_EQ(client().Squeeze(a).shape(), (Shape{3}));
  EXPECT_EQ(client().Squeeze(a, std::vector<int64_t>{-1}).shape(), (Shape{1, 3}));
  ExpectViewOf(client().Squeeze(a), a);
  EXPECT_CLIENT_ERROR(client().Squeeze(a, std::vector<int64_t>{1}), kInvalidArgument,
                      "cannot select an axis to squeeze out which has size not equal to one");
  Array v = client().Upload(std::vector<double>{1, 2, 3}, {3});
  Array e = client().ExpandDims(v, {0, 2});
  EXPECT_EQ(e.shape(), (Shape{1, 3, 1}));
  EXPECT_EQ(Get(e), (std::vector<double>{1, 2, 3}));
  EXPECT_CLIENT_ERROR(client().ExpandDims(v, {0, 0}), kInvalidArgument, "repeated axis");
}

TEST_F(ManipulationTest, BroadcastToIsReadOnly) {
  Array v = client().Upload(std::vector<double>{1, 2, 3}, {3});
  Array b = client().BroadcastTo(v, {2, 3});
  EXPECT_EQ(b.info().strides, (std::vector<int64_t>{0, 1}));
  EXPECT_FALSE(b.info().writable);
  EXPECT_EQ(Get(b), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  EXPECT_CLIENT_ERROR(client().SetItem(b, {0}, 5.0), kInvalidArgument,
                      "assignment destination is read-only");
  // Views of a read-only view stay read-only.
  Array row = client().GetItem(b, {1});
  EXPECT_FALSE(row.info().writable);
  EXPECT_CLIENT_ERROR(client().SetItem(row, {kEllipsis}, 5.0), kInvalidArgument,
                      "assignment destination is read-only");
  EXPECT_EQ(Get(v), (std::vector<double>{1, 2, 3}));
  EXPECT_CLIENT_ERROR(client().BroadcastTo(v, {4}), kInvalidArgument, "and requested shape (4,)");
}

TEST_F(ManipulationTest, ViewsOutliveTheirBase) {
  Array a = client().Arange(0, 10);
  Array v = client().GetItem(a, {Slice{.start = 2, .step = 3}});
  Array t = client().Reshape(a, {2, 5});
  a = Array();  // Frees the base's handle; the memory stays while views use it.
  EXPECT_EQ(GetInts(v), (std::vector<int64_t>{2, 5, 8}));
  client().SetItem(v, {0}, -1);
  EXPECT_EQ(GetInts(t), (std::vector<int64_t>{0, 1, -1, 3, 4, 5, 6, 7, 8, 9}));
}

// --- indexing ------------------------------------------------------------------------------

TEST_F(ManipulationTest, BasicIndexingGivesViews) {
  const std::vector<double> host = Random(4 * 5 * 6);
  auto x = [&](int i, int j, int k) { return host[(i * 5 + j) * 6 + k]; };
  Array a = client().Upload(host, {4, 5, 6});

  // a[1:, ::-2, None, 3]
  Array r = client().GetItem(a, {Slice{.start = 1}, Slice{.step = -2}, kNewAxis, 3});
  ExpectViewOf(r, a);
  EXPECT_EQ(r.shape(), (Shape{3, 3, 1}));
  std::vector<double> got = Get(r);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(got[i * 3 + j], x(1 + i, 4 - 2 * j, 3));
  }
  // a[..., -1], a[-1, 2], a[1, 2, 3], a[::-1, 3:0:-1, -100:100:4]
  got = Get(client().GetItem(a, {kEllipsis, -1}));
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 5; ++j) EXPECT_EQ(got[i * 5 + j], x(i, j, 5));
  }
  got = Get(client().GetItem(a, {-1, 2}));
  for (int k = 0; k < 6; ++k) EXPECT_EQ(got[k], x(3, 2, k));
  Array scalar = client().GetItem(a, {1, 2, 3});
  EXPECT_EQ(scalar.shape(), Shape{});
  EXPECT_EQ(Get(scalar), (std::vector<double>{x(1, 2, 3)}));
  Array z = client().GetItem(
      a, {Slice{.step = -1}, Slice{.start = 3, .stop = 0, .step = -1}, Slice{-100, 100, 4}});
  EXPECT_EQ(z.shape(), (Shape{4, 3, 2}));
  got = Get(z);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 2; ++k) EXPECT_EQ(got[(i * 3 + j) * 2 + k], x(3 - i, 3 - j, 4 * k));
    }
  }
}

TEST_F(ManipulationTest, FancyIndexingPlacesTheIndexAxesAsNumPy) {
  const std::vector<double> host = Random(4 * 5 * 6);
  auto x = [&](int64_t i, int64_t j, int64_t k) { return host[(i * 5 + j) * 6 + k]; };
  Array a = client().Upload(host, {4, 5, 6});
  const std::vector<int64_t> rows = {3, 0, 3, -1};
  Array idx = Ints(rows);
  auto row = [&](size_t b) { return rows[b] < 0 ? rows[b] + 4 : rows[b]; };

  // a[idx] and a[:, [4, 0, 2, 1]] (int32 indices): index axes stay where the arrays are.
  Array g = client().GetItem(a, {idx});
  EXPECT_EQ(g.shape(), (Shape{4, 5, 6}));
  EXPECT_TRUE(g.info().owns_data);
  std::vector<double> got = Get(g);
  for (size_t b = 0; b < 4; ++b) {
    for (int j = 0; j < 5; ++j) {
      for (int k = 0; k < 6; ++k) EXPECT_EQ(got[(b * 5 + j) * 6 + k], x(row(b), j, k));
    }
  }
  const std::vector<int32_t> cols = {4, 0, 2, 1};
  Array cols32 = client().Upload(cols, {4});
  got = Get(client().GetItem(a, {Slice{}, cols32}));
  for (int i = 0; i < 4; ++i) {
    for (size_t b = 0; b < 4; ++b) {
      for (int k = 0; k < 6; ++k) EXPECT_EQ(got[(i * 4 + b) * 6 + k], x(i, cols[b], k));
    }
  }
  // a[idx, :, [0, 1, 2, 5]]: separated by a slice, the index axis goes first.
  Array depth = Ints({0, 1, 2, 5});
  Array sep = client().GetItem(a, {idx, Slice{}, depth});
  EXPECT_EQ(sep.shape(), (Shape{4, 5}));
  got = Get(sep);
  const std::vector<int64_t> depths = {0, 1, 2, 5};
  for (size_t b = 0; b < 4; ++b) {
    for (int j = 0; j < 5; ++j) EXPECT_EQ(got[b * 5 + j], x(row(b), j, depths[b]));
  }
  // Integers count as index arrays: a[1, :, d] is (4, 5), a[:, 1, d] is (4, 4).
  EXPECT_EQ(client().GetItem(a, {1, Slice{}, depth}).shape(), (Shape{4, 5}));
  Array adjacent = client().GetItem(a, {Slice{}, 1, depth});
  EXPECT_EQ(adjacent.shape(), (Shape{4, 4}));
  got = Get(adjacent);
  for (int i = 0; i < 4; ++i) {
    for (size_t b = 0; b < 4; ++b) EXPECT_EQ(got[i * 4 + b], x(i, 1, depths[b]));
  }
  // The result is a copy: writing to it leaves a alone.
  client().SetItem(g, {kEllipsis}, 0.0);
  EXPECT_EQ(Get(a), host);
}

TEST_F(ManipulationTest, BooleanMasksSelectInCOrder) {
  const std::vector<double> host = Random(4 * 5 * 6);
  Array a = client().Upload(host, {4, 5, 6});
  std::bernoulli_distribution coin(0.4);
  std::vector<bool> mask(20);
  for (size_t i = 0; i < mask.size(); ++i) mask[i] = coin(rng_);
  Array m = client().Upload(mask, {4, 5});
  const int64_t count = std::count(mask.begin(), mask.end(), true);
  Array s = client().GetItem(a, {m});
  EXPECT_EQ(s.shape(), (Shape{count, 6}));
  std::vector<double> expected;
  for (size_t p = 0; p < mask.size(); ++p) {
    if (mask[p]) expected.insert(expected.end(), host.begin() + p * 6, host.begin() + p * 6 + 6);
  }
  EXPECT_EQ(Get(s), expected);
  // a[m] = -1 writes exactly the selected rows.
  client().SetItem(a, {m}, -1.0);
  const std::vector<double> after = Get(a);
  for (size_t i = 0; i < host.size(); ++i) EXPECT_EQ(after[i], mask[i / 6] ? -1.0 : host[i]) << i;
}

TEST_F(ManipulationTest, SetItemBroadcastsAndCasts) {
  Array a = client().Zeros({3, 4});
  client().SetItem(a, {Slice{}, 1}, 7.0);  // a[:, 1] = 7
  Array row = client().Upload(std::vector<double>{1, 2, 3, 4}, {1, 4});
  client().SetItem(a, {Slice{.start = 1}}, row);  // a[1:] = [[1, 2, 3, 4]]
  EXPECT_EQ(Get(a), (std::vector<double>{0, 7, 0, 0, 1, 2, 3, 4, 1, 2, 3, 4}));
  // Assignment casts unsafely, as NumPy: a float into int64 truncates.
  Array i = client().Zeros({3}, DType::kInt64);
  client().SetItem(i, {0}, 2.7);
  client().SetItem(i, {Slice{.start = 1}}, client().Upload(std::vector<double>{-1.5, 3.9}, {2}));
  EXPECT_EQ(GetInts(i), (std::vector<int64_t>{2, -1, 3}));
  // np.zeros(2)[:] = np.zeros(3)
  EXPECT_CLIENT_ERROR(client().SetItem(i, {Slice{.start = 1}}, client().Zeros({3})),
                      kInvalidArgument,
                      "could not broadcast input array from shape (3,) into shape (2,)");
}

TEST_F(ManipulationTest, AtCombinesRepeatedIndices) {
  // np.add.at(a, [0, 2, 0, -1], 1) and np.maximum.at(a, [1, 1], [5, 3]) on float64 zeros(3).
  Array a = client().Zeros({3});
  Array index = client().Upload(std::vector<int64_t>{0, 2, 0, -1}, {4});
  client().At("add", a, {index}, 1.0);
  client().At("maximum", a, {client().Upload(std::vector<int64_t>{1, 1}, {2})},
              client().Upload(std::vector<double>{5, 3}, {2}));
  EXPECT_EQ(Get(a), (std::vector<double>{2, 5, 2}));
  EXPECT_CLIENT_ERROR(client().At("add", a, {client().Upload(std::vector<int64_t>{3}, {1})}, 1.0),
                      kInvalidArgument, "index 3 is out of bounds for axis 0 with size 3");
  EXPECT_CLIENT_ERROR(client().At("power", a, {index}, 1.0), kInvalidArgument,
                      "power.at into a float64 array: this server combines repeated indices with "
                      "add, subtract, multiply, maximum, minimum, fmax and fmin, in the array's "
                      "dtype (not subtract of bool)");
  EXPECT_EQ(Get(a), (std::vector<double>{2, 5, 2}));
}

TEST_F(ManipulationTest, WritesThroughViewsReachTheBase) {
  const std::vector<double> host = Random(6);
  Array a = client().Upload(host, {2, 3});
  Array t = client().Transpose(a);
  client().SetItem(t, {2, 0}, 5.0);  // a.T[2, 0] = 5 is a[0, 2]
  Array column = client().GetItem(a, {Slice{}, 1});
  client().SetItem(column, {kEllipsis}, -3.0);  // a[:, 1][...] = -3
  Array element = client().GetItem(a, {1, 2});  // A 0-d view; a[1, 2][()] = 8
  client().SetItem(element, {}, 8.0);
  std::vector<double> expected = host;
  expected[2] = 5;
  expected[1] = expected[4] = -3;
  expected[5] = 8;
  EXPECT_EQ(Get(a), expected);
}

TEST_F(ManipulationTest, OverlappingAssignmentsReadBeforeWriting) {
  // a = np.arange(5); a[1:] = a[:-1] gives [0, 0, 1, 2, 3].
  Array a = client().Arange(0, 5);
  client().SetItem(a, {Slice{.start = 1}}, client().GetItem(a, {Slice{.stop = -1}}));
  EXPECT_EQ(GetInts(a), (std::vector<int64_t>{0, 0, 1, 2, 3}));
  // b = np.arange(5); b[[4, 3, 2, 1, 0]] = b reverses it.
  Array b = client().Arange(0, 5);
  client().SetItem(b, {Ints({4, 3, 2, 1, 0})}, b);
  EXPECT_EQ(GetInts(b), (std::vector<int64_t>{4, 3, 2, 1, 0}));
}

TEST_F(ManipulationTest, DuplicateFancyIndicesKeepTheLastWrite) {
  // a = np.zeros(5); a[[0, 0, 2]] = [1, 2, 3] gives [2, 0, 3, 0, 0].
  Array a = client().Zeros({5});
  Array idx = Ints({0, 0, 2});
  client().SetItem(a, {idx}, client().Upload(std::vector<double>{1, 2, 3}, {3}));
  EXPECT_EQ(Get(a), (std::vector<double>{2, 0, 3, 0, 0}));
  // b = np.arange(5); b[[0, 0, 2]] += 1 reads, adds and writes once: [1, 1, 3, 3, 4].
  Array b = client().Arange(0, 5);
  Array sum = client().Ufunc("add", {client().GetItem(b, {idx}), 1});
  client().SetItem(b, {idx}, sum);
  EXPECT_EQ(GetInts(b), (std::vector<int64_t>{1, 1, 3, 3, 4}));
}

TEST_F(ManipulationTest, IndexErrorsQuoteNumPy) {
  Array a = client().Arange(0, 5);
  const std::string out_of_bounds = "index 5 is out of bounds for axis 0 with size 5";
  EXPECT_CLIENT_ERROR(client().GetItem(a, {5}), kInvalidArgument, out_of_bounds);
  EXPECT_CLIENT_ERROR(client().SetItem(a, {5}, 0), kInvalidArgument, out_of_bounds);
  Array bad = Ints({0, 5});
  EXPECT_CLIENT_ERROR(client().GetItem(a, {bad}), kInvalidArgument, out_of_bounds);
  EXPECT_CLIENT_ERROR(client().SetItem(a, {bad}, 0), kInvalidArgument, out_of_bounds);
  EXPECT_CLIENT_ERROR(client().GetItem(a, {Ints({-6})}), kInvalidArgument,
                      "index -6 is out of bounds for axis 0 with size 5");
  EXPECT_EQ(GetInts(a), (std::vector<int64_t>{0, 1, 2, 3, 4}));  // Nothing was written.
  EXPECT_CLIENT_ERROR(client().GetItem(a, {0, 0}), kInvalidArgument,
                      "too many indices for array: array is 1-dimensional, but 2 were indexed");
  EXPECT_CLIENT_ERROR(client().GetItem(a, {kEllipsis, kEllipsis}), kInvalidArgument,
                      "an index can only have a single ellipsis ('...')");
  EXPECT_CLIENT_ERROR(client().GetItem(a, {Slice{.step = 0}}), kInvalidArgument,
                      "slice step cannot be zero");
  EXPECT_CLIENT_ERROR(client().GetItem(a, {client().Zeros({2})}), kInvalidArgument,
                      "arrays used as indices must be of integer (or boolean) type");
  Array mask = client().Upload(std::vector<bool>{true, false}, {2});
  EXPECT_CLIENT_ERROR(client().GetItem(a, {mask}), kInvalidArgument,
                      "boolean index did not match indexed array along axis 0; size of axis is 5 "
                      "but size of corresponding boolean axis is 2");
}

TEST_F(ManipulationTest, StridedViewsAsInputs) {
  // a = np.arange(12).reshape(3, 4)[:, ::2]; a.reshape(2, 3, order="F")
  Array base = client().Reshape(client().Arange(0, 12), {3, 4});
  Array a = client().GetItem(base, {Slice{}, Slice{.step = 2}});
  EXPECT_EQ(GetInts(client().Reshape(a, {2, 3}, Order::kF)),
            (std::vector<int64_t>{0, 8, 6, 4, 2, 10}));
  // x = np.arange(10); x[::-1][[0, 1, -1]], x[7:1:-2][[2, 0]]
  Array x = client().Arange(0, 10);
  Array reversed = client().GetItem(x, {Slice{.step = -1}});
  EXPECT_EQ(GetInts(client().GetItem(reversed, {Ints({0, 1, -1})})),
            (std::vector<int64_t>{9, 8, 0}));
  Array stepped = client().GetItem(x, {Slice{7, 1, -2}});
  EXPECT_EQ(GetInts(client().GetItem(stepped, {Ints({2, 0})})), (std::vector<int64_t>{3, 7}));
  // A transposed mask selects in the view's C order: np.arange(6).reshape(3, 2)[m.T]
  Array m = client().Upload(std::vector<bool>{true, false, true, false, true, true}, {2, 3});
  Array six = client().Reshape(client().Arange(0, 6), {3, 2});
  EXPECT_EQ(GetInts(client().GetItem(six, {client().Transpose(m)})),
            (std::vector<int64_t>{0, 3, 4, 5}));
  // b = np.arange(5); b[:] = b[::-1]
  Array b = client().Arange(0, 5);
  client().SetItem(b, {Slice{}}, client().GetItem(b, {Slice{.step = -1}}));
  EXPECT_EQ(GetInts(b), (std::vector<int64_t>{4, 3, 2, 1, 0}));
  // Flattening ops read views in C order: np.sort(a, axis=None), np.unique(base[:, ::-2]),
  // np.take(base.T, [0, 5, 11]), np.cumsum(base.T)
  Array odd = client().GetItem(base, {Slice{}, Slice{.step = -2}});
  EXPECT_EQ(GetInts(client().Sort(odd, std::nullopt)), (std::vector<int64_t>{1, 3, 5, 7, 9, 11}));
  EXPECT_EQ(GetInts(client().Unique(odd)), (std::vector<int64_t>{1, 3, 5, 7, 9, 11}));
  Array t = client().Transpose(base);
  EXPECT_EQ(GetInts(client().Take(t, Ints({0, 5, 11}))), (std::vector<int64_t>{0, 9, 11}));
  EXPECT_EQ(GetInts(client().Cumsum(t)),
            (std::vector<int64_t>{0, 4, 12, 13, 18, 27, 29, 35, 45, 48, 55, 66}));
  // np.split(np.arange(6), [4, 2]): a bound below the previous one gives an empty part.
  std::vector<Array> parts = client().SplitAt(client().Arange(0, 6), {4, 2});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].shape(), (Shape{0}));
  EXPECT_EQ(GetInts(parts[2]), (std::vector<int64_t>{2, 3, 4, 5}));
  // np.roll(np.arange(6).reshape(2, 3), (1, -1), axis=(0, 1))
  Array rolled =
      std::move(client().ArrayOp("roll", {client().Reshape(client().Arange(0, 6), {2, 3})},
                                 {.axis = std::vector<int64_t>{0, 1}, .ints = {1, -1}})[0]);
  EXPECT_EQ(GetInts(rolled), (std::vector<int64_t>{4, 5, 3, 1, 2, 0}));
  // a = np.zeros((2, 3)); a[[1, 0], [0, 2]] = [5, 6]
  Array z = client().Zeros({2, 3});
  client().SetItem(z, {Ints({1, 0}), Ints({0, 2})},
                   client().Upload(std::vector<double>{5, 6}, {2}));
  EXPECT_EQ(Get(z), (std::vector<double>{0, 0, 6, 5, 0, 0}));
}

// --- array ops -----------------------------------------------------------------------------

TEST_F(ManipulationTest, ConcatenateStackAndSplit) {
  Array a = client().Upload(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3});
  Array b = client().Upload(std::vector<float>{7, 8, 9}, {1, 3});
  Array c = client().Concatenate({a, b});
  EXPECT_EQ(c.shape(), (Shape{3, 3}));
  EXPECT_EQ(Get(c), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  Array flat = client().Concatenate({b, a}, std::nullopt, DType::kFloat32);
  EXPECT_EQ(flat.dtype(), DType::kFloat32);
  EXPECT_EQ(client().Download<float>(flat), (std::vector<float>{7, 8, 9, 1, 2, 3, 4, 5, 6}));
  EXPECT_CLIENT_ERROR(client().Concatenate({a, b}, 1), kInvalidArgument,
                      "all the input array dimensions except for the concatenation axis must "
                      "match exactly, but along dimension 0, the array at index 0 has size 2 and "
                      "the array at index 1 has size 1");
  // np.stack([x, y], axis=1)
  Array x = client().Upload(std::vector<double>{1, 2, 3}, {3});
  Array y = client().Upload(std::vector<double>{4, 5, 6}, {3});
  Array s = client().Stack({x, y}, 1);
  EXPECT_EQ(s.shape(), (Shape{3, 2}));
  EXPECT_EQ(Get(s), (std::vector<double>{1, 4, 2, 5, 3, 6}));

  Array r = client().Arange(0, 6);
  std::vector<Array> thirds = client().Split(r, 3);
  ASSERT_EQ(thirds.size(), 3u);
  ExpectViewOf(thirds[1], r);
  EXPECT_EQ(GetInts(thirds[2]), (std::vector<int64_t>{4, 5}));
  std::vector<Array> parts = client().SplitAt(r, {2, 5});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(GetInts(parts[0]), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(GetInts(parts[1]), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(GetInts(parts[2]), (std::vector<int64_t>{5}));
  client().SetItem(parts[1], {0}, 20);
  EXPECT_EQ(GetInts(r)[2], 20);
  EXPECT_CLIENT_ERROR(client().Split(client().Arange(0, 5), 2), kInvalidArgument,
                      "array split does not result in an equal division");
}

TEST_F(ManipulationTest, SortAndArgsortAlongAxes) {
  const std::vector<double> host = Random(20);
  Array a = client().Upload(host, {4, 5});
  // Default axis -1: each row sorted.
  std::vector<double> rows = host;
  for (int i = 0; i < 4; ++i) std::sort(rows.begin() + i * 5, rows.begin() + i * 5 + 5);
  EXPECT_EQ(Get(client().Sort(a)), rows);
  // axis 0: each column sorted.
  std::vector<double> columns = host;
  for (int j = 0; j < 5; ++j) {
    std::vector<double> column;
    for (int i = 0; i < 4; ++i) column.push_back(host[i * 5 + j]);
    std::sort(column.begin(), column.end());
    for (int i = 0; i < 4; ++i) columns[i * 5 + j] = column[i];
  }
  EXPECT_EQ(Get(client().Sort(a, 0)), columns);
  // axis None: the flattened array.
  std::vector<double> all = host;
  std::sort(all.begin(), all.end());
  Array flat = client().Sort(a, std::nullopt);
  EXPECT_EQ(flat.shape(), (Shape{20}));
  EXPECT_EQ(Get(flat), all);
  // Argsort is stable: ties keep their order. NaN sorts last.
  Array ties = client().Upload(std::vector<double>{3, 1, kNaN, 2, 1, 3}, {6});
  EXPECT_EQ(GetInts(client().Argsort(ties)), (std::vector<int64_t>{1, 4, 3, 0, 5, 2}));
}

// numpy.partition selects: the kth positions hold the sorted values, the others lie on their
// side; NaN sorts last; a kth out of bounds is NumPy's ValueError.
TEST_F(ManipulationTest, PartitionAndArgpartitionSelect) {
  const std::vector<double> host = {5, kNaN, 1, 4, 2, 3, 0};
  Array a = client().Upload(host, {7});
  const std::vector<double> part = Get(client().Partition(a, {2, -1}));
  EXPECT_EQ(part[2], 2);
  EXPECT_TRUE(std::isnan(part[6]));
  for (int i = 0; i < 2; ++i) EXPECT_LT(part[i], 2);
  for (int i = 3; i < 6; ++i) EXPECT_GT(part[i], 2);
  const std::vector<int64_t> order = GetInts(client().Argpartition(a, {3}));
  EXPECT_EQ(host[order[3]], 3);
  EXPECT_CLIENT_ERROR(client().Partition(a, {7}), kInvalidArgument, "kth(=7) out of bounds (7)");
}

TEST_F(ManipulationTest, CumsumTakeUniqueNonzeroSearchSorted) {
  // np.cumsum(np.array([100, 100, 100], np.int8)) widens to int64.
  Array small = client().Upload(std::vector<int8_t>{100, 100, 100}, {3});
  Array cs = client().Cumsum(small);
  EXPECT_EQ(cs.dtype(), DType::kInt64);
  EXPECT_EQ(GetInts(cs), (std::vector<int64_t>{100, 200, 300}));
  Array m = client().Upload(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3});
  Array rows = client().Cumsum(m, 1, DType::kFloat32);
  EXPECT_EQ(client().Download<float>(rows), (std::vector<float>{1, 3, 6, 4, 9, 15}));

  // np.take(m, [2, 0], axis=1), np.take(m, [5, 0]), np.take(m, 1, axis=0)
  Array idx = Ints({2, 0});
  EXPECT_EQ(Get(client().Take(m, idx, 1)), (std::vector<double>{3, 1, 6, 4}));
  EXPECT_EQ(Get(client().Take(m, Ints({5, 0}))), (std::vector<double>{6, 1}));
  Array row = client().Take(m, 1, 0);
  EXPECT_EQ(row.shape(), (Shape{3}));
  EXPECT_EQ(Get(row), (std::vector<double>{4, 5, 6}));
  EXPECT_CLIENT_ERROR(client().Take(m, Ints({6})), kInvalidArgument,
                      "index 6 is out of bounds for axis 0 with size 6");

  // np.unique([3, nan, 1, 3, nan, 2]) collapses the NaNs.
  Array u = client().Unique(client().Upload(std::vector<double>{3, kNaN, 1, 3, kNaN, 2}, {2, 3}));
  const std::vector<double> unique = Get(u);
  ASSERT_EQ(unique.size(), 4u);
  EXPECT_EQ(std::vector<double>(unique.begin(), unique.begin() + 3),
            (std::vector<double>{1, 2, 3}));
  EXPECT_TRUE(std::isnan(unique[3]));

  // np.nonzero([[0, 1, 0], [2, 0, 3]])
  std::vector<Array> nz =
      client().Nonzero(client().Upload(std::vector<int32_t>{0, 1, 0, 2, 0, 3}, {2, 3}));
  ASSERT_EQ(nz.size(), 2u);
  EXPECT_EQ(GetInts(nz[0]), (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(GetInts(nz[1]), (std::vector<int64_t>{1, 0, 2}));

  // np.searchsorted([1, 2, 3, 3, 5], [3, 0, 6], side=...), and with a scalar.
  Array sorted = client().Upload(std::vector<double>{1, 2, 3, 3, 5}, {5});
  Array needles = client().Upload(std::vector<double>{3, 0, 6}, {3});
  EXPECT_EQ(GetInts(client().SearchSorted(sorted, needles)), (std::vector<int64_t>{2, 0, 5}));
  EXPECT_EQ(GetInts(client().SearchSorted(sorted, needles, "right")),
            (std::vector<int64_t>{4, 0, 5}));
  Array one = client().SearchSorted(sorted, 3, "right");
  EXPECT_EQ(one.shape(), Shape{});
  EXPECT_EQ(GetInts(one), (std::vector<int64_t>{4}));
  EXPECT_CLIENT_ERROR(client().SearchSorted(sorted, 3, "middle"), kInvalidArgument,
                      "side must be \"left\" or \"right\", got \"middle\"");
}

TEST_F(ManipulationTest, CopyAstypeAndTheGeneralForm) {
  Array a = client().Upload(std::vector<double>{1.5, -2.5, 3.9}, {3});
  Array c = client().Copy(a);
  EXPECT_TRUE(c.info().owns_data);
  client().SetItem(c, {0}, 0.0);
  EXPECT_EQ(Get(a)[0], 1.5);
  Array i = client().Astype(a, DType::kInt32);
  EXPECT_EQ(client().Download<int32_t>(i), (std::vector<int32_t>{1, -2, 3}));

  // np.roll(np.arange(5), 2), np.tile(np.arange(2), (2, 2)), np.repeat(np.arange(3), 2),
  // np.flip(np.arange(4).reshape(2, 2), axis=1)
  Array r = client().Arange(0, 5);
  EXPECT_EQ(GetInts(client().ArrayOp("roll", {r}, {.ints = {2}})[0]),
            (std::vector<int64_t>{3, 4, 0, 1, 2}));
  Array tiled = std::move(client().ArrayOp("tile", {client().Arange(0, 2)}, {.ints = {2, 2}})[0]);
  EXPECT_EQ(tiled.shape(), (Shape{2, 4}));
  EXPECT_EQ(GetInts(tiled), (std::vector<int64_t>{0, 1, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(GetInts(client().ArrayOp("repeat", {client().Arange(0, 3)}, {.ints = {2}})[0]),
            (std::vector<int64_t>{0, 0, 1, 1, 2, 2}));
  Array square = client().Reshape(client().Arange(0, 4), {2, 2});
  EXPECT_EQ(GetInts(client().ArrayOp("flip", {square}, {.axis = std::vector<int64_t>{1}})[0]),
            (std::vector<int64_t>{1, 0, 3, 2}));

  EXPECT_CLIENT_ERROR(client().ArrayOp("frobnicate", {r}), kInvalidArgument,
                      "unknown array op \"frobnicate\"");
  EXPECT_CLIENT_ERROR(client().ArrayOp("sort", {r, r}), kInvalidArgument,
                      "sort takes 1 operand, got 2");
  EXPECT_CLIENT_ERROR(client().ArrayOp("astype", {r}), kInvalidArgument, "astype needs dtype");
}

}  // namespace
}  // namespace arrayhub::testing
