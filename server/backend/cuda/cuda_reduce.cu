// Reduction kernels (see cuda_reduce.cuh): each thread folds a run of elements sequentially
// (16-byte vector loads where the reduced axis is contiguous), then CUB combines the threads'
// values per block or per warp. Three shapes of work, picked by the launcher:
//   rows (reduced axis innermost): a block per row, or a warp per row for short rows; rows too
//     few to fill the device are split into chunks whose partial results a second pass folds;
//   columns: threads walk the reduced axis for neighbouring outputs, so that a warp reads
//     neighbouring elements together (axis 0 of a C-contiguous matrix is coalesced, in 16-byte
//     vectors where aligned), with the reduced axis split between the threads of a block and,
//     when the outputs are few, between blocks;
//   short rows: a thread per output element.
// Instantiated only for the accumulate types (see ReduceReadsDirectly), to keep the build short.
#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda/std/limits>
#include <type_traits>

#include "server/backend/cuda/cuda_reduce.cuh"
#include "server/backend/cuda/element_types.cuh"

namespace arrayhub {

namespace {

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = kThreads / 32;
constexpr int kThreadsPerSm = 2048;
constexpr int64_t kShortRow = 16;        // Rows up to this long: a thread per row.
constexpr int64_t kWarpRow = 1024;       // Rows up to this long: a warp per row.
constexpr int64_t kMinRowChunk = 4096;   // Elements per block at least when a row is split.
constexpr int64_t kMinColumnChunk = 32;  // Elements per thread at least when columns split.

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// ---- Value types and their arithmetic ----

using cuda_types::Complex;
using cuda_types::kIsComplex;

template <class T>
struct RealOf {
  using type = T;
};
template <class T>
struct RealOf<Complex<T>> {
  using type = T;
};

template <class T>
__device__ T Zero() {
  if constexpr (kIsComplex<T>) {
    return {0, 0};
  } else {
    return T(0);
  }
}

template <class T>
__device__ T One() {
  if constexpr (kIsComplex<T>) {
    return {1, 0};
  } else {
    return T(1);
  }
}

// Integers wrap (in their unsigned type, where overflow is defined).
template <class T>
__device__ T Add(T a, T b) {
  if constexpr (kIsComplex<T>) {
    return {a.re + b.re, a.im + b.im};
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <class T>
__device__ T Multiply(T a, T b) {
  if constexpr (kIsComplex<T>) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

template <class T>
__device__ bool IsNan(T x) {
  if constexpr (kIsComplex<T>) {
    return x.re != x.re || x.im != x.im;
  } else {
    return x != x;  // Never true for integers.
  }
}

// NumPy's order; complex numbers compare lexicographically. Not called with NaNs.
template <class T>
__device__ bool Less(T a, T b) {
  if constexpr (kIsComplex<T>) {
    return a.re < b.re || (a.re == b.re && a.im < b.im);
  } else {
    return a < b;
  }
}

// The greatest (kMax false) or least (kMax true) value: the identity of min (max).
template <class T, bool kMax>
__device__ T Extreme() {
  if constexpr (kIsComplex<T>) {
    const auto e = Extreme<decltype(T::re), kMax>();
    return {e, e};
  } else if constexpr (std::is_integral_v<T>) {
    return kMax ? cuda::std::numeric_limits<T>::lowest() : cuda::std::numeric_limits<T>::max();
  } else {
    return kMax ? -cuda::std::numeric_limits<T>::infinity()
                : cuda::std::numeric_limits<T>::infinity();
  }
}

template <class To, class From>
__device__ To Convert(From x) {
  return static_cast<To>(x);  // Same type, or float to double (exact).
}

// ---- Reducers: Identity, Load (an element to a Value), operator() (combine two Values),
// Finish (the Value to what is written), and Partial, the reducer that folds partial
// results of the same kind in a later pass. ----

// How a sum finishes: divided by `divisor` and, with `take_sqrt`, square-rooted (mean, var,
// std); `to_float` stores a double result as float (float32 sums accumulate in float64).
struct Scaling {
  double divisor = 1.0;
  bool take_sqrt = false;
  bool to_float = false;
};

template <class In, class Acc>
struct SumReducer {
  using Input = In;
  using Value = Acc;
  using Final = Acc;
  using Partial = SumReducer<Acc, Acc>;
  Scaling scaling;

  __device__ Acc Identity() const { return Zero<Acc>(); }
  __device__ Acc Load(In x, int64_t, int64_t) const { return Convert<Acc>(x); }
  __device__ Acc operator()(Acc a, Acc b) const { return Add(a, b); }
  __device__ Acc Finish(Acc a) const {
    if constexpr (kIsComplex<Acc>) {
      using R = decltype(Acc::re);
      return {a.re / static_cast<R>(scaling.divisor), a.im / static_cast<R>(scaling.divisor)};
    } else if constexpr (std::is_floating_point_v<Acc>) {
      const Acc scaled = a / static_cast<Acc>(scaling.divisor);
      return scaling.take_sqrt ? sqrt(scaled) : scaled;
    } else {
      return a;
    }
  }
  Partial MakePartial() const { return {scaling}; }
};

template <class T>
struct ProdReducer {
  using Input = T;
  using Value = T;
  using Final = T;
  using Partial = ProdReducer<T>;
  __device__ T Identity() const { return One<T>(); }
  __device__ T Load(T x, int64_t, int64_t) const { return x; }
  __device__ T operator()(T a, T b) const { return Multiply(a, b); }
  __device__ T Finish(T a) const { return a; }
  Partial MakePartial() const { return {}; }
};

// NaN-propagating minimum (kMax false) or maximum.
template <class T, bool kMax>
struct ExtremeReducer {
  using Input = T;
  using Value = T;
  using Final = T;
  using Partial = ExtremeReducer<T, kMax>;
  __device__ T Identity() const { return Extreme<T, kMax>(); }
  __device__ T Load(T x, int64_t, int64_t) const { return x; }
  __device__ T operator()(T a, T b) const {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return (kMax ? Less(a, b) : Less(b, a)) ? b : a;
  }
  __device__ T Finish(T a) const { return a; }
  Partial MakePartial() const { return {}; }
};

template <class T>
struct Indexed {
  T value;
  int64_t index;
};

// argmin (kMax false) / argmax: the first NaN, else the first extreme. The combine is
// commutative (ties go to the lower index), so the order CUB folds in does not matter.
// In is T in the first pass and Indexed<T> in later ones.
template <class In, class T, bool kMax>
struct ArgReducer {
  using Input = In;
  using Value = Indexed<T>;
  using Final = int64_t;
  using Partial = ArgReducer<Indexed<T>, T, kMax>;
  __device__ Value Identity() const {
    return {Extreme<T, kMax>(), cuda::std::numeric_limits<int64_t>::max()};
  }
  __device__ Value Load(In x, int64_t r, int64_t) const {
    if constexpr (std::is_same_v<In, T>) {
      return {x, r};
    } else {
      return x;
    }
  }
  __device__ Value operator()(Value a, Value b) const {
    const bool a_nan = IsNan(a.value);
    const bool b_nan = IsNan(b.value);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index <= b.index ? a : b;
      return a_nan ? a : b;
    }
    const bool b_better = kMax ? Less(a.value, b.value) : Less(b.value, a.value);
    const bool a_better = kMax ? Less(b.value, a.value) : Less(a.value, b.value);
    if (b_better) return b;
    if (a_better) return a;
    return a.index <= b.index ? a : b;
  }
  __device__ int64_t Finish(Value a) const { return a.index; }
  Partial MakePartial() const { return {}; }
};

// any (kAll false) / all over bools (stored as bytes).
template <class In, bool kAll>
struct LogicalReducer {
  using Input = In;
  using Value = bool;
  using Final = bool;
  using Partial = LogicalReducer<bool, kAll>;
  __device__ bool Identity() const { return kAll; }
  __device__ bool Load(In x, int64_t, int64_t) const { return x != 0; }
  __device__ bool operator()(bool a, bool b) const { return kAll ? (a && b) : (a || b); }
  __device__ bool Finish(bool a) const { return a; }
  Partial MakePartial() const { return {}; }
};

// |x - mean|^2 summed, with the mean of each output element; as NumPy's var: the deviation in
// the accumulate type V, then x * conj(x) for complex.
template <class In, class V>
struct SquaredDeviationReducer {
  using Real = typename RealOf<V>::type;
  using Input = In;
  using Value = Real;
  using Final = Real;
  using Partial = SumReducer<Real, Real>;
  const V* mean = nullptr;
  Scaling scaling;

  __device__ Real Identity() const { return 0; }
  __device__ Real Load(In x, int64_t, int64_t out) const {
    const V m = mean[out];
    if constexpr (kIsComplex<V>) {
      const Real dr = x.re - m.re;
      const Real di = x.im - m.im;
      return dr * dr + di * di;
    } else {
      const V d = Convert<V>(x) - m;
      return d * d;
    }
  }
  __device__ Real operator()(Real a, Real b) const { return a + b; }
  __device__ Real Finish(Real a) const { return Partial{scaling}.Finish(a); }
  Partial MakePartial() const { return {scaling}; }
};

// ---- Kernels ----

// Writes an output (finish) or a partial result.
template <class R>
__device__ void Store(const R& r, void* out, int64_t index, typename R::Value v, bool finish) {
  if (!finish) {
    static_cast<typename R::Value*>(out)[index] = v;
    return;
  }
  const typename R::Final result = r.Finish(v);
  if constexpr (std::is_same_v<typename R::Final, double> && requires { r.scaling; }) {
    if (r.scaling.to_float) {
      static_cast<float*>(out)[index] = static_cast<float>(result);
      return;
    }
  }
  static_cast<typename R::Final*>(out)[index] = result;
}

template <class T, int N>
struct alignas(sizeof(T) * N) Vector {
  T v[N];
};

// Elements per 16-byte vector of T (1: no vectors).
template <class T>
inline constexpr int kVectorWidth = (sizeof(T) < 16 && 16 % sizeof(T) == 0) ? 16 / sizeof(T) : 1;

// What one load reads: kWidth elements as a vector, or a single element (of any size).
template <class T, int kWidth>
struct Load {
  using type = Vector<T, kWidth>;
};
template <class T>
struct Load<T, 1> {
  struct type {
    T v[1];
  };
};

// Loads in flight per thread: the loops below issue this many independent loads before
// folding them, so that the memory system has enough requests to reach full bandwidth.
constexpr int kUnroll = 4;

// Folds the loads at p[0], p[step], ... p[(count - 1) * step] (element indices index0,
// index0 + index_step, ...) into acc, kUnroll loads at a time. Each load holds kWidth
// elements: of one output (kSpread false, consecutive indices) or of kWidth neighbouring
// outputs (kSpread true, acc[e] for output out + e).
template <bool kSpread, int kWidth, class R>
__device__ void FoldLoads(const R& r, const typename Load<typename R::Input, kWidth>::type* p,
                          int64_t count, int64_t step, int64_t index0, int64_t index_step,
                          int64_t out, typename R::Value* acc) {
  const auto fold = [&](const typename Load<typename R::Input, kWidth>::type& x, int64_t index) {
#pragma unroll
    for (int e = 0; e < kWidth; ++e) {
      if constexpr (kSpread) {
        acc[e] = r(acc[e], r.Load(x.v[e], index, out + e));
      } else {
        acc[0] = r(acc[0], r.Load(x.v[e], index + e, out));
      }
    }
  };
  int64_t j = 0;
  for (; j + kUnroll <= count; j += kUnroll) {
    typename Load<typename R::Input, kWidth>::type x[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) x[u] = p[(j + u) * step];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) fold(x[u], index0 + (j + u) * index_step);
  }
  for (; j < count; ++j) fold(p[j * step], index0 + j * index_step);
}

// This thread's fold of elements [begin, end) of the reduced axis of output `out` (whose first
// element is `base`); the thread takes every `lanes`-th element from `lane`.
template <class R>
__device__ typename R::Value FoldRange(const R& r, const typename R::Input* base, int64_t begin,
                                       int64_t end, int64_t stride, int64_t out, int lane,
                                       int lanes) {
  using In = typename R::Input;
  typename R::Value acc = r.Identity();
  constexpr int kWidth = kVectorWidth<In>;
  const auto address = reinterpret_cast<uintptr_t>(base);
  if constexpr (kWidth > 1) {
    if (stride == 1 && address % sizeof(In) == 0) {
      // Contiguous: single elements up to a 16-byte boundary, vectors, then the tail.
      const int64_t to_boundary =
          static_cast<int64_t>((16 - (address + begin * sizeof(In)) % 16) % 16 / sizeof(In));
      const int64_t body = begin + to_boundary < end ? begin + to_boundary : end;
      for (int64_t k = begin + lane; k < body; k += lanes) acc = r(acc, r.Load(base[k], k, out));
      const int64_t vectors = (end - body) / kWidth;
      const auto* v = reinterpret_cast<const Vector<In, kWidth>*>(base + body) + lane;
      const int64_t mine = vectors > lane ? (vectors - lane + lanes - 1) / lanes : 0;
      FoldLoads<false, kWidth>(r, v, mine, lanes, body + int64_t{lane} * kWidth,
                               int64_t{lanes} * kWidth, out, &acc);
      for (int64_t k = body + vectors * kWidth + lane; k < end; k += lanes) {
        acc = r(acc, r.Load(base[k], k, out));
      }
      return acc;
    }
  }
  const int64_t first = begin + lane;
  const int64_t mine = end > first ? (end - first + lanes - 1) / lanes : 0;
  FoldLoads<false, 1>(r, reinterpret_cast<const typename Load<In, 1>::type*>(base + first * stride),
                      mine, lanes * stride, first, lanes, out, &acc);
  return acc;
}

// The block's fold of chunk blockIdx.x % splits of row blockIdx.x / splits (valid in thread 0).
template <class R>
__device__ typename R::Value FoldRowChunk(const R& r, const typename R::Input* in,
                                          const ReduceGeometry& g, int64_t splits) {
  const int64_t row = blockIdx.x / splits;
  const int64_t part = blockIdx.x % splits;
  const int64_t chunk = (g.reduce + splits - 1) / splits;
  const int64_t begin = part * chunk;
  const int64_t end = begin + chunk < g.reduce ? begin + chunk : g.reduce;
  const auto acc = FoldRange(r, in + row * g.outer_stride, begin, end, g.reduce_stride, row,
                             threadIdx.x, kThreads);
  using BlockReduce = cub::BlockReduce<typename R::Value, kThreads>;
  __shared__ typename BlockReduce::TempStorage storage;
  return BlockReduce(storage).Reduce(acc, r);
}

// A block per (row, chunk): block b reduces chunk b % splits of row b / splits.
template <class R>
__global__ void __launch_bounds__(kThreads)
    RowsPerBlock(R r, const typename R::Input* in, ReduceGeometry g, int64_t splits, void* out,
                 bool finish) {
  const auto total = FoldRowChunk(r, in, g, splits);
  if (threadIdx.x == 0) Store(r, out, blockIdx.x, total, finish);
}

// RowsPerBlock, and the last block of each row to finish folds the row's partial results with
// `partial` (R's MakePartial) exactly as RowsPerWarp would in a second launch: a warp, each lane
// every 32nd partial in order, then a warp reduction. The blocks count themselves in
// `arrivals[row]` (see kReduceWorkspaceBytes), which the last one returns to zero.
template <class R, class P>
__global__ void __launch_bounds__(kThreads)
    RowsPerBlockLastFolds(R r, P partial, const typename R::Input* in, ReduceGeometry g,
                          int64_t splits, typename R::Value* partials, void* out,
                          unsigned* arrivals) {
  const int64_t row = blockIdx.x / splits;
  const auto total = FoldRowChunk(r, in, g, splits);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
    // The partial is visible to every block before this one counts itself in.
    __threadfence();
    last = atomicAdd(&arrivals[row], 1u) == static_cast<unsigned>(splits - 1);
  }
  __syncthreads();
  if (!last || threadIdx.x >= 32) return;
  // Every other block of the row published its partial before counting itself in.
  __threadfence();
  const auto folded =
      FoldRange(partial, partials + row * splits, 0, splits, 1, row, threadIdx.x, 32);
  using WarpReduce = cub::WarpReduce<typename P::Value>;
  __shared__ typename WarpReduce::TempStorage storage;
  const auto result = WarpReduce(storage).Reduce(folded, partial);
  if (threadIdx.x == 0) {
    Store(partial, out, row, result, true);
    arrivals[row] = 0;
  }
}

// A warp per row.
template <class R>
__global__ void __launch_bounds__(kThreads)
    RowsPerWarp(R r, const typename R::Input* in, ReduceGeometry g, void* out, bool finish) {
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
  if (row >= g.outer) return;  // The whole warp.
  const auto acc =
      FoldRange(r, in + row * g.outer_stride, 0, g.reduce, g.reduce_stride, row, lane, 32);
  using WarpReduce = cub::WarpReduce<typename R::Value>;
  __shared__ typename WarpReduce::TempStorage storage[kWarpsPerBlock];
  const auto total = WarpReduce(storage[warp]).Reduce(acc, r);
  if (lane == 0) Store(r, out, row, total, finish);
}

// Columns: threads along x take kWidth neighbouring outputs each (one 16-byte vector load per
// reduced index when kWidth > 1), the blockDim.y threads along y split the block's chunk of the
// reduced axis (blockIdx.y) between them, and the y partials are folded in order through
// shared memory. Partial results are laid out [chunk][output]. With blockDim.y == 1 and
// kWidth == 1 it is a thread per output, for short rows. Answers, in the threads with
// threadIdx.y == 0, the folds of outputs first..first + kWidth - 1 over the block's chunk.
template <class R, int kWidth>
__device__ void FoldColumnChunk(const R& r, const typename R::Input* in, const ReduceGeometry& g,
                                int64_t chunk, int64_t first, typename R::Value (&acc)[kWidth]) {
  using Value = typename R::Value;
  const int64_t outputs = g.outer * g.inner;
  const int64_t begin = blockIdx.y * chunk;
  const int64_t end = begin + chunk < g.reduce ? begin + chunk : g.reduce;
#pragma unroll
  for (int e = 0; e < kWidth; ++e) acc[e] = r.Identity();
  if (first < outputs) {
    // kWidth > 1 only when the inner extent is a multiple of it: the outputs share o.
    const int64_t o = first / g.inner;
    const int64_t i = first - o * g.inner;
    const int64_t k = begin + threadIdx.y;
    const auto* p = reinterpret_cast<const typename Load<typename R::Input, kWidth>::type*>(
        in + o * g.outer_stride + i * g.inner_stride + k * g.reduce_stride);
    const int64_t mine = end > k ? (end - k + blockDim.y - 1) / blockDim.y : 0;
    // Steps in loads: reduce_stride is a multiple of kWidth when kWidth > 1.
    FoldLoads<true, kWidth>(r, p, mine, g.reduce_stride * blockDim.y / kWidth, k, blockDim.y, first,
                            acc);
  }
  if (blockDim.y > 1) {
    __shared__ Value partial[kThreads][kWidth];
    const int slot = threadIdx.y * blockDim.x + threadIdx.x;
#pragma unroll
    for (int e = 0; e < kWidth; ++e) partial[slot][e] = acc[e];
    __syncthreads();
    if (threadIdx.y == 0) {
      for (unsigned y = 1; y < blockDim.y; ++y) {
#pragma unroll
        for (int e = 0; e < kWidth; ++e) {
          acc[e] = r(acc[e], partial[y * blockDim.x + threadIdx.x][e]);
        }
      }
    }
  }
}

template <class R, int kWidth>
__global__ void __launch_bounds__(kThreads)
    Columns(R r, const typename R::Input* in, ReduceGeometry g, int64_t chunk, void* out,
            bool finish) {
  const int64_t outputs = g.outer * g.inner;
  const int64_t first = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kWidth;
  typename R::Value acc[kWidth];
  FoldColumnChunk<R, kWidth>(r, in, g, chunk, first, acc);
  if (threadIdx.y != 0 || first >= outputs) return;
#pragma unroll
  for (int e = 0; e < kWidth; ++e) Store(r, out, blockIdx.y * outputs + first + e, acc[e], finish);
}

// Columns split into chunks, and the last block of each column of blocks to finish folds the
// chunks' partial results of its outputs in chunk order with `partial` (R's MakePartial), as a
// second launch would: one launch instead of two. The blocks of column of blocks x count
// themselves in `arrivals[x]` (see kReduceWorkspaceBytes), which the last one returns to zero.
template <class R, class P, int kWidth>
__global__ void __launch_bounds__(kThreads)
    ColumnsLastFolds(R r, P partial, const typename R::Input* in, ReduceGeometry g, int64_t chunk,
                     typename R::Value* partials, void* out, unsigned* arrivals) {
  const int64_t outputs = g.outer * g.inner;
  const int64_t first = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kWidth;
  typename R::Value acc[kWidth];
  FoldColumnChunk<R, kWidth>(r, in, g, chunk, first, acc);
  if (threadIdx.y == 0 && first < outputs) {
#pragma unroll
    for (int e = 0; e < kWidth; ++e) partials[blockIdx.y * outputs + first + e] = acc[e];
    // The partials are visible to every block before this one counts itself in.
    __threadfence();
  }
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    last = atomicAdd(&arrivals[blockIdx.x], 1u) == gridDim.y - 1;
  }
  __syncthreads();
  if (!last) return;
  // Every other block of the column published its partials before counting itself in.
  __threadfence();
  const int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x * kWidth;
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  for (int64_t o = base + t; o < base + int64_t{blockDim.x} * kWidth && o < outputs;
       o += blockDim.x * blockDim.y) {
    typename P::Value folded = partial.Identity();
    for (unsigned y = 0; y < gridDim.y; ++y) folded = partial(folded, partials[y * outputs + o]);
    Store(partial, out, o, folded, true);
  }
  if (t == 0) arrivals[blockIdx.x] = 0;
}

// out[t] = in[element index[t] of output t's reduced axis]: the values argmin/argmax found.
template <class T>
__global__ void Gather(const T* in, ReduceGeometry g, const int64_t* index, T* out) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (t >= g.outer * g.inner) return;
  const int64_t o = t / g.inner;
  const int64_t i = t - o * g.inner;
  out[t] = in[o * g.outer_stride + index[t] * g.reduce_stride + i * g.inner_stride];
}

