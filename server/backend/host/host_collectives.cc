// The CPU backend's collectives (collectives.h). Every virtual device's memory is host memory,
// so a collective is loops over the ranks' buffers, run as one critical section over every
// queue whose buffers it touches (host_queue.h): no rank's session sees it half done, as none
// sees NCCL's ranks apart on the GPU.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/backend/host/host_types.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

using host::Half;
using host::kIsComplex;
using host::kIsInteger;
using host::TypeTag;

std::byte* At(const std::shared_ptr<Buffer>& buffer, int64_t offset) {
  return static_cast<std::byte*>(buffer->data()) + offset;
}

// a (op) b as NCCL computes it: integers wrap, floating values in their own precision (float16
// rounded at each step), min and max of bool as logical and/or. Min and max ignore NaN unless
// both are NaN, as NCCL's kernels do (numpy.fmin/fmax; measured on H100s, docs/devices.md).
template <typename T>
T Combine(CollectiveReduction reduction, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return reduction == CollectiveReduction::kMin ? (a && b) : (a || b);
  } else if constexpr (kIsComplex<T>) {
    return a + b;  // Core lets complex reach only the sum and the average.
  } else if constexpr (kIsInteger<T>) {
    // In unsigned arithmetic (no smaller than unsigned int), where overflow wraps.
    using Wide = decltype(std::make_unsigned_t<T>{} + 0u);
    switch (reduction) {
      case CollectiveReduction::kProd:
        return static_cast<T>(static_cast<Wide>(a) * static_cast<Wide>(b));
      case CollectiveReduction::kMin:
        return std::min(a, b);
      case CollectiveReduction::kMax:
        return std::max(a, b);
      case CollectiveReduction::kSum:
      case CollectiveReduction::kAvg:
        break;
    }
    return static_cast<T>(static_cast<Wide>(a) + static_cast<Wide>(b));
  } else {
    using Math = std::conditional_t<std::is_same_v<T, Half>, float, T>;
    const Math x = static_cast<Math>(a);
    const Math y = static_cast<Math>(b);
    switch (reduction) {
      case CollectiveReduction::kProd:
        return static_cast<T>(x * y);
      case CollectiveReduction::kMin:
        return std::isnan(y) || x <= y ? a : b;
      case CollectiveReduction::kMax:
        return std::isnan(y) || x >= y ? a : b;
      case CollectiveReduction::kSum:
      case CollectiveReduction::kAvg:
        break;
    }
    return static_cast<T>(x + y);
  }
}

// target[i] = (op over ranks r) sources[r][i] for i < count, in rank order; the average divides
// the sum by the number of ranks at the end.
template <typename T>
void ReduceInto(CollectiveReduction reduction, const std::vector<const std::byte*>& sources,
                std::byte* target, int64_t count) {
  const size_t bytes = static_cast<size_t>(count) * sizeof(T);
  std::memcpy(target, sources.front(), bytes);
  T* out = reinterpret_cast<T*>(target);
  for (size_t r = 1; r < sources.size(); ++r) {
    const T* in = reinterpret_cast<const T*>(sources[r]);
    for (int64_t i = 0; i < count; ++i) out[i] = Combine(reduction, out[i], in[i]);
  }
  if constexpr (!std::is_same_v<T, bool> && !kIsInteger<T>) {
    if (reduction != CollectiveReduction::kAvg) return;
    const auto ranks = static_cast<double>(sources.size());
    for (int64_t i = 0; i < count; ++i) {
      if constexpr (kIsComplex<T>) {
        out[i] /= static_cast<typename T::value_type>(ranks);
      } else if constexpr (std::is_same_v<T, Half>) {
        out[i] = static_cast<Half>(static_cast<float>(out[i]) / static_cast<float>(ranks));
      } else {
        out[i] /= static_cast<T>(ranks);
      }
    }
  }
}

void ReduceRanks(const CollectiveCall& call, const std::vector<const std::byte*>& sources,
                 std::byte* target) {
  host::VisitDType(call.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ReduceInto<T>(call.reduction, sources, target, call.count);
  });
}

}  // namespace

absl::Status CpuCollectives::Collective(const CollectiveCall& call) {
  // One binding borrows every buffer, so the call's section holds every queue they belong to.
  HostQueueBinding binding(std::static_pointer_cast<HostQueue>(call.ranks.front().queue));
  for (const CollectiveRank& rank : call.ranks) {
    for (const std::shared_ptr<Buffer>* buffer : {&rank.input, &rank.output}) {
      if (*buffer != nullptr) {
        binding.Borrow(static_cast<const HostQueuedBuffer&>((*buffer)->backend_buffer()));
      }
    }
  }
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(binding));
  const size_t ranks = call.ranks.size();
  const int64_t element = ItemSize(call.dtype);
  const auto chunk = static_cast<size_t>(call.count * element);  // Bytes of `count` elements.
  std::vector<const std::byte*> inputs;
  for (const CollectiveRank& rank : call.ranks) {
    inputs.push_back(rank.input == nullptr ? nullptr : At(rank.input, rank.input_offset));
  }
  auto output = [&](size_t r) { return At(call.ranks[r].output, call.ranks[r].output_offset); };
  switch (call.kind) {
    case CollectiveKind::kAllReduce:
      ReduceRanks(call, inputs, output(0));
      for (size_t r = 1; r < ranks; ++r) std::memcpy(output(r), output(0), chunk);
      break;
    case CollectiveKind::kReduce:
      ReduceRanks(call, inputs, output(static_cast<size_t>(call.root)));
      break;
    case CollectiveKind::kBroadcast:
      for (size_t r = 0; r < ranks; ++r) {
        std::memcpy(output(r), inputs[static_cast<size_t>(call.root)], chunk);
      }
      break;
    case CollectiveKind::kAllGather:
      for (size_t r = 0; r < ranks; ++r) {
        for (size_t from = 0; from < ranks; ++from) {
          std::memcpy(output(r) + from * chunk, inputs[from], chunk);
        }
      }
      break;
    case CollectiveKind::kReduceScatter:
      for (size_t r = 0; r < ranks; ++r) {
        std::vector<const std::byte*> parts;
        for (const std::byte* input : inputs) parts.push_back(input + r * chunk);
        ReduceRanks(call, parts, output(r));
      }
      break;
    case CollectiveKind::kAllToAll:
      for (size_t to = 0; to < ranks; ++to) {
        for (size_t from = 0; from < ranks; ++from) {
          std::memcpy(output(to) + from * chunk, inputs[from] + to * chunk, chunk);
        }
      }
      break;
  }
  return absl::OkStatus();
}

}  // namespace arrayhub
