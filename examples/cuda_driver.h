// The few CUDA driver calls that map an ArrayHub array's device memory into this process (CUDA
// IPC, docs/ipc.md), loaded from libcuda.so.1 at run time: the demo links no CUDA, so one build
// runs against a CPU daemon on a machine without a GPU and against a CUDA daemon on one with it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "arrayhub/ipc.h"

namespace demo {

class CudaDriver;

// An array's device memory imported from the daemon's pool, in this process's address space.
// Frees the imported pointer when destroyed; the caller releases the lease (ReleaseIpc) after.
class MappedDeviceArray {
 public:
  ~MappedDeviceArray();
  MappedDeviceArray(const MappedDeviceArray&) = delete;
  MappedDeviceArray& operator=(const MappedDeviceArray&) = delete;

  // The array's first element on the device (the imported allocation plus the view's offset).
  uint64_t device_pointer() const { return pointer_ + static_cast<uint64_t>(offset_bytes_); }
  // Copies `destination.size()` bytes from the array's first element into host memory.
  void Read(std::span<std::byte> destination) const;

 private:
  friend class CudaDriver;
  MappedDeviceArray(const CudaDriver& driver, int device, uint64_t pointer, int64_t offset_bytes);

  const CudaDriver& driver_;
  int device_;  // Its primary context is retained, and current, for the mapping's life.
  uint64_t pointer_;
  int64_t offset_bytes_;
};

class CudaDriver {
 public:
  // Loads libcuda.so.1 and initialises it; throws std::runtime_error where there is none.
  CudaDriver();
  ~CudaDriver();
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

  // Imports the tenant's pool (its descriptor fetched with the export's one-use ticket) and the
  // exported allocation, on the device the export names by UUID.
  std::unique_ptr<MappedDeviceArray> Map(const arrayhub::client::IpcExport& exported);

 private:
  friend class MappedDeviceArray;
  struct Api;
  // Throws std::runtime_error naming `call` and the driver's error name unless `result` is 0.
  void Check(int result, const char* call) const;
  // This process's ordinal of the device "GPU-<uuid>" (CUDA_VISIBLE_DEVICES may renumber).
  int OrdinalOf(const std::string& uuid) const;

  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
};

}  // namespace demo
