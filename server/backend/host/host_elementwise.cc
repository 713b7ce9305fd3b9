// CpuCompute::Elementwise and FusedElementwise (one step at a time, fused_steps.h), and the
// strided casts the whole host backend shares.
//
// A call runs as NumPy's buffered iterator does: the loop nest is coalesced, and each row is
// processed in chunks of kChunk elements. An operand already stored contiguously in the loop
// dtype is read in place; any other (another dtype, strided, broadcast, a scalar, bool bytes
// to normalize) is first converted into a small contiguous buffer. The op itself therefore only
// ever runs over contiguous arrays of its own types, one instantiation per (op, loop dtype),
// and casting costs one instantiation per dtype pair instead of multiplying the op loops.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <complex>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "server/backend/fused_steps.h"
#include "server/backend/host/host_cast.h"
#include "server/backend/host/host_ops.h"
#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/backend/host/host_stop.h"
#include "server/backend/host/host_types.h"
#include "server/backend/host/strided_index.h"
#include "server/common/ops.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace host {

// ---------------------------------------------------------------------------------------------
// Casts

template <typename From, typename To>
void CastLoop(int64_t n, const std::byte* src, int64_t src_stride, std::byte* dst,
              int64_t dst_stride) {
  const auto run = [&](auto src_step, auto dst_step) {
    for (int64_t i = 0; i < n; ++i) {
      StoreElement(dst + i * dst_step, Convert<To>(LoadElement<From>(src + i * src_step)));
    }
  };
  // Compile-time steps let the compiler vectorize the contiguous case.
  if (src_stride == sizeof(From) && dst_stride == sizeof(To)) {
    run(std::integral_constant<int64_t, sizeof(From)>{},
        std::integral_constant<int64_t, sizeof(To)>{});
  } else {
    run(src_stride, dst_stride);
  }
}

CastFn FindCast(DType from, DType to) {
  return VisitDType(from, [to](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    return VisitDType(
        to, [](auto to_tag) -> CastFn { return &CastLoop<From, typename decltype(to_tag)::type>; });
  });
}

namespace {

// ---------------------------------------------------------------------------------------------
// Kernels: one op over contiguous operands of its own types.

// out[i] = op(in[0][i], in[1][i], ...) for i in [0, n).
using KernelFn = void (*)(int64_t n, const std::byte* const* in, std::byte* out);

struct Kernel {
  KernelFn run = nullptr;  // Null when ufuncs.def gives the op no loop of this dtype.
  size_t arity = 0;
  DType result = DType::kBool;
  std::array<DType, 3> inputs{};  // The dtype each operand is read as.
};

template <typename Op, typename T, size_t K>
using InputOf = typename Op::template Input<T, K>;

template <typename T>
MathType<T> ToMath(T x) {
  return static_cast<MathType<T>>(x);
}

// What the loop stores: a float16 loop rounds its float results back to half, once.
template <typename Op, typename T, typename Indices>
struct ResultOf;
template <typename Op, typename T, size_t... K>
struct ResultOf<Op, T, std::index_sequence<K...>> {
  using Math = decltype(Op::Apply(std::declval<MathType<InputOf<Op, T, K>>>()...));
  using type =
      std::conditional_t<std::is_same_v<T, Half> && std::is_same_v<Math, float>, Half, Math>;
};
template <typename Op, typename T, size_t kArity>
using StoredResult = typename ResultOf<Op, T, std::make_index_sequence<kArity>>::type;

template <typename Op, typename T, size_t... K>
void RunContiguous(int64_t n, const std::byte* const* in, std::byte* out,
                   std::index_sequence<K...>) {
  using R = StoredResult<Op, T, sizeof...(K)>;
  const std::tuple<const InputOf<Op, T, K>*...> inputs{
      reinterpret_cast<const InputOf<Op, T, K>*>(in[K])...};
  R* result = reinterpret_cast<R*>(out);
  for (int64_t i = 0; i < n; ++i) {
    result[i] = static_cast<R>(Op::Apply(ToMath(std::get<K>(inputs)[i])...));
  }
}

template <typename Op, typename T, size_t kArity>
void RunKernel(int64_t n, const std::byte* const* in, std::byte* out) {
  RunContiguous<Op, T>(n, in, out, std::make_index_sequence<kArity>{});
}

// The kernel of functor Op with kArity operands for loop type T; none unless kHasLoop.
template <typename Op, typename T, size_t kArity, bool kHasLoop>
Kernel MakeKernel() {
  if constexpr (!kHasLoop) {
    return {};
  } else {
    Kernel kernel{.run = &RunKernel<Op, T, kArity>,
                  .arity = kArity,
                  .result = DTypeOf<StoredResult<Op, T, kArity>>()};
    [&]<size_t... K>(std::index_sequence<K...>) {
      ((kernel.inputs[K] = DTypeOf<InputOf<Op, T, K>>()), ...);
    }
    (std::make_index_sequence<kArity>{});
    return kernel;
  }
}

// Every op's kernel for loop type T, as ufuncs.def declares it.
template <typename T>
Kernel KernelFor(ElementwiseOp op) {
  switch (op) {
#define AH_UFUNC(enumerator, name, numpy, arity, kinds, host_functor, ...) \
  case ElementwiseOp::k##enumerator:                                       \
    return MakeKernel<host_functor, T, arity, InKinds<T>(kinds)>();
#include "server/common/ufuncs.def"
#undef AH_UFUNC
  }
  return {};
}

Kernel FindKernel(ElementwiseOp op, DType loop_dtype) {
  return VisitDType(loop_dtype,
                    [op](auto tag) { return KernelFor<typename decltype(tag)::type>(op); });
}

// ---------------------------------------------------------------------------------------------
// The chunked loop

constexpr int64_t kChunk = 1024;
constexpr size_t kMaxOperands = 3;
constexpr size_t kArrays = kMaxOperands + 1;  // Operands, then the output.
constexpr size_t kOutput = kMaxOperands;

// Room for one chunk of any element type, aligned for all of them. Left uninitialised: every
// element is written before it is read, and zeroing 16 KiB would cost more than a small call's
// whole loop.
class ChunkBuffer {
 public:
  std::byte* data() { return storage_[0].bytes; }

