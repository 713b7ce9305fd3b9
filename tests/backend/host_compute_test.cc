// The CPU backend's computation: elementwise ops, casts and reductions against NumPy's results
// (host_compute_golden.inc, from tests/reference/gen_host_compute_golden.py), transcendental
// functions against long double references, the strided, broadcast, scalar, in-place and
// casting paths, and the random fills' bounds, determinism and statistics.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/backend/host/host_types.h"
#include "server/common/float16.h"
#include "tests/backend/element_bytes.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

using host::Convert;
using host::Half;
using host::kIsComplex;
using host::kIsReal;
using host::LoadElement;
using host::VisitDType;
using Bytes = std::vector<std::byte>;

// ---------------------------------------------------------------------------------------------
// Golden data

struct ElementwiseCase {
  const char* op;
  const char* loop;
  const char* result;
  std::array<const char*, 3> operand_dtypes;
  std::array<const char*, 3> operands;  // Hex.
  const char* expected;
  int ulps;  // 0: bit for bit.
};

struct CastCase {
  const char* from;
  const char* to;
  const char* values;
  const char* expected;
};

struct ReduceInput {
  const char* dtype;
  const char* values;  // Shape kReduceShape, C order.
};

struct ReduceCase {
  const char* op;
  int input;
  const char* accumulate;
  const char* output;
  const char* axes;  // "all" or axes separated by spaces.
  double ddof;
  const char* expected;
  double tolerance;  // Relative; 0: exact.
};

constexpr ElementwiseCase kElementwiseCases[] = {
#define AH_ELEMENTWISE_CASES
#include "tests/backend/host_compute_golden.inc"
#undef AH_ELEMENTWISE_CASES
};

constexpr CastCase kCastCases[] = {
#define AH_CAST_CASES
#include "tests/backend/host_compute_golden.inc"
#undef AH_CAST_CASES
};

constexpr ReduceInput kReduceInputs[] = {
#define AH_REDUCE_INPUTS
#include "tests/backend/host_compute_golden.inc"
#undef AH_REDUCE_INPUTS
};

constexpr ReduceCase kReduceCases[] = {
#define AH_REDUCE_CASES
#include "tests/backend/host_compute_golden.inc"
#undef AH_REDUCE_CASES
};

const Shape kReduceShape = {3, 4, 5};

DType D(std::string_view name) { return *DTypeFromName(name); }

Bytes FromHex(std::string_view hex) {
  Bytes bytes(hex.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::byte>(std::stoi(std::string(hex.substr(2 * i, 2)), nullptr, 16));
  }
  return bytes;
}

template <typename T>
Bytes BytesOf(const std::vector<T>& values) {
  Bytes bytes(values.size() * sizeof(T));
  // An empty vector's data() may be null, which memcpy must not be given even for 0 bytes.
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> ValuesOf(const Bytes& bytes) {
  std::vector<T> values;  // Element by element: T may be bool.
  for (size_t i = 0; i < bytes.size(); i += sizeof(T)) values.push_back(LoadElement<T>(&bytes[i]));
  return values;
}

// ---------------------------------------------------------------------------------------------
// Element comparison

template <typename T>
std::string Text(T value) {
  std::ostringstream out;
  out.precision(17);
  if constexpr (kIsComplex<T>) {
    out << "(" << value.real() << ", " << value.imag() << ")";
  } else if constexpr (std::is_same_v<T, Half>) {
    out << static_cast<float>(value) << " (half 0x" << std::hex << value.bits() << ")";
  } else if constexpr (sizeof(T) == 1) {
    out << static_cast<int>(value);
  } else {
    out << value;
  }
  return out.str();
}

// a and e agree: both NaN, or bit for bit (signed zeros differ), or, when ulps > 0 and both
// are finite, within `ulps` units of `unit` (the last place at e's scale).
bool RealClose(double a, double e, double ulps, double unit) {
  if (std::isnan(a) || std::isnan(e)) return std::isnan(a) && std::isnan(e);
  if (a == e && std::signbit(a) == std::signbit(e)) return true;
  if (ulps == 0 || !std::isfinite(a) || !std::isfinite(e)) return false;
  return std::fabs(a - e) <= ulps * unit;
}

// The magnitude errors scale with: the largest finite part, at least `tiny`.
double ScaleOf(std::complex<double> z, double tiny) {
  double scale = tiny;
  for (double part : {z.real(), z.imag()}) {
    if (std::isfinite(part)) scale = std::max(scale, std::fabs(part));
  }
  return scale;
}

// One element of `dtype`, actual against expected.
testing::AssertionResult ElementMatches(DType dtype, const std::byte* actual,
                                        const std::byte* expected, double ulps) {
  return VisitDType(dtype, [&](auto tag) -> testing::AssertionResult {
    using T = typename decltype(tag)::type;
    const T a = LoadElement<T>(actual);
    const T e = LoadElement<T>(expected);
    bool ok;
    if constexpr (kIsComplex<T> || kIsReal<T>) {
      using R = host::RealType<host::MathType<T>>;
      const double eps = std::is_same_v<T, Half> ? 0x1p-10 : std::numeric_limits<R>::epsilon();
      const double tiny =
          std::is_same_v<T, Half> ? 0x1p-14 : std::numeric_limits<R>::min();  // Smallest normal.
      const auto ac = Convert<std::complex<double>>(a);
      const auto ec = Convert<std::complex<double>>(e);
      const double scale = ScaleOf(ec, tiny);
      ok = RealClose(ac.real(), ec.real(), ulps, eps * scale) &&
           RealClose(ac.imag(), ec.imag(), ulps, eps * scale);
    } else {
      ok = a == e;
    }
    if (ok) return testing::AssertionSuccess();
    return testing::AssertionFailure() << "got " << Text(a) << ", expected " << Text(e);
  });
}

// ---------------------------------------------------------------------------------------------
// Placing arrays in buffers

// How an array's elements lie in its buffer.
struct Layout {
  std::string name;
  bool transposed = false;  // Dimension 0 innermost in memory (Fortran order).
  bool flip_first = false;  // Dimension 0 reversed (negative stride).
  bool flip_all = false;    // Every dimension reversed.
  int64_t spacing = 1;      // Slots from one element to the next along the innermost.
};

const Layout kContiguous{.name = "Contiguous"};
const Layout kReversed{.name = "Reversed", .flip_all = true};
const Layout kTransposed{
    .name = "Transposed", .transposed = true, .flip_first = true, .spacing = 2};

// Where an array of `shape` in `layout` lies, in elements.
struct Placement {
  Strides strides;
  int64_t offset = 0;
  int64_t slots = 0;  // Elements the buffer holds, gaps included.
};

Placement Arrange(const Shape& shape, const Layout& layout) {
  const size_t rank = shape.size();
  Placement p;
  p.strides.resize(rank);
  int64_t step = layout.spacing;
  for (size_t i = 0; i < rank; ++i) {
    const size_t d = layout.transposed ? i : rank - 1 - i;  // Innermost first.
    p.strides[d] = step;
    step *= std::max<int64_t>(shape[d], 1);
  }
  p.slots = step + 1;
  for (size_t d = 0; d < rank; ++d) {
    if (layout.flip_all || (layout.flip_first && d == 0)) {
      p.offset += (shape[d] - 1) * p.strides[d];
      p.strides[d] = -p.strides[d];
    }
  }
  return p;
}

// Calls f(c_order_index, element_offset) for each element of a strided array.
template <typename F>
void ForEachElementOf(const Shape& shape, const Strides& strides, int64_t offset, F&& f) {
  const int64_t count = Count(shape);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i;
    int64_t element = offset;
    for (size_t d = shape.size(); d-- > 0;) {
      element += (rest % shape[d]) * strides[d];
      rest /= shape[d];
    }
    f(i, element);
  }
}

