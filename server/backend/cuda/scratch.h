// Temporary device memory for the duration of one compute call, from the device's
// stream-ordered pool (the pool CudaMemory allocates from, which keeps freed memory cached).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "server/backend/buffer.h"
#include "server/common/dtype.h"
#include "server/common/scratch_payer.h"
#include "server/common/shape.h"

namespace arrayhub {

struct ArrayView;

// A Buffer, so that it can back an ArrayView handed to the elementwise path. Freed in stream
// order on destruction: work already enqueued on the stream may still use it. Its receipt
// keeps it charged to the tenant whose call made it until then (scratch_payer.h).
class ScratchBuffer final : public Buffer {
 public:
  ScratchBuffer(void* data, int64_t size, cudaStream_t stream,
                std::unique_ptr<ScratchReceipt> receipt)
      : Buffer(data, size), stream_(stream), receipt_(std::move(receipt)) {}
  ~ScratchBuffer() override;

 private:
  cudaStream_t stream_;
  std::unique_ptr<ScratchReceipt> receipt_;
};

// Paid for by the calling thread's tenant first (RESOURCE_EXHAUSTED past its byte quota, before
// anything is allocated); RESOURCE_EXHAUSTED when the device is out of memory.
absl::StatusOr<std::unique_ptr<ScratchBuffer>> AllocateScratch(int64_t bytes, cudaStream_t stream);

// A scratch array: C-contiguous `shape` of `dtype`, with its view.
struct ScratchArray {
  std::unique_ptr<ScratchBuffer> buffer;
  DType dtype;
  Shape shape;
  ArrayView View() const;
};
absl::StatusOr<ScratchArray> AllocateScratchArray(DType dtype, Shape shape, cudaStream_t stream);

}  // namespace arrayhub
