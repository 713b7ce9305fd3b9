// CpuCompute::Reduce.
//
// The input's dimensions split into kept ones (the output's, in C order) and reduced ones.
// Reduced elements are converted in chunks into the accumulator's type by the shared strided
// casts, then folded by a Reducer. Two walks cover the layouts:
//  - inner walk, when a reduced axis is the innermost in memory: one output element at a
//    time, its reduced elements chunk by chunk, chunk results combined pairwise (a binary
//    cascade), so float sums keep NumPy's O(log n) pairwise-summation error however they are
//    strided or cast;
//  - outer walk, when a kept axis is innermost (or each output has only a few elements): for
//    each reduced index in C order, the rows of kept elements update a vector of per-output
//    accumulators, reading memory in order (the sequential order NumPy also uses for such
//    reductions).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "server/backend/compute.h"
#include "server/backend/host/host_cast.h"
#include "server/backend/host/host_ops.h"
#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/backend/host/host_stop.h"
#include "server/backend/host/host_types.h"
#include "server/backend/host/strided_index.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace host {
namespace {

constexpr int64_t kChunk = 1024;

// ---------------------------------------------------------------------------------------------
// Reducers. Each one defines
//   In:  the type input elements convert to; Acc: a partial result; Out: the stored result;
//   Single(x, r, o):  the partial of one element (r: its index among the reduced elements in
//                     C order, o: the output element);
//   Combine(a, b):    the partial of a followed by b;
//   Chunk(x, n, r, o): the partial of n >= 1 consecutive elements;
//   Finish(acc, o):   the result.

// NumPy's pairwise summation (8 accumulators up to blocks of 128, then halving): O(log n)
// rounding error instead of O(n) for a plain loop.
template <typename A>
A PairwiseSum(const A* x, int64_t n) {
  constexpr int64_t kBlock = 128;
  if (n < 8) {
    A sum = x[0];
    for (int64_t i = 1; i < n; ++i) sum += x[i];
    return sum;
  }
  if (n <= kBlock) {
    std::array<A, 8> r;
    std::copy(x, x + 8, r.begin());
    int64_t i = 8;
    for (; i < n - n % 8; i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += x[i + j];
    }
    A sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += x[i];
    return sum;
  }
  int64_t half = n / 2;
  half -= half % 8;
  return PairwiseSum(x, half) + PairwiseSum(x + half, n - half);
}

// Folds with a binary op of host_ops.h: sum (Add), prod (Multiply), min, max, any, all.
template <typename Op, typename A>
struct Fold {
  using In = A;
  using Acc = A;
  using Out = A;

  Acc Single(In x, int64_t, int64_t) const { return x; }
  Acc Combine(Acc a, Acc b) const { return Op::Apply(a, b); }
  Acc Chunk(const In* x, int64_t n, int64_t, int64_t) const {
    if constexpr (std::is_same_v<Op, Add> && (kIsReal<A> || kIsComplex<A>)) {
      return PairwiseSum(x, n);
    } else {
      Acc acc = x[0];
      for (int64_t i = 1; i < n; ++i) acc = Op::Apply(acc, x[i]);
      return acc;
    }
  }
  Out Finish(Acc acc, int64_t) const {
    // NumPy starts sums from the identity, 0, so that sums of -0.0 are +0.0.
    if constexpr (std::is_same_v<Op, Add> && (kIsReal<A> || kIsComplex<A>)) return acc + A(0);
    return acc;
  }
};

// Double precision of a float or complex type: NumPy divides sums by the count in float64
// (the count is an intp, which promotes float32 to float64) and rounds the quotient once.
template <typename A>
using Wide = std::conditional_t<kIsComplex<A>, std::complex<double>, double>;

// sum / count in double precision. NumPy divides complex sums by the count as a complex
// number, which spreads a NaN in either part to both.
template <typename A>
Wide<A> DivideByCount(A sum, int64_t count) {
  if constexpr (kIsComplex<A>) {
    return ComplexDivide(Wide<A>(sum), Wide<A>(static_cast<double>(count)));
  } else {
    return static_cast<double>(sum) / static_cast<double>(count);
  }
}

template <typename A>
struct Mean : Fold<Add, A> {
  using Out = Wide<A>;
  explicit Mean(int64_t count) : count(count) {}
  int64_t count;

  Out Finish(A sum, int64_t o) const { return DivideByCount(Fold<Add, A>::Finish(sum, o), count); }
};

// sum(|x - mean|^2) / max(n - ddof, 0) with NumPy's steps: deviations in the input's
// precision, squared magnitudes summed pairwise in its real type, the quotient in float64;
// std is the square root in the real type of the rounded variance.
template <typename A, bool kStd>
struct Deviation {
  using R = RealType<A>;
  using In = A;
  using Acc = R;
  using Out = std::conditional_t<kStd, R, double>;
  const A* means;
  int64_t count;
  double ddof;

