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

// Gives freed heap memory back to the system. glibc keeps free chunks inside its heaps and
// returns only a heap's top past M_TRIM_THRESHOLD (server/host_allocator.h), so after large
// arrays are freed the process would stay at its peak resident size. Called with the bytes of
// each freed array: once kTrimAfterFreedBytes have been freed, a background thread calls
// malloc_trim, at most once per kTrimInterval (it walks every arena, off the freeing thread).
inline constexpr int64_t kTrimAfterFreedBytes = int64_t{64} << 20;
inline constexpr std::chrono::milliseconds kTrimInterval{1000};
void NoteHostMemoryFreed(int64_t bytes);

}  // namespace arrayhub
