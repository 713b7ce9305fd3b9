// How much memory the CPU backend's arrays may take: what the host, or the container the daemon
// runs in, can actually hold. Allocations are virtual until touched, so without this bound a
// client could reserve many times the host's memory (uploads reserve their array at the
// header) and the kernel's OOM killer would settle it later.
#pragma once

#include <cstdint>

namespace arrayhub {

// The host's physical memory, or the cgroup's memory limit (v2 memory.max, v1
// memory.limit_in_bytes) when that is lower.
int64_t HostMemoryCapacity();

}  // namespace arrayhub
