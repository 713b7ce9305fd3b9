// The CUDA backend's indexing calls (gather, scatter, sort, partition, scan, count_nonzero,
// nonzero, searchsorted) against the host backend, on fresh random data every run (the seed is
// printed with every failure; ARRAYHUB_TEST_SEED=<seed> repeats a run), for every dtype: dense,
// strided, reversed and broadcast views, high ranks, zero sizes, NaN and signed zeros, complex NaN
// classes, duplicate and negative indices, out-of-bounds indices, several rows, sizes that
// cross many blocks. Everything must match bit for bit except float scans, whose parallel
// order rounds differently from the host's sequential loop (tolerances at ScanTolerance).
// Runs only with a GPU.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/host/host_backend.h"
#include "server/backend/host/host_sort_order.h"
#include "server/backend/host/host_types.h"
#include "server/common/float16.h"
#include "server/common/status_macros.h"
#include "tests/backend/cuda_fixture.h"
#include "tests/backend/element_bytes.h"
#include "tests/support/status_assert.h"
#include "tests/support/test_queue.h"
#include "tests/support/test_seed.h"

namespace arrayhub {
namespace {

using Bytes = std::vector<std::byte>;
using Rng = std::mt19937_64;
using testing::BaseSeed;

// ---------------------------------------------------------------------------------------------
// Random values

enum class Values {
  kWide,     // Floats in [-8, 8]; integers over their whole range.
  kNarrow,   // Few distinct values (integers in [-3, 3], floats on a 0.5 grid): many ties.
  kSpecial,  // kNarrow plus NaN of either sign, infinities and both zeros; all complex classes.
  kZeros,    // Half of the elements zero (floats: +0.0 or -0.0; complex: either part), the
             // rest kSpecial.
  kSumand,   // Floats in [0.5, 1.5] (sums without cancellation); integers over their range.
  kFactor,   // Floats in [0.9, 1.1] (complex: imaginary part in [-0.1, 0.1]); odd integers.
};

double Uniform(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

double RandomReal(Values kind, Rng& rng) {
  const double u = Uniform(rng, 0, 1);
  switch (kind) {
    case Values::kSpecial:
    case Values::kZeros:
      if (u < 0.08) return std::copysign(std::numeric_limits<double>::quiet_NaN(), u - 0.04);
      if (u < 0.11) return std::numeric_limits<double>::infinity();
      if (u < 0.14) return -std::numeric_limits<double>::infinity();
      if (u < 0.20) return u < 0.17 ? 0.0 : -0.0;
      [[fallthrough]];
    case Values::kNarrow:
      return std::floor(Uniform(rng, -8, 8)) / 2;
    case Values::kSumand:
      return Uniform(rng, 0.5, 1.5);
    case Values::kFactor:
      return Uniform(rng, 0.9, 1.1);
    default:
      return Uniform(rng, -8, 8);
  }
}

void RandomElement(DType dtype, Values kind, Rng& rng, std::byte* out) {
  const bool zero = kind == Values::kZeros && rng() % 2 == 0;
  switch (KindOf(dtype)) {
    case DTypeKind::kBool:
      out[0] = std::byte{zero ? uint8_t{0} : static_cast<uint8_t>(rng() % 10 < 7)};
      return;
    case DTypeKind::kSigned:
    case DTypeKind::kUnsigned: {
      uint64_t v = rng();
      if (zero) v = 0;
      if (kind == Values::kNarrow || kind == Values::kSpecial)
        v = static_cast<uint64_t>(static_cast<int64_t>(rng() % 7) -
                                  (KindOf(dtype) == DTypeKind::kSigned ? 3 : 0));
      if (kind == Values::kFactor) v |= 1;  // Products of odd numbers never wrap to 0.
      std::memcpy(out, &v, static_cast<size_t>(ItemSize(dtype)));  // Little-endian low bytes.
      return;
    }
    case DTypeKind::kFloat:
      StoreReal(dtype, zero ? (rng() % 2 ? 0.0 : -0.0) : RandomReal(kind, rng), out);
      return;
    case DTypeKind::kComplex: {
      const DType part = RealDType(dtype);
      const int64_t size = ItemSize(part);
      double re = RandomReal(kind, rng);
      double im = kind == Values::kFactor ? Uniform(rng, -0.1, 0.1) : RandomReal(kind, rng);
      if (zero) {
        const uint64_t which = rng() % 3;  // Both parts zero, or only one.
        if (which != 1) re = rng() % 2 ? 0.0 : -0.0;
        if (which != 2) im = rng() % 2 ? 0.0 : -0.0;
      }
      StoreReal(part, re, out);
      StoreReal(part, im, out + size);
      return;
    }
  }
}

Bytes RandomBytes(DType dtype, int64_t count, Values kind, Rng& rng) {
  Bytes bytes(static_cast<size_t>(std::max<int64_t>(count, 1) * ItemSize(dtype)));
  for (int64_t i = 0; i < count; ++i) RandomElement(dtype, kind, rng, &bytes[i * ItemSize(dtype)]);
  return bytes;
}

Bytes Int64Bytes(const std::vector<int64_t>& values) {
  Bytes bytes(std::max<size_t>(values.size(), 1) * sizeof(int64_t));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), values.size() * sizeof(int64_t));
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Layouts

// A view of `shape` over a buffer of `elements` elements from element `offset`.
struct Layout {
  Shape shape;
  Strides strides;
  int64_t offset = 0;
  int64_t elements = 0;
};

Layout Dense(const Shape& shape) { return {shape, ContiguousStrides(shape), 0, Count(shape)}; }

// The buffer stores the axes in a random order; each axis may step over every other element
// and run backwards (negative stride, from the far end).
Layout Scrambled(const Shape& shape, Rng& rng) {
  const size_t rank = shape.size();
  std::vector<size_t> order(rank);
  std::iota(order.begin(), order.end(), size_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  Layout layout{shape, Strides(rank), 0, 1};
  std::vector<int64_t> steps(rank);
  for (size_t d = 0; d < rank; ++d) steps[d] = shape[d] > 1 && rng() % 3 == 0 ? 2 : 1;
  int64_t stride = 1;
  for (size_t j = rank; j-- > 0;) {
    const size_t d = order[j];
    layout.strides[d] = stride * steps[d];
    stride *= shape[d] * steps[d];
  }
  layout.elements = stride;
  for (size_t d = 0; d < rank; ++d) {
    if (rng() % 2 == 0 && shape[d] > 0) {
      layout.offset += (shape[d] - 1) * layout.strides[d];
      layout.strides[d] = -layout.strides[d];
    }
  }
  return layout;
}

// ---------------------------------------------------------------------------------------------
// Buffers on both backends

struct Both {
  std::shared_ptr<Buffer> cuda;
  std::shared_ptr<Buffer> host;
  const std::shared_ptr<Buffer>& On(bool on_cuda) const { return on_cuda ? cuda : host; }
};

ArrayView ViewOf(const Both& both, bool on_cuda, DType dtype, const Layout& layout) {
  return ArrayView{.buffer = both.On(on_cuda).get(),
                   .offset_bytes = layout.offset * ItemSize(dtype),
                   .dtype = dtype,
                   .shape = layout.shape,
                   .strides = layout.strides};
}

// Exact or (tolerance > 0) |actual - expected| <= tolerance * |expected| per element, where
// NaN matches NaN; empty when they match, else the first few differences.
// `any_nan`: two NaNs match whatever their bits, for results of arithmetic (a product that
// overflows to inf - inf is NaN on both backends, with the host's sign-set default NaN and
// CUDA's canonical one); copies and extrema keep their operand's bits and are compared exactly.
std::string Mismatch(DType dtype, const Bytes& actual, const Bytes& expected, double tolerance,
                     bool any_nan = false) {
  if (actual.size() != expected.size()) {
    return fmt::format("{} vs {} bytes", actual.size(), expected.size());
  }
  const auto size = static_cast<size_t>(ItemSize(dtype));
  const auto component = [&](const std::byte* p, size_t k) -> double {
    switch (RealDType(dtype)) {
      case DType::kFloat16: {
        uint16_t bits;
        std::memcpy(&bits, p, 2);
        Imath::half h;
        h.setBits(bits);
        return static_cast<float>(h);
      }
      case DType::kFloat32: {
        float f;
        std::memcpy(&f, p + 4 * k, 4);
        return f;
      }
      default: {
        double d;
        std::memcpy(&d, p + 8 * k, 8);
        return d;
      }
    }
  };
  std::string shown;
  int64_t wrong = 0;
  for (size_t i = 0; i < actual.size() / size; ++i) {
    const std::byte* a = &actual[i * size];
    const std::byte* e = &expected[i * size];
    if (std::memcmp(a, e, size) == 0) continue;
    if (any_nan && (IsFloating(dtype) || IsComplex(dtype))) {
      bool same = true;
      for (size_t k = 0; k < (IsComplex(dtype) ? 2u : 1u); ++k) {
        const size_t part = size / (IsComplex(dtype) ? 2u : 1u);
        const bool both_nan = std::isnan(component(a, k)) && std::isnan(component(e, k));
        same = same && (both_nan || std::memcmp(a + k * part, e + k * part, part) == 0);
      }
      if (same) continue;
    }
    bool close = tolerance > 0;
    if (close) {
      double distance = 0;
      double magnitude = 0;
      for (size_t k = 0; k < (IsComplex(dtype) ? 2u : 1u); ++k) {
        const double x = component(a, k);
        const double y = component(e, k);
        if (std::isnan(x) || std::isnan(y)) {
          close = close && std::isnan(x) && std::isnan(y);
          continue;
        }
        distance = std::hypot(distance, x - y);
        magnitude = std::hypot(magnitude, y);
      }
      close = close && distance <= tolerance * magnitude;
    }
    if (close) continue;
    if (++wrong <= 4) {
      std::string as;
      std::string es;
      for (size_t b = size; b-- > 0;) {
        as += fmt::format("{:02x}", std::to_integer<int>(a[b]));
        es += fmt::format("{:02x}", std::to_integer<int>(e[b]));
      }
      shown += fmt::format(" [{}] cuda 0x{} host 0x{};", i, as, es);
    }
  }
  if (wrong == 0) return "";
  return fmt::format("{} of {} {} elements differ:{}", wrong, actual.size() / size,
                     DTypeName(dtype), shown);
}

class CudaIndexingTest : public CudaFixture {
 protected:
  testing::SeedTrace seed_trace_;  // AH_TEST_ASSIGN's failures name the seed through it.

  Backend& On(bool on_cuda) { return on_cuda ? *cuda_ : host_; }

  absl::StatusOr<Both> Upload(const Bytes& bytes) {
    Both both;
    for (const bool on_cuda : {true, false}) {
      AH_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buffer,
                          On(on_cuda).memory().Allocate(TestQueue(On(on_cuda)),
                                                        static_cast<int64_t>(bytes.size())));
      AH_RETURN_IF_ERROR(
          On(on_cuda).memory().CopyFromHost(TestQueue(On(on_cuda)), *buffer, 0, bytes));
      (on_cuda ? both.cuda : both.host) = std::move(buffer);
    }
    return both;
  }

  absl::StatusOr<Bytes> Download(const Both& both, bool on_cuda) {
    Bytes bytes(static_cast<size_t>(both.On(on_cuda)->size()));
    AH_RETURN_IF_ERROR(
        On(on_cuda).memory().CopyToHost(TestQueue(On(on_cuda)), *both.On(on_cuda), 0, bytes));
    return bytes;
  }

  // Compares the whole buffers (gaps between a view's elements must stay equal too).
  std::string Compare(const Both& both, DType dtype, double tolerance = 0, bool any_nan = false) {
    absl::StatusOr<Bytes> actual = Download(both, true);
    absl::StatusOr<Bytes> expected = Download(both, false);
    if (!actual.ok() || !expected.ok()) {
      return fmt::format("download: {} / {}", actual.status().ToString(),
                         expected.status().ToString());
    }
    return Mismatch(dtype, *actual, *expected, tolerance, any_nan);
  }

  HostBackend host_;
};

// ---------------------------------------------------------------------------------------------
// Gather and scatter

// data[..., i_0, i_1, ..., ...]: integer index arrays on the consecutive axes from
// `first_axis` of `data`, each of the rank of `broadcast` and broadcastable to it (extent 1 or
// equal). The call's shape is data[:first_axis] + broadcast + data[first_axis + m:].
struct IndexCase {
  Shape data;
  int first_axis = 0;
  std::vector<Shape> index_shapes;
  Shape broadcast;
  bool scrambled = false;  // The data in a Scrambled layout.
};

std::vector<IndexCase> IndexCases() {
  std::vector<IndexCase> cases = {
      {{5, 7, 6}, 0, {{4, 3}}, {4, 3}, false},
      {{5, 7, 6}, 1, {{4, 1}, {1, 5}}, {4, 5}, true},
      {{5, 7, 6}, 1, {{4, 5}, {4, 1}}, {4, 5}, true},
      {{9, 4, 3, 8}, 3, {{10}}, {10}, true},
      {{9, 4, 3}, 0, {{2, 3, 1}, {2, 1, 4}, {1, 3, 4}}, {2, 3, 4}, true},
      {{300}, 0, {{1000}}, {1000}, false},  // Many duplicates.
      {{2000, 3}, 0, {{3000}}, {3000}, true},
      {{5, 7}, 0, {{0}}, {0}, false},    // No indices.
      {{5, 0}, 0, {{3}}, {3}, false},    // No elements per index.
      {{3, 4}, 1, {Shape{}}, {}, true},  // One scalar index.
  };
  // Rank 40 around the indexed axis, most extents 1, scrambled: walks of high rank.
  IndexCase high{{}, 20, {{3}}, {3}, true};
  for (int d = 0; d < 40; ++d) high.data.push_back(d == 20 ? 4 : (d % 8 == 0 ? 2 : 1));
  cases.push_back(high);
  return cases;
}

// An IndexCase's buffers and views on both backends.
struct IndexSetup {
  Layout data;
  Both data_buffer;
  std::vector<Both> index_buffers;
  std::vector<std::vector<int64_t>> index_values;
  Shape shape;  // The call's.