constexpr std::byte kGapByte{0xA5};

class HostComputeTest : public ::testing::Test {
 protected:
  // A view of `values` (C order) laid out as `layout` in a new buffer whose other bytes are
  // kGapByte.
  ArrayView Place(const Bytes& values, DType dtype, const Shape& shape,
                  const Layout& layout = kContiguous) {
    const Placement p = Arrange(shape, layout);
    const int64_t item = ItemSize(dtype);
    Bytes contents(static_cast<size_t>(p.slots * item), kGapByte);
    ForEachElementOf(shape, p.strides, p.offset, [&](int64_t i, int64_t element) {
      std::memcpy(&contents[element * item], &values[i * item], item);
    });
    absl::StatusOr<std::shared_ptr<Buffer>> buffer =
        backend_.memory().Allocate(TestQueue(backend_), p.slots * item);
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    EXPECT_TRUE(backend_.memory().CopyFromHost(TestQueue(backend_), **buffer, 0, contents).ok());
    buffers_.push_back(*buffer);
    return ArrayView{buffer->get(), p.offset * item, dtype, shape, p.strides};
  }

  // An output of uninitialized-looking bytes (kGapByte) in `layout`.
  ArrayView PlaceOutput(DType dtype, const Shape& shape, const Layout& layout = kContiguous) {
    return Place(Bytes(Count(shape) * ItemSize(dtype), kGapByte), dtype, shape, layout);
  }

  // The view's elements in C order.
  Bytes Read(const ArrayView& view) {
    const int64_t item = ItemSize(view.dtype);
    const auto* data = static_cast<const std::byte*>(view.buffer->data()) + view.offset_bytes;
    Bytes values(Count(view.shape) * item);
    ForEachElementOf(view.shape, view.strides, 0, [&](int64_t i, int64_t element) {
      std::memcpy(&values[i * item], data + element * item, item);
    });
    return values;
  }

  // Whether every byte of the view's buffer outside its elements still holds kGapByte.
  bool GapsIntact(const ArrayView& view) {
    const int64_t item = ItemSize(view.dtype);
    std::vector<bool> element_byte(view.buffer->size(), false);
    ForEachElementOf(view.shape, view.strides, view.offset_bytes / item,
                     [&](int64_t, int64_t element) {
                       for (int64_t b = 0; b < item; ++b) element_byte[element * item + b] = true;
                     });
    const auto* data = static_cast<const std::byte*>(view.buffer->data());
    for (size_t b = 0; b < element_byte.size(); ++b) {
      if (!element_byte[b] && data[b] != kGapByte) return false;
    }
    return true;
  }

  template <typename T>
  ArrayView PlaceValues(const std::vector<T>& values, const Shape& shape,
                        const Layout& layout = kContiguous) {
    return Place(BytesOf(values), host::DTypeOf<T>(), shape, layout);
  }

  template <typename T>
  std::vector<T> ReadValues(const ArrayView& view) {
    return ValuesOf<T>(Read(view));
  }

  static ElementwiseOperand Operand(const ArrayView& view) {
    ElementwiseOperand operand;
    operand.array = view;
    operand.dtype = view.dtype;
    return operand;
  }

  template <typename T>
  static ElementwiseOperand ScalarOperand(T value) {
    ElementwiseOperand operand;
    operand.dtype = host::DTypeOf<T>();
    std::memcpy(operand.scalar.data(), &value, sizeof(T));
    return operand;
  }

  // Runs op over operands of the loop dtype T into an output of dtype Out; returns the output.
  template <typename Out, typename T = Out>
  std::vector<Out> Apply(ElementwiseOp op, std::vector<ElementwiseOperand> operands,
                         const Shape& shape, DType result = host::DTypeOf<T>()) {
    const ArrayView output = PlaceOutput(host::DTypeOf<Out>(), shape);
    const ElementwiseCall call{.op = op,
                               .compute_dtype = host::DTypeOf<T>(),
                               .result_dtype = result,
                               .shape = shape,
                               .operands = std::move(operands),
                               .output = output};
    const absl::Status status = backend_.compute().Elementwise(TestQueue(backend_), call);
    EXPECT_TRUE(status.ok()) << status;
    return ReadValues<Out>(output);
  }

  HostBackend backend_;
  std::vector<std::shared_ptr<Buffer>> buffers_;  // Keeps the views' buffers alive.
};

// ---------------------------------------------------------------------------------------------
// Elementwise ops against NumPy

// The distinct values of a field of the golden rows, in order: the tests' parameters.
template <typename Row, size_t N>
std::vector<std::string> Distinct(const Row (&rows)[N], const char* Row::*field) {
  std::vector<std::string> values;
  for (const Row& row : rows) {
    if (std::find(values.begin(), values.end(), row.*field) == values.end()) {
      values.push_back(row.*field);
    }
  }
  return values;
}

std::string ParamName(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

// One test per op, over each of its loop dtypes and each layout.
class ElementwiseGoldenTest : public HostComputeTest,
                              public ::testing::WithParamInterface<std::string> {
 protected:
  // The case on a 1-D array of its values; the Transposed layout views them as (4, n / 4) in
  // transposed, flipped, spaced storage, and writes a contiguous output.
  void Check(const ElementwiseCase& c, const Layout& layout) {
    SCOPED_TRACE(std::string(c.loop) + " loop, " + layout.name);
    const DType result = D(c.result);
    const Bytes expected = FromHex(c.expected);
    const int64_t count = static_cast<int64_t>(expected.size()) / ItemSize(result);
    const Shape shape =
        layout.transposed ? Shape{4, count / 4} : Shape{count};  // Counts are multiples of 4.
    ElementwiseCall call{
        .op = *ElementwiseOpFromName(c.op),
        .compute_dtype = D(c.loop),
        .result_dtype = result,
        .shape = shape,
        .operands = {},
        .output = PlaceOutput(result, shape, layout.transposed ? kContiguous : layout)};
    for (size_t k = 0; k < c.operands.size() && c.operands[k] != nullptr; ++k) {
      call.operands.push_back(
          Operand(Place(FromHex(c.operands[k]), D(c.operand_dtypes[k]), shape, layout)));
    }
    ASSERT_TRUE(backend_.compute().Elementwise(TestQueue(backend_), call).ok());

    const Bytes actual = Read(call.output);
    const int64_t item = ItemSize(result);
    for (int64_t i = 0; i < count; ++i) {
      EXPECT_TRUE(ElementMatches(result, &actual[i * item], &expected[i * item], c.ulps))
          << "element " << i;
    }
    EXPECT_TRUE(GapsIntact(call.output));
  }
};

TEST_P(ElementwiseGoldenTest, MatchesNumPy) {
  for (const ElementwiseCase& c : kElementwiseCases) {
    if (c.op != GetParam()) continue;
    for (const Layout* layout : {&kContiguous, &kReversed, &kTransposed}) Check(c, *layout);
  }
}

INSTANTIATE_TEST_SUITE_P(NumPy, ElementwiseGoldenTest,
                         ::testing::ValuesIn(Distinct(kElementwiseCases, &ElementwiseCase::op)),
                         ParamName);

// Casts from each dtype to all: astype through the copy loop, converting on the output side
// (loop in the source dtype) and on the input side (loop in the target dtype, the operand
// stored as the source).
class CastGoldenTest : public HostComputeTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void Check(const CastCase& c, DType loop) {
    SCOPED_TRACE(std::string("to ") + c.to + ", " + std::string(DTypeName(loop)) + " loop");
    const DType from = D(c.from);
    const DType to = D(c.to);
    const Bytes values = FromHex(c.values);
    const Bytes expected = FromHex(c.expected);
    const Shape shape = {static_cast<int64_t>(values.size()) / ItemSize(from)};
    const ElementwiseCall call{.op = ElementwiseOp::kCopy,
                               .compute_dtype = loop,
                               .result_dtype = loop,
                               .shape = shape,
                               .operands = {Operand(Place(values, from, shape, kReversed))},
                               .output = PlaceOutput(to, shape)};
    ASSERT_TRUE(backend_.compute().Elementwise(TestQueue(backend_), call).ok());
    const Bytes actual = Read(call.output);
    const int64_t item = ItemSize(to);
    for (int64_t i = 0; i < shape[0]; ++i) {
      EXPECT_TRUE(ElementMatches(to, &actual[i * item], &expected[i * item], 0)) << "element " << i;
    }
  }
};

