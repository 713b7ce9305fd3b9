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
  if (offset > nbytes || (length > 0 && length > nbytes - offset)) {
    return absl::OutOfRangeError(
        fmt::format("bytes [{}, {}) are outside the array's {} bytes", offset,
                    length > 0 ? fmt::format("{}", offset + length) : "end", nbytes));
  }
  return ByteRange{.offset = offset, .length = length > 0 ? length : nbytes - offset};
}

}  // namespace arrayhub