  // The data as the call sees it: `shape`, stride 0 along the broadcast dimensions.
  ArrayView DataView(bool on_cuda, DType dtype, const IndexCase& c) const {
    Layout view{shape, {}, data.offset, 0};
    for (int d = 0; d < c.first_axis; ++d) view.strides.push_back(data.strides[d]);
    view.strides.insert(view.strides.end(), c.broadcast.size(), 0);
    for (size_t d = c.first_axis + c.index_shapes.size(); d < c.data.size(); ++d) {
      view.strides.push_back(data.strides[d]);
    }
    return ViewOf(data_buffer, on_cuda, dtype, view);
  }

  std::vector<IndexOperand> Operands(bool on_cuda, const IndexCase& c) const {
    std::vector<IndexOperand> operands;
    for (size_t k = 0; k < c.index_shapes.size(); ++k) {
      const Strides own = ContiguousStrides(c.index_shapes[k]);
      Layout view{shape, Strides(shape.size(), 0), 0, 0};
      for (size_t j = 0; j < c.broadcast.size(); ++j) {
        if (c.index_shapes[k][j] != 1) view.strides[c.first_axis + j] = own[j];
      }
      const int axis = c.first_axis + static_cast<int>(k);
      operands.push_back({.indices = ViewOf(index_buffers[k], on_cuda, DType::kInt64, view),
                          .extent = c.data[axis],
                          .stride = data.strides[axis],
                          .axis = axis});
    }
    return operands;
  }
};

class IndexTest : public CudaIndexingTest {
 protected:
  // Random data of `dtype` and random in-bounds indices (negative ones too); with `bad`, index
  // element bad->second of operand bad->first is replaced by an out-of-bounds value.
  absl::StatusOr<IndexSetup> Setup(DType dtype, const IndexCase& c, Rng& rng,
                                   std::optional<std::pair<size_t, int64_t>> bad = {}) {
    IndexSetup s;
    s.data = c.scrambled ? Scrambled(c.data, rng) : Dense(c.data);
    AH_ASSIGN_OR_RETURN(s.data_buffer,
                        Upload(RandomBytes(dtype, s.data.elements, Values::kWide, rng)));
    s.shape.assign(c.data.begin(), c.data.begin() + c.first_axis);
    s.shape.insert(s.shape.end(), c.broadcast.begin(), c.broadcast.end());
    s.shape.insert(s.shape.end(), c.data.begin() + c.first_axis + c.index_shapes.size(),
                   c.data.end());
    for (size_t k = 0; k < c.index_shapes.size(); ++k) {
      const int64_t extent = c.data[c.first_axis + k];
      std::vector<int64_t> values(static_cast<size_t>(Count(c.index_shapes[k])));
      for (int64_t& v : values) {
        v = extent > 0 ? std::uniform_int_distribution<int64_t>(-extent, extent - 1)(rng) : 0;
      }
      if (bad && bad->first == k) {
        const int64_t overshoot = static_cast<int64_t>(rng() % 3);
        values[static_cast<size_t>(bad->second)] =
            rng() % 2 ? extent + overshoot : -extent - 1 - overshoot;
      }
      AH_ASSIGN_OR_RETURN(Both buffer, Upload(Int64Bytes(values)));
      s.index_buffers.push_back(std::move(buffer));
      s.index_values.push_back(std::move(values));
    }
    return s;
  }

