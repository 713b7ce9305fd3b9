// The daemon's file-descriptor limit (RLIMIT_NOFILE), of which clients' shared-memory objects
// may take a share (Limits::max_shared_memory_descriptors).
#pragma once

#include <cstdint>

namespace arrayhub {

// Raises the soft limit to the hard one (the default soft limit, often 1024, is far below what
// a daemon with many clients needs; nothing in arrayhubd uses select()) and answers the soft
// limit now.
int64_t RaiseDescriptorLimit();

}  // namespace arrayhub
