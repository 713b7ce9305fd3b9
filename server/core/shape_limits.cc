#include "server/core/shape_limits.h"

#include <fmt/format.h>

#include "server/common/shape.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

absl::Status CheckElements(std::span<const int64_t> shape, int64_t count, const Limits& limits,
                           std::string_view what) {
  if (count <= limits.max_array_elements) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      fmt::format("{} {} has {} elements; the server allows at most {} elements per array "
                  "(--max-array-elements)",
                  what, FormatShape(shape), count, limits.max_array_elements));
}

}  // namespace

absl::Status CheckRank(int64_t rank, const Limits& limits, std::string_view what) {
  if (rank <= limits.max_rank) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("{} has {} dimensions; the server allows at most {} (--max-rank)", what, rank,
                  limits.max_rank));
}

absl::StatusOr<int64_t> CheckShape(std::span<const int64_t> shape, const Limits& limits,
                                   std::string_view what) {
  AH_RETURN_IF_ERROR(CheckRank(static_cast<int64_t>(shape.size()), limits, what));
  AH_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape, what));
  AH_RETURN_IF_ERROR(CheckElements(shape, count, limits, what));
  return count;
}

absl::StatusOr<int64_t> CheckedArrayBytes(std::span<const int64_t> shape, DType dtype,
                                          const Limits& limits) {
  AH_RETURN_IF_ERROR(CheckRank(static_cast<int64_t>(shape.size()), limits, "shape"));
  AH_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape));
  AH_ASSIGN_OR_RETURN(int64_t nbytes, ByteCount(count, ItemSize(dtype)));
  if (nbytes > limits.max_array_bytes) {
    return absl::ResourceExhaustedError(
        fmt::format("array of shape {} and dtype {} needs {} bytes; the server allows at most {} "
                    "bytes per array (--max-array-bytes)",
                    FormatShape(shape), DTypeName(dtype), nbytes, limits.max_array_bytes));
  }
  AH_RETURN_IF_ERROR(CheckElements(shape, count, limits, "array of shape"));
  return nbytes;
}

}  // namespace arrayhub