  Acc Single(In x, int64_t, int64_t o) const {
    const A d = x - means[o];
    if constexpr (kIsComplex<A>) {
      return d.real() * d.real() + d.imag() * d.imag();
    } else {
      return d * d;
    }
  }
  Acc Combine(Acc a, Acc b) const { return a + b; }
  Acc Chunk(const In* x, int64_t n, int64_t r, int64_t o) const {
    std::array<R, kChunk> squares;
    for (int64_t i = 0; i < n; ++i) squares[i] = Single(x[i], r + i, o);
    return PairwiseSum(squares.data(), n);
  }
  Out Finish(Acc sum, int64_t) const {
    const double variance = static_cast<double>(sum) / VarianceDivisor(count, ddof);
    if constexpr (kStd) {
      return std::sqrt(static_cast<R>(variance));
    } else {
      return variance;
    }
  }
};

// argmax (kMax) / argmin: the first extreme in C order; the first NaN wins outright.
template <typename A, bool kMax>
struct ArgExtreme {
  struct Acc {
    A value;
    int64_t index;
  };
  using In = A;
  using Out = int64_t;

  Acc Single(In x, int64_t r, int64_t) const { return {x, r}; }
  Acc Combine(Acc earlier, Acc later) const {
    if (IsNan(earlier.value)) return earlier;
    if (IsNan(later.value)) return later;
    const bool better =
        kMax ? OrderLess(earlier.value, later.value) : OrderLess(later.value, earlier.value);
    return better ? later : earlier;
  }
  Acc Chunk(const In* x, int64_t n, int64_t r, int64_t o) const {
    Acc acc = Single(x[0], r, o);
    for (int64_t i = 1; i < n; ++i) acc = Combine(acc, Single(x[i], r + i, o));
    return acc;
  }
  Out Finish(Acc acc, int64_t) const { return acc.index; }
};

// ---------------------------------------------------------------------------------------------
// Walks

// The input split into kept and reduced loops (each coalesced, C order preserved).
struct Geometry {
  const std::byte* base = nullptr;
  DType dtype = DType::kFloat32;
  StridedLoop<1> kept;
  StridedLoop<1> reduced;
  int64_t kept_count = 1;  // Output elements.
  int64_t reduced_count = 1;
};

Geometry MakeGeometry(const ReduceCall& call) {
  const ArrayView& input = call.input;
  Geometry g;
  g.base = static_cast<const std::byte*>(input.buffer->data()) + input.offset_bytes;
  g.dtype = input.dtype;
  std::vector<int64_t> kept_shape, kept_strides, reduced_shape, reduced_strides;
  for (size_t d = 0; d < input.shape.size(); ++d) {
    const bool reduced =
        std::find(call.axes.begin(), call.axes.end(), static_cast<int64_t>(d)) != call.axes.end();
    (reduced ? reduced_shape : kept_shape).push_back(input.shape[d]);
    (reduced ? reduced_strides : kept_strides).push_back(input.strides[d] * ItemSize(input.dtype));
    (reduced ? g.reduced_count : g.kept_count) *= input.shape[d];
  }
  g.kept = Coalesce<1>(kept_shape, {kept_strides});
  g.reduced = Coalesce<1>(reduced_shape, {reduced_strides});
  return g;
}

// Partial results of runs of 2^level chunks, merged like a binary counter: the combination
// order is a balanced tree over the chunks, in their order.
template <typename Reducer>
class Cascade {
 public:
  using Acc = typename Reducer::Acc;

  explicit Cascade(const Reducer& reducer) : reducer_(reducer) {}

  void Add(Acc partial) {
    size_t level = 0;
    for (; occupied_[level]; ++level) {
      partial = reducer_.Combine(slots_[level], partial);  // The slot holds earlier elements.
      occupied_[level] = false;
    }
    slots_[level] = partial;
    occupied_[level] = true;
  }

  // Needs at least one Add.
  Acc Total() const {
    size_t level = kLevels;
    while (!occupied_[--level]) {
    }
    Acc total = slots_[level];
    while (level-- > 0) {
      if (occupied_[level]) total = reducer_.Combine(total, slots_[level]);
    }
    return total;
  }

