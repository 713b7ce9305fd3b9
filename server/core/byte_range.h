// A range of an array's bytes in C order, as an upload into an existing array and a download
// name it: several streams in parallel each move one range of a large array.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace arrayhub {

struct ByteRange {
  int64_t offset = 0;
  int64_t length = 0;
};

// `offset` and `length` as a request gives them (length 0: through the end), checked against
// an array of `nbytes` bytes: INVALID_ARGUMENT when either is negative, OUT_OF_RANGE when the
// range ends past the array. `field_prefix` qualifies the field names in errors ("header.").
absl::StatusOr<ByteRange> ResolveByteRange(int64_t offset, int64_t length, int64_t nbytes,
                                           std::string_view field_prefix);

}  // namespace arrayhub
