#include "server/backend/cuda/scratch.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "server/backend/compute.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/common/status_macros.h"

namespace arrayhub {

ScratchBuffer::~ScratchBuffer() {
  if (const absl::Status status = CudaStatus(cudaFreeAsync(data(), stream_), "cudaFreeAsync");
      !status.ok()) {
    spdlog::error("cuda backend: freeing scratch memory: {}", status.ToString());
  }
}

absl::StatusOr<std::unique_ptr<ScratchBuffer>> AllocateScratch(int64_t bytes, cudaStream_t stream) {
  AH_ASSIGN_OR_RETURN(std::unique_ptr<ScratchReceipt> receipt, PayForScratch(bytes));
  void* data = nullptr;
  const auto request = static_cast<size_t>(std::max<int64_t>(bytes, 1));
  AH_CUDA_RETURN_IF_ERROR(cudaMallocAsync(&data, request, stream));
  return std::make_unique<ScratchBuffer>(data, bytes, stream, std::move(receipt));
}

ArrayView ScratchArray::View() const {
  return ArrayView{.buffer = buffer.get(),
                   .offset_bytes = 0,
                   .dtype = dtype,
                   .shape = shape,
                   .strides = ContiguousStrides(shape)};
}

absl::StatusOr<ScratchArray> AllocateScratchArray(DType dtype, Shape shape, cudaStream_t stream) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  auto buffer = AllocateScratch(count * ItemSize(dtype), stream);
  if (!buffer.ok()) return buffer.status();
  return ScratchArray{std::move(*buffer), dtype, std::move(shape)};
}

}  // namespace arrayhub
