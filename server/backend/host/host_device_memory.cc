// CpuMemory: 64-byte-aligned host memory, its fills and copies.
#include <Imath/half.h>
#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <new>

#include "server/backend/host/host_memory.h"
#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/backend/host/host_types.h"
#include "server/common/float16.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {
constexpr int64_t kAlignment = 64;  // A cache line, and enough for any SIMD load.
}  // namespace

// Its bytes are added to the counters before it is made (CpuMemory::Allocate).
class CpuMemory::HostBuffer final : public HostQueuedBuffer {
 public:
  HostBuffer(void* data, int64_t size, std::shared_ptr<HostQueue> home,
             std::shared_ptr<MemoryCounters> counters)
      : HostQueuedBuffer(data, size, std::move(home)), counters_(std::move(counters)) {
    NoteHostMemoryAllocated(size);
  }
  ~HostBuffer() override {
    std::free(data());
    counters_->Remove(size());
    NoteHostMemoryFreed(size());
  }

 private:
  std::shared_ptr<MemoryCounters> counters_;
};

absl::StatusOr<std::shared_ptr<Buffer>> CpuMemory::Allocate(QueueBinding& queue, int64_t nbytes) {
  AH_ASSIGN_OR_RETURN(const HostQueueBinding* const binding, HostBindingOf(queue));
  // aligned_alloc wants a multiple of the alignment, and at least one byte so that the
  // pointer is never null.
  // Counted before it is allocated, and refused past the limit: malloc would hand out memory
  // the host does not have (it is only virtual until written).
  if (!counters_->TryAdd(nbytes, limit_)) {
    return absl::ResourceExhaustedError(fmt::format(
        "out of host memory allocating {} bytes: arrays hold {} of the {} bytes this host can "
        "give them",
        nbytes, counters_->Snapshot().bytes_in_use, limit_));
  }
  const int64_t rounded =
      std::max<int64_t>(kAlignment, (nbytes + kAlignment - 1) / kAlignment * kAlignment);
  void* data = std::aligned_alloc(kAlignment, static_cast<size_t>(rounded));
  if (data == nullptr) {
    counters_->Remove(nbytes);
    return absl::ResourceExhaustedError(
        fmt::format("out of host memory allocating {} bytes", nbytes));
  }
  return std::make_shared<HostBuffer>(data, nbytes, binding->queue(), counters_);
}

absl::Status CpuMemory::FillPattern(QueueBinding& queue, Buffer& buffer, int64_t offset,
                                    int64_t count, int64_t stride_bytes,
                                    std::span<const std::byte> pattern) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  auto* base = static_cast<std::byte*>(buffer.data()) + offset;
  const bool all_zero =
      std::all_of(pattern.begin(), pattern.end(), [](std::byte b) { return b == std::byte{0}; });
  if (all_zero && stride_bytes == static_cast<int64_t>(pattern.size())) {
    std::memset(base, 0, static_cast<size_t>(count * stride_bytes));
    return absl::OkStatus();
  }
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(base + i * stride_bytes, pattern.data(), pattern.size());
  }
  return absl::OkStatus();
}