// ---- Launching ----

struct Launch {
  int sm_count;
  cudaStream_t stream;
  void* workspace;  // See kReduceWorkspaceBytes; null: partial results fold in a second launch.
};

// Blocks of kKernel that fill the device once (one full wave). The occupancy is read once per
// kernel (the process' GPUs are assumed alike), off the launch path.
template <auto kKernel>
int64_t FillBlocks(const Launch& launch) {
  static const int per_sm = [] {
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kKernel, kThreads, 0) !=
            cudaSuccess ||
        blocks == 0) {
      (void)cudaGetLastError();
      blocks = kThreadsPerSm / kThreads;
    }
    return blocks;
  }();
  return int64_t{per_sm} * launch.sm_count;
}

// Scratch for partial results, freed in stream order after the passes that use it.
template <class T>
cudaError_t AllocatePartials(T** partials, int64_t count, cudaStream_t stream) {
  return cudaMallocAsync(reinterpret_cast<void**>(partials), static_cast<size_t>(count) * sizeof(T),
                         stream);
}

template <class R>
cudaError_t Run(const R& r, const typename R::Input* in, const ReduceGeometry& g, void* out,
                const Launch& launch);

// Folds `partials` (split per output as described by `g`) into `out` with R's partial reducer.
template <class R>
cudaError_t FinishPartials(const R& r, typename R::Value* partials, const ReduceGeometry& g,
                           void* out, const Launch& launch) {
  cudaError_t error = Run(r.MakePartial(), partials, g, out, launch);
  const cudaError_t freed = cudaFreeAsync(partials, launch.stream);
  return error != cudaSuccess ? error : freed;
}

