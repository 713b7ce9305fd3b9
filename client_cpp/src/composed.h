// What the functions the client composes from server ops share (statistics.cc, sets.cc,
// histograms.cc, sorting.cc, signal.cc, linalg_extras.cc): NumPy's axis checks and dtype
// rules, host reads of small results, and gathers the server has no op for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arrayhub/arrayhub.h"

namespace arrayhub::client::detail {

// kInvalidArgument with NumPy's message: every argument error of the composed functions.
[[noreturn]] void ThrowInvalid(std::string message);

// NumPy's normalize_axis_index / normalize_axis_tuple: the axis (axes) in [0, rank), with
// NumPy's messages ("axis 2 is out of bounds for array of dimension 2", "repeated axis");
// absent axes are every axis (axis=None).
int64_t NormalizeAxis(int64_t axis, int64_t rank);
std::vector<int64_t> NormalizeAxes(const std::optional<std::vector<int64_t>>& axes, int64_t rank);

bool IsComplex(DType dtype);
bool IsFloating(DType dtype);  // float16, float32, float64.
bool IsInexact(DType dtype);   // Floating or complex.
// numpy.result_type of two arrays of these dtypes (NumPy 2's promotion table).
DType PromoteTypes(DType a, DType b);
// The real dtype of a complex one (float64 for complex128); others unchanged.
DType RealOf(DType dtype);

// The number of non-NaN elements per slice (int64).
Array CountValid(const Array& a, const std::optional<std::vector<int64_t>>& axis, bool keepdims);
// Weights of the shape of a's `axes` (normalized; absent: axis=None), checked as NumPy checks
// them, with their axes in a's order and length-1 axes between them (numpy.average's and
// numpy.quantile's reshape).
Array SpreadWeights(const Array& a, const Array& w,
                    const std::optional<std::vector<int64_t>>& axes);

// Whether any element of `mask` is true: one bool read back (the queue is sent first).
bool AnyTrue(const Array& mask);
// The values of 0-d arrays, as float64, in one round trip.
std::vector<double> ReadScalars(const std::vector<const Array*>& scalars);
double ReadScalar(const Array& scalar);

// a[..., start:stop:step, ...] along `axis` (a view).
Array SliceAxis(const Array& a, int64_t axis, Slice slice);
// numpy.take_along_axis(a, indices, axis): gathers by one fancy index, the other axes indexed
// by aranges shaped to broadcast (NumPy's own construction).
Array TakeAlongAxis(const Array& a, const Array& indices, int64_t axis);

}  // namespace arrayhub::client::detail
