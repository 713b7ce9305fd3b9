// The CUDA backend's computation against the host backend, on fresh random data (the seed is
// printed with every failure; ARRAYHUB_TEST_SEED=<seed> repeats a run): every elementwise op
// over every dtype NumPy has a loop for (as core resolves it), with dense, strided (negative
// steps, gaps, transposes), broadcast and scalar operands, mixed operand dtypes, in place and
// with output casts; fused chains of ops against the host's step-by-step runs; every reduction over
// one, several and all axes of dense and strided arrays (the random fills' contract is in
// random_conformance.h, run on both backends). Integer and bool results and the IEEE-exact
// float operations (+ - * /, sqrt, rounding, comparisons, casts...) must match bit for bit;
// transcendental functions within a relative tolerance. Runs only with a GPU.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/host/host_backend.h"
#include "server/common/float16.h"
#include "server/common/status_macros.h"
#include "server/core/reduction_rules.h"
#include "server/core/ufunc_rules.h"
#include "tests/backend/backend_io.h"
#include "tests/backend/cuda_fixture.h"
#include "tests/backend/element_bytes.h"
#include "tests/support/test_queue.h"
#include "tests/support/test_seed.h"

namespace arrayhub {
namespace {

using Rng = std::mt19937_64;
using testing::BaseSeed;

// ---------------------------------------------------------------------------------------------
// Random values

// What values an operand gets: each op draws from the domain where it is interesting (and
// mostly defined). Never all zeros.
enum class Domain {
  kAny,       // Floats in [-8, 8]; integers over their whole range; bools mostly true.
  kSpecial,   // kAny plus NaN, infinities, signed zeros and halves (rint's ties).
  kPositive,  // (0.05, 10]; integers [1, 100].
  kUnit,      // [-0.99, 0.99]; integers [-1, 1].
  kSmall,     // [-3, 3].
  kNearOne,   // [0.9, 1.1]: long products stay finite.
  kSumand,    // [0.5, 1.5]: sums without cancellation.
  kDivisor,   // kAny with zeros and -1s.
  kExponent,  // [-3, 3]; integers [-3, 12].
  kShift,     // Integers [-3, bits + 3].
  kCast,      // Values beyond every integer range too, NaN and infinities.
};

double UniformReal(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

double RandomReal(Domain domain, Rng& rng) {
  const double u = UniformReal(rng, 0, 1);
  switch (domain) {
    case Domain::kSpecial:
      if (u < 0.03) return std::numeric_limits<double>::quiet_NaN();
      if (u < 0.05) return std::numeric_limits<double>::infinity();
      if (u < 0.07) return -std::numeric_limits<double>::infinity();
      if (u < 0.09) return u < 0.08 ? 0.0 : -0.0;
      if (u < 0.15) return std::floor(UniformReal(rng, -8, 8)) + 0.5;
      return UniformReal(rng, -8, 8);
    case Domain::kPositive:
      return UniformReal(rng, 0.05, 10);
    case Domain::kUnit:
      return UniformReal(rng, -0.99, 0.99);
    case Domain::kSmall:
    case Domain::kExponent:
      return UniformReal(rng, -3, 3);
    case Domain::kNearOne:
      return UniformReal(rng, 0.9, 1.1);
    case Domain::kSumand:
      return UniformReal(rng, 0.5, 1.5);
    case Domain::kDivisor:
      if (u < 0.05) return 0.0;
      return UniformReal(rng, -8, 8);
    case Domain::kCast:
      if (u < 0.05) return std::numeric_limits<double>::quiet_NaN();
      if (u < 0.1) return u < 0.075 ? std::numeric_limits<double>::infinity() : -1e300;
      if (u < 0.3) return UniformReal(rng, -1e20, 1e20);
      if (u < 0.5) return UniformReal(rng, -70000, 70000);
      return UniformReal(rng, -300, 300);
    default:
      return UniformReal(rng, -8, 8);
  }
}

// An integer of `bits` bits (signed or not) as its low bits in a uint64.
uint64_t RandomInteger(Domain domain, int bits, bool is_signed, Rng& rng) {
  const auto in = [&](int64_t lo, int64_t hi) {
    return static_cast<uint64_t>(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
  };
  const int64_t floor = is_signed ? 1 : 0;  // Unsigned domains start at 0 where signed go below.
  switch (domain) {
    case Domain::kPositive:
      return in(1, 100);
    case Domain::kUnit:
      return in(-floor, 1);
    case Domain::kSmall:
      return in(-3 * floor, 3);
    case Domain::kSumand:
    case Domain::kNearOne:
      return in(-100 * floor, 100);
    case Domain::kExponent:
      return in(-3 * floor, 12);
    case Domain::kShift:
      return in(-3 * floor, bits + 3);
    case Domain::kDivisor: {
      const uint64_t pick = rng() % 10;
      if (pick == 0) return 0;
      if (pick == 1) return is_signed ? ~uint64_t{0} : 1;
      return rng();
    }
    default:
      return rng();  // Truncated to the dtype: its whole range.
  }
}

// One element of `dtype` at `out`.
void RandomElement(DType dtype, Domain domain, Rng& rng, std::byte* out) {
  switch (KindOf(dtype)) {
    case DTypeKind::kBool: {
      const double p_true = domain == Domain::kAny ? 0.7 : 0.97;
      out[0] = std::byte{UniformReal(rng, 0, 1) < p_true};
      return;
    }
    case DTypeKind::kSigned:
    case DTypeKind::kUnsigned: {
      const auto bits = static_cast<int>(ItemSize(dtype) * 8);
      const uint64_t v = RandomInteger(domain, bits, KindOf(dtype) == DTypeKind::kSigned, rng);
      std::memcpy(out, &v, static_cast<size_t>(ItemSize(dtype)));  // Little-endian low bytes.
      return;
    }
    case DTypeKind::kFloat:
      StoreReal(dtype, RandomReal(domain, rng), out);
      return;
    case DTypeKind::kComplex: {
      // kNearOne keeps |z| near 1, so that long products stay finite.
      const DType part = dtype == DType::kComplex64 ? DType::kFloat32 : DType::kFloat64;
      StoreReal(part, RandomReal(domain, rng), out);
      StoreReal(part,
                domain == Domain::kNearOne ? UniformReal(rng, -0.1, 0.1) : RandomReal(domain, rng),
                out + ItemSize(part));
      return;
    }
  }
}

Bytes RandomBytes(DType dtype, int64_t count, Domain domain, Rng& rng) {
  Bytes bytes(static_cast<size_t>(count * ItemSize(dtype)));
  for (int64_t i = 0; i < count; ++i)
    RandomElement(dtype, domain, rng, &bytes[i * ItemSize(dtype)]);
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Comparing results

// Components of an element as doubles (one for reals, two for complex).
std::vector<double> Components(DType dtype, const std::byte* p) {
  switch (dtype) {
    case DType::kFloat16: {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      Imath::half h;
      h.setBits(bits);
      return {static_cast<float>(h)};
    }
    case DType::kFloat32: {
      float f;
      std::memcpy(&f, p, 4);
      return {f};
    }
    case DType::kFloat64: {
      double d;
      std::memcpy(&d, p, 8);
      return {d};
    }
    case DType::kComplex64: {
      float f[2];
      std::memcpy(f, p, 8);
      return {f[0], f[1]};
    }
    case DType::kComplex128: {
      double d[2];
      std::memcpy(d, p, 16);
      return {d[0], d[1]};
    }
    default:
      return {};
  }
}

std::string Describe(DType dtype, const std::byte* p) {
  if (IsFloating(dtype) || IsComplex(dtype))
    return fmt::format("{}", fmt::join(Components(dtype, p), ", "));
  std::string hex;
  for (int64_t i = ItemSize(dtype) - 1; i >= 0; --i)
    hex += fmt::format("{:02x}", std::to_integer<int>(p[i]));
  return "0x" + hex;
}

// Equal, both NaN (any payload), or (tolerance > 0) within tolerance * max(|expected|, 1).
bool ElementMatches(DType dtype, const std::byte* actual, const std::byte* expected,
                    double tolerance) {
  const size_t size = static_cast<size_t>(ItemSize(dtype));
  if (std::memcmp(actual, expected, size) == 0) return true;
  const std::vector<double> a = Components(dtype, actual);
  const std::vector<double> e = Components(dtype, expected);
  if (e.empty()) return false;  // Integers and bool: bytes only.
  double distance = 0;
  double magnitude = 0;
  for (size_t k = 0; k < e.size(); ++k) {
    if (std::isnan(a[k]) || std::isnan(e[k])) {
      if (std::isnan(a[k]) != std::isnan(e[k])) return false;
      continue;
    }
    if (std::isinf(e[k]) || std::isinf(a[k])) {
      if (a[k] != e[k]) return false;
      continue;
    }
    distance = std::hypot(distance, a[k] - e[k]);
    magnitude = std::hypot(magnitude, e[k]);
  }
  return distance == 0 || distance <= tolerance * std::max(magnitude, 1.0);
}

// Empty when equal; else how many elements differ and the first few.
std::optional<std::string> Mismatch(DType dtype, const Bytes& actual, const Bytes& expected,
                                    double tolerance) {
  if (actual.size() != expected.size())
    return fmt::format("{} vs {} bytes", actual.size(), expected.size());
  const auto size = static_cast<size_t>(ItemSize(dtype));
  std::string shown;
  int64_t wrong = 0;
  for (size_t i = 0; i < actual.size() / size; ++i) {
    if (ElementMatches(dtype, &actual[i * size], &expected[i * size], tolerance)) continue;
    if (++wrong <= 3) {
      shown += fmt::format(" [{}] cuda {} host {};", i, Describe(dtype, &actual[i * size]),
                           Describe(dtype, &expected[i * size]));
    }
  }
  if (wrong == 0) return std::nullopt;
  return fmt::format("{} of {} {} elements differ (tolerance {}):{}", wrong, actual.size() / size,
                     DTypeName(dtype), tolerance, shown);
}

// ---------------------------------------------------------------------------------------------
// Arrays on both backends

struct Pair {
  std::shared_ptr<Buffer> cuda;
  std::shared_ptr<Buffer> host;
};

// How an operand (or the output) of shape (rows, cols) lies in its buffer.
enum class Layout {
  kDense,
  kReversed,    // Both strides negative, from the buffer's last element.
  kTransposed,  // Column-major.
  kStepped,     // Every other element of a 2x larger array, from element 1: gaps and an offset.
  kRow,         // A (cols,) buffer broadcast along the rows (stride 0).
  kColumn,      // A (rows,) buffer broadcast along the columns.
  kScalar,      // Not an array.
};

// The view of `layout` over shape (rows, cols) and the elements its buffer needs.
struct Placement {
  int64_t elements;
  int64_t offset;  // Elements.
  Strides strides;
};
Placement Place(Layout layout, const Shape& shape) {
  const int64_t rows = shape[0];
  const int64_t cols = shape.size() > 1 ? shape[1] : 1;
  const bool two_d = shape.size() > 1;
  auto make = [&](int64_t elements, int64_t offset, int64_t row_stride, int64_t col_stride) {
    return Placement{elements, offset,
                     two_d ? Strides{row_stride, col_stride} : Strides{row_stride}};
  };
  switch (layout) {
    case Layout::kReversed:
      return make(rows * cols, rows * cols - 1, -cols, -1);
    case Layout::kTransposed:
      return make(rows * cols, 0, 1, rows);
    case Layout::kStepped:
      return make(4 * rows * cols + 1, 1, 4 * cols, 2);
    case Layout::kRow:
      return make(cols, 0, 0, 1);
    case Layout::kColumn:
      return make(rows, 0, 1, 0);
    default:
      return make(rows * cols, 0, cols, 1);
  }
}

// An operand as both backends see it.
struct TestOperand {
  DType dtype;
  Layout layout;
  Bytes bytes;  // The buffer's contents (for a scalar: its element).
  Pair buffers;
  Placement placement;

  ElementwiseOperand On(bool cuda, const Shape& shape) const {
    ElementwiseOperand operand;
    operand.dtype = dtype;
    if (layout == Layout::kScalar) {
      std::memcpy(operand.scalar.data(), bytes.data(), bytes.size());
    } else {
      operand.array = ArrayView{.buffer = cuda ? buffers.cuda.get() : buffers.host.get(),
                                .offset_bytes = placement.offset * ItemSize(dtype),
                                .dtype = dtype,
                                .shape = shape,
                                .strides = placement.strides};
    }
    return operand;
  }
};

// ---------------------------------------------------------------------------------------------
// Running many cases

// Runs case(i) for i in [0, count) on a pool of threads (which also exercises the backends
// and the kernel cache from many threads) and returns the failure messages.
std::vector<std::string> RunParallel(size_t count,
                                     const std::function<std::optional<std::string>(size_t)>& run) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::vector<std::string> failures;
  const unsigned workers = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < workers; ++t) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < count; i = next++) {
        if (std::optional<std::string> failure = run(i)) {
          std::lock_guard<std::mutex> lock(mutex);
          failures.push_back(std::move(*failure));
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return failures;
}

std::string Summary(const std::vector<std::string>& failures, size_t cases) {
  std::string text =
      fmt::format("{} of {} cases failed{}:\n", failures.size(), cases, testing::SeedNote());
  for (size_t i = 0; i < std::min<size_t>(failures.size(), 40); ++i) text += failures[i] + "\n";
  return text;
}

class CudaComputeTest : public CudaFixture {
 protected:
  testing::SeedTrace seed_trace_;

  absl::StatusOr<Pair> UploadBoth(const Bytes& bytes) {
    Pair pair;
    AH_ASSIGN_OR_RETURN(pair.cuda, Upload(*cuda_, bytes));
    AH_ASSIGN_OR_RETURN(pair.host, Upload(host_, bytes));
    return pair;
  }

  absl::StatusOr<TestOperand> MakeOperand(DType dtype, Layout layout, const Shape& shape,
                                          Domain domain, Rng& rng) {
    TestOperand operand{
        .dtype = dtype, .layout = layout, .bytes = {}, .buffers = {}, .placement = {}};
    if (layout == Layout::kScalar) {
      operand.bytes = RandomBytes(dtype, 1, domain, rng);
      return operand;
    }
    operand.placement = Place(layout, shape);
    operand.bytes = RandomBytes(dtype, operand.placement.elements, domain, rng);
    AH_ASSIGN_OR_RETURN(operand.buffers, UploadBoth(operand.bytes));
    return operand;
  }

  // Downloads a buffer pair and compares the whole buffers (untouched gaps must stay equal).
  std::optional<std::string> CompareBuffers(const Pair& pair, DType dtype, double tolerance) {
    absl::StatusOr<Bytes> actual = Download(*cuda_, *pair.cuda);
    absl::StatusOr<Bytes> expected = Download(host_, *pair.host);
    if (!actual.ok() || !expected.ok())
      return fmt::format("download: {} / {}", actual.status().ToString(),
                         expected.status().ToString());
    return Mismatch(dtype, *actual, *expected, tolerance);
  }

  HostBackend host_;
};

// ---------------------------------------------------------------------------------------------
// Elementwise

bool IsTranscendental(ElementwiseOp op) {
  using O = ElementwiseOp;
  switch (op) {
    case O::kExp:
    case O::kExpm1:
    case O::kLog:
    case O::kLog1p:
    case O::kLog2:
    case O::kLog10:
    case O::kCbrt:
    case O::kExp2:
    case O::kSin:
    case O::kCos:
    case O::kTan:
    case O::kArcsin:
    case O::kArccos:
    case O::kArctan:
    case O::kArctan2:
    case O::kSinh:
    case O::kCosh:
    case O::kTanh:
    case O::kArcsinh:
    case O::kArccosh:
    case O::kArctanh:
    case O::kHypot:
    case O::kPower:
    case O::kFloatPower:
    case O::kLogaddexp:
    case O::kLogaddexp2:
      return true;
    default:
      return false;
  }
}

// 0 (bit for bit) where both backends run the same IEEE operations; else the relative
// tolerance of the loop's precision.
double ToleranceFor(ElementwiseOp op, DType compute) {
  const bool complex_math =
      IsComplex(compute) &&
      (op == ElementwiseOp::kAbsolute || op == ElementwiseOp::kSign || op == ElementwiseOp::kSqrt);
  if (!(IsTranscendental(op) && !IsInteger(compute)) && !complex_math) return 0;
  switch (compute) {
    case DType::kFloat16:
      return 1e-3;
    case DType::kFloat32:
      return 1e-6;
    case DType::kComplex64:
      return 2e-6;
    case DType::kFloat64:
      return 1e-13;
    default:
      // complex128: near poles and branch points (tanh at i*pi/2, arctan at +-i) the functions
      // are ill-conditioned and two correct implementations differ by ~1e-12 relative (seen on
      // the H100 with seed 6851235623072542926).
      return 1e-10;
  }
}

// The tolerance of a loop's results once stored as `output`: at least one step of a narrower
// floating output where the loop is not exact, since two results within the loop's tolerance
// may round to neighbouring values there (exp in float32 stored as float16 differed by one
// float16 step on the H100: seed 17010331111106058897).
double StoredTolerance(double loop_tolerance, DType output) {
  if (loop_tolerance == 0) return 0;
  switch (RealDType(output)) {
    case DType::kFloat16:
      return std::max(loop_tolerance, 0x1p-10);
    case DType::kFloat32:
      return std::max(loop_tolerance, 0x1p-23);
    default:
      return loop_tolerance;
  }
}

Domain DomainFor(ElementwiseOp op, size_t operand) {
  using O = ElementwiseOp;
  switch (op) {
    case O::kExp:
    case O::kExpm1:
    case O::kExp2:
    case O::kSin:
    case O::kCos:
    case O::kTan:
    case O::kArctan:
    case O::kSinh:
    case O::kCosh:
    case O::kTanh:
      return Domain::kSmall;
    case O::kLog:
    case O::kLog1p:
    case O::kLog2:
    case O::kLog10:
    case O::kSqrt:
      return Domain::kPositive;
    case O::kArcsin:
    case O::kArccos:
      return Domain::kUnit;
    case O::kArctan2:
    case O::kHypot:
      return Domain::kAny;
    case O::kPower:
    case O::kFloatPower:
      return operand == 0 ? Domain::kPositive : Domain::kExponent;
    case O::kFloorDivide:
    case O::kRemainder:
      return operand == 0 ? Domain::kSpecial : Domain::kDivisor;
    case O::kLeftShift:
    case O::kRightShift:
      return operand == 0 ? Domain::kAny : Domain::kShift;
    case O::kCopy:
      return Domain::kCast;
    default:
      return Domain::kSpecial;
  }
}

struct ElementwiseCase {
  ElementwiseCase(ElementwiseOp op, std::vector<DType> dtypes, std::vector<Layout> layouts,
                  Shape shape, std::optional<DType> output_dtype = std::nullopt,
                  Layout output_layout = Layout::kDense)
      : op(op),
        dtypes(std::move(dtypes)),
        layouts(std::move(layouts)),
        shape(std::move(shape)),
        output_dtype(output_dtype),
        output_layout(output_layout) {}

  ElementwiseOp op;
  std::vector<DType> dtypes;    // Per operand, as stored.
  std::vector<Layout> layouts;  // Per operand.
  Shape shape;
  std::optional<DType> output_dtype;  // Default: the result dtype.
  Layout output_layout;
  bool in_place = false;  // The output is operand 0 (which then has the output's dtype).

  std::string Name() const {
    std::vector<std::string> parts;
    for (size_t k = 0; k < dtypes.size(); ++k) {
      parts.push_back(fmt::format("{}/{}", DTypeName(dtypes[k]), static_cast<int>(layouts[k])));
    }
    return fmt::format("{}({}) shape {} out {}/{}{}", OpName(op), fmt::join(parts, ", "),
                       FormatShape(shape), output_dtype ? DTypeName(*output_dtype) : "result",
                       static_cast<int>(output_layout), in_place ? " in place" : "");
  }
};

class ElementwiseTest : public CudaComputeTest {
 protected:
  std::optional<std::string> Run(const ElementwiseCase& c, uint64_t seed) {
    Rng rng(seed);
    std::vector<UfuncOperand> typing;
    for (DType dtype : c.dtypes) typing.push_back({.array_dtype = dtype, .scalar = std::nullopt});
    absl::StatusOr<UfuncResolution> resolution = ResolveUfunc(c.op, typing, std::nullopt);
    if (!resolution.ok()) return fmt::format("resolve: {}", resolution.status().ToString());
    const DType output_dtype = c.output_dtype.value_or(resolution->result_dtype);

    std::vector<TestOperand> operands;
    for (size_t k = 0; k < c.dtypes.size(); ++k) {
      absl::StatusOr<TestOperand> operand =
          MakeOperand(c.dtypes[k], c.layouts[k], c.shape, DomainFor(c.op, k), rng);
      if (!operand.ok()) return operand.status().ToString();
      operands.push_back(*std::move(operand));
    }
    // The output starts as random bytes (the same on both): every element must be written,
    // and nothing outside the view.
    absl::StatusOr<TestOperand> output =
        c.in_place ? absl::StatusOr<TestOperand>(operands[0])
                   : MakeOperand(output_dtype, c.output_layout, c.shape, Domain::kAny, rng);
    if (!output.ok()) return output.status().ToString();

    for (bool on_cuda : {true, false}) {
      ElementwiseCall call{.op = c.op,
                           .compute_dtype = resolution->compute_dtype,
                           .result_dtype = resolution->result_dtype,
                           .shape = c.shape,
                           .operands = {},
                           .output = *output->On(on_cuda, c.shape).array};
      for (const TestOperand& operand : operands)
        call.operands.push_back(operand.On(on_cuda, c.shape));
      const absl::Status status =
          (on_cuda ? *cuda_ : static_cast<Backend&>(host_))
              .compute()
              .Elementwise(TestQueue(on_cuda ? *cuda_ : static_cast<Backend&>(host_)), call);
      if (!status.ok()) return fmt::format("{}: {}", on_cuda ? "cuda" : "host", status.ToString());
    }
    std::optional<std::string> mismatch = CompareBuffers(
        output->buffers, output_dtype,
        StoredTolerance(ToleranceFor(c.op, resolution->compute_dtype), output_dtype));
    if (!mismatch) return std::nullopt;
    return fmt::format("{} [compute {}]: {}", c.Name(), DTypeName(resolution->compute_dtype),
                       *mismatch);
  }

  void RunAll(const std::vector<ElementwiseCase>& cases) {
    const std::vector<std::string> failures =
        RunParallel(cases.size(), [&](size_t i) { return Run(cases[i], BaseSeed() + i); });
    EXPECT_TRUE(failures.empty()) << Summary(failures, cases.size());
  }
};

// Every op over arrays of every dtype it resolves for (core picks the loop: exp of int8 runs
// in float16, logical_and of floats in bool), in three layouts.
TEST_F(ElementwiseTest, EveryOpAndDTypeMatchesHost) {
  std::vector<ElementwiseCase> cases;
  for (ElementwiseOp op : kAllElementwiseOps) {
    const size_t arity = static_cast<size_t>(Arity(op));
    for (DType dtype : kAllDTypes) {
      std::vector<UfuncOperand> typing(arity,
                                       UfuncOperand{.array_dtype = dtype, .scalar = std::nullopt});
      if (!ResolveUfunc(op, typing, std::nullopt).ok()) continue;
      const std::vector<DType> dtypes(arity, dtype);
      // Dense, an odd length (vector tails).
      cases.push_back({op, dtypes, std::vector<Layout>(arity, Layout::kDense), {4099}});
      // Strided: reversed, broadcast row and column, stepped output.
      const std::vector<Layout> mixed = {Layout::kReversed, Layout::kRow, Layout::kColumn};
      cases.push_back({op,
                       dtypes,
                       {mixed.begin(), mixed.begin() + arity},
                       {37, 53},
                       std::nullopt,
                       Layout::kStepped});
      // A scalar among dense arrays (the last operand), or a transposed single operand.
      std::vector<Layout> last_scalar(arity, Layout::kDense);
      last_scalar.back() = arity > 1 ? Layout::kScalar : Layout::kTransposed;
      cases.push_back({op, dtypes, last_scalar, {61, 67}});
    }
  }
  RunAll(cases);
}

// Operands of different dtypes convert to the loop's dtype on the fly.
TEST_F(ElementwiseTest, MixedOperandDTypesMatchHost) {
  using D = DType;
  using O = ElementwiseOp;
  const Layout dense = Layout::kDense;
  RunAll({
      {O::kAdd, {D::kInt8, D::kFloat32}, {dense, dense}, {1001}},
      {O::kMultiply, {D::kUInt8, D::kInt16}, {dense, Layout::kReversed}, {33, 35}},
      {O::kSubtract, {D::kInt32, D::kFloat16}, {dense, dense}, {2049}},
      {O::kTrueDivide, {D::kComplex64, D::kFloat64}, {Layout::kTransposed, dense}, {20, 30}},
      {O::kLess, {D::kInt64, D::kUInt64}, {dense, dense}, {999}},
      {O::kWhere,
       {D::kFloat32, D::kInt16, D::kFloat64},
       {dense, Layout::kRow, Layout::kScalar},
       {21, 40}},
      {O::kLogicalXor, {D::kComplex128, D::kUInt16}, {dense, dense}, {777}},
      {O::kMaximum, {D::kBool, D::kFloat16}, {dense, Layout::kColumn}, {19, 23}},
      {O::kPower, {D::kUInt8, D::kInt8}, {dense, dense}, {500}},
      {O::kArctan2, {D::kFloat16, D::kFloat32}, {dense, dense}, {500}},
      // ldexp reads its exponent as int64 (every int64 value: the clamp to int too).
      {O::kLdexp, {D::kFloat32, D::kInt32}, {dense, dense}, {1001}},
      {O::kLdexp, {D::kFloat16, D::kInt64}, {Layout::kReversed, Layout::kRow}, {33, 35}},
      {O::kLdexp, {D::kFloat64, D::kInt64}, {dense, Layout::kScalar}, {777}},
      {O::kLdexp, {D::kFloat64, D::kInt8}, {Layout::kTransposed, dense}, {20, 30}},
  });
}

// Results cast into outputs of other dtypes (out=), and astype as copy to every dtype.
TEST_F(ElementwiseTest, OutputCastsMatchHost) {
  using D = DType;
  using O = ElementwiseOp;
  std::vector<ElementwiseCase> cases;
  for (DType from : kAllDTypes) {
    for (DType to : kAllDTypes) {
      ElementwiseCase dense{O::kCopy, {from}, {Layout::kDense}, {1027}, to};
      cases.push_back(dense);
      cases.push_back({O::kCopy, {from}, {Layout::kReversed}, {19, 29}, to, Layout::kStepped});
    }
  }
  const Layout dense = Layout::kDense;
  cases.push_back({O::kAdd, {D::kFloat64, D::kFloat64}, {dense, dense}, {1000}, D::kInt16});
  cases.push_back({O::kExp, {D::kFloat32}, {dense}, {1000}, D::kFloat16});
  cases.push_back({O::kAbsolute, {D::kComplex128}, {dense}, {1000}, D::kFloat32});
  cases.push_back({O::kLess, {D::kFloat32, D::kFloat32}, {dense, dense}, {1000}, D::kInt8});
  cases.push_back({O::kSqrt, {D::kFloat64}, {dense}, {1000}, D::kComplex128});
  cases.push_back(
      {O::kMultiply, {D::kComplex64, D::kComplex64}, {dense, dense}, {1000}, D::kFloat64});
  // cbrt of int16 runs in NumPy's float32 loop (ufuncs.def's demonstration op).
  cases.push_back({O::kCbrt, {D::kInt16}, {Layout::kReversed}, {1000}, D::kFloat64});
  RunAll(cases);  // The copies draw values beyond every integer range, NaN and infinities.
}

TEST_F(ElementwiseTest, InPlaceMatchesHost) {
  using D = DType;
  using O = ElementwiseOp;
  const Layout dense = Layout::kDense;
  std::vector<ElementwiseCase> cases = {
      {O::kAdd, {D::kFloat32, D::kFloat32}, {dense, dense}, {100003}},
      {O::kMultiply, {D::kInt16, D::kInt16}, {Layout::kReversed, dense}, {45, 67}},
      {O::kExp, {D::kFloat64}, {Layout::kStepped}, {31, 33}},
      {O::kFloorDivide, {D::kInt32, D::kInt32}, {dense, Layout::kScalar}, {5000}},
      {O::kWhere, {D::kComplex64, D::kBool, D::kComplex64}, {dense, dense, Layout::kRow}, {40, 50}},
  };
  // The output is operand 0 (for where, the complex64 condition itself).
  for (ElementwiseCase& c : cases) c.in_place = true;
  RunAll(cases);
}

// Copies between layouts that transpose take the tiled kernel (transpose_kernels.cu): every
// element size (1, 2, 4, 8 and 16 bytes), extents that are and are not multiples of the 32-wide
// tile, from a transposed view and into one, and, for contrast, layouts the generic kernel
// keeps (reversed, stepped). The output buffers start random: nothing outside the view may
// change.
TEST_F(ElementwiseTest, TransposingCopiesMatchHost) {
  using D = DType;
  const Layout dense = Layout::kDense;
  std::vector<ElementwiseCase> cases;
  for (D dtype : {D::kBool, D::kFloat16, D::kFloat32, D::kFloat64, D::kComplex128}) {
    for (const Shape& shape : {Shape{37, 45}, Shape{64, 96}, Shape{3, 1000}, Shape{1000, 3},
                               Shape{1, 77}, Shape{513, 257}}) {
      cases.emplace_back(ElementwiseOp::kCopy, std::vector<D>{dtype},
                         std::vector<Layout>{Layout::kTransposed}, shape);
      cases.emplace_back(ElementwiseOp::kCopy, std::vector<D>{dtype}, std::vector<Layout>{dense},
                         shape, std::nullopt, Layout::kTransposed);
      cases.emplace_back(ElementwiseOp::kCopy, std::vector<D>{dtype},
                         std::vector<Layout>{Layout::kStepped}, shape, std::nullopt,
                         Layout::kTransposed);
      cases.emplace_back(ElementwiseOp::kCopy, std::vector<D>{dtype},
                         std::vector<Layout>{Layout::kReversed}, shape);
    }
  }
  RunAll(cases);
}

// A batch of transposes (a.swapaxes(1, 2) copied, with a reversed batch axis and an offset):
// the tiled kernel's third dimension, against the host.
TEST_F(ElementwiseTest, BatchedTransposingCopiesMatchHost) {
  Rng rng(BaseSeed());
  for (DType dtype : {DType::kInt8, DType::kFloat32, DType::kComplex128}) {
    for (const Shape& shape : {Shape{3, 33, 70}, Shape{70000, 2, 3}, Shape{2, 300, 40}}) {
      const int64_t batch = shape[0], rows = shape[1], cols = shape[2];
      // The input holds (batch, cols, rows) in C order; the view is its swapaxes(1, 2) with the
      // batch reversed, starting one batch in.
      const int64_t elements = (batch + 1) * rows * cols;
      const Bytes input = RandomBytes(dtype, elements, Domain::kAny, rng);
      const Bytes output = RandomBytes(dtype, batch * rows * cols, Domain::kAny, rng);
      absl::StatusOr<Pair> in = UploadBoth(input);
      absl::StatusOr<Pair> out = UploadBoth(output);
      ASSERT_TRUE(in.ok() && out.ok());
      for (bool on_cuda : {true, false}) {
        const int64_t item = ItemSize(dtype);
        ArrayView source{.buffer = on_cuda ? in->cuda.get() : in->host.get(),
                         .offset_bytes = batch * rows * cols * item,
                         .dtype = dtype,
                         .shape = shape,
                         .strides = {-rows * cols, 1, rows}};
        ArrayView target{.buffer = on_cuda ? out->cuda.get() : out->host.get(),
                         .offset_bytes = 0,
                         .dtype = dtype,
                         .shape = shape,
                         .strides = {rows * cols, cols, 1}};
        ElementwiseCall call{.op = ElementwiseOp::kCopy,
                             .compute_dtype = dtype,
                             .result_dtype = dtype,
                             .shape = shape,
                             .operands = {ElementwiseOperand{.array = source, .dtype = dtype}},
                             .output = target};
        Backend& backend = on_cuda ? *cuda_ : static_cast<Backend&>(host_);
        ASSERT_TRUE(backend.compute().Elementwise(TestQueue(backend), call).ok());
      }
      const std::optional<std::string> mismatch = CompareBuffers(*out, dtype, 0);
      EXPECT_FALSE(mismatch.has_value())
          << DTypeName(dtype) << " " << FormatShape(shape) << ": " << *mismatch;
    }
  }
}

// The complex inverse functions at the values the random domains rarely or never draw (arcsin,
// arccos and arctan draw from small ranges): every pair, as real and imaginary part, of signed
// zeros, the smallest subnormal, values near the branch points +-1 and +-i, values whose squares
// overflow, the largest finite value, infinities and NaN. NaN and infinities must be where the
// host's C99 functions put them, and zeros must have their signs.
TEST_F(ElementwiseTest, ComplexInverseFunctionsMatchHostAtSpecialValues) {
  using O = ElementwiseOp;
  for (const DType dtype : {DType::kComplex64, DType::kComplex128}) {
    const bool single = dtype == DType::kComplex64;
    const DType part = single ? DType::kFloat32 : DType::kFloat64;
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> values = {0, 1e-9, 0.5, 1, 2, 8, 1e10, 1e30, inf, std::nan("")};
    if (single) {
      values.insert(values.end(),
                    {std::numeric_limits<float>::denorm_min(),
                     1 + std::numeric_limits<float>::epsilon(), std::numeric_limits<float>::max()});
    } else {
      values.insert(values.end(), {std::numeric_limits<double>::denorm_min(),
                                   1 + std::numeric_limits<double>::epsilon(), 1e300,
                                   std::numeric_limits<double>::max()});
    }
    const size_t positives = values.size();
    for (size_t i = 0; i < positives; ++i) values.push_back(-values[i]);
    const int64_t item = ItemSize(dtype);
    const auto count = static_cast<int64_t>(values.size() * values.size());
    Bytes input(static_cast<size_t>(count * item));
    std::byte* next = input.data();
    for (double re : values) {
      for (double im : values) {
        StoreReal(part, re, next);
        StoreReal(part, im, next + item / 2);
        next += item;
      }
    }
    absl::StatusOr<Pair> in = UploadBoth(input);
    ASSERT_TRUE(in.ok()) << in.status();
    for (const O op : {O::kArcsin, O::kArccos, O::kArctan, O::kArcsinh, O::kArccosh, O::kArctanh}) {
      absl::StatusOr<Pair> out = UploadBoth(Bytes(input.size()));
      ASSERT_TRUE(out.ok()) << out.status();
      for (bool on_cuda : {true, false}) {
        auto view = [&](const Pair& pair) {
          return ArrayView{.buffer = on_cuda ? pair.cuda.get() : pair.host.get(),
                           .offset_bytes = 0,
                           .dtype = dtype,
                           .shape = {count},
                           .strides = {1}};
        };
        const ElementwiseCall call{
            .op = op,
            .compute_dtype = dtype,
            .result_dtype = dtype,
            .shape = {count},
            .operands = {ElementwiseOperand{.array = view(*in), .dtype = dtype}},
            .output = view(*out)};
        ASSERT_TRUE(
            (on_cuda ? *cuda_ : static_cast<Backend&>(host_))
                .compute()
                .Elementwise(TestQueue(on_cuda ? *cuda_ : static_cast<Backend&>(host_)), call)
                .ok());
      }
      absl::StatusOr<Bytes> actual = Download(*cuda_, *out->cuda);
      absl::StatusOr<Bytes> expected = Download(host_, *out->host);
      ASSERT_TRUE(actual.ok() && expected.ok());
      const std::optional<std::string> mismatch =
          Mismatch(dtype, *actual, *expected, ToleranceFor(op, dtype));
      EXPECT_FALSE(mismatch.has_value()) << OpName(op) << ": " << mismatch.value_or("");
      for (int64_t i = 0; i < count; ++i) {
        const std::vector<double> a = Components(dtype, &(*actual)[i * item]);
        const std::vector<double> e = Components(dtype, &(*expected)[i * item]);
        for (size_t k = 0; k < 2; ++k) {
          if (a[k] == 0 && e[k] == 0) {
            EXPECT_EQ(std::signbit(a[k]), std::signbit(e[k]))
                << OpName(op) << " of " << DTypeName(dtype) << " "
                << Describe(dtype, &input[i * item]) << ": cuda "
                << Describe(dtype, &(*actual)[i * item]) << " host "
                << Describe(dtype, &(*expected)[i * item]);
          }
        }
      }
    }
  }
}

// Fused chains (a Batch's run of elementwise ops as one kernel) against the host backend, which
// runs them one step at a time: random programs of IEEE-exact ops over random dtypes, inputs in
// every layout and scalars, several outputs (strided, one cast to another dtype). Intermediate
// values must keep their result dtype exactly, so everything matches bit for bit.
TEST_F(CudaComputeTest, FusedChainsMatchHostStepByStep) {
  using O = ElementwiseOp;
  const std::vector<O> ops = {O::kAdd,      O::kSubtract,   O::kMultiply,  O::kMaximum, O::kMinimum,
                              O::kNegative, O::kAbsolute,   O::kSquare,    O::kLess,    O::kEqual,
                              O::kWhere,    O::kLogicalAnd, O::kBitwiseXor};
  const std::vector<DType> dtypes = {DType::kFloat32, DType::kFloat64,  DType::kFloat16,
                                     DType::kInt8,    DType::kInt32,    DType::kUInt16,
                                     DType::kBool,    DType::kComplex64};
  const std::vector<Layout> layouts = {Layout::kDense, Layout::kReversed, Layout::kTransposed,
                                       Layout::kRow,   Layout::kColumn,   Layout::kScalar};
  constexpr size_t kPrograms = 96;
  const std::vector<std::string> failures = RunParallel(kPrograms, [&](size_t p) {
    Rng rng(BaseSeed() + 7919 * p);
    auto pick = [&rng](const auto& from) { return from[rng() % from.size()]; };
    const Shape shape = p % 2 ? Shape{4099} : Shape{37, 53};
    // Inputs: two or three arrays and scalars; value v < inputs is input v, else step v - inputs.
    std::vector<TestOperand> inputs;
    std::vector<DType> value_dtypes;
    const size_t input_count = 2 + rng() % 3;
    for (size_t k = 0; k < input_count; ++k) {
      const Layout layout = k == 0 ? Layout::kDense : pick(layouts);
      absl::StatusOr<TestOperand> input =
          MakeOperand(pick(dtypes), layout, shape, Domain::kSmall, rng);
      if (!input.ok()) return std::optional<std::string>(input.status().ToString());
      value_dtypes.push_back(input->dtype);
      inputs.push_back(*std::move(input));
    }
    FusedElementwiseCall cuda_call;
    cuda_call.shape = shape;
    for (const TestOperand& input : inputs) cuda_call.inputs.push_back(input.On(true, shape));
    std::string program;
    while (cuda_call.steps.size() < 12) {
      const O op = pick(ops);
      FusedElementwiseCall::Step step;
      step.op = op;
      std::vector<UfuncOperand> typing;
      for (int k = 0; k < Arity(op); ++k) {
        // Mostly the newest value, so that chains are deep.
        const size_t values = value_dtypes.size();
        const size_t v =
            rng() % 3 ? values - 1 - rng() % std::min<size_t>(values, 2) : rng() % values;
        step.operands.push_back(static_cast<int>(v));
        typing.push_back({.array_dtype = value_dtypes[v], .scalar = std::nullopt});
      }
      absl::StatusOr<UfuncResolution> types = ResolveUfunc(op, typing, std::nullopt);
      // No loop for these dtypes, or a complex absolute (hypot, not exact): draw another step.
      if (!types.ok() ||
          (op == O::kAbsolute && KindOf(types->compute_dtype) == DTypeKind::kComplex)) {
        continue;
      }
      step.compute_dtype = types->compute_dtype;
      step.result_dtype = types->result_dtype;
      program += fmt::format(" {}({})->{}", OpName(op), fmt::join(step.operands, ","),
                             DTypeName(step.result_dtype));
      value_dtypes.push_back(step.result_dtype);
      cuda_call.steps.push_back(std::move(step));
    }
    // Outputs: the last step (dense), a middle one (stepped) and one cast to float64 or int16.
    const int last = static_cast<int>(cuda_call.steps.size()) - 1;
    const std::vector<std::tuple<int, DType, Layout>> wanted = {
        {last, cuda_call.steps[last].result_dtype, Layout::kDense},
        {last / 2, cuda_call.steps[last / 2].result_dtype, Layout::kStepped},
        {last - 1, p % 3 ? DType::kFloat64 : DType::kInt16, Layout::kDense}};
    std::vector<TestOperand> outputs;
    FusedElementwiseCall host_call = cuda_call;
    host_call.inputs.clear();
    for (const TestOperand& input : inputs) host_call.inputs.push_back(input.On(false, shape));
    for (const auto& [step, dtype, layout] : wanted) {
      absl::StatusOr<TestOperand> output = MakeOperand(dtype, layout, shape, Domain::kAny, rng);
      if (!output.ok()) return std::optional<std::string>(output.status().ToString());
      cuda_call.outputs.push_back({.step = step, .view = *output->On(true, shape).array});
      host_call.outputs.push_back({.step = step, .view = *output->On(false, shape).array});
      outputs.push_back(*std::move(output));
    }
    if (absl::Status status = cuda_->compute().FusedElementwise(TestQueue(*cuda_), cuda_call);
        !status.ok()) {
      return std::optional<std::string>("cuda: " + status.ToString() + program);
    }
    if (absl::Status status = host_.compute().FusedElementwise(TestQueue(host_), host_call);
        !status.ok()) {
      return std::optional<std::string>("host: " + status.ToString() + program);
    }
    for (const TestOperand& output : outputs) {
      if (std::optional<std::string> mismatch = CompareBuffers(output.buffers, output.dtype, 0)) {
        return std::optional<std::string>(
            fmt::format("program {} shape {}:{}: {}", p, FormatShape(shape), program, *mismatch));
      }
    }
    return std::optional<std::string>();
  });
  EXPECT_TRUE(failures.empty()) << Summary(failures, kPrograms);
}

TEST_F(CudaComputeTest, LoopsNumPyLacksAreUnimplemented) {
  absl::StatusOr<std::shared_ptr<Buffer>> buffer = cuda_->memory().Allocate(TestQueue(*cuda_), 64);
  ASSERT_TRUE(buffer.ok());
  const ArrayView view{.buffer = buffer->get(),
                       .offset_bytes = 0,
                       .dtype = DType::kFloat32,
                       .shape = {16},
                       .strides = {1}};
  ElementwiseOperand operand;
  operand.array = view;
  const ElementwiseCall call{.op = ElementwiseOp::kBitwiseAnd,
                             .compute_dtype = DType::kFloat32,
                             .result_dtype = DType::kFloat32,
                             .shape = {16},
                             .operands = {operand, operand},
                             .output = view};
  EXPECT_EQ(cuda_->compute().Elementwise(TestQueue(*cuda_), call).code(),
            absl::StatusCode::kUnimplemented);
}

// ---------------------------------------------------------------------------------------------
// Reductions

enum class ReduceLayout { kDense, kStrided, kTransposed };

struct ReduceCase {
  ReduceOp op;
  DType dtype;
  Shape shape;
  std::optional<std::vector<int64_t>> axes;  // nullopt: all.
  ReduceLayout layout;
  double ddof = 0;
  Domain domain = Domain::kAny;
  std::string Name() const {
    return fmt::format("{}({} {} axes {} layout {} ddof {})", OpName(op), DTypeName(dtype),
                       FormatShape(shape), axes ? fmt::format("{}", fmt::join(*axes, ",")) : "all",
                       static_cast<int>(layout), ddof);
  }
};

Domain ReduceDomain(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMean:
      return Domain::kSumand;
    case ReduceOp::kProd:
      return Domain::kNearOne;
    case ReduceOp::kAny:
    case ReduceOp::kAll:
      return Domain::kDivisor;  // Mostly nonzero, some zeros.
    case ReduceOp::kVar:
    case ReduceOp::kStd:
      return Domain::kSmall;
    default:
      return Domain::kSpecial;  // min/max/argmin/argmax: NaN must win.
  }
}

// Tolerances of floating results: summation order differs between the backends.
double ReduceTolerance(ReduceOp op, DType result) {
  if (op == ReduceOp::kMin || op == ReduceOp::kMax) return 0;
  switch (result) {
    case DType::kFloat16:
      return 2e-3;
    case DType::kFloat32:
    case DType::kComplex64:
      return 1e-5;
    default:
      // float64: the two backends sum in different orders; a two-pass variance over 10^5
      // elements differed by 1.2e-12 relative (seed 6851235623072542926).
      return 1e-11;
  }
}

class ReduceTest : public CudaComputeTest {
 protected:
  std::optional<std::string> Run(const ReduceCase& c, uint64_t seed) {
    Rng rng(seed);
    absl::StatusOr<ReduceResolution> resolution =
        ResolveReduce(c.op, c.dtype, c.shape, c.axes, std::nullopt, c.ddof);
    if (!resolution.ok()) return std::nullopt;  // Not a NumPy call (argmin over two axes).
    if (resolution->axes.empty()) return std::nullopt;

    // The input view: dense, or axis 1 reversed and axis 2 every other element, or C-order
    // data seen with its axes reversed (so that reduced axes do not merge).
    const int64_t rank = static_cast<int64_t>(c.shape.size());
    Shape buffer_shape = c.shape;
    if (c.layout == ReduceLayout::kStrided) buffer_shape.back() *= 2;
    if (c.layout == ReduceLayout::kTransposed)
      std::reverse(buffer_shape.begin(), buffer_shape.end());
    int64_t elements = 1;
    for (int64_t e : buffer_shape) elements *= e;
    Strides strides = ContiguousStrides(buffer_shape);
    int64_t offset = 0;
    if (c.layout == ReduceLayout::kStrided) {
      strides.back() *= 2;
      if (rank > 1) {
        offset = (c.shape[1] - 1) * strides[1];
        strides[1] = -strides[1];
      }
    }
    if (c.layout == ReduceLayout::kTransposed) std::reverse(strides.begin(), strides.end());
    const Bytes input = RandomBytes(c.dtype, elements, c.domain, rng);
    absl::StatusOr<Pair> in = UploadBoth(input);
    int64_t outputs = 1;
    for (int64_t e : resolution->result_shape) outputs *= e;
    absl::StatusOr<Pair> out =
        UploadBoth(RandomBytes(resolution->result_dtype, outputs, Domain::kAny, rng));
    if (!in.ok() || !out.ok()) return "upload failed";

    for (bool on_cuda : {true, false}) {
      const ReduceCall call{.op = c.op,
                            .input = {.buffer = on_cuda ? in->cuda.get() : in->host.get(),
                                      .offset_bytes = offset * ItemSize(c.dtype),
                                      .dtype = c.dtype,
                                      .shape = c.shape,
                                      .strides = strides},
                            .axes = resolution->axes,
                            .accumulate_dtype = resolution->accumulate_dtype,
                            .ddof = c.ddof,
                            .output = {.buffer = on_cuda ? out->cuda.get() : out->host.get(),
                                       .offset_bytes = 0,
                                       .dtype = resolution->result_dtype,
                                       .shape = resolution->result_shape,
                                       .strides = ContiguousStrides(resolution->result_shape)}};
      const absl::Status status =
          (on_cuda ? *cuda_ : static_cast<Backend&>(host_))
              .compute()
              .Reduce(TestQueue(on_cuda ? *cuda_ : static_cast<Backend&>(host_)), call);
      if (!status.ok())
        return fmt::format("{} {}: {}", c.Name(), on_cuda ? "cuda" : "host", status.ToString());
    }
    std::optional<std::string> mismatch = CompareBuffers(
        *out, resolution->result_dtype, ReduceTolerance(c.op, resolution->result_dtype));
    if (!mismatch) return std::nullopt;
    return fmt::format("{} [accumulate {}]: {}", c.Name(), DTypeName(resolution->accumulate_dtype),
                       *mismatch);
  }

  void RunAll(const std::vector<ReduceCase>& cases) {
    const std::vector<std::string> failures =
        RunParallel(cases.size(), [&](size_t i) { return Run(cases[i], BaseSeed() + 7919 * i); });
    EXPECT_TRUE(failures.empty()) << Summary(failures, cases.size());
  }
};

TEST_F(ReduceTest, EveryOpDTypeAndAxesMatchHost) {
  const std::vector<std::optional<std::vector<int64_t>>> axes = {std::nullopt,
                                                                 std::vector<int64_t>{0},
                                                                 std::vector<int64_t>{1},
                                                                 std::vector<int64_t>{2},
                                                                 std::vector<int64_t>{0, 1},
                                                                 std::vector<int64_t>{1, 2},
                                                                 std::vector<int64_t>{0, 2}};
  std::vector<ReduceCase> cases;
  for (int o = 0; o <= static_cast<int>(ReduceOp::kAll); ++o) {
    const auto op = static_cast<ReduceOp>(o);
    for (DType dtype : kAllDTypes) {
      for (const auto& a : axes) {
        for (ReduceLayout layout :
             {ReduceLayout::kDense, ReduceLayout::kStrided, ReduceLayout::kTransposed}) {
          const double ddof =
              (op == ReduceOp::kVar || op == ReduceOp::kStd) && layout == ReduceLayout::kStrided
                  ? 1
                  : 0;
          cases.push_back({op, dtype, {13, 17, 19}, a, layout, ddof, ReduceDomain(op)});
        }
      }
    }
  }
  RunAll(cases);
}

// Shapes that take the other kernel paths: long rows split over blocks, short rows, few
// outputs over a long column, and empty reductions.
TEST_F(ReduceTest, KernelPathsAndEmptyReductionsMatchHost) {
  std::vector<ReduceCase> cases;
  const std::vector<std::pair<Shape, std::vector<int64_t>>> shapes = {
      {{3, 300001}, {1}},  // Rows split over many blocks.
      {{2000003}, {0}},    // One long row.
      {{50000, 3}, {1}},   // Short rows: a thread per row.
      {{700, 40}, {1}},    // A warp per row.
      {{100000, 2}, {0}},  // Two columns, split along the rows.
      {{5, 0, 3}, {1}},    // Empty.
      {{4, 0}, {0, 1}},    // Empty, everything.
  };
  for (const auto& [shape, axes] : shapes) {
    for (ReduceOp op :
         {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMean, ReduceOp::kVar, ReduceOp::kStd,
          ReduceOp::kAny, ReduceOp::kAll, ReduceOp::kMax, ReduceOp::kArgmin, ReduceOp::kArgmax}) {
      for (DType dtype : {DType::kFloat32, DType::kInt64, DType::kComplex128, DType::kUInt8}) {
        cases.push_back({op, dtype, shape, axes, ReduceLayout::kDense, 0, ReduceDomain(op)});
      }
    }
  }
  RunAll(cases);
}

// A chain that ends in a reduction of one of its values over every element (a Batch's
// `float((a * b + a).sum())`), folded in the chain's own kernel, against the host backend's
// step-by-step chain and Reduce: every fusable op over each dtype family, dense and strided
// inputs, an output written beside the fold, empty values, and values long enough for
// thousands of blocks. The fold's order is fixed: a repeat gives the same bits.
TEST_F(CudaComputeTest, FusedReductionsMatchHost) {
  using O = ElementwiseOp;
  struct Case {
    ReduceOp op;
    DType dtype;
    Shape shape;
  };
  std::vector<Case> cases;
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMean, ReduceOp::kMin,
                      ReduceOp::kMax, ReduceOp::kAny, ReduceOp::kAll}) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt8,
                        DType::kInt32, DType::kUInt16, DType::kBool, DType::kComplex64}) {
      if (!FusableReduction(op, dtype)) continue;
      for (const Shape& shape : {Shape{4099}, Shape{37, 53}, Shape{0}, Shape{3, (1 << 18) + 1}}) {
        // Long products leave float range whatever the order; empty min and max are refused.
        if (op == ReduceOp::kProd && shape[0] == 3) continue;
        if ((op == ReduceOp::kMin || op == ReduceOp::kMax) && shape == Shape{0}) continue;
        cases.push_back({op, dtype, shape});
      }
    }
  }
  const std::vector<std::string> failures = RunParallel(cases.size(), [&](size_t i) {
    const Case& c = cases[i];
    Rng rng(BaseSeed() + 104729 * i);
    const Domain domain = c.op == ReduceOp::kProd                            ? Domain::kNearOne
                          : c.op == ReduceOp::kMin || c.op == ReduceOp::kMax ? Domain::kSpecial
                                                                             : Domain::kSumand;
    const Layout second = c.shape.size() == 2 ? Layout::kTransposed : Layout::kReversed;
    absl::StatusOr<TestOperand> a = MakeOperand(c.dtype, Layout::kDense, c.shape, domain, rng);
    absl::StatusOr<TestOperand> b = MakeOperand(c.dtype, second, c.shape, domain, rng);
    if (!a.ok() || !b.ok()) return std::optional<std::string>("operands: " + a.status().ToString());
    // s0 = a * b (a and b for bool), s1 = s0 + a (s0 != a): the product folds s0, others s1.
    const bool logical = c.dtype == DType::kBool;
    FusedElementwiseCall cuda_call;
    cuda_call.shape = c.shape;
    cuda_call.inputs = {a->On(true, c.shape), b->On(true, c.shape)};
    cuda_call.steps = {{.op = logical ? O::kLogicalAnd : O::kMultiply, .operands = {0, 1}},
                       {.op = logical ? O::kNotEqual : O::kAdd, .operands = {2, 0}}};
    DType value_dtype = c.dtype;
    const std::vector<UfuncOperand> typing(2, {.array_dtype = c.dtype, .scalar = std::nullopt});
    for (FusedElementwiseCall::Step& step : cuda_call.steps) {
      absl::StatusOr<UfuncResolution> types = ResolveUfunc(step.op, typing, std::nullopt);
      if (!types.ok()) return std::optional<std::string>(types.status().ToString());
      step.compute_dtype = types->compute_dtype;
      step.result_dtype = value_dtype = types->result_dtype;
    }
    const int folded = c.op == ReduceOp::kProd ? 0 : 1;
    absl::StatusOr<ReduceResolution> r = ResolveReduce(c.op, cuda_call.steps[folded].result_dtype,
                                                       c.shape, std::nullopt, std::nullopt, 0);
    if (!r.ok()) return std::optional<std::string>(r.status().ToString());
    absl::StatusOr<Pair> result = UploadBoth(Bytes(ItemSize(r->result_dtype)));
    absl::StatusOr<TestOperand> beside =
        MakeOperand(value_dtype, Layout::kDense, c.shape, Domain::kAny, rng);
    if (!result.ok() || !beside.ok()) return std::optional<std::string>("outputs");
    auto output = [&](bool cuda) {
      return ArrayView{.buffer = cuda ? result->cuda.get() : result->host.get(),
                       .offset_bytes = 0,
                       .dtype = r->result_dtype,
                       .shape = {},
                       .strides = {}};
    };
    FusedElementwiseCall host_call = cuda_call;
    host_call.inputs = {a->On(false, c.shape), b->On(false, c.shape)};
    cuda_call.outputs = {{.step = 1, .view = *beside->On(true, c.shape).array}};
    host_call.outputs = {{.step = 1, .view = *beside->On(false, c.shape).array}};
    cuda_call.reduction = {{.step = folded,
                            .op = c.op,
                            .accumulate_dtype = r->accumulate_dtype,
                            .output = output(true)}};
    host_call.reduction = cuda_call.reduction;
    host_call.reduction->output = output(false);
    const std::string name =
        fmt::format("{} of {} {}", OpName(c.op), DTypeName(c.dtype), FormatShape(c.shape));
    absl::StatusOr<Bytes> first;
    for (int run = 0; run < 2; ++run) {
      if (absl::Status status = cuda_->compute().FusedElementwise(TestQueue(*cuda_), cuda_call);
          !status.ok()) {
        return std::optional<std::string>(name + " cuda: " + status.ToString());
      }
      absl::StatusOr<Bytes> bits = Download(*cuda_, *result->cuda);
      if (!bits.ok()) return std::optional<std::string>(name + " " + bits.status().ToString());
      if (run == 0) first = *bits;
      if (run == 1 && *bits != *first)
        return std::optional<std::string>(name + ": a repeat differs");
    }
    if (absl::Status status = host_.compute().FusedElementwise(TestQueue(host_), host_call);
        !status.ok()) {
      return std::optional<std::string>(name + " host: " + status.ToString());
    }
    for (const auto& [pair, dtype, tolerance] :
         {std::tuple{&*result, r->result_dtype, ReduceTolerance(c.op, r->result_dtype)},
          std::tuple{&beside->buffers, value_dtype, 0.0}}) {
      if (std::optional<std::string> mismatch = CompareBuffers(*pair, dtype, tolerance)) {
        return std::optional<std::string>(name + ": " + *mismatch);
      }
    }
    return std::optional<std::string>();
  });
  EXPECT_TRUE(failures.empty()) << Summary(failures, cases.size());
}