// Rows (the reduced axis innermost): a warp per row up to kWarpRow elements, else a block per
// row, split into chunks when the rows are too few to fill the device.
template <class R>
cudaError_t RunRows(const R& r, const typename R::Input* in, const ReduceGeometry& g, void* out,
                    const Launch& launch) {
  if (g.reduce <= kWarpRow) {
    RowsPerWarp<<<static_cast<unsigned>(CeilDiv(g.outer, kWarpsPerBlock)), kThreads, 0,
                  launch.stream>>>(r, in, g, out, true);
    return cudaGetLastError();
  }
  const int64_t fill = FillBlocks<RowsPerBlock<R>>(launch);
  // No more blocks than one wave holds: a second wave of a few blocks would run alone.
  const int64_t splits =
      g.outer >= fill ? 1 : std::max<int64_t>(1, std::min(fill / g.outer, g.reduce / kMinRowChunk));
  if (splits == 1) {
    RowsPerBlock<<<static_cast<unsigned>(g.outer), kThreads, 0, launch.stream>>>(r, in, g, 1, out,
                                                                                 true);
    return cudaGetLastError();
  }
  using Value = typename R::Value;
  if (launch.workspace != nullptr && g.outer <= kReduceArrivalSlots &&
      g.outer * splits * static_cast<int64_t>(sizeof(Value)) <= kReducePartialBytes) {
    auto* const arrivals = static_cast<unsigned*>(launch.workspace);
    auto* const partials = reinterpret_cast<Value*>(arrivals + kReduceArrivalSlots);
    RowsPerBlockLastFolds<<<static_cast<unsigned>(g.outer * splits), kThreads, 0, launch.stream>>>(
        r, r.MakePartial(), in, g, splits, partials, out, arrivals);
    return cudaGetLastError();
  }
  Value* partials = nullptr;
  if (cudaError_t e = AllocatePartials(&partials, g.outer * splits, launch.stream)) return e;
  RowsPerBlock<<<static_cast<unsigned>(g.outer * splits), kThreads, 0, launch.stream>>>(
      r, in, g, splits, partials, false);
  if (cudaError_t e = cudaGetLastError()) {
    (void)cudaFreeAsync(partials, launch.stream);
    return e;
  }
  return FinishPartials(r, partials,
                        ReduceGeometry{.outer = g.outer,
                                       .reduce = splits,
                                       .inner = 1,
                                       .outer_stride = splits,
                                       .reduce_stride = 1},
                        out, launch);
}

