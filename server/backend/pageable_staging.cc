#include <memory>

#include "server/backend/device_memory.h"
#include "server/backend/staging.h"

namespace arrayhub {
namespace {

class PageableStaging final : public StagingBuffer {
 public:
  PageableStaging(DeviceMemory& device_memory, std::unique_ptr<std::byte[]> memory, int64_t nbytes)
      : StagingBuffer(std::span(memory.get(), static_cast<size_t>(nbytes))),
        device_memory_(device_memory),
        memory_(std::move(memory)) {}

  absl::Status CopyTo(QueueBinding& queue, Buffer& buffer, int64_t offset, int64_t size) override {
    // CopyFromHost is done with the source when it returns.
    return device_memory_.CopyFromHost(queue, buffer, offset,
                                       bytes().first(static_cast<size_t>(size)));
  }
  absl::Status CopyFrom(QueueBinding& queue, const Buffer& buffer, int64_t offset,
                        int64_t size) override {
    return device_memory_.CopyToHost(queue, buffer, offset,
                                     bytes().first(static_cast<size_t>(size)));
  }
  absl::Status Wait() override { return absl::OkStatus(); }

 private:
  DeviceMemory& device_memory_;
  std::unique_ptr<std::byte[]> memory_;
};

}  // namespace

std::unique_ptr<StagingBuffer> NewPageableStaging(DeviceMemory& device_memory, int64_t nbytes) {
  // Uninitialised: every byte is written before it is copied anywhere.
  auto memory = std::make_unique_for_overwrite<std::byte[]>(static_cast<size_t>(nbytes));
  return std::make_unique<PageableStaging>(device_memory, std::move(memory), nbytes);
}

}  // namespace arrayhub
