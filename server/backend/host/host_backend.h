// The CPU backend: arrays in 64-byte-aligned host memory, loops on the calling thread. Its parts
// are in host_parts.h.
#pragma once

#include <memory>
#include <string>

#include "server/backend/backend.h"
#include "server/backend/host/host_memory.h"

namespace arrayhub {

class HostBackend final : public Backend {
 public:
  // Arrays may hold at most `memory_limit` bytes at once (the host's memory, or the container's
  // limit: host_memory.h); an allocation past it is RESOURCE_EXHAUSTED.
  // `device_name`: "cpu", or "cpu:N" for one of --cpu-devices' virtual devices (which share
  // the host's memory, each allocating up to `memory_limit`).
  explicit HostBackend(int64_t memory_limit = HostMemoryCapacity(),
                       std::string device_name = "cpu");

  int64_t memory_limit() const { return memory_limit_; }

  std::string_view name() const override { return "cpu"; }
  std::vector<DeviceDescription> Devices() const override;
  std::string DeviceName() const override { return device_name_; }
  MemoryStats Memory() const override { return counters_->Snapshot(); }

 private:
  HostBackend(int64_t memory_limit, std::string device_name,
              std::shared_ptr<MemoryCounters> counters);

  int64_t memory_limit_;
  std::string device_name_;
  std::shared_ptr<MemoryCounters> counters_;
};

}  // namespace arrayhub