// NumPy divides the complex sum 0+0j by the count 0 as complex numbers: nan+nanj.
// Rows too few to fill the device are split over blocks, and the last block of each row (of
// each column of blocks, for columns) folds the blocks' partial results in the same launch,
// counting the blocks in counters of the queue's own (cuda_reduce.cuh). The results must equal the
// host's, be the same bits on every repeat (the fold's order is fixed), and stay so when shapes of
// different splits follow each other on one queue and when four queues reduce at once (each queue's
// counters are its own and are zero again after every reduction).
TEST_F(CudaComputeTest, SplitRowAndColumnReductionsFinishInOneLaunch) {
  Rng rng(BaseSeed());
  const int64_t n = 12'000'000;
  const Bytes bytes = RandomBytes(DType::kFloat64, n, Domain::kAny, rng);
  absl::StatusOr<Pair> in = UploadBoth(bytes);
  ASSERT_TRUE(in.ok()) << in.status();
  struct Case {
    ReduceOp op;
    Shape shape;
    DType output;
    bool columns = false;  // Reduce axis 0 instead of the last.
  };
  const std::vector<Case> cases = {
      {ReduceOp::kSum, {n}, DType::kFloat64},
      {ReduceOp::kSum, {3, n / 3}, DType::kFloat64},
      {ReduceOp::kMean, {40, n / 40}, DType::kFloat64},
      {ReduceOp::kVar, {n}, DType::kFloat64},
      {ReduceOp::kArgmax, {5, n / 5}, DType::kInt64},
      {ReduceOp::kMin, {n}, DType::kFloat64},
      {ReduceOp::kSum, {n / 1000, 1000}, DType::kFloat64, true},
      {ReduceOp::kStd, {n / 4000, 4000}, DType::kFloat64, true},
      {ReduceOp::kArgmin, {n / 300, 300}, DType::kInt64, true},
      {ReduceOp::kMax, {n / 30000, 30000}, DType::kFloat64, true},
  };
  // One case on `backend`, on `queue`: the output's bytes.
  auto reduce = [&](QueueBinding& queue, Backend& backend, const Buffer& input,
                    const Case& c) -> absl::StatusOr<Bytes> {
    const Shape out_shape = c.columns ? Shape(c.shape.begin() + 1, c.shape.end())
                                      : Shape(c.shape.begin(), c.shape.end() - 1);
    int64_t outputs = 1;
    for (int64_t extent : out_shape) outputs *= extent;
    AH_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out,
                        backend.memory().Allocate(queue, outputs * ItemSize(c.output)));
    const ReduceCall call{.op = c.op,
                          .input = {.buffer = const_cast<Buffer*>(&input),
                                    .offset_bytes = 0,
                                    .dtype = DType::kFloat64,
                                    .shape = c.shape,
                                    .strides = ContiguousStrides(c.shape)},
                          .axes = {c.columns ? 0 : static_cast<int64_t>(c.shape.size()) - 1},
                          .accumulate_dtype = DType::kFloat64,
                          .ddof = 0,
                          .output = {.buffer = out.get(),
                                     .offset_bytes = 0,
                                     .dtype = c.output,
                                     .shape = out_shape,
                                     .strides = ContiguousStrides(out_shape)}};
    AH_RETURN_IF_ERROR(backend.compute().Reduce(queue, call));
    return Download(queue, backend, *out);
  };
  std::vector<Bytes> first;
  for (const Case& c : cases) {
    absl::StatusOr<Bytes> on_cuda = reduce(TestQueue(*cuda_), *cuda_, *in->cuda, c);
    absl::StatusOr<Bytes> on_host = reduce(TestQueue(host_), host_, *in->host, c);
    ASSERT_TRUE(on_cuda.ok() && on_host.ok()) << on_cuda.status() << on_host.status();
    const std::optional<std::string> mismatch = Mismatch(c.output, *on_cuda, *on_host, 1e-9);
    EXPECT_FALSE(mismatch.has_value())
        << OpName(c.op) << " " << FormatShape(c.shape) << ": " << *mismatch << testing::SeedNote();
    first.push_back(*std::move(on_cuda));
  }
  std::vector<std::string> failures(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<std::shared_ptr<WorkQueue>> queue = cuda_->queues().NewQueue("tenant");
      if (!queue.ok()) {
        failures[t] = queue.status().ToString();
        return;
      }
      const std::unique_ptr<QueueBinding> bound = cuda_->queues().Bind(*queue, "split reductions");
      for (int round = 0; round < 3; ++round) {
        for (size_t k = 0; k < cases.size(); ++k) {
          const size_t i = (k + static_cast<size_t>(t)) % cases.size();
          absl::StatusOr<Bytes> again = reduce(*bound, *cuda_, *in->cuda, cases[i]);
          if (!again.ok() || *again != first[i]) {
            failures[t] = fmt::format("thread {} round {} {} {}: {}", t, round, OpName(cases[i].op),
                                      FormatShape(cases[i].shape),
                                      again.ok() ? "other bits" : again.status().ToString());
            return;
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures) EXPECT_TRUE(failure.empty()) << failure;
}

TEST_F(CudaComputeTest, LargeFloat32SumsMatchFloat64Reference) {
  Rng rng(BaseSeed());
  const int64_t n = 100'000'000;
  std::vector<float> values(static_cast<size_t>(n));
  std::uniform_real_distribution<float> uniform(-1.0f, 3.0f);
  for (float& v : values) v = uniform(rng);
  Bytes bytes(static_cast<size_t>(n) * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  absl::StatusOr<std::shared_ptr<Buffer>> in = Upload(*cuda_, bytes);
  ASSERT_TRUE(in.ok()) << in.status();

  // Full sum, and both axes of a 10000 x 10000 view.
  struct Sum {
    Shape shape;
    std::vector<int64_t> axes;
  };
  for (const Sum& s : {Sum{{n}, {0}}, Sum{{10000, 10000}, {0}}, Sum{{10000, 10000}, {1}}}) {
    const int64_t outputs = s.shape.size() == 1 ? 1 : 10000;
    const Shape out_shape = s.shape.size() == 1 ? Shape{} : Shape{10000};
    absl::StatusOr<std::shared_ptr<Buffer>> out =
        cuda_->memory().Allocate(TestQueue(*cuda_), outputs * 4);
    ASSERT_TRUE(out.ok());
    const ReduceCall call{.op = ReduceOp::kSum,
                          .input = {.buffer = in->get(),
                                    .offset_bytes = 0,
                                    .dtype = DType::kFloat32,
                                    .shape = s.shape,
                                    .strides = ContiguousStrides(s.shape)},
                          .axes = s.axes,
                          .accumulate_dtype = DType::kFloat64,
                          .ddof = 0,
                          .output = {.buffer = out->get(),
                                     .offset_bytes = 0,
                                     .dtype = DType::kFloat32,
                                     .shape = out_shape,
                                     .strides = ContiguousStrides(out_shape)}};
    ASSERT_TRUE(cuda_->compute().Reduce(TestQueue(*cuda_), call).ok());
    absl::StatusOr<Bytes> result = Download(*cuda_, **out);
    ASSERT_TRUE(result.ok());
    std::vector<float> sums(static_cast<size_t>(outputs));
    std::memcpy(sums.data(), result->data(), result->size());
    std::vector<double> reference(static_cast<size_t>(outputs), 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t o = s.shape.size() == 1 ? 0 : (s.axes[0] == 0 ? i % 10000 : i / 10000);
      reference[static_cast<size_t>(o)] += values[static_cast<size_t>(i)];
    }
    for (int64_t o = 0; o < outputs; ++o) {
      const double expected = reference[static_cast<size_t>(o)];
      ASSERT_NEAR(sums[static_cast<size_t>(o)], expected, 1e-6 * std::abs(expected) + 1e-3)
          << "output " << o << " of " << FormatShape(s.shape) << " axis " << s.axes[0]
          << testing::SeedNote();
    }
  }
}

}  // namespace
}  // namespace arrayhub
