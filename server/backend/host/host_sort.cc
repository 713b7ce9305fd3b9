// CpuIndexing's sorts (numpy.sort's order, stable), partitions (numpy.partition, argpartition)
// and scans (numpy.cumsum, numpy.cumprod) over the rows of C-contiguous buffers.
#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "server/backend/host/host_ops.h"
#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/backend/host/host_sort_order.h"
#include "server/backend/host/host_stop.h"
#include "server/backend/host/host_types.h"
#include "server/common/scratch_payer.h"
#include "server/common/status_macros.h"

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

// Sorts and scans run in blocks of this many elements, with a stop point after each.
constexpr int64_t kBlock = int64_t{1} << 16;
// Sorting a block costs about log2(kBlock) steps per element, as much as that many elementwise
// passes: what a sorted block counts towards the next stop point.
constexpr int64_t kSortStepsPerElement = 16;

// The stable merge of the sorted runs [a, a_end) and [b, b_end) into `out`: equal elements of
// the first run come first. A stop point after every kBlock elements written.
template <typename Less>
void MergeRuns(const int64_t* a, const int64_t* a_end, const int64_t* b, const int64_t* b_end,
               int64_t* out, const Less& less) {
  while (a != a_end && b != b_end) {
    for (int64_t k = 0; k < kBlock && a != a_end && b != b_end; ++k) {
      *out++ = less(*b, *a) ? *b++ : *a++;
    }
    host::PollStop(kBlock);
  }
  out = std::copy(a, a_end, out);
  std::copy(b, b_end, out);
}

// `order` (as long as its row) becomes the positions 0..n-1 in the stable order of
// `less`: std::stable_sort on blocks of kBlock, then the sorted runs merged pairwise into
// `spare` and back, their length doubling each pass. This is the merge sort std::stable_sort
// runs itself, cut into pieces between which the call can stop.
template <typename Less>
void StableOrder(std::vector<int64_t>& order, std::vector<int64_t>& spare, const Less& less) {
  const auto n = static_cast<int64_t>(order.size());
  std::iota(order.begin(), order.end(), 0);
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    std::stable_sort(order.begin() + start, order.begin() + end, less);
    host::PollStop((end - start) * kSortStepsPerElement);
  }
  if (n > kBlock) spare.resize(static_cast<size_t>(n));
  for (int64_t width = kBlock; width < n; width *= 2) {
    for (int64_t left = 0; left < n; left += 2 * width) {
      const int64_t middle = std::min(left + width, n), right = std::min(left + 2 * width, n);
      MergeRuns(order.data() + left, order.data() + middle, order.data() + middle,
                order.data() + right, spare.data() + left, less);
    }
    order.swap(spare);
  }
}

// Puts the elements at the positions `kth` (ascending, distinct) of [first, last) where a sort
// by `less` puts them, the others on the right side of each: std::nth_element (introselect,
// linear on average) for the first, then for each next one in the range right of the one
// before, which the earlier selections leave holding exactly the elements that sort after it.
// A stop point after each selection.
template <typename It, typename Less>
void SelectKth(It first, It last, const std::vector<int64_t>& kth, const Less& less) {
  It from = first;
  for (const int64_t k : kth) {
    std::nth_element(from, first + k, last, less);
    host::PollStop((last - from) * 2);
    from = first + k + 1;
  }
}

}  // namespace

absl::Status CpuIndexing::Sort(QueueBinding& queue, const SortCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  try {
    return host::VisitDType(call.input.dtype, [&]<typename T>(host::TypeTag<T>) {
      const auto [rows, n] = RowsOf(call.input);
      const T* input = DataOf<T>(call.input);
      // The permutation and its merge buffer: the call's scratch, paid for by its tenant.
      AH_ASSIGN_OR_RETURN(const std::unique_ptr<ScratchReceipt> receipt,
                          PayForScratch(2 * n * static_cast<int64_t>(sizeof(int64_t))));
      std::vector<int64_t> order(n), spare;
      for (int64_t row = 0; row < rows; ++row) {
        const T* values = input + row * n;
        StableOrder(order, spare,
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
  } catch (const host::Stopped& stopped) {
    return stopped.status;
  }
}

absl::Status CpuIndexing::Partition(QueueBinding& queue, const PartitionCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  try {
    return host::VisitDType(call.input.dtype, [&]<typename T>(host::TypeTag<T>) {
      const auto [rows, n] = RowsOf(call.input);
      const T* input = DataOf<T>(call.input);
      AH_ASSIGN_OR_RETURN(const std::unique_ptr<ScratchReceipt> receipt,
                          PayForScratch(n * static_cast<int64_t>(sizeof(int64_t) + sizeof(T))));
      std::vector<int64_t> order;
      std::unique_ptr<T[]> row_copy;  // Not a vector: T may be bool.
      for (int64_t row = 0; row < rows; ++row) {
        if (!call.indices) {  // Values only: select among the values themselves, in place.
          T* out = DataOf<T>(*call.values) + row * n;
          std::copy(input + row * n, input + (row + 1) * n, out);
          SelectKth(out, out + n, call.kth,
                    [](const T& a, const T& b) { return host::SortLess(a, b); });
          continue;
        }
        // The select compares through positions: the values must hold still (PartitionCall).
        if (row_copy == nullptr) row_copy = std::make_unique_for_overwrite<T[]>(n);
        std::copy(input + row * n, input + (row + 1) * n, row_copy.get());
        const T* values = row_copy.get();
        order.resize(static_cast<size_t>(n));
        std::iota(order.begin(), order.end(), 0);
        SelectKth(order.begin(), order.end(), call.kth,
                  [&](int64_t a, int64_t b) { return host::SortLess(values[a], values[b]); });
        std::copy(order.begin(), order.end(), DataOf<int64_t>(*call.indices) + row * n);
        if (call.values) {
          T* out = DataOf<T>(*call.values) + row * n;
          for (int64_t i = 0; i < n; ++i) out[i] = values[order[i]];
        }
      }
      return absl::OkStatus();
    });
  } catch (const host::Stopped& stopped) {
    return stopped.status;
  }
}

absl::Status CpuIndexing::Scan(QueueBinding& queue, const ScanCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  try {
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
        for (int64_t start = 1; start < n; start += kBlock) {
          const int64_t end = std::min(n, start + kBlock);
          for (int64_t i = start; i < end; ++i) {
            // Each step rounds to T, as NumPy's accumulate loop stores each partial result.
            values[i] =
                static_cast<T>(combine(static_cast<M>(values[i - 1]), static_cast<M>(values[i])));
          }
          host::PollStop(end - start);
        }
      }
      return absl::OkStatus();
    });
  } catch (const host::Stopped& stopped) {
    return stopped.status;
  }
}

}  // namespace arrayhub
