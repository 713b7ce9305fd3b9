// The header of NumPy's .npy format (version 1.0) for a C-order array: what a durable
// publication's data file starts with, so that numpy.load reads the file without ArrayHub.
#pragma once

#include <string>
#include <string_view>

#include "server/common/dtype.h"
#include "server/common/shape.h"

namespace arrayhub {

// NumPy's dtype.str of `dtype` on this (little-endian) host: "|b1", "<i4", "<c16", ...
std::string NpyDescr(DType dtype);

// The magic, version, length and dictionary, padded with spaces and a newline to a multiple of
// 64 bytes as NumPy writes it; the array's bytes follow it.
std::string NpyHeader(DType dtype, const Shape& shape);

}  // namespace arrayhub