 private:
  static constexpr size_t kLevels = 64;  // More than enough for 2^63 chunks.
  const Reducer& reducer_;
  std::array<Acc, kLevels> slots_;            // Only occupied ones are read.
  std::array<bool, kLevels + 1> occupied_{};  // The extra false ends Add's scan.
};

// A chunk of converted input elements.
template <typename In>
class ChunkOf {
 public:
  ChunkOf() : storage_(std::make_unique_for_overwrite<In[]>(kChunk)) {}
  In* data() { return storage_.get(); }
  std::byte* bytes() { return reinterpret_cast<std::byte*>(storage_.get()); }

 private:
  std::unique_ptr<In[]> storage_;
};

template <typename Reducer>
void InnerWalk(const Geometry& g, const Reducer& reducer, CastFn cast,
               typename Reducer::Out* results) {
  using In = typename Reducer::In;
  ChunkOf<In> chunk;
  const int64_t size = g.reduced.inner_size();
  const int64_t stride = g.reduced.inner_stride(0);
  ForEachElement(g.kept, [&](int64_t kept_offset, int64_t o) {
    Cascade<Reducer> cascade(reducer);
    ForEachRow(g.reduced, [&](const std::array<int64_t, 1>& row_offset, int64_t row) {
      for (int64_t start = 0; start < size; start += kChunk) {
        const int64_t n = std::min(kChunk, size - start);
        cast(n, g.base + kept_offset + row_offset[0] + start * stride, stride, chunk.bytes(),
             sizeof(In));
        cascade.Add(reducer.Chunk(chunk.data(), n, row * size + start, o));
        PollStop(n);
      }
    });
    results[o] = reducer.Finish(cascade.Total(), o);
  });
}

template <typename Reducer>
void OuterWalk(const Geometry& g, const Reducer& reducer, CastFn cast,
               typename Reducer::Out* results) {
  using In = typename Reducer::In;
  using Acc = typename Reducer::Acc;
  const auto accumulators = std::make_unique_for_overwrite<Acc[]>(g.kept_count);
  ChunkOf<In> chunk;
  const int64_t size = g.kept.inner_size();
  const int64_t stride = g.kept.inner_stride(0);
  ForEachElement(g.reduced, [&](int64_t reduced_offset, int64_t r) {
    ForEachRow(g.kept, [&](const std::array<int64_t, 1>& row_offset, int64_t row) {
      for (int64_t start = 0; start < size; start += kChunk) {
        const int64_t n = std::min(kChunk, size - start);
        cast(n, g.base + reduced_offset + row_offset[0] + start * stride, stride, chunk.bytes(),
             sizeof(In));
        const int64_t first = row * size + start;
        Acc* acc = accumulators.get() + first;
        const In* x = chunk.data();
        if (r == 0) {
          for (int64_t j = 0; j < n; ++j) acc[j] = reducer.Single(x[j], r, first + j);
        } else {
          for (int64_t j = 0; j < n; ++j) {
            acc[j] = reducer.Combine(acc[j], reducer.Single(x[j], r, first + j));
          }
        }
        PollStop(n);
      }
    });
  });
  for (int64_t o = 0; o < g.kept_count; ++o) results[o] = reducer.Finish(accumulators[o], o);
}

// The reducer's result for every output element, in C order.
template <typename Reducer>
std::unique_ptr<typename Reducer::Out[]> Compute(const Geometry& g, const Reducer& reducer) {
  using In = typename Reducer::In;
  auto results = std::make_unique_for_overwrite<typename Reducer::Out[]>(g.kept_count);
  const CastFn cast = FindCast(g.dtype, DTypeOf<In>());
  // The outer walk also serves reductions of a few elements per output, whatever the layout:
  // it makes a few passes over rows instead of a setup per output element (and pairwise
  // summation of fewer than 8 elements is a plain loop anyway).
  constexpr int64_t kFew = 8;
  const bool outer =
      g.kept_count > 1 && (g.reduced_count < kFew ||
                           std::abs(g.kept.inner_stride(0)) < std::abs(g.reduced.inner_stride(0)));
  if (outer) {
    OuterWalk(g, reducer, cast, results.get());
  } else {
    InnerWalk(g, reducer, cast, results.get());
  }
  return results;
}

std::byte* OutputBase(const ReduceCall& call) {
  return static_cast<std::byte*>(call.output.buffer->data()) + call.output.offset_bytes;
}

template <typename Out>
void Store(const ReduceCall& call, const Out* results, int64_t count) {
  FindCast(DTypeOf<Out>(), call.output.dtype)(count, reinterpret_cast<const std::byte*>(results),
                                              sizeof(Out), OutputBase(call),
                                              ItemSize(call.output.dtype));
}

template <typename Reducer>
void Run(const ReduceCall& call, const Geometry& g, const Reducer& reducer) {
  Store(call, Compute(g, reducer).get(), g.kept_count);
}

template <typename A, bool kStd>
void RunVariance(const ReduceCall& call, const Geometry& g) {
  const auto sums = Compute(g, Fold<Add, A>{});
  auto means = std::make_unique_for_overwrite<A[]>(g.kept_count);
  for (int64_t o = 0; o < g.kept_count; ++o) {
    means[o] = Convert<A>(DivideByCount(sums[o], g.reduced_count));
  }
  Run(call, g, Deviation<A, kStd>{means.get(), g.reduced_count, call.ddof});
}

// The accumulator's math type: float16 accumulates in float.
template <typename F>
void WithAccumulator(DType dtype, F&& f) {
  VisitDType(dtype, [&](auto tag) { f(TypeTag<MathType<typename decltype(tag)::type>>{}); });
}

// mean, var and std of integers and bool run in float64, as NumPy's.
template <typename F>
void WithInexactAccumulator(DType dtype, F&& f) {
  WithAccumulator(dtype, [&](auto tag) {
    using A = typename decltype(tag)::type;
    f(TypeTag<std::conditional_t<kIsReal<A> || kIsComplex<A>, A, double>>{});
  });
}

// Results over zero elements (compute.h): the identities, NaN for the statistics. The value
// is complex so that a complex mean is nan+nanj, as NumPy's complex 0/0 gives.
absl::Status FillEmpty(const ReduceCall& call, int64_t count) {
  std::complex<double> value;
  switch (call.op) {
    case ReduceOp::kSum:
    case ReduceOp::kAny:
      value = 0;
      break;
    case ReduceOp::kProd:
    case ReduceOp::kAll:
      value = 1;
      break;
    case ReduceOp::kMean:
    case ReduceOp::kVar:
    case ReduceOp::kStd: {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      value = {nan, nan};
      break;
    }
    default:
      return absl::InternalError(
          fmt::format("{} over zero elements reached the host backend", OpName(call.op)));
  }
  FindCast(DType::kComplex128, call.output.dtype)(count, reinterpret_cast<const std::byte*>(&value),
                                                  0, OutputBase(call), ItemSize(call.output.dtype));
  return absl::OkStatus();
}

absl::Status RunReduce(const ReduceCall& call) {
  const Geometry g = MakeGeometry(call);
  if (g.kept_count == 0) return absl::OkStatus();
  if (g.reduced_count == 0) return FillEmpty(call, g.kept_count);

  const auto fold = [&]<typename Op>(TypeTag<Op>) {
    WithAccumulator(call.accumulate_dtype,
                    [&](auto tag) { Run(call, g, Fold<Op, typename decltype(tag)::type>{}); });
  };
  const auto arg_extreme = [&]<bool kMax>(std::bool_constant<kMax>) {
    WithAccumulator(call.accumulate_dtype, [&](auto tag) {
      Run(call, g, ArgExtreme<typename decltype(tag)::type, kMax>{});
    });
  };
  const auto variance = [&]<bool kStd>(std::bool_constant<kStd>) {
    WithInexactAccumulator(call.accumulate_dtype, [&](auto tag) {
      RunVariance<typename decltype(tag)::type, kStd>(call, g);
    });
  };
  switch (call.op) {
    case ReduceOp::kSum:
      fold(TypeTag<Add>{});
      break;
    case ReduceOp::kProd:
      fold(TypeTag<Multiply>{});
      break;
    case ReduceOp::kMin:
      fold(TypeTag<Minimum<Ties::kKeepSecond>>{});
      break;
    case ReduceOp::kMax:
      fold(TypeTag<Maximum<Ties::kKeepSecond>>{});
      break;
    case ReduceOp::kMean:
      WithInexactAccumulator(call.accumulate_dtype, [&](auto tag) {
        Run(call, g, Mean<typename decltype(tag)::type>(g.reduced_count));
      });
      break;
    case ReduceOp::kVar:
      variance(std::false_type{});
      break;
    case ReduceOp::kStd:
      variance(std::true_type{});
      break;
    case ReduceOp::kArgmin:
      arg_extreme(std::false_type{});
      break;
    case ReduceOp::kArgmax:
      arg_extreme(std::true_type{});
      break;
    case ReduceOp::kAny:
      Run(call, g, Fold<LogicalOr, bool>{});
      break;
    case ReduceOp::kAll:
      Run(call, g, Fold<LogicalAnd, bool>{});
      break;
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace host

absl::Status CpuCompute::Reduce(QueueBinding& queue, const ReduceCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::RunStoppable("a reduction", [&] { return host::RunReduce(call); });
}

}  // namespace arrayhub
