// Strided element conversion between any two dtypes: the casts of compute.h (operands to the
// loop dtype, results to the output dtype, reduction inputs to the accumulator type).
#pragma once

#include <cstddef>
#include <cstdint>

#include "server/common/dtype.h"

namespace arrayhub::host {

// dst[i * dst_stride] = Convert(src[i * src_stride]) for i in [0, n), strides in bytes (0
// repeats one source element). With from == to it is a strided copy.
using CastFn = void (*)(int64_t n, const std::byte* src, int64_t src_stride, std::byte* dst,
                        int64_t dst_stride);

// Defined in host_elementwise.cc, which instantiates the 14 x 14 conversions once for the
// whole backend.
CastFn FindCast(DType from, DType to);

}  // namespace arrayhub::host