 private:
  struct alignas(std::complex<double>) Element {
    std::byte bytes[sizeof(std::complex<double>)];
  };
  std::unique_ptr<Element[]> storage_ = std::make_unique_for_overwrite<Element[]>(kChunk);
};

// Where the kernel reads one operand's chunk from.
class OperandSource {
 public:
  // An array operand: read in place when already contiguous in the loop dtype (bool bytes
  // always go through the cast, which normalizes them to 0/1); else converted per chunk.
  OperandSource(const std::byte* base, DType stored, DType loop, int64_t inner_stride)
      : base_(base), loop_item_size_(ItemSize(loop)) {
    if (stored != loop || loop == DType::kBool || inner_stride != loop_item_size_) {
      gather_ = FindCast(stored, loop);
      buffer_.emplace();
    }
  }

  // A scalar operand: converted once, repeated over the longest chunk (`longest` elements).
  OperandSource(const ElementBytes& scalar, DType stored, DType loop, int64_t longest)
      : loop_item_size_(ItemSize(loop)), buffer_(std::in_place) {
    FindCast(stored, loop)(longest, scalar.data(), 0, buffer_->data(), loop_item_size_);
    base_ = buffer_->data();
    fixed_ = true;
  }

  // The n contiguous loop-dtype elements starting at byte `offset`, `stride` bytes apart.
  const std::byte* Chunk(int64_t offset, int64_t stride, int64_t n) {
    if (fixed_) return base_;
    if (gather_ == nullptr) return base_ + offset;
    gather_(n, base_ + offset, stride, buffer_->data(), loop_item_size_);
    return buffer_->data();
  }

