// HostBackend's sorts (numpy.sort's order, stable) and scans (numpy.cumsum, numpy.cumprod) over
// the rows of C-contiguous buffers.
#include <algorithm>
#include <numeric>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/backend/host/host_ops.h"
#include "server/backend/host/host_queue.h"
#include "server/backend/host/host_sort_order.h"
#include "server/backend/host/host_types.h"

namespace arrayhub {
namespace {

template <typename T>
T* DataOf(const ArrayView& view) {
  return reinterpret_cast<T*>(static_cast<std::byte*>(view.buffer->data()) + view.offset_bytes);
}

// Rows and row length of a (rows, n) view, or of a 1-D view as one row.
std::pair<int64_t, int64_t> RowsOf(const ArrayView& view) {
  const int64_t n = view.shape.empty() ? 1 : view.shape.back();
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < view.shape.size(); ++d) rows *= view.shape[d];
  return {rows, n};
}

}  // namespace

absl::Status HostBackend::Sort(const SortCall& call) {
  const HostCall held;
  return host::VisitDType(call.input.dtype, [&]<typename T>(host::TypeTag<T>) {
    const auto [rows, n] = RowsOf(call.input);
    const T* input = DataOf<T>(call.input);
    std::vector<int64_t> order(n);
    for (int64_t row = 0; row < rows; ++row) {
      const T* values = input + row * n;
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return host::SortLess(values[a], values[b]); });
      if (call.values) {
        T* sorted = DataOf<T>(*call.values) + row * n;
        for (int64_t i = 0; i < n; ++i) sorted[i] = values[order[i]];
      }
      if (call.indices)
        std::copy(order.begin(), order.end(), DataOf<int64_t>(*call.indices) + row * n);
    }
    return absl::OkStatus();
  });
}

absl::Status HostBackend::Scan(const ScanCall& call) {
  const HostCall held;
  return host::VisitDType(call.data.dtype, [&]<typename T>(host::TypeTag<T>) {
    using M = host::MathType<T>;
    const auto [rows, n] = RowsOf(call.data);
    T* data = DataOf<T>(call.data);
    auto combine = [&](M a, M b) -> M {
      if constexpr (std::is_same_v<T, bool>) {
        return call.op == ScanOp::kSum ? (a || b) : (a && b);  // Core never sends bool.
      } else if constexpr (host::kIsInteger<T>) {
        return call.op == ScanOp::kSum ? host::WrapAdd(a, b) : host::WrapMultiply(a, b);
      } else if constexpr (host::kIsComplex<T>) {
        return call.op == ScanOp::kSum ? a + b : host::ComplexMultiply(a, b);
      } else {
        return call.op == ScanOp::kSum ? a + b : a * b;
      }
    };
    for (int64_t row = 0; row < rows; ++row) {
      T* values = data + row * n;
      for (int64_t i = 1; i < n; ++i) {
        // Each step rounds to T, as NumPy's accumulate loop stores each partial result.
        values[i] =
            static_cast<T>(combine(static_cast<M>(values[i - 1]), static_cast<M>(values[i])));
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace arrayhub
