// The CPU backend's HostRegion: pread/pwrite on the object's descriptor, never a mapping, so
// that a client shrinking its object yields a short read (an error) instead of SIGBUS. That is
// still one copy, the kernel's, between the object's pages and the buffer.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "server/backend/host_region.h"

namespace arrayhub {

absl::StatusOr<std::unique_ptr<HostRegion>> OpenHostFileRegion(int fd);

}  // namespace arrayhub