TEST_P(CastGoldenTest, MatchesNumPy) {
  for (const CastCase& c : kCastCases) {
    if (c.from != GetParam()) continue;
    Check(c, D(c.from));
    Check(c, D(c.to));
  }
}

INSTANTIATE_TEST_SUITE_P(NumPy, CastGoldenTest,
                         ::testing::ValuesIn(Distinct(kCastCases, &CastCase::from)), ParamName);

// ---------------------------------------------------------------------------------------------
// Elementwise paths

TEST_F(HostComputeTest, BroadcastOperandsHaveStrideZero) {
  // (3, 1) + (1, 4) -> (3, 4): each operand is a stride-0 view along the other's axis.
  ArrayView column = PlaceValues<double>({1, 2, 3}, {3, 1});
  ArrayView row = PlaceValues<double>({10, 20, 30, 40}, {1, 4});
  column.shape = {3, 4};
  column.strides = {1, 0};
  row.shape = {3, 4};
  row.strides = {0, 1};
  const std::vector<double> sum =
      Apply<double>(ElementwiseOp::kAdd, {Operand(column), Operand(row)}, {3, 4});
  EXPECT_EQ(sum, (std::vector<double>{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43}));
}

TEST_F(HostComputeTest, BroadcastOperandNeedingACast) {
  // An int8 row broadcast over rows and converted to the float32 loop on the fly.
  ArrayView row = PlaceValues<int8_t>({-1, 2}, {1, 2});
  row.shape = {3, 2};
  row.strides = {0, 1};
  const ArrayView full = PlaceValues<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  const std::vector<float> product =
      Apply<float>(ElementwiseOp::kMultiply, {Operand(row), Operand(full)}, {3, 2});
  EXPECT_EQ(product, (std::vector<float>{-1, 4, -3, 8, -5, 12}));
}

TEST_F(HostComputeTest, NegativeStridesInTwoDimensions) {
  // a[::-1, ::2] of a (3, 4) array, minus a reversed copy of itself: element order checks.
  const ArrayView a = PlaceValues<int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  ArrayView view = a;
  view.shape = {3, 2};
  view.strides = {-4, 2};
  view.offset_bytes = 8 * 4;
  const std::vector<int32_t> values = Apply<int32_t>(ElementwiseOp::kCopy, {Operand(view)}, {3, 2});
  EXPECT_EQ(values, (std::vector<int32_t>{8, 10, 4, 6, 0, 2}));
}

TEST_F(HostComputeTest, ScalarOperandsConvertToTheLoopDtype) {
  const ArrayView a = PlaceValues<float>({1, 2, 3}, {3});
  // A float64 scalar in a float32 loop, on either side.
  EXPECT_EQ(Apply<float>(ElementwiseOp::kSubtract, {Operand(a), ScalarOperand(0.5)}, {3}),
            (std::vector<float>{0.5f, 1.5f, 2.5f}));
  EXPECT_EQ(Apply<float>(ElementwiseOp::kSubtract, {ScalarOperand(0.5), Operand(a)}, {3}),
            (std::vector<float>{-0.5f, -1.5f, -2.5f}));
  // Only scalars, more elements than one internal chunk.
  const std::vector<int16_t> filled = Apply<int16_t>(
      ElementwiseOp::kAdd, {ScalarOperand<int16_t>(7), ScalarOperand<int64_t>(-9)}, {3000});
  EXPECT_EQ(filled, std::vector<int16_t>(3000, -2));
  // A 0-d call.
  EXPECT_EQ(Apply<double>(ElementwiseOp::kPower, {ScalarOperand(2.0), ScalarOperand(10.0)}, {}),
            std::vector<double>{1024});
}

TEST_F(HostComputeTest, InPlaceOutputAliasesAnInput) {
  std::vector<double> values(5000);
  std::iota(values.begin(), values.end(), 1.0);
  for (const Layout* layout : {&kContiguous, &kReversed, &kTransposed}) {
    SCOPED_TRACE(layout->name);
    const Shape shape = {50, 100};
    const ArrayView a = PlaceValues(values, shape, *layout);
    const ArrayView b = PlaceValues(values, shape, kContiguous);
    ElementwiseCall call{.op = ElementwiseOp::kMultiply,
                         .compute_dtype = DType::kFloat64,
                         .result_dtype = DType::kFloat64,
                         .shape = shape,
                         .operands = {Operand(a), Operand(b)},
                         .output = a};
    ASSERT_TRUE(backend_.compute().Elementwise(TestQueue(backend_), call).ok());
    const std::vector<double> squares = ReadValues<double>(a);
    for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(squares[i], values[i] * values[i]);
    // In place through a cast: float64 values rounded into float32 storage, read as float32.
    const ArrayView f =
        PlaceValues(std::vector<float>(values.begin(), values.end()), shape, *layout);
    call = ElementwiseCall{.op = ElementwiseOp::kSqrt,
                           .compute_dtype = DType::kFloat64,
                           .result_dtype = DType::kFloat64,
                           .shape = shape,
                           .operands = {Operand(f)},
                           .output = f};
    ASSERT_TRUE(backend_.compute().Elementwise(TestQueue(backend_), call).ok());
    const std::vector<float> roots = ReadValues<float>(f);
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(roots[i], static_cast<float>(std::sqrt(values[i])));
    }
    EXPECT_TRUE(GapsIntact(f));
  }
}