  // Gathers on both backends into prefilled outputs; compares statuses, and whole outputs where
  // the gathers succeed (a failed gather's output is unspecified).
  void CheckGather(DType dtype, const IndexCase& c, Rng& rng,
                   std::optional<std::pair<size_t, int64_t>> bad = {}) {
    AH_TEST_ASSIGN(const IndexSetup s, Setup(dtype, c, rng, bad));
    AH_TEST_ASSIGN(const Both output,
                   Upload(RandomBytes(dtype, Count(s.shape), Values::kWide, rng)));
    absl::Status status[2];
    for (const bool on_cuda : {true, false}) {
      const GatherCall call{.source = s.DataView(on_cuda, dtype, c),
                            .indices = s.Operands(on_cuda, c),
                            .output = ViewOf(output, on_cuda, dtype, Dense(s.shape))};
      status[on_cuda ? 0 : 1] = On(on_cuda).indexing().Gather(TestQueue(On(on_cuda)), call);
    }
    const std::string what = fmt::format("gather {} data {} axis {}", DTypeName(dtype),
                                         FormatShape(c.data), c.first_axis);
    EXPECT_EQ(status[0], status[1]) << what << testing::SeedNote();
    EXPECT_EQ(status[0].ok(), !bad.has_value()) << what << ": " << status[0] << testing::SeedNote();
    if (status[0].ok()) {
      EXPECT_EQ(Compare(output, dtype), "") << what << testing::SeedNote();
    }
  }

  // Scatters random values (broadcast along the first dimension where it is > 1) on both
  // backends, assigning or (with `combine`) combining; compares statuses and the whole target
  // buffers. A combining scatter folds each destination's values in the host's sequential
  // order, so floats must match bit for bit too.
  void CheckScatter(DType dtype, const IndexCase& c, Rng& rng,
                    std::optional<std::pair<size_t, int64_t>> bad = {},
                    std::optional<ElementwiseOp> combine = {}) {
    AH_TEST_ASSIGN(const IndexSetup s, Setup(dtype, c, rng, bad));
    Layout values = Dense(s.shape);
    if (!s.shape.empty() && s.shape[0] > 1 && rng() % 2 == 0) {
      values.strides[0] = 0;
      values.elements = Count(s.shape) / s.shape[0];
    }
    Values kind = Values::kWide;
    if (combine == ElementwiseOp::kAdd || combine == ElementwiseOp::kSubtract) {
      kind = Values::kSumand;
    } else if (combine == ElementwiseOp::kMultiply) {
      kind = Values::kFactor;
    } else if (combine) {
      kind = Values::kSpecial;  // NaN, infinities and signed zeros for the extrema.
    }
    AH_TEST_ASSIGN(const Both value_buffer, Upload(RandomBytes(dtype, values.elements, kind, rng)));
    absl::Status status[2];
    for (const bool on_cuda : {true, false}) {
      const ScatterCall call{.target = s.DataView(on_cuda, dtype, c),
                             .indices = s.Operands(on_cuda, c),
                             .values = ViewOf(value_buffer, on_cuda, dtype, values),
                             .combine = combine};
      status[on_cuda ? 0 : 1] = On(on_cuda).indexing().Scatter(TestQueue(On(on_cuda)), call);
    }
    const std::string what =
        fmt::format("scatter {} {} data {} axis {}", combine ? OpName(*combine) : "assign",
                    DTypeName(dtype), FormatShape(c.data), c.first_axis);
    EXPECT_EQ(status[0], status[1]) << what << testing::SeedNote();
    EXPECT_EQ(status[0].ok(), !bad.has_value()) << what << ": " << status[0] << testing::SeedNote();
    // Sums, differences and products make their NaNs; the extrema and assignment move bits.
    const bool arithmetic = combine == ElementwiseOp::kAdd || combine == ElementwiseOp::kSubtract ||
                            combine == ElementwiseOp::kMultiply;
    EXPECT_EQ(Compare(s.data_buffer, dtype, 0, arithmetic), "") << what << testing::SeedNote();
  }
};

TEST_F(IndexTest, GatherMatchesHostForEveryDTypeAndLayout) {
  Rng rng(BaseSeed());
  for (const DType dtype : kAllDTypes) {
    for (const IndexCase& c : IndexCases()) CheckGather(dtype, c, rng);
  }
}

TEST_F(IndexTest, ScatterMatchesHostForEveryDTypeAndLayout) {
  Rng rng(BaseSeed() + 1);
  for (const DType dtype : kAllDTypes) {
    for (const IndexCase& c : IndexCases()) CheckScatter(dtype, c, rng);
  }
}

// ufunc.at's scatter: every op of every dtype, on every layout, with many repeated
// destinations (also runs of 10^5 values into one element, and runs that cross blocks), equal
// to the host's sequential result bit for bit, the integer sums' atomics (per-block sums for
// few destinations, global ones for many) included.
TEST_F(IndexTest, ScatterCombineMatchesHostForEveryDTypeOpAndLayout) {
  Rng rng(BaseSeed() + 3);
  std::vector<IndexCase> cases = IndexCases();
  cases.push_back({{3}, 0, {{100000}}, {100000}, false});
  cases.push_back({{64, 2}, 0, {{70000}}, {70000}, true});
  // More destinations than a block's shared-memory sums hold: add.at and subtract.at into
  // 4- and 8-byte integers take global atomics.
  cases.push_back({{50000}, 0, {{300000}}, {300000}, false});
  for (const DType dtype : kAllDTypes) {
    for (const ElementwiseOp op :
         {ElementwiseOp::kAdd, ElementwiseOp::kSubtract, ElementwiseOp::kMultiply,
          ElementwiseOp::kMaximum, ElementwiseOp::kMinimum, ElementwiseOp::kFmax,
          ElementwiseOp::kFmin}) {
      if (!ScatterCombines(op, dtype)) continue;
      for (const IndexCase& c : cases) CheckScatter(dtype, c, rng, std::nullopt, op);
    }
  }
}

// One index out of bounds (too large or too negative, in any operand): INVALID_ARGUMENT with
// NumPy's message, as the host says it, and a scatter writes nothing (its target compares equal
// with the host's, which writes nothing either, and keeps its random contents).
TEST_F(IndexTest, OutOfBoundsIndicesFailWithoutWriting) {
  Rng rng(BaseSeed() + 2);
  const std::vector<IndexCase> cases = IndexCases();
  for (const DType dtype : {DType::kInt8, DType::kFloat32, DType::kComplex128}) {
    for (const IndexCase& c : cases) {
      if (c.index_shapes.empty() || Count(c.broadcast) == 0 || Count(c.data) == 0) continue;
      const size_t k = rng() % c.index_shapes.size();
      const auto element = static_cast<int64_t>(rng() % Count(c.index_shapes[k]));
      CheckGather(dtype, c, rng, std::pair{k, element});
      CheckScatter(dtype, c, rng, std::pair{k, element});
      CheckScatter(dtype, c, rng, std::pair{k, element}, ElementwiseOp::kAdd);
    }
  }
}

// a[[0, 0, 2]] = [1, 2, 3] leaves a[0] == 2, and among many writers of few elements the last
// in C order wins every time.
// ---------------------------------------------------------------------------------------------
// Sort

class SortTest : public CudaIndexingTest {
 protected:
  // Sorts the same (rows, n) input on both backends; compares values and indices.
  void CheckSort(DType dtype, const Shape& shape, Values kind, bool want_values, bool want_indices,
                 Rng& rng) {
    CheckSortOf(dtype, shape, RandomBytes(dtype, Count(shape), kind, rng), want_values,
                want_indices, rng);
  }

