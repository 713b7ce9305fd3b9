// partition and argpartition on the server's selection, lexsort from its stable sort
// (sorting.h), as the Python client composes them (client_python/arrayhub/_sorting.py).
#include "arrayhub/sorting.h"

#include <string>

#include "composed.h"

namespace arrayhub::client {
namespace {

// The values (or indices) partitioned around kth by the server's selection.
Array Partitioned(const Array& a, const std::vector<int64_t>& kth, std::optional<int64_t> axis,
                  bool indices) {
  Client client = detail::ClientOf(a);
  if (indices && axis == -1 && a.shape().empty()) {  // NumPy's: a 0-d array as a 1-element one.
    return client.Argpartition(client.Reshape(a, {1}), kth, 0);
  }
  return indices ? client.Argpartition(a, kth, axis) : client.Partition(a, kth, axis);
}

}  // namespace

Array partition(const Array& a, const std::vector<int64_t>& kth, std::optional<int64_t> axis) {
  return Partitioned(a, kth, axis, false);
}

Array argpartition(const Array& a, const std::vector<int64_t>& kth, std::optional<int64_t> axis) {
  return Partitioned(a, kth, axis, true);
}

Array lexsort(const std::vector<std::reference_wrapper<const Array>>& keys, int64_t axis) {
  if (keys.empty()) detail::ThrowInvalid("need sequence of keys with len > 0 in lexsort");
  const Array& first = keys.front();
  for (const Array& key : keys) {
    if (key.shape() != first.shape()) detail::ThrowInvalid("all keys need to be the same shape");
  }
  Client client = detail::ClientOf(first);
  const int64_t rank = static_cast<int64_t>(first.shape().size());
  if (rank == 0) return client.Full({}, 0, DType::kInt64);
  const int64_t d = detail::NormalizeAxis(axis, rank);
  // One stable argsort per key, from the first key to the last (the primary one).
  Array order = client.Argsort(first, d);
  for (size_t i = 1; i < keys.size(); ++i) {
    const Array reordered = detail::TakeAlongAxis(keys[i], order, d);
    order = detail::TakeAlongAxis(order, client.Argsort(reordered, d), d);
  }
  return order;
}

}  // namespace arrayhub::client
