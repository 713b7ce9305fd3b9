#include "server/core/overlap.h"

#include <algorithm>

namespace arrayhub {
namespace {

struct ByteRange {
  int64_t begin = 0;
  int64_t end = 0;  // Exclusive.
};

std::optional<ByteRange> SpanOf(const ArrayView& view) {
  const int64_t itemsize = ItemSize(view.dtype);
  ByteRange range{view.offset_bytes, view.offset_bytes + itemsize};
  for (size_t d = 0; d < view.shape.size(); ++d) {
    if (view.shape[d] == 0) return std::nullopt;
    const int64_t reach = (view.shape[d] - 1) * view.strides[d] * itemsize;
    (reach < 0 ? range.begin : range.end) += reach;
  }
  return range;
}

}  // namespace

bool MayShareMemory(const ArrayView& a, const ArrayView& b) {
  if (a.buffer != b.buffer) return false;
  const std::optional<ByteRange> ra = SpanOf(a), rb = SpanOf(b);
  return ra && rb && ra->begin < rb->end && rb->begin < ra->end;
}

bool SameElements(const ArrayView& a, const ArrayView& b) {
  if (a.buffer != b.buffer || a.offset_bytes != b.offset_bytes || a.shape != b.shape ||
      ItemSize(a.dtype) != ItemSize(b.dtype)) {
    return false;
  }
  for (size_t d = 0; d < a.shape.size(); ++d) {
    if (a.shape[d] != 1 && a.strides[d] != b.strides[d]) return false;
  }
  return true;
}

}  // namespace arrayhub