  // The same for the given input bytes.
  void CheckSortOf(DType dtype, const Shape& shape, const Bytes& bytes, bool want_values,
                   bool want_indices, Rng& rng, const std::string& label = "") {
    const int64_t count = Count(shape);
    AH_TEST_ASSIGN(const Both input, Upload(bytes));
    AH_TEST_ASSIGN(const Both values, Upload(RandomBytes(dtype, count, Values::kWide, rng)));
    AH_TEST_ASSIGN(const Both indices,
                   Upload(RandomBytes(DType::kInt64, count, Values::kWide, rng)));
    for (const bool on_cuda : {true, false}) {
      SortCall call{.input = ViewOf(input, on_cuda, dtype, Dense(shape)),
                    .values = std::nullopt,
                    .indices = std::nullopt};
      if (want_values) call.values = ViewOf(values, on_cuda, dtype, Dense(shape));
      if (want_indices) call.indices = ViewOf(indices, on_cuda, DType::kInt64, Dense(shape));
      const absl::Status status = On(on_cuda).indexing().Sort(TestQueue(On(on_cuda)), call);
      ASSERT_TRUE(status.ok()) << status;
    }
    const std::string what =
        fmt::format("sort {} {}{}{}{}", DTypeName(dtype), FormatShape(shape),
                    want_values ? " values" : "", want_indices ? " indices" : "", label);
    EXPECT_EQ(Compare(values, dtype), "") << what << testing::SeedNote();
    EXPECT_EQ(Compare(indices, DType::kInt64), "") << what << testing::SeedNote();
  }
};

TEST_F(SortTest, EveryDTypeMatchesHost) {
  Rng rng(BaseSeed() + 4);
  const std::vector<Shape> shapes = {{1, 1000}, {7, 333}, {300, 5}, {3, 0}, {0, 5}, {1, 1}};
  for (const DType dtype : kAllDTypes) {
    for (const Shape& shape : shapes) {
      for (const Values kind : {Values::kWide, Values::kNarrow, Values::kSpecial}) {
        CheckSort(dtype, shape, kind, true, true, rng);
      }
    }
    CheckSort(dtype, {5, 100}, Values::kSpecial, false, true, rng);
    CheckSort(dtype, {5, 100}, Values::kSpecial, true, false, rng);
    // Values only: keys-only sorts of integers and floats (one row, row by row, segmented, a
    // copy for rows of one element); bool and complex take the permutation path.
    for (const Shape& shape : shapes) {
      for (const Values kind : {Values::kWide, Values::kNarrow, Values::kSpecial, Values::kZeros}) {
        CheckSort(dtype, shape, kind, true, false, rng);
      }
    }
    for (const Shape& shape : std::vector<Shape>{{1000, 1}, {600, 2}, {2, 40000}, {3, 6000}}) {
      CheckSort(dtype, shape, Values::kNarrow, true, false, rng);
    }
  }
}

// 2^20 elements (many radix-sort tiles), in one row and in several.
TEST_F(SortTest, LargeArraysMatchHost) {
  Rng rng(BaseSeed() + 5);
  for (const DType dtype : kAllDTypes) {
    CheckSort(dtype, {1, 1 << 20}, Values::kSpecial, true, true, rng);
  }
  for (const DType dtype : {DType::kInt32, DType::kFloat64, DType::kComplex64}) {
    CheckSort(dtype, {16, 1 << 16}, Values::kWide, true, true, rng);
  }
}

// Values only, 2^20 elements: one row (one radix sort, or CUB's float order for float32 and
// float64), a few long rows (one sort per row), many rows (segmented sort).
TEST_F(SortTest, LargeValuesOnlyMatchHost) {
  Rng rng(BaseSeed() + 7);
  for (const DType dtype : kAllDTypes) {
    for (const Values kind : {Values::kWide, Values::kNarrow, Values::kSpecial}) {
      CheckSort(dtype, {1, 1 << 20}, kind, true, false, rng);
    }
  }
  for (const DType dtype : {DType::kInt8, DType::kUInt16, DType::kInt32, DType::kUInt32,
                            DType::kInt64, DType::kFloat16, DType::kFloat32, DType::kFloat64}) {
    for (const Shape& shape :
         std::vector<Shape>{{2, 1 << 19}, {16, 1 << 16}, {4096, 256}, {1 << 17, 8}}) {
      CheckSort(dtype, shape, Values::kWide, true, false, rng);
    }
    CheckSort(dtype, {8, 1 << 17}, Values::kZeros, true, false, rng);
  }
}

// Float inputs whose equal-comparing elements differ in bits: which zeros occur, which NaNs.
enum class ZeroMix { kPositive, kNegative, kBoth };
enum class NanMix { kNone, kOnePositive, kOneNegative, kMixed };

// Narrow values (many ties) with infinities, a fifth zeros and a tenth NaNs as `zeros` and
// `nans` say: kOnePositive and kOneNegative use one pattern each, with a payload that is not
// the default NaN's; kMixed four, of both signs.
Bytes SignedZerosAndNaNs(DType dtype, int64_t count, ZeroMix zeros, NanMix nans, Rng& rng) {
  const auto size = static_cast<size_t>(ItemSize(dtype));
  const std::vector<uint64_t> patterns =
      dtype == DType::kFloat16 ? std::vector<uint64_t>{0x7e01, 0xfe03, 0x7e00, 0xfe00}
      : dtype == DType::kFloat32
          ? std::vector<uint64_t>{0x7fc00123, 0xffc12345, 0x7fc00000, 0xffc00000}
          : std::vector<uint64_t>{0x7ff8000000000123, 0xfff8000000045600, 0x7ff8000000000000,
                                  0xfff8000000000000};
  Bytes bytes(std::max<size_t>(static_cast<size_t>(count), 1) * size);
  for (int64_t i = 0; i < count; ++i) {
    std::byte* out = &bytes[static_cast<size_t>(i) * size];
    const double u = Uniform(rng, 0, 1);
    if (u < 0.2) {
      const bool negative =
          zeros == ZeroMix::kNegative || (zeros == ZeroMix::kBoth && rng() % 2 == 0);
      StoreReal(dtype, negative ? -0.0 : 0.0, out);
    } else if (u < 0.3 && nans != NanMix::kNone) {
      const uint64_t bits = nans == NanMix::kOnePositive   ? patterns[0]
                            : nans == NanMix::kOneNegative ? patterns[1]
                                                           : patterns[rng() % 4];
      std::memcpy(out, &bits, size);  // Little-endian low bytes.
    } else if (u < 0.35) {
      StoreReal(dtype,
                u < 0.325 ? std::numeric_limits<double>::infinity()
                          : -std::numeric_limits<double>::infinity(),
                out);
    } else {
      StoreReal(dtype, std::floor(Uniform(rng, -8, 8)) / 2, out);
    }
  }
  return bytes;
}

// A values-only sort returns NumPy's elements bit for bit: within a run of zeros the input's
// sequence of -0.0 and +0.0, within the NaNs their payloads in input order. Every mix of zeros
// and NaNs, in one row and in several, small and large: the keys-only sorts where each run has
// one pattern (and CUB's float order for one float32 or float64 row where the NaNs have one
// pattern without the sign bit), the permutation path otherwise.
TEST_F(SortTest, ValuesOnlyKeepSignedZerosAndNaNPayloads) {
  Rng rng(BaseSeed() + 8);
  const std::vector<Shape> small = {{1, 9}, {1, 1000}, {4, 300}, {3, 6000}, {700, 5}};
  const std::vector<Shape> large = {{1, 1 << 20}, {2, 1 << 19}, {16, 1 << 16}};
  for (const DType dtype : {DType::kFloat16, DType::kFloat32, DType::kFloat64}) {
    for (const ZeroMix zeros : {ZeroMix::kPositive, ZeroMix::kNegative, ZeroMix::kBoth}) {
      for (const NanMix nans :
           {NanMix::kNone, NanMix::kOnePositive, NanMix::kOneNegative, NanMix::kMixed}) {
        const std::string label =
            fmt::format(" zeros {} nans {}", static_cast<int>(zeros), static_cast<int>(nans));
        for (const Shape& shape : small) {
          CheckSortOf(dtype, shape, SignedZerosAndNaNs(dtype, Count(shape), zeros, nans, rng), true,
                      false, rng, label);
        }
        const bool large_case =
            (zeros == ZeroMix::kPositive && nans == NanMix::kOnePositive) ||
            (zeros == ZeroMix::kNegative && nans != NanMix::kMixed &&
             nans != NanMix::kOnePositive) ||
            (zeros == ZeroMix::kBoth && (nans == NanMix::kOnePositive || nans == NanMix::kMixed));
        if (large_case) {
          for (const Shape& shape : large) {
            CheckSortOf(dtype, shape, SignedZerosAndNaNs(dtype, Count(shape), zeros, nans, rng),
                        true, false, rng, label);
          }
        }
      }
    }
  }
  // Spelled out: both zeros in one row and NaNs of distinct payloads.
  const std::vector<uint32_t> row = {0x7fc00001, 0x80000000, 0x3f800000, 0x00000000, 0xffc00002,
                                     0x80000000, 0x7fc00001, 0x00000000, 0xbf800000, 0x7fc00003};
  const std::vector<uint32_t> sorted = {0xbf800000, 0x80000000, 0x00000000, 0x80000000, 0x00000000,
                                        0x3f800000, 0x7fc00001, 0xffc00002, 0x7fc00001, 0x7fc00003};
  for (const int64_t rows : {int64_t{1}, int64_t{3}}) {
    Bytes bytes(row.size() * 4 * static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      std::memcpy(&bytes[static_cast<size_t>(r) * row.size() * 4], row.data(), row.size() * 4);
    }
    const auto n = static_cast<int64_t>(row.size());
    AH_TEST_ASSIGN(const Both input, Upload(bytes));
    AH_TEST_ASSIGN(const Both values, Upload(Bytes(bytes.size())));
    const SortCall call{.input = ViewOf(input, true, DType::kFloat32, Dense({rows, n})),
                        .values = ViewOf(values, true, DType::kFloat32, Dense({rows, n})),
                        .indices = std::nullopt};
    ASSERT_TRUE(cuda_->indexing().Sort(TestQueue(*cuda_), call).ok());
    AH_TEST_ASSIGN(const Bytes actual, Download(values, true));
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_EQ(std::memcmp(&actual[static_cast<size_t>(r) * row.size() * 4], sorted.data(),
                            sorted.size() * 4),
                0)
          << "row " << r << " of " << rows;
    }
  }
}

// NumPy's order spelled out: NaN last and -0.0 == 0.0 (stable), complex classes.
TEST_F(SortTest, NaNsZerosAndComplexClassesSortAsNumPy) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> reals = {nan, -0.0, 0.0, -inf, 1.0, -nan, 0.0, -0.0};
  const std::vector<int64_t> real_order = {3, 1, 2, 6, 7, 4, 0, 5};
  const std::vector<std::pair<double, double>> complexes = {
      {nan, nan}, {1, nan}, {nan, 0}, {2, 1}, {-0.0, 0}, {0, 0}, {1, 1}, {nan, -1}, {-1, nan}};
  const std::vector<int64_t> complex_order = {4, 5, 6, 3, 8, 1, 7, 2, 0};
  for (const DType dtype :
       {DType::kFloat16, DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128}) {
    const bool complex = IsComplex(dtype);
    const int64_t n = complex ? 9 : 8;
    Bytes bytes(static_cast<size_t>(n * ItemSize(dtype)));
    for (int64_t i = 0; i < n; ++i) {
      std::byte* out = &bytes[i * ItemSize(dtype)];
      if (complex) {
        StoreReal(RealDType(dtype), complexes[i].first, out);
        StoreReal(RealDType(dtype), complexes[i].second, out + ItemSize(RealDType(dtype)));
      } else {
        StoreReal(dtype, reals[i], out);
      }
    }
    AH_TEST_ASSIGN(const Both input, Upload(bytes));
    AH_TEST_ASSIGN(const Both indices, Upload(Int64Bytes(std::vector<int64_t>(n))));
    const SortCall call{.input = ViewOf(input, true, dtype, Dense({1, n})),
                        .values = std::nullopt,
                        .indices = ViewOf(indices, true, DType::kInt64, Dense({1, n}))};
    ASSERT_TRUE(cuda_->indexing().Sort(TestQueue(*cuda_), call).ok());
    AH_TEST_ASSIGN(const Bytes actual, Download(indices, true));
    EXPECT_EQ(actual, Int64Bytes(complex ? complex_order : real_order)) << DTypeName(dtype);
  }
}

