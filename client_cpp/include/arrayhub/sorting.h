// NumPy's partition, argpartition and lexsort as free functions (src/sorting.cc): partition and
// argpartition are Client::Partition / Argpartition, the server's selection; lexsort is composed
// from its stable sort.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "arrayhub/client.h"

namespace arrayhub::client {

// kth: the positions (negative from the end) along `axis` (nullopt: the flattened array); one
// out of range throws kInvalidArgument "kth(=5) out of bounds (5)".
Array partition(const Array& a, const std::vector<int64_t>& kth, std::optional<int64_t> axis = -1);
Array argpartition(const Array& a, const std::vector<int64_t>& kth,
                   std::optional<int64_t> axis = -1);
// The int64 indices that sort by the last key, ties broken by the one before it, and so on
// (keys of one shape; stable).
Array lexsort(const std::vector<std::reference_wrapper<const Array>>& keys, int64_t axis = -1);

}  // namespace arrayhub::client