// Columns (and short rows): see Columns. The reduced axis is split into chunks when the
// outputs are too few to fill the device.
template <class R, int kWidth>
cudaError_t RunColumns(const R& r, const typename R::Input* in, const ReduceGeometry& g, void* out,
                       const Launch& launch) {
  const int64_t outputs = g.outer * g.inner;
  const unsigned rows_per_block = g.reduce >= 4 * kMinColumnChunk ? 8 : 1;
  const dim3 block(kThreads / rows_per_block, rows_per_block);
  const int64_t column_blocks = CeilDiv(CeilDiv(outputs, kWidth), block.x);
  // Split columns fold their chunks in the same launch when the workspace has a counter for
  // each column of blocks.
  const bool last_folds = launch.workspace != nullptr && column_blocks <= kReduceArrivalSlots;
  const int64_t fill = last_folds
                           ? FillBlocks<ColumnsLastFolds<R, typename R::Partial, kWidth>>(launch)
                           : FillBlocks<Columns<R, kWidth>>(launch);
  int64_t splits = 1;
  if (column_blocks < fill) {
    // One wave at most: rounding the splits up made 711 blocks of a 660-block wave for the
    // column sum of 10000^2, whose last 51 blocks ran alone (ncu on an H200: 1.08 waves, 71%
    // of DRAM bandwidth).
    splits = std::clamp<int64_t>(
        std::min(fill / column_blocks, g.reduce / (rows_per_block * kMinColumnChunk)), 1, 65535);
  }
  const int64_t chunk = CeilDiv(g.reduce, splits);
  if (chunk > 0) splits = CeilDiv(g.reduce, chunk);
  const dim3 grid(static_cast<unsigned>(column_blocks), static_cast<unsigned>(splits));
  if (splits == 1) {
    Columns<R, kWidth><<<grid, block, 0, launch.stream>>>(r, in, g, g.reduce, out, true);
    return cudaGetLastError();
  }
  typename R::Value* partials = nullptr;
  if (cudaError_t e = AllocatePartials(&partials, outputs * splits, launch.stream)) return e;
  if (last_folds) {
    ColumnsLastFolds<R, typename R::Partial, kWidth><<<grid, block, 0, launch.stream>>>(
        r, r.MakePartial(), in, g, chunk, partials, out, static_cast<unsigned*>(launch.workspace));
    const cudaError_t error = cudaGetLastError();
    const cudaError_t freed = cudaFreeAsync(partials, launch.stream);
    return error != cudaSuccess ? error : freed;
  }
  Columns<R, kWidth><<<grid, block, 0, launch.stream>>>(r, in, g, chunk, partials, false);
  if (cudaError_t e = cudaGetLastError()) {
    (void)cudaFreeAsync(partials, launch.stream);
    return e;
  }
  return FinishPartials(r, partials,
                        ReduceGeometry{.outer = 1,
                                       .reduce = splits,
                                       .inner = outputs,
                                       .reduce_stride = outputs,
                                       .inner_stride = 1},
                        out, launch);
}