TEST_F(HostComputeTest, ResultsCastToTheOutputDtype) {
  // float64 results rounded into float32.
  const ArrayView third = PlaceValues<double>({1, 2, 1e300}, {3});
  EXPECT_EQ(
      (Apply<float, double>(ElementwiseOp::kTrueDivide, {Operand(third), ScalarOperand(3.0)}, {3})),
      (std::vector<float>{static_cast<float>(1.0 / 3), static_cast<float>(2.0 / 3),
                          std::numeric_limits<float>::infinity()}));
  // int64 results wrapped into int8.
  const ArrayView big = PlaceValues<int64_t>({127, 300, -129, int64_t{1} << 40}, {4});
  EXPECT_EQ(
      (Apply<int8_t, int64_t>(ElementwiseOp::kAdd, {Operand(big), ScalarOperand(int64_t{1})}, {4})),
      (std::vector<int8_t>{-128, 45, -128, 1}));
  // complex to real drops the imaginary part; to bool tests either part.
  const ArrayView z = PlaceValues<std::complex<double>>({{1.5, 2}, {0, -1}, {0, 0}}, {3});
  EXPECT_EQ((Apply<double, std::complex<double>>(ElementwiseOp::kCopy, {Operand(z)}, {3})),
            (std::vector<double>{1.5, 0, 0}));
  EXPECT_EQ((Apply<bool, std::complex<double>>(ElementwiseOp::kCopy, {Operand(z)}, {3})),
            (std::vector<bool>{true, true, false}));
}

TEST_F(HostComputeTest, FloatToIntegerCastsTruncateAndZeroWhatDoesNotFit) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const ArrayView x = PlaceValues<double>(
      {2.9, -2.9, -0.5, kNan, kInf, -kInf, 127.9, 128.0, -128.9, -129.0, 1e300}, {11});
  EXPECT_EQ((Apply<int8_t, double>(ElementwiseOp::kCopy, {Operand(x)}, {11})),
            (std::vector<int8_t>{2, -2, 0, 0, 0, 0, 127, 0, -128, 0, 0}));
  EXPECT_EQ((Apply<uint8_t, double>(ElementwiseOp::kCopy, {Operand(x)}, {11})),
            (std::vector<uint8_t>{2, 0, 0, 0, 0, 0, 127, 128, 0, 0, 0}));
  // Around 2^63 and 2^64, where the double's range checks must be exact.
  const ArrayView limits = PlaceValues<double>(
      {0x1p63, -0x1p63, 0x1p64, 0x1.fffffffffffffp62, 0x1.fffffffffffffp63}, {5});
  EXPECT_EQ((Apply<int64_t, double>(ElementwiseOp::kCopy, {Operand(limits)}, {5})),
            (std::vector<int64_t>{0, std::numeric_limits<int64_t>::min(), 0,
                                  (int64_t{1} << 62) + ((int64_t{1} << 62) - 1024), 0}));
  EXPECT_EQ((Apply<uint64_t, double>(ElementwiseOp::kCopy, {Operand(limits)}, {5})),
            (std::vector<uint64_t>{1ULL << 63, 0, 0, (1ULL << 63) - 1024, ~uint64_t{0} - 2047}));
  // The same rule through float16 and float32 sources.
  const ArrayView h = PlaceValues<Half>({Half(300.5f), Half(-1.5f), Half(kInf)}, {3});
  EXPECT_EQ((Apply<uint8_t, Half>(ElementwiseOp::kCopy, {Operand(h)}, {3})),
            (std::vector<uint8_t>{0, 0, 0}));
  EXPECT_EQ((Apply<int16_t, Half>(ElementwiseOp::kCopy, {Operand(h)}, {3})),
            (std::vector<int16_t>{300, -1, 0}));
}

TEST_F(HostComputeTest, WhereReadsAnyConditionAsNonzero) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  const ArrayView condition = PlaceValues<double>({0.0, -0.0, kNan, 2.5, -1e-300}, {5});
  const ArrayView a = PlaceValues<int16_t>({1, 2, 3, 4, 5}, {5});
  EXPECT_EQ(Apply<int16_t>(ElementwiseOp::kWhere,
                           {Operand(condition), Operand(a), ScalarOperand<int16_t>(-1)}, {5}),
            (std::vector<int16_t>{-1, -1, 3, 4, 5}));
  const ArrayView complex_condition =
      PlaceValues<std::complex<float>>({{0, 0}, {0, 1}, {-0.0f, 0}}, {3});
  EXPECT_EQ(
      Apply<float>(ElementwiseOp::kWhere,
                   {Operand(complex_condition), ScalarOperand(1.0f), ScalarOperand(2.0f)}, {3}),
      (std::vector<float>{2, 1, 2}));
}

TEST_F(HostComputeTest, BoolBytesOtherThanOneAreTrue) {
  // A client may upload any byte into a bool array; results are always the bytes 0 or 1.
  const Bytes stored = {std::byte{0}, std::byte{2}, std::byte{0xFF}};
  const ArrayView b = Place(stored, DType::kBool, {3});
  const auto run = [&](ElementwiseOp op, std::vector<ElementwiseOperand> operands) {
    const ElementwiseCall call{.op = op,
                               .compute_dtype = DType::kBool,
                               .result_dtype = DType::kBool,
                               .shape = {3},
                               .operands = std::move(operands),
                               .output = PlaceOutput(DType::kBool, {3})};
    EXPECT_TRUE(backend_.compute().Elementwise(TestQueue(backend_), call).ok());
    return Read(call.output);
  };
  EXPECT_EQ(run(ElementwiseOp::kLogicalNot, {Operand(b)}),
            (Bytes{std::byte{1}, std::byte{0}, std::byte{0}}));
  EXPECT_EQ(run(ElementwiseOp::kBitwiseAnd, {Operand(b), Operand(b)}),
            (Bytes{std::byte{0}, std::byte{1}, std::byte{1}}));
  EXPECT_EQ(run(ElementwiseOp::kCopy, {Operand(b)}),
            (Bytes{std::byte{0}, std::byte{1}, std::byte{1}}));
}

TEST_F(HostComputeTest, IntegerArithmeticWraps) {
  const ArrayView u = PlaceValues<uint64_t>({std::numeric_limits<uint64_t>::max()}, {1});
  EXPECT_EQ(Apply<uint64_t>(ElementwiseOp::kAdd, {Operand(u), ScalarOperand<uint64_t>(1)}, {1}),
            std::vector<uint64_t>{0});
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  const ArrayView i = PlaceValues<int32_t>({kMin, std::numeric_limits<int32_t>::max()}, {2});
  EXPECT_EQ(Apply<int32_t>(ElementwiseOp::kFloorDivide, {Operand(i), ScalarOperand(-1)}, {2}),
            (std::vector<int32_t>{kMin, -std::numeric_limits<int32_t>::max()}));
  EXPECT_EQ(Apply<int32_t>(ElementwiseOp::kRemainder, {Operand(i), ScalarOperand(-1)}, {2}),
            (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(Apply<int32_t>(ElementwiseOp::kAbsolute, {Operand(i)}, {2}),
            (std::vector<int32_t>{kMin, std::numeric_limits<int32_t>::max()}));
  EXPECT_EQ(Apply<int32_t>(ElementwiseOp::kMultiply, {Operand(i), ScalarOperand(2)}, {2}),
            (std::vector<int32_t>{0, -2}));
  EXPECT_EQ(Apply<int32_t>(ElementwiseOp::kPower, {ScalarOperand(3), ScalarOperand(40)}, {}),
            std::vector<int32_t>{static_cast<int32_t>(12157665459056928801ULL & 0xFFFFFFFF)});
}

TEST_F(HostComputeTest, IntegerPowerOfNegativeExponentTruncates) {
  // ops.h: a negative exponent gives 0 unless |base| = 1 (NumPy raises instead).
  const ArrayView base = PlaceValues<int16_t>({1, -1, -1, 2, -2, 0, 7}, {7});
  const ArrayView exponent = PlaceValues<int16_t>({-5, -5, -4, -1, -3, -2, 0}, {7});
  EXPECT_EQ(Apply<int16_t>(ElementwiseOp::kPower, {Operand(base), Operand(exponent)}, {7}),
            (std::vector<int16_t>{1, -1, 1, 0, 0, 0, 1}));
}

TEST_F(HostComputeTest, ManyChunksAndDimensionsAgreeWithAnElementLoop) {
  // A (7, 300, 3) float32 array in transposed, flipped, spaced storage plus a contiguous one.
  const Shape shape = {7, 300, 3};
  std::vector<float> a(Count(shape));
  std::vector<float> b(a.size());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-10, 10);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = uniform(rng);
    b[i] = uniform(rng);
  }
  const std::vector<float> hypot = Apply<float>(
      ElementwiseOp::kHypot,
      {Operand(PlaceValues(a, shape, kTransposed)), Operand(PlaceValues(b, shape))}, shape);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(hypot[i], std::hypot(a[i], b[i])) << i;
}

