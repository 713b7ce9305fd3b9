#include "server/backend/host/host_backend.h"

#include <fmt/format.h>
#include <unistd.h>

#include "server/backend/host/host_parts.h"

namespace arrayhub {

namespace {

BackendParts CpuParts(int64_t memory_limit, std::shared_ptr<MemoryCounters> counters) {
  auto memory = std::make_unique<CpuMemory>(memory_limit, std::move(counters));
  DeviceMemory& device_memory = *memory;
  return BackendParts{
      .queues = std::make_unique<CpuQueues>(),
      .memory = std::move(memory),
      .host_exchange = std::make_unique<CpuExchange>(device_memory),
      .collectives = std::make_unique<CpuCollectives>(),
      .compute = std::make_unique<CpuCompute>(device_memory),
      .linalg = std::make_unique<CpuLinalg>(),
      .fft = std::make_unique<CpuFft>(),
      .indexing = std::make_unique<CpuIndexing>(),
      .user_kernels = std::make_unique<CpuUserKernels>(),
      .raw_kernels = std::make_unique<CpuRawKernels>(),
  };
}

}  // namespace

HostBackend::HostBackend(int64_t memory_limit, std::string device_name)
    : HostBackend(memory_limit, std::move(device_name), std::make_shared<MemoryCounters>()) {}

HostBackend::HostBackend(int64_t memory_limit, std::string device_name,
                         std::shared_ptr<MemoryCounters> counters)
    : Backend(CpuParts(memory_limit, counters)),
      memory_limit_(memory_limit),
      device_name_(std::move(device_name)),
      counters_(std::move(counters)) {}

std::vector<DeviceDescription> HostBackend::Devices() const {
  const int64_t page = sysconf(_SC_PAGESIZE);
  return {DeviceDescription{
      .name = device_name_,
      .description = fmt::format("host CPU, {} cores", sysconf(_SC_NPROCESSORS_ONLN)),
      .total_memory_bytes = sysconf(_SC_PHYS_PAGES) * page,
      .free_memory_bytes = sysconf(_SC_AVPHYS_PAGES) * page,
  }};
}

}  // namespace arrayhub
