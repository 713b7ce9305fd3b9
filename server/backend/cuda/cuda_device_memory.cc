// CudaMemory: stream-ordered allocation from the device's pools, fills, and copies in the
// session's stream order.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_device_state.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/fill_kernels.cuh"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

// For destructors, which have no caller to report to.
void LogIfError(const absl::Status& status) {
  if (!status.ok()) spdlog::error("cuda backend: {}", status.ToString());
}

}  // namespace

CudaBuffer::CudaBuffer(void* data, int64_t size, std::shared_ptr<CudaQueue> home,
                       std::shared_ptr<CudaDeviceState> state)
    : CudaQueuedBuffer(data, size, std::move(home)), state_(std::move(state)) {
  state_->memory.Add(size);
}

CudaBuffer::~CudaBuffer() {
  LogIfError(CudaStatus(cudaSetDevice(state_->device), "cudaSetDevice"));
  LogIfError(CudaStatus(cudaFreeAsync(data(), home()->stream()), "cudaFreeAsync"));
  state_->memory.Remove(size());
}

CudaMemory::CudaMemory(std::shared_ptr<CudaDeviceState> state)
    : OnCudaDevice(state->device), state_(std::move(state)) {}

absl::StatusOr<std::shared_ptr<Buffer>> CudaMemory::Allocate(QueueBinding& bound, int64_t nbytes) {
  AH_RETURN_IF_ERROR(Activate());
  AH_ASSIGN_OR_RETURN(const CudaQueueBinding* const binding, BindingOn(bound));
  std::shared_ptr<CudaQueue> queue = binding->queue();
  // One byte at least, so that the pointer is never null (see Buffer::data).
  const auto request = static_cast<size_t>(std::max<int64_t>(nbytes, 1));
  cudaMemPool_t pool = queue->pool() != nullptr ? queue->pool() : state_->pool;
  void* data = nullptr;
  cudaError_t error = cudaMallocFromPoolAsync(&data, request, pool, queue->stream());
  if (error == cudaErrorMemoryAllocation) {
    // The pools may be holding freed memory in pieces that do not fit this request, memory
    // whose frees other queues have not reached yet, or memory other tenants freed (each has a
    // pool of its own when export is on): let every queue's work finish, hand everything
    // unused back to the device and try once more.
    (void)cudaGetLastError();
    AH_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
    AH_CUDA_RETURN_IF_ERROR(cudaMemPoolTrimTo(state_->pool, 0));
    if (state_->exportable != nullptr) AH_RETURN_IF_ERROR(state_->exportable->TrimAll());
    error = cudaMallocFromPoolAsync(&data, request, pool, queue->stream());
  }
  if (error == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // Leaves the thread's error state clean for the next call.
    std::string message =
        fmt::format("out of device memory on cuda:{} allocating {} bytes", state_->device, nbytes);
    if (absl::StatusOr<int64_t> free_bytes = CudaFreeMemory(state_->device); free_bytes.ok()) {
      absl::StrAppend(&message, " (", *free_bytes, " bytes free of ", state_->total_memory, ")");
    }
    return absl::ResourceExhaustedError(message);
  }
  AH_RETURN_IF_ERROR(CudaStatus(error, "cudaMallocFromPoolAsync"));
  // Usable in the queue's order from here on: no waiting.
  return std::make_shared<CudaBuffer>(data, nbytes, std::move(queue), state_);
}

absl::Status CudaMemory::FillPattern(QueueBinding& queue, Buffer& buffer, int64_t offset,
                                     int64_t count, int64_t stride_bytes,
                                     std::span<const std::byte> pattern) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  const cudaStream_t stream = section.stream();
  AH_CUDA_RETURN_IF_ERROR(LaunchFillPattern(static_cast<std::byte*>(buffer.data()) + offset, count,
                                            stride_bytes, pattern.data(),
                                            static_cast<int64_t>(pattern.size()), stream));
  return absl::OkStatus();
}

absl::Status CudaMemory::FillAffine(QueueBinding& queue, Buffer& buffer, const AffineFill& fill) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  const AffineFillArgs args{
      .dtype = fill.dtype,
      .count = fill.count,
      .int_start = fill.int_start,
      .int_step = fill.int_step,
      .start_real = fill.start.real(),
      .start_imag = fill.start.imag(),
      .step_real = fill.step.real(),
      .step_imag = fill.step.imag(),
      .float64_math = fill.float64_math,
  };
  const cudaStream_t stream = section.stream();
  AH_CUDA_RETURN_IF_ERROR(LaunchFillAffine(buffer.data(), args, stream));
  return absl::OkStatus();
}

absl::Status CudaMemory::CopyFromHost(QueueBinding& queue, Buffer& buffer, int64_t offset,
                                      std::span<const std::byte> source) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  if (source.empty()) return absl::OkStatus();
  const cudaStream_t stream = section.stream();
  // From pageable memory the copy is staged before this returns, so `source` may go at once.
  AH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(static_cast<std::byte*>(buffer.data()) + offset,
                                          source.data(), source.size(), cudaMemcpyHostToDevice,
                                          stream));
  return absl::OkStatus();
}

absl::Status CudaMemory::CopyToHost(QueueBinding& queue, const Buffer& buffer, int64_t offset,
                                    std::span<std::byte> destination) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  if (destination.empty()) return absl::OkStatus();
  const cudaStream_t stream = section.stream();
  AH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(destination.data(),
                                          static_cast<const std::byte*>(buffer.data()) + offset,
                                          destination.size(), cudaMemcpyDeviceToHost, stream));
  return section.queue()->Synchronize();
}

absl::Status CudaMemory::CopyFromDevice(QueueBinding& queue, Buffer& target, int64_t target_offset,
                                        const Buffer& source, int64_t source_offset,
                                        int64_t nbytes) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  if (nbytes == 0) return absl::OkStatus();
  const cudaStream_t stream = section.stream();
  // Every buffer of a CUDA backend is a CudaQueuedBuffer, whose home queue knows its device.
  const int source_device =
      dynamic_cast<const CudaQueuedBuffer&>(source.backend_buffer()).home()->device();
  // Peer to peer over NVLink or PCIe where the devices can reach each other, else staged
  // by the driver; the queue section has ordered it after the source's writers.
  AH_CUDA_RETURN_IF_ERROR(
      cudaMemcpyPeerAsync(static_cast<std::byte*>(target.data()) + target_offset, state_->device,
                          static_cast<const std::byte*>(source.data()) + source_offset,
                          source_device, static_cast<size_t>(nbytes), stream));
  return absl::OkStatus();
}

}  // namespace arrayhub