template <class R>
cudaError_t Run(const R& r, const typename R::Input* in, const ReduceGeometry& g, void* out,
                const Launch& launch) {
  if (g.inner == 1 && g.reduce > kShortRow) return RunRows(r, in, g, out, launch);
  // Vectors across neighbouring outputs when every one of them is 16-byte aligned.
  constexpr int kWidth = kVectorWidth<typename R::Input>;
  const bool aligned = reinterpret_cast<uintptr_t>(in) % 16 == 0 && g.inner_stride == 1 &&
                       g.inner % kWidth == 0 && g.outer_stride % kWidth == 0 &&
                       g.reduce_stride % kWidth == 0;
  if constexpr (kWidth > 1) {
    if (aligned && g.inner > 1) return RunColumns<R, kWidth>(r, in, g, out, launch);
  }
  return RunColumns<R, 1>(r, in, g, out, launch);
}

// ---- Dispatch on dtypes ----

template <class R>
cudaError_t RunWith(const R& r, const ReduceKernelArgs& a) {
  return Run(r, static_cast<const typename R::Input*>(a.in), a.geometry, a.out,
             Launch{a.sm_count, a.stream, a.workspace});
}

// Calls f(T{}) with the C++ type of an accumulate dtype.
template <class F>
cudaError_t WithAccumulateType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kInt64:
      return f(int64_t{});
    case DType::kUInt64:
      return f(uint64_t{});
    case DType::kFloat32:
      return f(float{});
    case DType::kFloat64:
      return f(double{});
    case DType::kComplex64:
      return f(Complex<float>{});
    case DType::kComplex128:
      return f(Complex<double>{});
    default:
      return cudaErrorInvalidValue;
  }
}

