#include "server/host_allocator.h"

#include <malloc.h>

namespace arrayhub {

bool KeepLargeBlocksForReuse() {
  // 32 MiB is the largest mmap threshold glibc accepts on 64-bit machines. Setting either
  // value also stops glibc from adjusting them on its own.
  constexpr int kMmapThreshold = 32 << 20;
  constexpr int kTrimThreshold = 64 << 20;
  return mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 &&
         mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
}

}  // namespace arrayhub
