// CpuIndexing's gathers, scatters, nonzero and searchsorted (indexing.h). Elements move as raw
// bytes of their item size; only searchsorted looks at values, through numpy.sort's order.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "server/backend/host/host_ops.h"
#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/backend/host/host_sort_order.h"
#include "server/backend/host/host_stop.h"
#include "server/backend/host/host_types.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

std::byte* BytesOf(const ArrayView& view) {
  return static_cast<std::byte*>(view.buffer->data()) + view.offset_bytes;
}

// Visits every position of `shape` in C order with the byte offsets of several views that
// share that shape: visit(offsets) where offsets[k] belongs to views[k].
template <typename F>
void ForEachPosition(const Shape& shape, const std::vector<const ArrayView*>& views, F&& visit) {
  for (int64_t extent : shape) {
    if (extent == 0) return;
  }
  const size_t rank = shape.size();
  const size_t count = views.size();
  std::vector<int64_t> index(rank, 0);
  std::vector<int64_t> offsets(count, 0);
  while (true) {
    visit(offsets);
    size_t d = rank;
    while (true) {
      if (d == 0) return;
      --d;
      if (++index[d] < shape[d]) {
        for (size_t k = 0; k < count; ++k) {
          offsets[k] += views[k]->strides[d] * ItemSize(views[k]->dtype);
        }
        break;
      }
      for (size_t k = 0; k < count; ++k) {
        offsets[k] -= views[k]->strides[d] * ItemSize(views[k]->dtype) * (shape[d] - 1);
      }
      index[d] = 0;
    }
  }
}

absl::Status OutOfBounds(int64_t index, const IndexOperand& operand) {
  return absl::InvalidArgumentError(fmt::format(
      "index {} is out of bounds for axis {} with size {}", index, operand.axis, operand.extent));
}

// The byte offset that the index operands add at one position, every index read once and
// checked where it is used: an index another call rewrote since an earlier pass is caught here,
// never followed out of the array.
absl::StatusOr<int64_t> IndexedOffset(const std::vector<IndexOperand>& indices,
                                      const std::vector<int64_t>& offsets, int64_t itemsize) {
  int64_t offset = 0;
  for (size_t k = 0; k < indices.size(); ++k) {
    int64_t index;
    std::memcpy(&index, BytesOf(indices[k].indices) + offsets[1 + k], sizeof index);
    if (index < -indices[k].extent || index >= indices[k].extent) {
      return OutOfBounds(index, indices[k]);
    }
    if (index < 0) index += indices[k].extent;
    offset += index * indices[k].stride * itemsize;
  }
  return offset;
}

// For every position of `data`'s shape in C order, until one fails: visit(data_byte_offset,
// other_offsets), the data offset moved by the index operands. `others` are walked alongside.
template <typename F>
absl::Status ForEachIndexed(const ArrayView& data, const std::vector<IndexOperand>& indices,
                            const std::vector<const ArrayView*>& others, F&& visit) {
  std::vector<const ArrayView*> views = {&data};
  for (const IndexOperand& operand : indices) views.push_back(&operand.indices);
  for (const ArrayView* other : others) views.push_back(other);
  const size_t first_other = 1 + indices.size();
  const int64_t itemsize = ItemSize(data.dtype);

  absl::Status status = absl::OkStatus();
  ForEachPosition(data.shape, views, [&](const std::vector<int64_t>& offsets) {
    if (!status.ok()) return;
    absl::StatusOr<int64_t> moved = IndexedOffset(indices, offsets, itemsize);
    if (!moved.ok()) {
      status = moved.status();
      return;
    }
    visit(offsets[0] + *moved, std::span(offsets).subspan(first_other));
  });
  return status;
}

absl::Status AssignInto(const ScatterCall& call) {
  const int64_t itemsize = ItemSize(call.target.dtype);
  std::byte* target = BytesOf(call.target);
  const std::byte* values = BytesOf(call.values);
  return ForEachIndexed(call.target, call.indices, {&call.values},
                        [&](int64_t offset, std::span<const int64_t> others) {
                          std::memcpy(target + offset, values + others[0], itemsize);
                        });
}

// target = Op(target, value) at each destination in turn, in the loop's math type (float16
// rounds back to half after each step, as NumPy's float16 loops).
template <typename Op, typename T>
absl::Status CombineWith(const ScatterCall& call) {
  std::byte* target = BytesOf(call.target);
  const std::byte* values = BytesOf(call.values);
  return ForEachIndexed(call.target, call.indices, {&call.values},
                        [&](int64_t offset, std::span<const int64_t> others) {
                          T element;
                          T value;
                          std::memcpy(&element, target + offset, sizeof element);
                          std::memcpy(&value, values + others[0], sizeof value);
                          element =
                              static_cast<T>(Op::Apply(static_cast<host::MathType<T>>(element),
                                                       static_cast<host::MathType<T>>(value)));
                          std::memcpy(target + offset, &element, sizeof element);
                        });
}