template <class T>
inline constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsComplex<T>;

// min/max: NaN-propagating folds; for complex numbers, whose NaNs differ in their other part,
// the value at argmin/argmax's index, so that the first NaN in C order wins as on the host.
template <class T, bool kMax>
cudaError_t RunExtreme(const ReduceKernelArgs& a) {
  if constexpr (!kIsComplex<T>) {
    return RunWith(ExtremeReducer<T, kMax>{}, a);
  } else {
    const int64_t outputs = a.geometry.outer * a.geometry.inner;
    int64_t* index = nullptr;
    if (cudaError_t e = AllocatePartials(&index, outputs, a.stream)) return e;
    ReduceKernelArgs arg = a;
    arg.out = index;
    cudaError_t error = RunWith(ArgReducer<T, T, kMax>{}, arg);
    if (error == cudaSuccess) {
      Gather<<<static_cast<unsigned>(CeilDiv(outputs, kThreads)), kThreads, 0, a.stream>>>(
          static_cast<const T*>(a.in), a.geometry, index, static_cast<T*>(a.out));
      error = cudaGetLastError();
    }
    const cudaError_t freed = cudaFreeAsync(index, a.stream);
    return error != cudaSuccess ? error : freed;
  }
}

}  // namespace

bool ReduceReadsDirectly(ReduceKernelOp op, DType input, DType accumulate) {
  switch (op) {
    case ReduceKernelOp::kAny:
    case ReduceKernelOp::kAll:
      return input == DType::kBool && accumulate == DType::kBool;
    case ReduceKernelOp::kSum:
    case ReduceKernelOp::kSquaredDeviation:
      if (input == DType::kFloat32 && accumulate == DType::kFloat64) return true;
      break;
    default:
      break;
  }
  if (input != accumulate) return false;
  switch (accumulate) {
    case DType::kInt64:
    case DType::kUInt64:
      return op != ReduceKernelOp::kSquaredDeviation;
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kComplex64:
    case DType::kComplex128:
      return true;
    default:
      return false;
  }
}

