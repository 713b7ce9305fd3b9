// Correctly rounded conversion of a double to IEEE binary16, as NumPy's npy_double_to_half.
#pragma once

#include <Imath/half.h>

namespace arrayhub {

// Imath converts only from float, and double -> float -> half rounds twice, which is wrong for
// values just past a half-way point (1 + 2^-11 + 2^-40 must round up). Rounding the double to
// float "to odd" first (truncate, then set the last bit if anything was cut off) keeps the
// information that decides the second rounding, so the result equals a single rounding:
// float has 13 more significand bits than half, and round-to-odd needs only 2.
Imath::half HalfFromDouble(double value);

}  // namespace arrayhub