TEST_F(HostComputeTest, EmptyShapesWriteNothing) {
  const ArrayView empty = PlaceValues<double>({}, {0, 3});
  const ArrayView output = PlaceOutput(DType::kFloat64, {0, 3});
  const ElementwiseCall call{.op = ElementwiseOp::kNegative,
                             .compute_dtype = DType::kFloat64,
                             .result_dtype = DType::kFloat64,
                             .shape = {0, 3},
                             .operands = {Operand(empty)},
                             .output = output};
  EXPECT_TRUE(backend_.compute().Elementwise(TestQueue(backend_), call).ok());
  EXPECT_TRUE(GapsIntact(output));
}

// A loop ufuncs.def lacks is UNIMPLEMENTED on every backend (elementwise_conformance.h); a call
// whose result dtype is not the loop's is the caller's bug.
TEST_F(HostComputeTest, ResultDTypeOtherThanTheLoopsIsAnInternalError) {
  const ArrayView b = PlaceValues<float>({1}, {1});
  const ElementwiseCall call{.op = ElementwiseOp::kAdd,
                             .compute_dtype = DType::kFloat32,
                             .result_dtype = DType::kFloat64,  // The float32 loop gives float32.
                             .shape = {1},
                             .operands = {Operand(b), Operand(b)},
                             .output = PlaceOutput(DType::kFloat32, {1})};
  EXPECT_EQ(backend_.compute().Elementwise(TestQueue(backend_), call).code(),
            absl::StatusCode::kInternal);
}

// ---------------------------------------------------------------------------------------------
// Transcendental functions against long double references, on seeded random inputs (never 0)

struct MathReference {
  ElementwiseOp op;
  long double (*real)(long double);
  std::complex<long double> (*complex)(std::complex<long double>);
  double low, high;  // Real inputs' range.
};

using CL = std::complex<long double>;
const MathReference kMathReferences[] = {
    {ElementwiseOp::kExp, [](long double x) { return std::exp(x); },
     [](CL z) { return std::exp(z); }, -30, 30},
    {ElementwiseOp::kExpm1, [](long double x) { return std::expm1(x); },
     [](CL z) { return std::exp(z) - 1.0L; }, -5, 5},
    {ElementwiseOp::kLog, [](long double x) { return std::log(x); },
     [](CL z) { return std::log(z); }, 1e-3, 1e4},
    {ElementwiseOp::kLog1p, [](long double x) { return std::log1p(x); },
     [](CL z) { return std::log(1.0L + z); }, -0.9, 1e3},
    {ElementwiseOp::kLog2, [](long double x) { return std::log2(x); },
     [](CL z) { return std::log(z) / std::log(2.0L); }, 1e-3, 1e4},
    {ElementwiseOp::kLog10, [](long double x) { return std::log10(x); },
     [](CL z) { return std::log10(z); }, 1e-3, 1e4},
    {ElementwiseOp::kSqrt, [](long double x) { return std::sqrt(x); },
     [](CL z) { return std::sqrt(z); }, 1e-3, 1e4},
    {ElementwiseOp::kSin, [](long double x) { return std::sin(x); },
     [](CL z) { return std::sin(z); }, -50, 50},
    {ElementwiseOp::kCos, [](long double x) { return std::cos(x); },
     [](CL z) { return std::cos(z); }, -50, 50},
    {ElementwiseOp::kTan, [](long double x) { return std::tan(x); },
     [](CL z) { return std::tan(z); }, -1.5, 1.5},
    {ElementwiseOp::kArcsin, [](long double x) { return std::asin(x); },
     [](CL z) { return std::asin(z); }, -1, 1},
    {ElementwiseOp::kArccos, [](long double x) { return std::acos(x); },
     [](CL z) { return std::acos(z); }, -1, 1},
    {ElementwiseOp::kArctan, [](long double x) { return std::atan(x); },
     [](CL z) { return std::atan(z); }, -50, 50},
    {ElementwiseOp::kSinh, [](long double x) { return std::sinh(x); },
     [](CL z) { return std::sinh(z); }, -20, 20},
    {ElementwiseOp::kCosh, [](long double x) { return std::cosh(x); },
     [](CL z) { return std::cosh(z); }, -20, 20},
    {ElementwiseOp::kTanh, [](long double x) { return std::tanh(x); },
     [](CL z) { return std::tanh(z); }, -5, 5},
};

class TranscendentalTest : public HostComputeTest,
                           public ::testing::WithParamInterface<MathReference> {
 protected:
  static constexpr int kCount = 2000;

  // Nonzero values uniform in [low, high).
  static std::vector<double> Inputs(double low, double high, uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uniform(low, high);
    std::vector<double> values;
    while (values.size() < kCount) {
      const double x = uniform(rng);
      if (x != 0) values.push_back(x);
    }
    return values;
  }

  // The op on T-rounded inputs against the reference rounded to T, within `ulps`.
  template <typename T>
  void CheckReal(const MathReference& ref, double ulps) {
    std::vector<T> x;
    for (double v : Inputs(ref.low, ref.high, 1)) x.push_back(Convert<T>(v));
    const std::vector<T> y = Apply<T>(ref.op, {Operand(PlaceValues(x, {kCount}))}, {kCount});
    for (int i = 0; i < kCount; ++i) {
      const double input = Convert<double>(x[i]);
      const T expected = Convert<T>(static_cast<double>(ref.real(input)));
      ASSERT_TRUE(ElementMatches(host::DTypeOf<T>(), reinterpret_cast<const std::byte*>(&y[i]),
                                 reinterpret_cast<const std::byte*>(&expected), ulps))
          << OpName(ref.op) << "(" << input << ")";
    }
  }

  // Complex inputs with both parts in [-2, 2]; errors relative to the result's magnitude.
  template <typename R>
  void CheckComplex(const MathReference& ref, double ulps) {
    using C = std::complex<R>;
    const std::vector<double> re = Inputs(-2, 2, 2);
    const std::vector<double> im = Inputs(-2, 2, 3);
    std::vector<C> z;
    for (int i = 0; i < kCount; ++i) z.emplace_back(re[i], im[i]);
    const std::vector<C> w = Apply<C>(ref.op, {Operand(PlaceValues(z, {kCount}))}, {kCount});
    for (int i = 0; i < kCount; ++i) {
      const CL expected = ref.complex(CL(z[i].real(), z[i].imag()));
      const long double error = std::abs(CL(w[i].real(), w[i].imag()) - expected);
      ASSERT_LE(error, ulps * std::numeric_limits<R>::epsilon() * std::abs(expected))
          << OpName(ref.op) << z[i] << " gave " << w[i];
    }
  }
};