DType ReduceFinalDType(ReduceKernelOp op, DType accumulate) {
  switch (op) {
    case ReduceKernelOp::kArgmin:
    case ReduceKernelOp::kArgmax:
      return DType::kInt64;
    case ReduceKernelOp::kAny:
    case ReduceKernelOp::kAll:
      return DType::kBool;
    case ReduceKernelOp::kSquaredDeviation:
      return RealDType(accumulate);
    default:
      return accumulate;
  }
}

cudaError_t LaunchReduce(const ReduceKernelArgs& a) {
  if (!ReduceReadsDirectly(a.op, a.input, a.accumulate)) return cudaErrorInvalidValue;
  const bool float_input = a.input == DType::kFloat32 && a.accumulate == DType::kFloat64;
  const Scaling scaling{a.divisor, a.take_sqrt, a.to_float32};
  switch (a.op) {
    case ReduceKernelOp::kAny:
      return RunWith(LogicalReducer<unsigned char, false>{}, a);
    case ReduceKernelOp::kAll:
      return RunWith(LogicalReducer<unsigned char, true>{}, a);
    case ReduceKernelOp::kSum:
      if (float_input) return RunWith(SumReducer<float, double>{scaling}, a);
      return WithAccumulateType(a.accumulate, [&](auto t) {
        using T = decltype(t);
        return RunWith(SumReducer<T, T>{scaling}, a);
      });
    case ReduceKernelOp::kSquaredDeviation:
      if (float_input) {
        return RunWith(
            SquaredDeviationReducer<float, double>{static_cast<const double*>(a.mean), scaling}, a);
      }
      return WithAccumulateType(a.accumulate, [&](auto t) -> cudaError_t {
        using T = decltype(t);
        if constexpr (kIsFloating<T>) {
          return RunWith(SquaredDeviationReducer<T, T>{static_cast<const T*>(a.mean), scaling}, a);
        } else {
          return cudaErrorInvalidValue;
        }
      });
    case ReduceKernelOp::kProd:
      return WithAccumulateType(a.accumulate,
                                [&](auto t) { return RunWith(ProdReducer<decltype(t)>{}, a); });
    case ReduceKernelOp::kMin:
      return WithAccumulateType(a.accumulate,
                                [&](auto t) { return RunExtreme<decltype(t), false>(a); });
    case ReduceKernelOp::kMax:
      return WithAccumulateType(a.accumulate,
                                [&](auto t) { return RunExtreme<decltype(t), true>(a); });
    case ReduceKernelOp::kArgmin:
      return WithAccumulateType(a.accumulate, [&](auto t) {
        using T = decltype(t);
        return RunWith(ArgReducer<T, T, false>{}, a);
      });
    case ReduceKernelOp::kArgmax:
      return WithAccumulateType(a.accumulate, [&](auto t) {
        using T = decltype(t);
        return RunWith(ArgReducer<T, T, true>{}, a);
      });
  }
  return cudaErrorInvalidValue;
}

}  // namespace arrayhub
