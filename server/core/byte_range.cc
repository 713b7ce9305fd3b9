#include "server/core/byte_range.h"

#include <fmt/format.h>

namespace arrayhub {

absl::StatusOr<ByteRange> ResolveByteRange(int64_t offset, int64_t length, int64_t nbytes,
                                           std::string_view field_prefix) {
  if (offset < 0 || length < 0) {
    return absl::InvalidArgumentError(
        fmt::format("{0}offset_bytes and {0}length_bytes must not be negative, got {1} and {2}",
                    field_prefix, offset, length));
  }
  // Compared as nbytes - offset, and the end printed in uint64_t, where the sum of two
  // non-negative int64_t values cannot overflow: the message shows the range asked for.
  if (offset > nbytes || length > nbytes - offset) {
    const std::string end =
        length > 0
            ? fmt::format("{}", static_cast<uint64_t>(offset) + static_cast<uint64_t>(length))
            : "end";
    return absl::OutOfRangeError(fmt::format(
        "bytes [{}, {}) ({}offset_bytes {}, {}length_bytes {}) are outside the array's {} bytes",
        offset, end, field_prefix, offset, field_prefix, length, nbytes));
  }
  return ByteRange{.offset = offset, .length = length > 0 ? length : nbytes - offset};
}

}  // namespace arrayhub
