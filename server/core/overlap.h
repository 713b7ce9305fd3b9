// Whether two strided views may touch the same bytes: what decides when an operation must
// read its input through a copy because it writes where it reads (a[1:] = a[:-1]).
#pragma once

#include "server/backend/compute.h"

namespace arrayhub {

// True when the views are of the same buffer and the byte ranges they span intersect (a
// conservative test, as numpy.may_share_memory). Empty views share nothing.
bool MayShareMemory(const ArrayView& a, const ArrayView& b);

// True when both views walk exactly the same elements in the same order, so that an
// elementwise operation may write one while reading the other.
bool SameElements(const ArrayView& a, const ArrayView& b);

}  // namespace arrayhub