namespace {

// arange: the sequence in T's own arithmetic, as NumPy's per-dtype fill functions do.
template <typename T, typename Math = T>
void FillNative(T* out, const AffineFill& fill) {
  const Math start = static_cast<Math>(fill.start.real());
  const Math step = static_cast<Math>(fill.step.real());
  for (int64_t i = 0; i < fill.count; ++i) {
    out[i] = static_cast<T>(start + static_cast<Math>(i) * step);
  }
}

template <typename T>
void FillInteger(T* out, const AffineFill& fill) {
  // Unsigned arithmetic wraps by definition; truncating to T then keeps the low bits, which is
  // NumPy's wrap-around.
  const auto start = static_cast<uint64_t>(fill.int_start);
  const auto step = static_cast<uint64_t>(fill.int_step);
  for (int64_t i = 0; i < fill.count; ++i) {
    out[i] = static_cast<T>(start + static_cast<uint64_t>(i) * step);
  }
}

// linspace: computed in float64, then rounded (floored for integers) to T.
template <typename T>
void FillFromDouble(T* out, const AffineFill& fill) {
  for (int64_t i = 0; i < fill.count; ++i) {
    double v = static_cast<double>(i) * fill.step.real() + fill.start.real();
    if constexpr (std::is_integral_v<T>) v = std::floor(v);
    if constexpr (std::is_same_v<T, Imath::half>) {
      out[i] = HalfFromDouble(v);
    } else {
      out[i] = static_cast<T>(v);
    }
  }
}

template <typename C>
void FillComplex(C* out, const AffineFill& fill) {
  using R = typename C::value_type;
  if (fill.float64_math) {
    for (int64_t i = 0; i < fill.count; ++i) {
      out[i] = C(static_cast<double>(i) * fill.step + fill.start);
    }
    return;
  }
  const C start(fill.start);
  const C step(fill.step);
  for (int64_t i = 0; i < fill.count; ++i) out[i] = start + static_cast<R>(i) * step;
}

// The values of `fill` as T, in NumPy's arithmetic for T.
template <typename T>
void FillTyped(void* data, const AffineFill& fill) {
  T* out = static_cast<T*>(data);
  if constexpr (std::is_same_v<T, bool>) {
    // Only reachable through linspace (core rejects arange for bool): a value is True when
    // either part is nonzero, as NumPy's complex -> bool cast.
    for (int64_t i = 0; i < fill.count; ++i) {
      out[i] = (static_cast<double>(i) * fill.step + fill.start) != 0.0;
    }
  } else if constexpr (host::kIsComplex<T>) {
    FillComplex(out, fill);
  } else if (fill.float64_math) {
    FillFromDouble(out, fill);
  } else if constexpr (std::is_same_v<T, host::Half>) {
    FillNative<host::Half, float>(out, fill);  // NumPy's HALF_fill works in float.
  } else if constexpr (std::is_integral_v<T>) {
    FillInteger(out, fill);
  } else {
    FillNative(out, fill);
  }
}

}  // namespace

absl::Status CpuMemory::FillAffine(QueueBinding& queue, Buffer& buffer, const AffineFill& fill) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  host::VisitDType(fill.dtype,
                   [&](auto tag) { FillTyped<typename decltype(tag)::type>(buffer.data(), fill); });
  return absl::OkStatus();
}

absl::Status CpuMemory::CopyFromHost(QueueBinding& queue, Buffer& buffer, int64_t offset,
                                     std::span<const std::byte> source) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  if (source.empty()) return absl::OkStatus();  // An empty span's data() may be null.
  std::memcpy(static_cast<std::byte*>(buffer.data()) + offset, source.data(), source.size());
  return absl::OkStatus();
}

absl::Status CpuMemory::CopyToHost(QueueBinding& queue, const Buffer& buffer, int64_t offset,
                                   std::span<std::byte> destination) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  if (destination.empty()) return absl::OkStatus();
  std::memcpy(destination.data(), static_cast<const std::byte*>(buffer.data()) + offset,
              destination.size());
  return absl::OkStatus();
}

absl::Status CpuMemory::CopyFromDevice(QueueBinding& queue, Buffer& target, int64_t target_offset,
                                       const Buffer& source, int64_t source_offset,
                                       int64_t nbytes) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  if (nbytes == 0) return absl::OkStatus();
  // Every virtual device's memory is host memory; memmove, as the source may be the target.
  std::memmove(static_cast<std::byte*>(target.data()) + target_offset,
               static_cast<const std::byte*>(source.data()) + source_offset,
               static_cast<size_t>(nbytes));
  return absl::OkStatus();
}

}  // namespace arrayhub