TEST_P(TranscendentalTest, Float16) { CheckReal<Half>(GetParam(), 1); }
TEST_P(TranscendentalTest, Float32) { CheckReal<float>(GetParam(), 2); }
TEST_P(TranscendentalTest, Float64) { CheckReal<double>(GetParam(), 2); }
TEST_P(TranscendentalTest, Complex64) { CheckComplex<float>(GetParam(), 8); }
TEST_P(TranscendentalTest, Complex128) { CheckComplex<double>(GetParam(), 8); }

INSTANTIATE_TEST_SUITE_P(LongDouble, TranscendentalTest, ::testing::ValuesIn(kMathReferences),
                         [](const ::testing::TestParamInfo<MathReference>& info) {
                           return std::string(OpName(info.param.op));
                         });

TEST_F(HostComputeTest, BinaryTranscendentalsAgreeWithLongDouble) {
  constexpr int kCount = 2000;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> wide(-100, 100), base(0.01, 10), exponent(-8, 8);
  std::vector<double> y, x, b, e;
  for (int i = 0; i < kCount; ++i) {
    y.push_back(wide(rng));
    x.push_back(wide(rng));
    b.push_back(base(rng));
    e.push_back(exponent(rng));
  }
  const auto check = [&](ElementwiseOp op, const std::vector<double>& first,
                         const std::vector<double>& second,
                         long double (*reference)(long double, long double)) {
    const std::vector<double> result = Apply<double>(
        op, {Operand(PlaceValues(first, {kCount})), Operand(PlaceValues(second, {kCount}))},
        {kCount});
    for (int i = 0; i < kCount; ++i) {
      const double expected = static_cast<double>(reference(first[i], second[i]));
      ASSERT_NEAR(result[i], expected,
                  2 * std::numeric_limits<double>::epsilon() * std::fabs(expected))
          << OpName(op) << "(" << first[i] << ", " << second[i] << ")";
    }
  };
  check(ElementwiseOp::kArctan2, y, x,
        [](long double a, long double b) { return std::atan2(a, b); });
  check(ElementwiseOp::kHypot, y, x, [](long double a, long double b) { return std::hypot(a, b); });
  check(ElementwiseOp::kPower, b, e, [](long double a, long double b) { return std::pow(a, b); });

  // Complex power: exp(b log a), and exact repeated products for small integer exponents.
  std::vector<std::complex<double>> za, zb;
  for (int i = 0; i < kCount; ++i) {
    za.emplace_back(wide(rng) / 50, wide(rng) / 50);
    zb.emplace_back(exponent(rng) / 2, i % 2 ? 0.0 : exponent(rng) / 4);
  }
  const std::vector<std::complex<double>> powers = Apply<std::complex<double>>(
      ElementwiseOp::kPower,
      {Operand(PlaceValues(za, {kCount})), Operand(PlaceValues(zb, {kCount}))}, {kCount});
  for (int i = 0; i < kCount; ++i) {
    const CL expected = std::exp(CL(zb[i]) * std::log(CL(za[i])));
    const long double error = std::abs(CL(powers[i]) - expected);
    ASSERT_LE(error, 64 * std::numeric_limits<double>::epsilon() * std::abs(expected))
        << za[i] << " ** " << zb[i];
  }
}

// ---------------------------------------------------------------------------------------------
// Reductions against NumPy

std::vector<int64_t> ParseAxes(std::string_view text, size_t rank) {
  std::vector<int64_t> axes;
  if (text == "all") {
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
    return axes;
  }
  std::istringstream in{std::string(text)};
  for (int64_t axis; in >> axis;) axes.push_back(axis);
  return axes;
}

Shape KeptShape(const Shape& shape, const std::vector<int64_t>& axes) {
  Shape kept;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) == axes.end()) {
      kept.push_back(shape[d]);
    }
  }
  return kept;
}

// Relative closeness for reductions: |a - e| <= tolerance * max(|e|, 1) per part.
testing::AssertionResult ReductionMatches(DType dtype, const std::byte* actual,
                                          const std::byte* expected, double tolerance) {
  if (tolerance == 0) return ElementMatches(dtype, actual, expected, 0);
  return VisitDType(dtype, [&](auto tag) -> testing::AssertionResult {
    using T = typename decltype(tag)::type;
    const auto a = Convert<std::complex<double>>(LoadElement<T>(actual));
    const auto e = Convert<std::complex<double>>(LoadElement<T>(expected));
    const double unit = tolerance * ScaleOf(e, 1.0);
    if (RealClose(a.real(), e.real(), 1, unit) && RealClose(a.imag(), e.imag(), 1, unit)) {
      return testing::AssertionSuccess();
    }
    return testing::AssertionFailure() << "got " << a << ", expected " << e;
  });
}

// One test per reduction, over every input, axes, ddof and layout.
class ReduceGoldenTest : public HostComputeTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void Check(const ReduceCase& c, const Layout& layout) {
    const ReduceInput& input = kReduceInputs[c.input];
    SCOPED_TRACE(::testing::Message() << "input " << c.input << " (" << input.dtype << "), axes "
                                      << c.axes << ", ddof " << c.ddof << ", " << layout.name);
    const DType output_dtype = D(c.output);
    const std::vector<int64_t> axes = ParseAxes(c.axes, kReduceShape.size());
    const Shape kept = KeptShape(kReduceShape, axes);
    const ReduceCall call{
        .op = *ReduceOpFromName(c.op),
        .input = Place(FromHex(input.values), D(input.dtype), kReduceShape, layout),
        .axes = axes,
        .accumulate_dtype = D(c.accumulate),
        .ddof = c.ddof,
        .output = PlaceOutput(output_dtype, kept)};
    ASSERT_TRUE(backend_.compute().Reduce(TestQueue(backend_), call).ok());
    const Bytes actual = Read(call.output);
    const Bytes expected = FromHex(c.expected);
    const int64_t item = ItemSize(output_dtype);
    for (int64_t i = 0; i < Count(kept); ++i) {
      EXPECT_TRUE(
          ReductionMatches(output_dtype, &actual[i * item], &expected[i * item], c.tolerance))
          << "element " << i;
    }
    EXPECT_TRUE(GapsIntact(call.output));
  }
};

TEST_P(ReduceGoldenTest, MatchesNumPy) {
  for (const ReduceCase& c : kReduceCases) {
    if (c.op != GetParam()) continue;
    for (const Layout* layout : {&kContiguous, &kTransposed}) Check(c, *layout);
  }
}

INSTANTIATE_TEST_SUITE_P(NumPy, ReduceGoldenTest,
                         ::testing::ValuesIn(Distinct(kReduceCases, &ReduceCase::op)), ParamName);

// ---------------------------------------------------------------------------------------------
// Reduction paths

