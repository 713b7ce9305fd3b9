// NumPy's type promotion and casting tables for the 14 dtypes (numpy.promote_types,
// numpy.can_cast with casting "safe" and "same_kind").
#pragma once

#include "server/common/dtype.h"

namespace arrayhub {

// numpy.promote_types(a, b): the smallest dtype both cast to safely.
DType PromoteTypes(DType a, DType b);
// numpy.can_cast(from, to, "safe"): every value of `from` is represented in `to`.
bool CanCastSafely(DType from, DType to);
// numpy.can_cast(from, to, "same_kind"): safe, or to the same or a higher kind in NumPy's order
// bool < unsigned < signed < float < complex.
bool CanCastSameKind(DType from, DType to);

}  // namespace arrayhub
