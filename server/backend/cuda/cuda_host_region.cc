// The CUDA backend's HostRegion: the client's object is mapped and pinned once
// (cudaHostRegister), and every copy is one DMA between the pinned pages and device memory.
// Core registers only objects sealed against shrinking, so the mapping stays backed; the
// mapping needs no descriptor once made.
//
// Copies run on the calling thread's queue (cuda_queue.h), after the work enqueued there
// before them, each as a critical section over the queues it touches (QueueSection), and wait
// for it: the client reuses its region as soon as the call returns.
#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

class CudaHostRegion final : public HostRegion {
 public:
  // Takes over `mapping` (`size` bytes, already registered with CUDA).
  CudaHostRegion(void* mapping, int64_t size, int device)
      : mapping_(mapping), size_(size), device_(device) {}

  ~CudaHostRegion() override {
    // Errors cannot be reported from here; the mapping goes either way.
    if (cudaSetDevice(device_) != cudaSuccess || cudaHostUnregister(mapping_) != cudaSuccess) {
      (void)cudaGetLastError();
    }
    munmap(mapping_, static_cast<size_t>(size_));
  }

  absl::Status CopyIn(QueueBinding& queue, int64_t region_offset, Buffer& buffer,
                      int64_t buffer_offset, int64_t size) const override {
    return Copy(queue, static_cast<std::byte*>(buffer.data()) + buffer_offset,
                static_cast<const std::byte*>(mapping_) + region_offset, size,
                cudaMemcpyHostToDevice);
  }

  absl::Status CopyOut(QueueBinding& queue, const Buffer& buffer, int64_t buffer_offset,
                       int64_t region_offset, int64_t size) const override {
    return Copy(queue, static_cast<std::byte*>(mapping_) + region_offset,
                static_cast<const std::byte*>(buffer.data()) + buffer_offset, size,
                cudaMemcpyDeviceToHost);
  }

 private:
  absl::Status Copy(QueueBinding& queue, void* destination, const void* source, int64_t size,
                    cudaMemcpyKind kind) const {
    if (size == 0) return absl::OkStatus();
    // On the device of the queue the call bound (the array's), which may not be the one the
    // region was registered from: the pages are pinned for every device (Portable).
    AH_ASSIGN_OR_RETURN(CudaQueueBinding* const binding, CudaBindingOf(queue));
    AH_CUDA_RETURN_IF_ERROR(cudaSetDevice(binding->queue()->device()));
    AH_ASSIGN_OR_RETURN(const QueueSection section, QueueSection::Enter(*binding));
    const cudaStream_t stream = section.stream();
    AH_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(destination, source, static_cast<size_t>(size), kind, stream));
    return section.queue()->Synchronize();
  }

  void* mapping_;
  int64_t size_;
  int device_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HostRegion>> CudaExchange::OpenHostRegion(int fd, int64_t size) {
  AH_RETURN_IF_ERROR(Activate());
  int device = 0;
  AH_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
  void* mapping =
      mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapping == MAP_FAILED) {
    return absl::ResourceExhaustedError(fmt::format(
        "cannot map the shared-memory object ({} bytes): {}", size, std::strerror(errno)));
  }
  // Pinning faults every page in through the kernel, not through this process's loads.
  if (const cudaError_t error =
          cudaHostRegister(mapping, static_cast<size_t>(size), cudaHostRegisterPortable);
      error != cudaSuccess) {
    munmap(mapping, static_cast<size_t>(size));
    return CudaStatus(error,
                      fmt::format("cudaHostRegister of a {}-byte shared-memory region", size));
  }
  return std::make_unique<CudaHostRegion>(mapping, size, device);
}

}  // namespace arrayhub
