// How the daemon's host allocator (glibc malloc) treats large blocks.
//
// A streamed transfer allocates and frees a buffer of about a chunk (1-2 MiB) for every
// message it receives or sends. By default glibc serves blocks that size with a fresh mmap
// and gives them back with munmap, or trims them off the top of its heap as soon as they are
// freed, so the kernel faults in and zeroes every page of every chunk again: on the H100
// machine that cost a third of an upload's time (1.7 against 2.5-2.7 GB/s). Freed arrays kept
// in the heaps this way are given back by malloc_trim (server/backend/host/host_memory.h).
#pragma once

namespace arrayhub {

// Keeps blocks up to 32 MiB in malloc's heaps and up to 64 MiB of freed memory per heap for
// reuse. Call once, first thing in main. Returns false if glibc refused a setting.
bool KeepLargeBlocksForReuse();

}  // namespace arrayhub