class ReduceTest : public HostComputeTest {
 protected:
  template <typename Out>
  std::vector<Out> Reduce(ReduceOp op, const ArrayView& input, std::vector<int64_t> axes,
                          DType accumulate, double ddof = 0) {
    const ArrayView output = PlaceOutput(host::DTypeOf<Out>(), KeptShape(input.shape, axes));
    const ReduceCall call{.op = op,
                          .input = input,
                          .axes = std::move(axes),
                          .accumulate_dtype = accumulate,
                          .ddof = ddof,
                          .output = output};
    const absl::Status status = backend_.compute().Reduce(TestQueue(backend_), call);
    EXPECT_TRUE(status.ok()) << status;
    return ReadValues<Out>(output);
  }
};

TEST_F(ReduceTest, Float32SumOfTenMillionKeepsPrecision) {
  constexpr int64_t kCount = 10'000'000;
  std::vector<float> values(kCount);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(0, 1);
  double reference = 0;
  for (float& v : values) {
    v = uniform(rng);
    reference += v;
  }
  const ArrayView input = PlaceValues(values, {kCount});
  for (DType accumulate : {DType::kFloat32, DType::kFloat64}) {
    const float sum = Reduce<float>(ReduceOp::kSum, input, {0}, accumulate)[0];
    EXPECT_LT(std::fabs(sum - reference) / reference, 1e-6) << DTypeName(accumulate);
    const float mean = Reduce<float>(ReduceOp::kMean, input, {0}, accumulate)[0];
    EXPECT_LT(std::fabs(mean - reference / kCount) / (reference / kCount), 1e-6);
  }
}

TEST_F(ReduceTest, Float16SumAccumulatesInFloat32) {
  // 4000 x 0.1 in float16 arithmetic stalls at 256; in float32 it reaches 399.9 -> 400 in half.
  const ArrayView input = PlaceValues(std::vector<Half>(4000, Half(0.1f)), {4000});
  const std::vector<Half> sum = Reduce<Half>(ReduceOp::kSum, input, {0}, DType::kFloat32);
  EXPECT_EQ(static_cast<float>(sum[0]),
            static_cast<float>(HalfFromDouble(4000 * double(Half(0.1f)))));
  const std::vector<Half> mean = Reduce<Half>(ReduceOp::kMean, input, {0}, DType::kFloat32);
  EXPECT_EQ(mean[0].bits(), Half(0.1f).bits());
}

TEST_F(ReduceTest, StridedReductionsAgreeWithAnElementLoop) {
  // A (300, 1000) float64 array stored transposed and flipped: sums over each axis, over both,
  // and argmax, compared with plain loops over the logical array.
  const Shape shape = {300, 1000};
  std::vector<double> values(Count(shape));
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (double& v : values) v = uniform(rng);
  const ArrayView input = PlaceValues(values, shape, kTransposed);
  const std::vector<double> by_column = Reduce<double>(ReduceOp::kSum, input, {0}, DType::kFloat64);
  const std::vector<double> by_row = Reduce<double>(ReduceOp::kSum, input, {1}, DType::kFloat64);
  const std::vector<int64_t> argmax =
      Reduce<int64_t>(ReduceOp::kArgmax, input, {0}, DType::kFloat64);
  for (int64_t j = 0; j < shape[1]; ++j) {
    double sum = 0;
    int64_t best = 0;
    for (int64_t i = 0; i < shape[0]; ++i) {
      sum += values[i * shape[1] + j];
      if (values[i * shape[1] + j] > values[best * shape[1] + j]) best = i;
    }
    ASSERT_NEAR(by_column[j], sum, 1e-12);
    ASSERT_EQ(argmax[j], best);
  }
  for (int64_t i = 0; i < shape[0]; ++i) {
    const double sum = std::accumulate(&values[i * shape[1]], &values[(i + 1) * shape[1]], 0.0);
    ASSERT_NEAR(by_row[i], sum, 1e-12);
  }
  const double total = std::accumulate(values.begin(), values.end(), 0.0);
  EXPECT_NEAR(Reduce<double>(ReduceOp::kSum, input, {0, 1}, DType::kFloat64)[0], total, 1e-10);
}

TEST_F(ReduceTest, DdofAtOrPastTheCountGivesInfinityOrNan) {
  // NumPy divides by max(n - ddof, 0): a positive sum of squares gives inf, zero gives NaN.
  const ArrayView spread = PlaceValues<double>({1, 2, 3}, {3});
  const ArrayView constant = PlaceValues<double>({4, 4}, {2});
  EXPECT_EQ(Reduce<double>(ReduceOp::kVar, spread, {0}, DType::kFloat64, 1)[0], 1.0);
  EXPECT_TRUE(std::isinf(Reduce<double>(ReduceOp::kVar, spread, {0}, DType::kFloat64, 3)[0]));
  EXPECT_TRUE(std::isinf(Reduce<double>(ReduceOp::kStd, spread, {0}, DType::kFloat64, 7)[0]));
  EXPECT_TRUE(std::isnan(Reduce<double>(ReduceOp::kVar, constant, {0}, DType::kFloat64, 2)[0]));
  EXPECT_EQ(Reduce<double>(ReduceOp::kVar, constant, {0}, DType::kFloat64, -1)[0], 0.0);
}

// min/max/argmin/argmax over zero elements never reach a backend, which calls one an internal
// error. (What the other empty reductions give is in reduce_conformance.h.)
TEST_F(ReduceTest, EmptyArgExtremesAreInternalErrors) {
  const ArrayView empty = PlaceValues<int32_t>({}, {3, 0});
  EXPECT_EQ(backend_.compute()
                .Reduce(TestQueue(backend_), ReduceCall{.op = ReduceOp::kArgmin,
                                                        .input = empty,
                                                        .axes = {1},
                                                        .accumulate_dtype = DType::kInt32,
                                                        .output = PlaceOutput(DType::kInt64, {3})})
                .code(),
            absl::StatusCode::kInternal);
}

TEST_F(ReduceTest, ArgExtremesTakeTheFirstNanOrTheFirstExtreme) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  const ArrayView x = PlaceValues<double>({1, 5, 5, kNan, -2, kNan, -2}, {7});
  EXPECT_EQ(Reduce<int64_t>(ReduceOp::kArgmax, x, {0}, DType::kFloat64)[0], 3);
  EXPECT_EQ(Reduce<int64_t>(ReduceOp::kArgmin, x, {0}, DType::kFloat64)[0], 3);
  const ArrayView y = PlaceValues<double>({1, 5, 5, -2, 0, -2}, {6});
  EXPECT_EQ(Reduce<int64_t>(ReduceOp::kArgmax, y, {0}, DType::kFloat64)[0], 1);
  EXPECT_EQ(Reduce<int64_t>(ReduceOp::kArgmin, y, {0}, DType::kFloat64)[0], 3);
  EXPECT_TRUE(std::isnan(Reduce<double>(ReduceOp::kMin, x, {0}, DType::kFloat64)[0]));
}

// ---------------------------------------------------------------------------------------------
// Random fills

class RandomTest : public HostComputeTest {
 protected:
  template <typename T>
  std::vector<T> Fill(RandomCall call, int64_t count) {
    call.output = PlaceOutput(host::DTypeOf<T>(), {count});
    const absl::Status status = backend_.compute().FillRandom(TestQueue(backend_), call);
    EXPECT_TRUE(status.ok()) << status;
    return ReadValues<T>(call.output);
  }