// ---------------------------------------------------------------------------------------------
// Scan

// Relative tolerance of float scans against the host's sequential loop: the parallel scan
// adds (multiplies) in a tree, which rounds differently. Sums are of positive values (no
// cancellation) and products of values near 1, so each result's error relative to itself is
// bounded by the steps times the rounding unit; the random-walk estimate is about
// sqrt(steps) * unit, and each tolerance is 10x or more above that for the rows tested:
// float16 (unit 2^-11, rows of at most 64 steps, rounded to float16 at every step on both
// sides) 3e-2; float32 (2^-24, up to 2^20 steps) 2e-4; float64 1e-12.
double ScanTolerance(DType dtype) {
  switch (RealDType(dtype)) {
    case DType::kFloat16:
      return 3e-2;
    case DType::kFloat32:
      return 2e-4;
    case DType::kFloat64:
      return 1e-12;
    default:
      return 0;  // Integers wrap identically in any order: exact.
  }
}

class ScanTest : public CudaIndexingTest {
 protected:
  void CheckScan(DType dtype, ScanOp op, const Shape& shape, Rng& rng) {
    const Values kind = op == ScanOp::kSum ? Values::kSumand : Values::kFactor;
    AH_TEST_ASSIGN(const Both data, Upload(RandomBytes(dtype, Count(shape), kind, rng)));
    for (const bool on_cuda : {true, false}) {
      const ScanCall call{.op = op, .data = ViewOf(data, on_cuda, dtype, Dense(shape))};
      const absl::Status status = On(on_cuda).indexing().Scan(TestQueue(On(on_cuda)), call);
      ASSERT_TRUE(status.ok()) << status;
    }
    EXPECT_EQ(Compare(data, dtype, ScanTolerance(dtype)), "")
        << (op == ScanOp::kSum ? "cumsum " : "cumprod ") << DTypeName(dtype) << " "
        << FormatShape(shape) << testing::SeedNote();
  }
};

