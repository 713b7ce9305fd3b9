// Temporary device memory for the duration of one compute call, from the device's
// stream-ordered pool (the pool CudaBackend allocates from, which keeps freed memory cached).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "server/backend/buffer.h"
#include "server/common/dtype.h"
#include "server/common/shape.h"

namespace arrayhub {

struct ArrayView;

// A Buffer, so that it can back an ArrayView handed to the elementwise path. Freed in stream
// order on destruction: work already enqueued on the stream may still use it.
class ScratchBuffer final : public Buffer {
 public:
  ScratchBuffer(void* data, int64_t size, cudaStream_t stream)
      : Buffer(data, size), stream_(stream) {}
  ~ScratchBuffer() override;

 private:
  cudaStream_t stream_;
};

// RESOURCE_EXHAUSTED when the device is out of memory.
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