absl::Status CombineInto(const ScatterCall& call, ElementwiseOp op) {
  return host::VisitDType(call.target.dtype, [&]<typename T>(host::TypeTag<T>) -> absl::Status {
    constexpr host::Ties kTies = host::kTiesOf<T>;
    switch (op) {
      case ElementwiseOp::kAdd:
        return CombineWith<host::Add, T>(call);
      case ElementwiseOp::kSubtract:
        if constexpr (!std::is_same_v<T, bool>) return CombineWith<host::Subtract, T>(call);
        break;
      case ElementwiseOp::kMultiply:
        return CombineWith<host::Multiply, T>(call);
      case ElementwiseOp::kMaximum:
        return CombineWith<host::Maximum<kTies>, T>(call);
      case ElementwiseOp::kMinimum:
        return CombineWith<host::Minimum<kTies>, T>(call);
      case ElementwiseOp::kFmax:
        return CombineWith<host::Fmax<kTies>, T>(call);
      case ElementwiseOp::kFmin:
        return CombineWith<host::Fmin<kTies>, T>(call);
      default:  // Refused before anything was written (ScatterCombines).
        break;
    }
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status CpuIndexing::Gather(QueueBinding& queue, const GatherCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  // The output is the call's own new array: a failure part way leaves only it written, and
  // core frees it.
  const int64_t itemsize = ItemSize(call.source.dtype);
  const std::byte* source = BytesOf(call.source);
  std::byte* output = BytesOf(call.output);
  int64_t position = 0;
  return ForEachIndexed(call.source, call.indices, {},
                        [&](int64_t offset, std::span<const int64_t>) {
                          std::memcpy(output + position * itemsize, source + offset, itemsize);
                          ++position;
                        });
}

absl::Status CpuIndexing::Scatter(QueueBinding& queue, const ScatterCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  if (call.combine && !ScatterCombines(*call.combine, call.target.dtype)) {
    return absl::InvalidArgumentError(fmt::format("a scatter cannot combine with {} of {}",
                                                  OpName(*call.combine),
                                                  DTypeName(call.target.dtype)));
  }
  // Every index is checked before anything is written, so that a bad one leaves the target
  // unchanged. The writing pass reads and checks each index again where it uses it: the
  // call's locks keep the index arrays still between the passes (host_queue.h), and if
  // anything ever wrote them regardless, the write stops at the changed index instead of
  // landing outside the target.
  AH_RETURN_IF_ERROR(
      ForEachIndexed(call.target, call.indices, {}, [](int64_t, std::span<const int64_t>) {}));
  // Sequential in C order: a later duplicate overwrites an earlier one (assignment) or is
  // combined after it (ufunc.at), as NumPy.
  const absl::Status written = call.combine ? CombineInto(call, *call.combine) : AssignInto(call);
  if (!written.ok()) {
    return absl::AbortedError(fmt::format(
        "the index arrays changed while the assignment ran (another call wrote them), and it "
        "stopped part way: {}",
        std::string(written.message())));
  }
  return absl::OkStatus();
}

namespace {

// Calls visit(is_nonzero) for every element of `input` in C order.
template <typename F>
void ForEachTruth(const ArrayView& input, F&& visit) {
  host::VisitDType(input.dtype, [&]<typename T>(host::TypeTag<T>) {
    const std::byte* data = BytesOf(input);
    ForEachPosition(input.shape, {&input}, [&](const std::vector<int64_t>& offsets) {
      T value;
      std::memcpy(&value, data + offsets[0], sizeof value);
      visit(value != T(0));  // -0.0 is zero; NaN and a nonzero imaginary part are not.
    });
  });
}

}  // namespace

absl::StatusOr<int64_t> CpuIndexing::CountNonzero(QueueBinding& queue, const ArrayView& input) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  int64_t count = 0;
  ForEachTruth(input, [&](bool nonzero) { count += nonzero; });
  return count;
}

absl::StatusOr<int64_t> CpuIndexing::Nonzero(QueueBinding& queue, const NonzeroCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  const size_t rank = call.input.shape.size();
  // Never more positions than the coordinates hold, whatever the input holds now.
  const int64_t capacity = call.coordinates.empty() ? 0 : call.coordinates[0].shape.at(0);
  std::vector<int64_t> index(rank, 0);
  int64_t found = 0;
  ForEachTruth(call.input, [&](bool nonzero) {
    if (nonzero && found < capacity) {
      for (size_t d = 0; d < rank; ++d) {
        std::memcpy(BytesOf(call.coordinates[d]) + found * sizeof(int64_t), &index[d],
                    sizeof(int64_t));
      }
    }
    found += nonzero;
    for (size_t d = rank; d-- > 0;) {  // The next C-order multi-index.
      if (++index[d] < call.input.shape[d]) break;
      index[d] = 0;
    }
  });
  return found;
}

absl::Status CpuIndexing::SearchSorted(QueueBinding& queue, const SearchSortedCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::VisitDType(call.sorted.dtype, [&]<typename T>(host::TypeTag<T>) {
    const std::byte* sorted = BytesOf(call.sorted);
    const int64_t n = call.sorted.shape[0];
    const int64_t step = call.sorted.strides[0] * static_cast<int64_t>(sizeof(T));
    auto element = [&](int64_t i) {
      T value;
      std::memcpy(&value, sorted + i * step, sizeof value);
      return value;
    };
    const std::byte* values = BytesOf(call.values);
    auto* output = reinterpret_cast<int64_t*>(BytesOf(call.output));
    int64_t position = 0;
    ForEachPosition(call.output.shape, {&call.values}, [&](const std::vector<int64_t>& offsets) {
      T value;
      std::memcpy(&value, values + offsets[0], sizeof value);
      // Left: the first i with !(sorted[i] < value); right: the first i with value < sorted[i].
      int64_t low = 0, high = n;
      while (low < high) {
        const int64_t middle = low + (high - low) / 2;
        const bool before = call.right ? !host::SortLess(value, element(middle))
                                       : host::SortLess(element(middle), value);
        if (before) {
          low = middle + 1;
        } else {
          high = middle;
        }
      }
      output[position++] = low;
    });
    return absl::OkStatus();
  });
}

absl::StatusOr<int64_t> CpuIndexing::SelectUnique(QueueBinding& queue, const UniqueCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  int64_t count = 0;
  const absl::Status status = host::RunStoppable("unique", [&] {
    return host::VisitDType(call.sorted.dtype, [&]<typename T>(host::TypeTag<T>) {
      const T* sorted = reinterpret_cast<const T*>(BytesOf(call.sorted));
      T* output = reinterpret_cast<T*>(BytesOf(call.output));
      const int64_t n = call.sorted.shape.at(0);
      constexpr int64_t kChunk = int64_t{1} << 16;
      for (int64_t start = 0; start < n; start += kChunk) {
        for (int64_t i = start; i < std::min(n, start + kChunk); ++i) {
          if (i == 0 || !host::UniqueEqual(sorted[i - 1], sorted[i])) output[count++] = sorted[i];
        }
        host::PollStop(kChunk);
      }
      return absl::OkStatus();
    });
  });
  AH_RETURN_IF_ERROR(status);
  return count;
}

absl::Status CpuIndexing::Histogram(QueueBinding& queue, const HistogramCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  const int64_t bins = call.counts.shape[0];
  // The edges are read once: another call may write them meanwhile.
  std::vector<double> edges(static_cast<size_t>(bins + 1));
  std::memcpy(edges.data(), BytesOf(call.edges), edges.size() * sizeof(double));
  std::vector<int64_t> counts(static_cast<size_t>(bins), 0);
  int64_t count = 1;
  for (const int64_t extent : call.input.shape) count *= extent;
  host::VisitDType(call.input.dtype, [&]<typename T>(host::TypeTag<T>) {
    if constexpr (!host::kIsComplex<T>) {
      const std::byte* input = BytesOf(call.input);
      for (int64_t i = 0; i < count; ++i) {
        T stored;
        std::memcpy(&stored, input + i * static_cast<int64_t>(sizeof(T)), sizeof stored);
        const auto x = static_cast<double>(stored);
        // NaN fails both comparisons.
        if (!(x >= edges.front() && x <= edges.back())) continue;
        // The last i with edges[i] <= x, within [0, bins - 1] whatever the edges hold.
        int64_t low = 0, high = bins;
        while (high - low > 1) {
          const int64_t middle = low + (high - low) / 2;
          if (edges[static_cast<size_t>(middle)] <= x) {
            low = middle;
          } else {
            high = middle;
          }
        }
        ++counts[static_cast<size_t>(low)];
      }
    }
  });
  std::memcpy(BytesOf(call.counts), counts.data(), counts.size() * sizeof(int64_t));
  return absl::OkStatus();
}

}  // namespace arrayhub
