// How much memory the CPU backend's arrays may take: what the host, or the container the daemon
// runs in, can actually hold. Allocations are virtual until touched, so without this bound a
// client could reserve many times the host's memory (uploads reserve their array at the
// header) and the kernel's OOM killer would settle it later.
#pragma once

#include <chrono>
#include <cstdint>

namespace arrayhub {

// The host's physical memory, or the cgroup's memory limit (v2 memory.max, v1
// memory.limit_in_bytes) when that is lower.
int64_t HostMemoryCapacity();

// Gives freed heap memory back to the system. The daemon's allocator, tcmalloc, keeps freed
// spans for reuse and hands them back only gradually (glibc, which the test binaries use,
// keeps free chunks inside its heaps), so after large arrays are freed the process would stay
// near its peak resident size. Called with the bytes of each array made and freed: once the
// arrays hold kTrimAfterShrinkBytes less than at their most since the last release, a
// background thread releases the allocator's free memory (tcmalloc's ReleaseFreeMemory where
// it is linked, else glibc's malloc_trim), at most once per kTrimInterval (either walks the
// whole heap, off the freeing thread). Arrays made and freed at the same pace release nothing.
inline constexpr int64_t kTrimAfterShrinkBytes = int64_t{64} << 20;
inline constexpr std::chrono::milliseconds kTrimInterval{1000};
void NoteHostMemoryAllocated(int64_t bytes);
void NoteHostMemoryFreed(int64_t bytes);

}  // namespace arrayhub