TEST_F(ScanTest, EveryDTypeAndOpMatchesHost) {
  Rng rng(BaseSeed() + 6);
  for (const DType dtype : kAllDTypes) {
    if (dtype == DType::kBool) continue;  // Core scans bools as int64.
    std::vector<Shape> shapes = {{13, 64}, {1000, 3}, {0, 4}, {4, 0}, {1, 1}, {2, 50}};
    if (dtype != DType::kFloat16) {  // Long float16 rows lose all precision on either side.
      shapes.insert(shapes.end(), {{1, 1 << 20}, {3, 100003}, {40, 1000}});
    }
    for (const Shape& shape : shapes) {
      CheckScan(dtype, ScanOp::kSum, shape, rng);
      // Products of many factors in [0.9, 1.1] drift out of float range (the mean of their
      // logarithm is below 0); rows of up to 1000 keep them well inside.
      if (shape.back() <= 1000 || IsInteger(dtype)) CheckScan(dtype, ScanOp::kProd, shape, rng);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// CountNonzero and Nonzero

class NonzeroTest : public CudaIndexingTest {
 protected:
  // Counts and lists the nonzero elements of a `layout` view on both backends.
  void CheckNonzero(DType dtype, const Layout& layout, Rng& rng) {
    AH_TEST_ASSIGN(const Both input,
                   Upload(RandomBytes(dtype, layout.elements, Values::kZeros, rng)));
    const std::string what =
        fmt::format("nonzero {} {}", DTypeName(dtype), FormatShape(layout.shape));
    AH_TEST_ASSIGN(const int64_t count, cuda_->indexing().CountNonzero(
                                            TestQueue(*cuda_), ViewOf(input, true, dtype, layout)));
    AH_TEST_ASSIGN(
        const int64_t expected,
        host_.indexing().CountNonzero(TestQueue(host_), ViewOf(input, false, dtype, layout)));
    ASSERT_EQ(count, expected) << what << testing::SeedNote();
    if (layout.shape.empty()) return;  // nonzero needs rank >= 1.

    // All coordinate arrays in one buffer, one after another, from element 1.
    const auto rank = static_cast<int64_t>(layout.shape.size());
    AH_TEST_ASSIGN(const Both coordinates,
                   Upload(RandomBytes(DType::kInt64, 1 + rank * count, Values::kWide, rng)));
    for (const bool on_cuda : {true, false}) {
      NonzeroCall call{.input = ViewOf(input, on_cuda, dtype, layout), .coordinates = {}};
      for (int64_t d = 0; d < rank; ++d) {
        call.coordinates.push_back(
            ViewOf(coordinates, on_cuda, DType::kInt64, {{count}, {1}, 1 + d * count, 0}));
      }
      const absl::StatusOr<int64_t> found =
          On(on_cuda).indexing().Nonzero(TestQueue(On(on_cuda)), call);
      ASSERT_TRUE(found.ok()) << found.status();
      EXPECT_EQ(*found, count) << what << testing::SeedNote();
    }
    EXPECT_EQ(Compare(coordinates, DType::kInt64), "") << what << testing::SeedNote();
  }
};

TEST_F(NonzeroTest, EveryDTypeAndLayoutMatchesHost) {
  Rng rng(BaseSeed() + 7);
  for (const DType dtype : kAllDTypes) {
    CheckNonzero(dtype, Dense({(1 << 20) + 123}), rng);
    CheckNonzero(dtype, Dense({}), rng);
    CheckNonzero(dtype, Dense({0, 4}), rng);
    CheckNonzero(dtype, Scrambled({17, 33, 5}, rng), rng);
    CheckNonzero(dtype, Scrambled({3, 1, 4000}, rng), rng);
    CheckNonzero(dtype, {{6, 50}, {0, 1}, 0, 50}, rng);    // Broadcast rows.
    CheckNonzero(dtype, {{50, 6}, {-1, 0}, 49, 50}, rng);  // Broadcast, reversed columns.
    // Rank 64 (eight extents 2 and one 3 among 1s, in a random storage order): the widest
    // walks core allows.
    Shape high(64, 1);
    for (int k = 0; k < 9; ++k) high[rng() % 64] = k == 0 ? 3 : 2;
    CheckNonzero(dtype, Scrambled(high, rng), rng);
  }
}

// ---------------------------------------------------------------------------------------------
// SearchSorted

class SearchSortedTest : public CudaIndexingTest {
 protected:
  // Sorts m random elements on the host (numpy.sort's order), lays them out forward, stepped or
  // reversed, and searches random values and the sorted elements themselves, broadcast over
  // (rows, cols), on both backends, left and right.
  void CheckSearch(DType dtype, int64_t m, int64_t rows, int64_t cols, Rng& rng) {
    const std::string what =
        fmt::format("searchsorted {} m={} ({}, {})", DTypeName(dtype), m, rows, cols);
    AH_TEST_ASSIGN(const Both unsorted, Upload(RandomBytes(dtype, m, Values::kSpecial, rng)));
    AH_TEST_ASSIGN(const Both sorted_dense, Upload(RandomBytes(dtype, m, Values::kWide, rng)));
    ASSERT_TRUE(
        host_.indexing()
            .Sort(TestQueue(host_), {.input = ViewOf(unsorted, false, dtype, Dense({1, m})),
                                     .values = ViewOf(sorted_dense, false, dtype, Dense({1, m})),
                                     .indices = std::nullopt})
            .ok());
    AH_TEST_ASSIGN(const Bytes sorted_bytes, Download(sorted_dense, false));

    // The sorted elements laid out with stride 1, 2 or -1.
    const int64_t size = ItemSize(dtype);
    const int layout_kind = static_cast<int>(rng() % 3);
    const int64_t step = layout_kind == 1 ? 2 : 1;
    Bytes laid(static_cast<size_t>(std::max<int64_t>(m * step, 1) * size));
    for (int64_t i = 0; i < m; ++i) {
      const int64_t at = layout_kind == 2 ? m - 1 - i : i * step;
      std::memcpy(&laid[at * size], &sorted_bytes[i * size], size);
    }
    const Layout sorted_layout = layout_kind == 2
                                     ? Layout{{m}, {-1}, std::max<int64_t>(m - 1, 0), m}
                                     : Layout{{m}, {step}, 0, m * step};
    AH_TEST_ASSIGN(const Both sorted, Upload(laid));

    // Values: (cols,) broadcast over the rows; some of them copies of sorted elements.
    Bytes value_bytes = RandomBytes(dtype, cols, Values::kSpecial, rng);
    for (int64_t j = 0; j < cols && m > 0; j += 2) {
      std::memcpy(&value_bytes[j * size], &sorted_bytes[(rng() % m) * size], size);
    }
    AH_TEST_ASSIGN(const Both values, Upload(value_bytes));
    for (const bool right : {false, true}) {
      AH_TEST_ASSIGN(const Both output,
                     Upload(RandomBytes(DType::kInt64, rows * cols, Values::kWide, rng)));
      for (const bool on_cuda : {true, false}) {
        const SearchSortedCall call{
            .sorted = ViewOf(sorted, on_cuda, dtype, sorted_layout),
            .values = ViewOf(values, on_cuda, dtype, {{rows, cols}, {0, 1}, 0, cols}),
            .right = right,
            .output = ViewOf(output, on_cuda, DType::kInt64, Dense({rows, cols}))};
        const absl::Status status =
            On(on_cuda).indexing().SearchSorted(TestQueue(On(on_cuda)), call);
        ASSERT_TRUE(status.ok()) << status;
      }
      EXPECT_EQ(Compare(output, DType::kInt64), "")
          << what << (right ? " right" : " left") << testing::SeedNote();
    }
  }
};

TEST_F(SearchSortedTest, EveryDTypeMatchesHost) {
  Rng rng(BaseSeed() + 8);
  for (const DType dtype : kAllDTypes) {
    CheckSearch(dtype, 1000, 3, 400, rng);
    CheckSearch(dtype, 1, 2, 10, rng);
    CheckSearch(dtype, 0, 2, 10, rng);
    CheckSearch(dtype, 50, 0, 10, rng);
    CheckSearch(dtype, 100000, 1, 1 << 16, rng);
  }
}

// ---------------------------------------------------------------------------------------------
// Histogram

class HistogramTest : public CudaIndexingTest {
 protected:
  // n random values (kSpecial: ties, NaN, infinities, both zeros, and a quarter of them set to
  // edges, the last one included) counted into the bins of `edges` on both backends.
  void CheckHistogram(DType dtype, int64_t n, const std::vector<double>& edges, Rng& rng) {
    const std::string what =
        fmt::format("histogram {} n={} edges={}", DTypeName(dtype), n, edges.size());
    Bytes data = RandomBytes(dtype, n, Values::kSpecial, rng);
    if (dtype != DType::kBool) {
      // Values at edges, as the dtype holds them, exercise both comparisons.
      const Bytes at_edges = CastBytes(edges, dtype);
      const int64_t size = ItemSize(dtype);
      for (int64_t i = 0; i < n; i += 4) {
        const int64_t e = static_cast<int64_t>(rng() % edges.size());
        std::memcpy(&data[i * size], &at_edges[e * size], size);
      }
    }
    AH_TEST_ASSIGN(const Both input, Upload(data));
    Bytes edge_bytes(edges.size() * sizeof(double));
    std::memcpy(edge_bytes.data(), edges.data(), edge_bytes.size());
    AH_TEST_ASSIGN(const Both bounds, Upload(edge_bytes));
    const auto bins = static_cast<int64_t>(edges.size()) - 1;
    AH_TEST_ASSIGN(const Both counts, Upload(RandomBytes(DType::kInt64, bins, Values::kWide, rng)));
    for (const bool on_cuda : {true, false}) {
      const HistogramCall call{.input = ViewOf(input, on_cuda, dtype, Dense({n})),
                               .edges = ViewOf(bounds, on_cuda, DType::kFloat64, Dense({bins + 1})),
                               .counts = ViewOf(counts, on_cuda, DType::kInt64, Dense({bins}))};
      const absl::Status status = On(on_cuda).indexing().Histogram(TestQueue(On(on_cuda)), call);
      ASSERT_TRUE(status.ok()) << status;
    }
    EXPECT_EQ(Compare(counts, DType::kInt64), "") << what << testing::SeedNote();
  }

  // `count` edges from `low` to `high`: evenly spaced as numpy.linspace makes them, or sorted
  // random ones with some repeated.
  static std::vector<double> Edges(int64_t count, double low, double high, bool even, Rng& rng) {
    std::vector<double> edges(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      edges[i] = even ? low + (high - low) * static_cast<double>(i) / static_cast<double>(count - 1)
                      : Uniform(rng, low, high);
    }
    if (!even) {
      for (int64_t i = 1; i < count; i += 7) edges[i] = edges[i - 1];
      std::sort(edges.begin(), edges.end());
    }
    return edges;
  }

  // The values of `edges` in `dtype` (C-contiguous bytes), as a cast from float64 makes them.
  static Bytes CastBytes(const std::vector<double>& edges, DType dtype) {
    Bytes bytes(edges.size() * static_cast<size_t>(ItemSize(dtype)));
    host::VisitDType(dtype, [&]<typename T>(host::TypeTag<T>) {
      for (size_t i = 0; i < edges.size(); ++i) {
        T value{};
        if constexpr (host::kIsInteger<T>) {
          // Rounded, then wrapped into the type as integers convert.
          value = static_cast<T>(static_cast<int64_t>(std::llround(edges[i])));
        } else if constexpr (!host::kIsComplex<T>) {
          value = static_cast<T>(static_cast<float>(edges[i]));
        }
        std::memcpy(&bytes[i * sizeof(T)], &value, sizeof(T));
      }
    });
    return bytes;
  }
};

// Every real dtype, evenly spaced edges (the shared-memory kernel's guess) and uneven ones
// with repeats (its binary search), edges that shared memory holds (up to 4096) and more (the
// global kernel), none of the data or a little.
TEST_F(HistogramTest, EveryRealDTypeMatchesHost) {
  Rng rng(BaseSeed() + 9);
  for (const DType dtype : kAllDTypes) {
    if (IsComplex(dtype)) continue;
    for (const bool even : {true, false}) {
      CheckHistogram(dtype, 100000, Edges(11, -3, 3, even, rng), rng);
      CheckHistogram(dtype, 1 << 20, Edges(1001, -4, 4, even, rng), rng);
      CheckHistogram(dtype, 50000, Edges(4096, -3.5, 3.5, even, rng), rng);
      CheckHistogram(dtype, 50000, Edges(5000, -3.5, 3.5, even, rng), rng);
      CheckHistogram(dtype, 0, Edges(2, -1, 1, even, rng), rng);
      CheckHistogram(dtype, 17, Edges(2, 0, 0, even, rng), rng);  // One bin of width 0.
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Partition

// NumPy's partition guarantees of `out` (rows of n elements of T) for the input `in` at `kth`:
// each row a permutation of the input's (bit for bit), the element at each kth equal in sort
// order to the input's sorted one there, none before it sorting after it, none after it before.
// Empty when they hold, else the first failure.
template <typename T>
std::string PartitionFailure(const T* in, const T* out, int64_t rows, int64_t n,
                             const std::vector<int64_t>& kth) {
  const auto less = [](const T& a, const T& b) { return host::SortLess(a, b); };
  // Pointers to the elements (std::vector<bool> has no addressable elements).
  const auto by_bits = [&](const T* a, const T* b) {
    return less(*a, *b) || (!less(*b, *a) && std::memcmp(a, b, sizeof(T)) < 0);
  };
  for (int64_t row = 0; row < rows; ++row) {
    const T* got = out + row * n;
    std::vector<const T*> expected(static_cast<size_t>(n));
    std::vector<const T*> sorted_got(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      expected[i] = in + row * n + i;
      sorted_got[i] = got + i;
    }
    std::sort(expected.begin(), expected.end(), by_bits);
    std::sort(sorted_got.begin(), sorted_got.end(), by_bits);
    for (int64_t i = 0; i < n; ++i) {
      if (std::memcmp(expected[i], sorted_got[i], sizeof(T)) != 0) {
        return fmt::format("row {} is not a permutation of the input's", row);
      }
    }
    for (const int64_t k : kth) {
      if (less(got[k], *expected[k]) || less(*expected[k], got[k])) {
        return fmt::format("row {}: position {} is not the sorted element", row, k);
      }
      for (int64_t i = 0; i < n; ++i) {
        if (i < k ? less(got[k], got[i]) : (i > k && less(got[i], got[k]))) {
          return fmt::format("row {}: position {} is on the wrong side of kth {}", row, i, k);
        }
      }
    }
  }
  return "";
}

class PartitionTest : public CudaIndexingTest {
 protected:
  // Partitions the same (rows, n) input on both backends at `kth` (ascending, distinct) and
  // checks NumPy's guarantees of each: of the values, and of the input's elements at the
  // indices (which must be a permutation of each row's positions).
  void CheckPartition(DType dtype, const Shape& shape, Values kind, const std::vector<int64_t>& kth,
                      bool want_values, bool want_indices, Rng& rng) {
    const int64_t count = Count(shape);
    const int64_t n = shape.back();
    const int64_t rows = n == 0 ? 0 : count / n;
    const Bytes input_bytes = RandomBytes(dtype, count, kind, rng);
    AH_TEST_ASSIGN(const Both input, Upload(input_bytes));
    AH_TEST_ASSIGN(const Both values, Upload(RandomBytes(dtype, count, Values::kWide, rng)));
    AH_TEST_ASSIGN(const Both indices,
                   Upload(RandomBytes(DType::kInt64, count, Values::kWide, rng)));
    const std::string what = fmt::format(
        "partition {} {} kth [{}]{}{}", DTypeName(dtype), FormatShape(shape), fmt::join(kth, ", "),
        want_values ? " values" : "", want_indices ? " indices" : "");
    for (const bool on_cuda : {true, false}) {
      PartitionCall call{.input = ViewOf(input, on_cuda, dtype, Dense(shape)),
                         .kth = kth,
                         .values = std::nullopt,
                         .indices = std::nullopt};
      if (want_values) call.values = ViewOf(values, on_cuda, dtype, Dense(shape));
      if (want_indices) call.indices = ViewOf(indices, on_cuda, DType::kInt64, Dense(shape));
      const absl::Status status = On(on_cuda).indexing().Partition(TestQueue(On(on_cuda)), call);
      ASSERT_TRUE(status.ok()) << status;
      const std::string backend = on_cuda ? " (cuda)" : " (host)";
      if (count == 0) continue;
      AH_TEST_ASSIGN(const Bytes got_values, Download(values, on_cuda));
      AH_TEST_ASSIGN(const Bytes got_indices, Download(indices, on_cuda));
      host::VisitDType(dtype, [&]<typename T>(host::TypeTag<T>) {
        const auto* in = reinterpret_cast<const T*>(input_bytes.data());
        if (want_values) {
          EXPECT_EQ(
              PartitionFailure(in, reinterpret_cast<const T*>(got_values.data()), rows, n, kth), "")
              << what << backend << testing::SeedNote();
        }
        if (!want_indices) return;
        const auto* order = reinterpret_cast<const int64_t*>(got_indices.data());
        const std::unique_ptr<T[]> picked(new T[static_cast<size_t>(count)]);
        for (int64_t row = 0; row < rows; ++row) {
          std::vector<int64_t> positions(order + row * n, order + (row + 1) * n);
          std::sort(positions.begin(), positions.end());
          for (int64_t i = 0; i < n; ++i) {
            ASSERT_EQ(positions[i], i) << what << backend << " row " << row << testing::SeedNote();
            picked[row * n + i] = in[row * n + order[row * n + i]];
          }
        }
        EXPECT_EQ(PartitionFailure(in, picked.get(), rows, n, kth), "")
            << what << backend << " indices" << testing::SeedNote();
      });
    }
  }
};

// Short rows (the sort) for every dtype, values and indices, several kth lists, and no kth
// (the rows as they are).
TEST_F(PartitionTest, ShortRowsMatchNumPysGuarantees) {
  Rng rng(BaseSeed() + 9);
  for (const DType dtype : kAllDTypes) {
    for (const Values kind : {Values::kWide, Values::kSpecial}) {
      CheckPartition(dtype, {7, 333}, kind, {0, 166, 332}, true, true, rng);
      CheckPartition(dtype, {1, 1000}, kind, {499, 500}, true, false, rng);
      CheckPartition(dtype, {3, 100}, kind, {}, true, true, rng);
    }
    CheckPartition(dtype, {0, 5}, Values::kWide, {1}, true, true, rng);
  }
}

// Rows of 2^20 and more: the radix select, over every digit of every key width (1, 2, 4 and 8
// bytes), with many ties (kNarrow, kZeros: pivots equal to many elements, equal pivots), NaNs
// and signed zeros, one row and a few, a last tile of 17 elements, 16 positions (33 classes);
// values only, indices only, both.
TEST_F(PartitionTest, LongRowsSelectMatchNumPysGuarantees) {
  Rng rng(BaseSeed() + 10);
  const int64_t n = int64_t{1} << 20;
  for (const DType dtype : kAllDTypes) {
    if (IsComplex(dtype)) continue;  // Complex sorts (select_kernels.cuh).
    for (const Values kind : {Values::kWide, Values::kNarrow, Values::kSpecial, Values::kZeros}) {
      CheckPartition(dtype, {1, n}, kind, {0, n / 2, n - 1}, true, false, rng);
    }
    CheckPartition(dtype, {1, n + 17}, Values::kSpecial, {1, 2, 1000, n / 3, n}, false, true, rng);
    CheckPartition(dtype, {2, n}, Values::kWide, {n / 2 - 1, n / 2}, true, true, rng);
  }
  std::vector<int64_t> many(16);
  for (int64_t j = 0; j < 16; ++j) many[j] = j * (n / 16) + 3;
  CheckPartition(DType::kFloat32, {1, n}, Values::kNarrow, many, true, true, rng);
  many.push_back(n - 2);  // 17 positions: the sort.
  CheckPartition(DType::kFloat32, {1, n}, Values::kNarrow, many, true, false, rng);
}

}  // namespace
}  // namespace arrayhub
