// The CPU backend's HostRegion: pread/pwrite on the object's descriptor, one copy (the
// kernel's) between the object's pages and the buffer. Core registers only objects sealed
// against shrinking, so a copy within the region never meets the object's end.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "server/backend/host_region.h"

namespace arrayhub {

absl::StatusOr<std::unique_ptr<HostRegion>> OpenHostFileRegion(int fd);

}  // namespace arrayhub
