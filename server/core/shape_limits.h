// The server's bounds on shapes (--max-rank, --max-array-elements, --max-array-bytes), applied
// to every shape a request makes or iterates, not only to the arrays it allocates: a view
// (broadcast_to of one element to 2^50 of them) makes a reduction over it walk as many
// elements as an array of its shape, and a rank far past the limit makes the layout rules
// quadratic. Every rule that builds a shape from a request checks it here before working on it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/common/dtype.h"
#include "server/core/limits.h"

namespace arrayhub {

// INVALID_ARGUMENT when `rank` exceeds --max-rank (NumPy refuses ranks past its own maximum as a
// ValueError): "{what} has 65 dimensions; the server allows at most 64 (--max-rank)".
absl::Status CheckRank(int64_t rank, const Limits& limits, std::string_view what);

// The element count of `shape`, which a request makes or iterates: INVALID_ARGUMENT for a rank
// past --max-rank or an invalid shape (ElementCount), RESOURCE_EXHAUSTED past
// --max-array-elements (a server's limit, not NumPy's: "{what} (..) has N elements; ...").
// `what` names the shape in messages ("broadcast_to.shape", "the selection").
absl::StatusOr<int64_t> CheckShape(std::span<const int64_t> shape, const Limits& limits,
                                   std::string_view what);

// As CheckShape for a new array's shape, then its byte size for `dtype`, RESOURCE_EXHAUSTED
// past --max-array-bytes.
absl::StatusOr<int64_t> CheckedArrayBytes(std::span<const int64_t> shape, DType dtype,
                                          const Limits& limits);

}  // namespace arrayhub
