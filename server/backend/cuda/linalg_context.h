// What one linear-algebra call runs with: cuBLAS and cuSOLVER handles (a "worker") set to the
// call's queue (cuda_queue.h), and scratch memory that lives until the call ends.
//
// Workers come from a per-device pool: a call takes an idle one (or creates one) and gives it
// back at the end, so concurrent RPCs never share a handle (cuBLAS and cuSOLVER handles are
// not safe to use from two threads at once) and need no lock while they compute. Handles are
// created once and reused, since creating them costs milliseconds. A handle's workspace may
// still be in use by the last queue it ran on, so a worker that moves to another queue makes
// that queue wait for its last use first.
// Scratch comes from the device's default memory pool, which the backend allocates from too,
// and goes back in the queue's order.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "server/common/scratch_payer.h"

namespace arrayhub {

class CudaQueue;
class QueueSection;

class LinalgCall {
 public:
  // A worker of the device of the queue `section` enters, set to that queue's stream (its
  // device current: OnCudaDevice::Enter).
  static absl::StatusOr<LinalgCall> Begin(const QueueSection& section);

  LinalgCall(LinalgCall&& other) noexcept;
  LinalgCall& operator=(LinalgCall&&) = delete;
  // Frees the scratch memory (in stream order), marks the worker's last use on the stream and
  // returns it to its pool. Nothing waits: later work of the queue comes after.
  ~LinalgCall();

  cudaStream_t stream() const;
  cublasHandle_t cublas() const;
  cusolverDnHandle_t cusolver() const;
  cusolverDnParams_t params() const;

  // Uninitialised device memory that lives until the call ends, charged to the calling
  // thread's tenant while it does (scratch_payer.h). RESOURCE_EXHAUSTED past the tenant's
  // quota or when the device is full.
  absl::StatusOr<void*> Scratch(int64_t bytes);
  template <typename T>
  absl::StatusOr<T*> Scratch(int64_t count) {
    absl::StatusOr<void*> memory = Scratch(count * static_cast<int64_t>(sizeof(T)));
    if (!memory.ok()) return memory.status();
    return static_cast<T*>(*memory);
  }

  // A device copy of `values` in scratch memory.
  template <typename T>
  absl::StatusOr<T*> Upload(std::span<const T> values) {
    absl::StatusOr<void*> memory = UploadBytes(values.data(), values.size_bytes());
    if (!memory.ok()) return memory.status();
    return static_cast<T*>(*memory);
  }

  // Waits for the work enqueued so far on the queue and copies `count` values (cuSOLVER's
  // info values, a singular value) back.
  template <typename T>
  absl::StatusOr<std::vector<T>> Download(const T* values, int64_t count) {
    std::vector<T> host(static_cast<size_t>(count));
    absl::Status status = DownloadBytes(host.data(), values, host.size() * sizeof(T));
    if (!status.ok()) return status;
    return host;
  }

  // A stream with its handles (opaque; defined in linalg_context.cc).
  struct Worker;

 private:
  LinalgCall(std::unique_ptr<Worker> worker, std::shared_ptr<CudaQueue> queue);
  absl::StatusOr<void*> UploadBytes(const void* data, size_t bytes);
  absl::Status DownloadBytes(void* host, const void* device, size_t bytes);

  std::unique_ptr<Worker> worker_;
  std::shared_ptr<CudaQueue> queue_;  // The call's: its downloads wait for it.
  cudaStream_t stream_;               // queue_'s.
  std::vector<void*> scratch_;
  std::vector<std::unique_ptr<ScratchReceipt>> receipts_;  // Refunded when the call ends.
};

}  // namespace arrayhub
