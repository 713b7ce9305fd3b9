// CpuExchange: staging in ordinary memory, clients' regions read and written with pread and
// pwrite (host_file_region.cc), and nothing to export.
#include <fmt/format.h>

#include "server/backend/host/host_file_region.h"
#include "server/backend/host/host_parts.h"

namespace arrayhub {

absl::StatusOr<std::unique_ptr<StagingBuffer>> CpuExchange::AllocateStaging(int64_t nbytes) {
  return NewPageableStaging(memory_, nbytes);
}

absl::StatusOr<std::unique_ptr<StagingBuffer>> CpuExchange::AllocateHostTier(int64_t nbytes,
                                                                             int64_t) {
  return NewPageableStaging(memory_, nbytes);
}

absl::StatusOr<std::unique_ptr<HostRegion>> CpuExchange::OpenHostRegion(int fd, int64_t /*size*/) {
  return OpenHostFileRegion(fd);
}

absl::StatusOr<ExportedMemory> CpuExchange::ExportMemory(const Buffer& /*buffer*/,
                                                         std::string_view /*memory_owner*/) {
  return absl::FailedPreconditionError(
      "CUDA IPC export needs the CUDA backend; this server keeps arrays in host memory (cpu)");
}

absl::StatusOr<int> CpuExchange::ExportPoolDescriptor(std::string_view pool_id) {
  return absl::NotFoundError(
      fmt::format("no exportable memory pool '{}': the cpu backend has none", pool_id));
}

}  // namespace arrayhub
