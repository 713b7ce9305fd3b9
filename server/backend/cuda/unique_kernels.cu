// numpy.unique's selection: the first element of each run of equal elements of the sorted
// input, by CUB's DeviceSelect::UniqueByKey (one pass with a decoupled look-back scan). Equal
// is the order's "neither sorts before the other" for real and integer dtypes (their order keys
// merge -0.0 with 0.0 and every NaN with every other); complex values are equal when both hold
// a NaN or both are NaN-free with equal parts, numpy.unique's equal_nan rule (its order would
// keep NaNs of different classes apart).
#include <thrust/iterator/discard_iterator.h>

#include <cub/device/device_select.cuh>

#include "server/backend/cuda/sort_kernels.cuh"
#include "server/backend/cuda/unique_kernels.cuh"

namespace arrayhub {

namespace {

using namespace sort_order;

template <class Order>
struct UniqueEqual {
  using Item = typename Order::Item;
  __device__ bool operator()(const Item& a, const Item& b) const {
    if constexpr (Order::kComplex) {
      using Part = typename Order::PartOrder;
      const bool nan_a = Order::Class(a) != 0, nan_b = Order::Class(b) != 0;
      if (nan_a || nan_b) return nan_a && nan_b;
      return Part::Key(a.re) == Part::Key(b.re) && Part::Key(a.im) == Part::Key(b.im);
    } else {
      return Order::Key(a) == Order::Key(b);
    }
  }
};

}  // namespace

cudaError_t LaunchUnique(UniqueArgs& args, cudaStream_t stream) {
  return WithOrder(args.dtype, [&](auto order) -> cudaError_t {
    using Order = decltype(order);
    using Item = typename Order::Item;
    const auto* sorted = static_cast<const Item*>(args.sorted);
    // Keys and values are both the elements: the values of each run's first are the output.
    return cub::DeviceSelect::UniqueByKey(
        args.temp, args.temp_bytes, sorted, sorted, thrust::make_discard_iterator(),
        static_cast<Item*>(args.output), args.selected, args.count, UniqueEqual<Order>{}, stream);
  });
}

}  // namespace arrayhub