 private:
  const std::byte* base_ = nullptr;
  int64_t loop_item_size_;
  CastFn gather_ = nullptr;
  bool fixed_ = false;
  std::optional<ChunkBuffer> buffer_;
};

std::byte* BaseOf(const ArrayView& view) {
  return static_cast<std::byte*>(view.buffer->data()) + view.offset_bytes;
}

std::vector<int64_t> ByteStrides(const ArrayView& view) {
  std::vector<int64_t> strides = view.strides;
  for (int64_t& stride : strides) stride *= ItemSize(view.dtype);
  return strides;
}

// The kernel exists: KernelFor makes one for every loop of ufuncs.def's kinds, which is what
// CheckLoopExists accepted.
absl::Status CheckKernel(const ElementwiseCall& call, const Kernel& kernel) {
  if (kernel.result != call.result_dtype || kernel.arity != call.operands.size()) {
    return absl::InternalError(fmt::format(
        "{} on {}: the call's result dtype {} and {} operands do not match the loop's {} and {}",
        OpName(call.op), DTypeName(call.compute_dtype), DTypeName(call.result_dtype),
        call.operands.size(), DTypeName(kernel.result), kernel.arity));
  }
  return absl::OkStatus();
}

absl::Status RunElementwise(const ElementwiseCall& call) {
  AH_RETURN_IF_ERROR(CheckLoopExists(call.op, call.compute_dtype));
  const Kernel kernel = FindKernel(call.op, call.compute_dtype);
  if (absl::Status status = CheckKernel(call, kernel); !status.ok()) return status;
  if (std::find(call.shape.begin(), call.shape.end(), 0) != call.shape.end()) {
    return absl::OkStatus();
  }

  // Byte strides over the call's shape: scalars repeat one element, absent operands stay 0.
  const size_t arity = kernel.arity;
  const std::vector<int64_t> zeros(call.shape.size(), 0);
  std::array<std::vector<int64_t>, kArrays> strides;
  std::array<std::span<const int64_t>, kArrays> stride_spans;
  for (size_t k = 0; k < kArrays; ++k) {
    const ElementwiseOperand* operand = k < arity ? &call.operands[k] : nullptr;
    if (k == kOutput) {
      strides[k] = ByteStrides(call.output);
    } else if (operand != nullptr && operand->array) {
      strides[k] = ByteStrides(*operand->array);
    } else {
      strides[k] = zeros;
    }
    stride_spans[k] = strides[k];
  }
  const StridedLoop<kArrays> loop = Coalesce<kArrays>(call.shape, stride_spans);

  std::vector<OperandSource> sources;
  sources.reserve(arity);
  for (size_t k = 0; k < arity; ++k) {
    const ElementwiseOperand& operand = call.operands[k];
    if (operand.array) {
      sources.emplace_back(BaseOf(*operand.array), operand.dtype, kernel.inputs[k],
                           loop.inner_stride(k));
    } else {
      sources.emplace_back(operand.scalar, operand.dtype, kernel.inputs[k],
                           std::min(kChunk, loop.inner_size()));
    }
  }

  // The result goes straight to the output when it has the output's dtype and layout, else
  // through a chunk buffer and a cast.
  std::byte* const output = BaseOf(call.output);
  const int64_t output_stride = loop.inner_stride(kOutput);
  const int64_t result_size = ItemSize(kernel.result);
  const bool direct_output = call.output.dtype == kernel.result && output_stride == result_size;
  const CastFn scatter = direct_output ? nullptr : FindCast(kernel.result, call.output.dtype);
  std::optional<ChunkBuffer> result_buffer;
  if (!direct_output) result_buffer.emplace();

  const int64_t inner = loop.inner_size();
  ForEachRow(loop, [&](const std::array<int64_t, kArrays>& offsets, int64_t) {
    for (int64_t start = 0; start < inner; start += kChunk) {
      const int64_t n = std::min(kChunk, inner - start);
      std::array<const std::byte*, kMaxOperands> in{};
      for (size_t k = 0; k < arity; ++k) {
        const int64_t stride = loop.inner_stride(k);
        in[k] = sources[k].Chunk(offsets[k] + start * stride, stride, n);
      }
      std::byte* const out = output + offsets[kOutput] + start * output_stride;
      kernel.run(n, in.data(), direct_output ? out : result_buffer->data());
      if (scatter != nullptr) scatter(n, result_buffer->data(), result_size, out, output_stride);
      PollStop(n);
    }
  });
  return absl::OkStatus();
}

}  // namespace
}  // namespace host

absl::Status CpuCompute::Elementwise(QueueBinding& queue, const ElementwiseCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::RunStoppable("an elementwise operation", [&] { return host::RunElementwise(call); });
}

absl::Status CpuCompute::FusedElementwise(QueueBinding& queue, const FusedElementwiseCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return RunFusedStepByStep(memory_, *this, queue, call);
}

}  // namespace arrayhub
