#include <memory>

#include "server/backend/backend.h"
#include "server/backend/staging.h"

namespace arrayhub {
namespace {

class PageableStaging final : public StagingBuffer {
 public:
  PageableStaging(Backend& backend, std::unique_ptr<std::byte[]> memory, int64_t nbytes)
      : StagingBuffer(std::span(memory.get(), static_cast<size_t>(nbytes))),
        backend_(backend),
        memory_(std::move(memory)) {}

  absl::Status CopyTo(Buffer& buffer, int64_t offset, int64_t size) override {
    // CopyFromHost is done with the source when it returns.
    return backend_.CopyFromHost(buffer, offset, bytes().first(static_cast<size_t>(size)));
  }
  absl::Status CopyFrom(const Buffer& buffer, int64_t offset, int64_t size) override {
    return backend_.CopyToHost(buffer, offset, bytes().first(static_cast<size_t>(size)));
  }
  absl::Status Wait() override { return absl::OkStatus(); }

 private:
  Backend& backend_;
  std::unique_ptr<std::byte[]> memory_;
};

}  // namespace

std::unique_ptr<StagingBuffer> NewPageableStaging(Backend& backend, int64_t nbytes) {
  // Uninitialised: every byte is written before it is copied anywhere.
  auto memory = std::make_unique_for_overwrite<std::byte[]>(static_cast<size_t>(nbytes));
  return std::make_unique<PageableStaging>(backend, std::move(memory), nbytes);
}

}  // namespace arrayhub
