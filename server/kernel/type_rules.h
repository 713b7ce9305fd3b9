// C's type rules over the kernel language's types, which are the dtypes: integer promotion,
// the usual arithmetic conversions, and the names a type may be written with.
#pragma once

#include <optional>
#include <string_view>

#include "server/common/dtype.h"

namespace arrayhub::kernel {

// C's integer promotion: bool and integers narrower than int become int32.
DType Promote(DType dtype);

// C's usual arithmetic conversions (long is 64 bits): a floating type beats an integer one,
// the wider of two floating types wins (float16 < float32 < float64), integers promote and then
// the wider rank wins, unsigned winning a tie. Complex as thrust::complex: the complex type of
// the two component types' common type.
DType Common(DType a, DType b);

// NumPy's can_cast(from, to, 'safe').
bool CanCastSafely(DType from, DType to);

// A type written as one word: a dtype name ("float32"), or a C name of one word ("int",
// "double", "size_t", "half", "char", ...). Multi-word names (unsigned long long, ...) and
// complex<...> are the parser's.
std::optional<DType> TypeFromWord(std::string_view word);

}  // namespace arrayhub::kernel
