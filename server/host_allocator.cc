#include "server/host_allocator.h"

#include <malloc.h>

namespace arrayhub {

bool KeepLargeBlocksForReuse() {
  // 32 MiB is the largest mmap threshold glibc accepts on 64-bit machines. Setting either
  // value also stops glibc from adjusting them on its own.
  constexpr int kMmapThreshold = 32 << 20;
  constexpr int kTrimThreshold = 64 << 20;
  // Each is tried on its own: glibc refuses the first where a tunable (glibc.malloc.hugetlb)
  // shrinks its heaps, and the trim threshold is worth setting anyway.
  const bool mmap_threshold_set = mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1;
  const bool trim_threshold_set = mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
  return mmap_threshold_set && trim_threshold_set;
}

}  // namespace arrayhub