  static RandomCall Uniform(double low, double high, uint64_t seed = 1) {
    return {.distribution = RandomDistribution::kUniform,
            .low = low,
            .high = high,
            .seed = seed,
            .output = {}};
  }
  static RandomCall Integers(int64_t low, int64_t high, uint64_t seed = 1) {
    return {.distribution = RandomDistribution::kIntegers,
            .int_low = low,
            .int_high = high,
            .seed = seed,
            .output = {}};
  }

  // Mean and variance of the values, as doubles.
  template <typename T>
  static std::pair<double, double> Moments(const std::vector<T>& values) {
    double sum = 0, squares = 0;
    for (T v : values) sum += Convert<double>(v);
    const double mean = sum / values.size();
    for (T v : values) squares += (Convert<double>(v) - mean) * (Convert<double>(v) - mean);
    return {mean, squares / values.size()};
  }
};

TEST_F(RandomTest, UniformStaysInsideLowHigh) {
  // Ranges where rounding to the dtype would reach high: [0, 1) in float16 rounds values
  // above 1 - 2^-12 up to 1; [1, 1 + 2^-24) in float32 has only 1 inside.
  for (Half h : Fill<Half>(Uniform(0, 1), 1'000'000)) ASSERT_LT(static_cast<float>(h), 1.0f);
  for (float f : Fill<float>(Uniform(1, 1 + 0x1p-24), 1000)) ASSERT_EQ(f, 1.0f);
  for (float f : Fill<float>(Uniform(-3, 5), 100'000)) ASSERT_TRUE(f >= -3 && f < 5) << f;
  for (double d : Fill<double>(Uniform(-1e308, 1e308), 1000)) ASSERT_TRUE(d >= -1e308 && d < 1e308);
  // A bound between representable values: the smallest value >= low is used.
  for (Half h : Fill<Half>(Uniform(1.0001, 1.01), 1000)) {
    ASSERT_TRUE(static_cast<float>(h) >= 1.0001f && static_cast<float>(h) < 1.01f);
  }
}

TEST_F(RandomTest, SameSeedSameValues) {
  EXPECT_EQ(Fill<double>(Uniform(0, 1, 42), 1000), Fill<double>(Uniform(0, 1, 42), 1000));
  EXPECT_NE(Fill<double>(Uniform(0, 1, 42), 1000), Fill<double>(Uniform(0, 1, 43), 1000));
  RandomCall normal{
      .distribution = RandomDistribution::kNormal, .low = 0, .high = 1, .seed = 9, .output = {}};
  EXPECT_EQ(Fill<float>(normal, 1001), Fill<float>(normal, 1001));
  EXPECT_EQ(Fill<int64_t>(Integers(-5, 1000, 3), 1000), Fill<int64_t>(Integers(-5, 1000, 3), 1000));
}

TEST_F(RandomTest, UniformAndNormalMoments) {
  constexpr int64_t kCount = 1'000'000;
  // Tolerances of 6 standard errors: mean's sigma / sqrt(n), variance's about sigma^2 *
  // sqrt(2 / n) (normal) or less (uniform).
  const auto [u_mean, u_var] = Moments(Fill<double>(Uniform(-2, 4), kCount));
  EXPECT_NEAR(u_mean, 1.0, 6 * std::sqrt(3.0 / kCount));
  EXPECT_NEAR(u_var, 3.0, 6 * 3.0 * std::sqrt(2.0 / kCount));
  RandomCall normal{
      .distribution = RandomDistribution::kNormal, .low = 10, .high = 2, .seed = 4, .output = {}};
  const auto [n_mean, n_var] = Moments(Fill<double>(normal, kCount));
  EXPECT_NEAR(n_mean, 10.0, 6 * 2.0 / std::sqrt(kCount));
  EXPECT_NEAR(n_var, 4.0, 6 * 4.0 * std::sqrt(2.0 / kCount));
  const auto [f_mean, f_var] = Moments(Fill<float>(normal, kCount));
  EXPECT_NEAR(f_mean, 10.0, 6 * 2.0 / std::sqrt(kCount));
  EXPECT_NEAR(f_var, 4.0, 6 * 4.0 * std::sqrt(2.0 / kCount));
  const auto [h_mean, h_var] = Moments(Fill<Half>(Uniform(0, 1, 8), kCount));
  EXPECT_NEAR(h_mean, 0.5, 6 * std::sqrt(1.0 / 12 / kCount) + 1e-3);
  EXPECT_NEAR(h_var, 1.0 / 12, 1e-3);
}

TEST_F(RandomTest, IntegersCoverTheRangeUniformly) {
  constexpr int64_t kCount = 70'000;
  std::array<int64_t, 7> counts{};
  for (int8_t v : Fill<int8_t>(Integers(-3, 4), kCount)) {
    ASSERT_TRUE(v >= -3 && v < 4) << int{v};
    ++counts[v + 3];
  }
  for (int64_t c : counts) EXPECT_NEAR(c, kCount / 7, 6 * std::sqrt(kCount / 7.0));
  std::set<int> bools;
  for (bool b : Fill<bool>(Integers(0, 2), 100)) bools.insert(b);
  EXPECT_EQ(bools.size(), 2u);
  std::set<uint8_t> bytes;
  for (uint8_t v : Fill<uint8_t>(Integers(0, 256), 100'000)) bytes.insert(v);
  EXPECT_EQ(bytes.size(), 256u);
  for (uint64_t v :
       Fill<uint64_t>(Integers(int64_t{1} << 62, std::numeric_limits<int64_t>::max()), 1000)) {
    ASSERT_GE(v, 1ULL << 62);
  }
  // The full int64 range but one value, and a single value.
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const std::vector<int64_t> wide =
      Fill<int64_t>(Integers(kMin, std::numeric_limits<int64_t>::max()), 1000);
  EXPECT_TRUE(std::any_of(wide.begin(), wide.end(), [](int64_t v) { return v < 0; }));
  EXPECT_TRUE(std::any_of(wide.begin(), wide.end(), [](int64_t v) { return v > 0; }));
  for (int32_t v : Fill<int32_t>(Integers(-7, -6), 100)) ASSERT_EQ(v, -7);
}

TEST_F(RandomTest, InvalidRequestsAreErrors) {
  RandomCall call = Uniform(0, 1);
  call.output = PlaceOutput(DType::kInt32, {4});
  EXPECT_EQ(backend_.compute().FillRandom(TestQueue(backend_), call).code(),
            absl::StatusCode::kInvalidArgument);
  call = Uniform(1, 1);
  call.output = PlaceOutput(DType::kFloat32, {4});
  EXPECT_EQ(backend_.compute().FillRandom(TestQueue(backend_), call).code(),
            absl::StatusCode::kInvalidArgument);
  call = Integers(5, 5);
  call.output = PlaceOutput(DType::kInt32, {4});
  EXPECT_EQ(backend_.compute().FillRandom(TestQueue(backend_), call).code(),
            absl::StatusCode::kInvalidArgument);
  call = Integers(0, 2);
  call.output = PlaceOutput(DType::kComplex64, {4});
  EXPECT_EQ(backend_.compute().FillRandom(TestQueue(backend_), call).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace arrayhub
