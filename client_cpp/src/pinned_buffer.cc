// Pinned buffers (arrayhub/pinned_buffer.h): their allocation and their release.
#include "arrayhub/pinned_buffer.h"

#include <sys/mman.h>

#include <utility>

#include "arrayhub/client.h"
#include "connection.h"

namespace arrayhub::client {

PinnedBuffer Client::AllocatePinned(int64_t bytes) {
  if (bytes < 0) {
    throw Error(StatusCode::kInvalidArgument,
                "a pinned buffer needs a size of 0 or more bytes, got " + std::to_string(bytes));
  }
  detail::Connection& conn = Synced();
  PinnedBuffer buffer;
  buffer.connection_ = connection_;
  if (conn.shared_memory != nullptr) {
    if (std::optional<detail::PinnedRegion> region =
            conn.shared_memory->AllocatePinned(conn, bytes)) {
      buffer.region_name_ = region->region_name;
      buffer.mapping_ = region->mapping;
      buffer.mapping_size_ = region->size;
      buffer.data_ = region->mapping;
      buffer.size_ = bytes;
      return buffer;
    }
  }
  // Ordinary memory, page-aligned and zero-filled as the registered kind is. One byte at least,
  // since mmap refuses an empty mapping.
  const size_t size = std::max<size_t>(static_cast<size_t>(bytes), 1);
  void* mapping = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) {
    throw Error(StatusCode::kResourceExhausted,
                "cannot map " + std::to_string(bytes) + " bytes of host memory");
  }
  buffer.mapping_ = mapping;
  buffer.mapping_size_ = static_cast<int64_t>(size);
  buffer.data_ = static_cast<std::byte*>(mapping);
  buffer.size_ = bytes;
  return buffer;
}

PinnedBuffer::~PinnedBuffer() { Release(); }

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : connection_(std::move(other.connection_)),
      region_name_(std::exchange(other.region_name_, {})),
      mapping_(std::exchange(other.mapping_, nullptr)),
      mapping_size_(std::exchange(other.mapping_size_, 0)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    connection_ = std::move(other.connection_);
    region_name_ = std::exchange(other.region_name_, {});
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_size_ = std::exchange(other.mapping_size_, 0);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void PinnedBuffer::Release() noexcept {
  if (mapping_ == nullptr) return;
  if (registered()) {
    connection_->shared_memory->ForgetPinned({.region_name = region_name_,
                                              .mapping = static_cast<std::byte*>(mapping_),
                                              .size = mapping_size_});
    // A closed session took its regions along; otherwise the server lets go of this one now
    // (unpinning it), before the memory is unmapped here.
    if (connection_->session_open) {
      try {
        grpc::ClientContext context;
        connection_->Prepare(context);
        context.set_deadline(std::chrono::system_clock::now() + detail::kCleanupTimeout);
        v1::UnregisterSharedMemoryRequest request;
        request.set_region_name(region_name_);
        v1::UnregisterSharedMemoryResponse response;
        // A failure leaves the region to the session's end, as a failed Free leaves an array.
        (void)connection_->stub->UnregisterSharedMemory(&context, request, &response);
      } catch (...) {
        // Nothing may escape a destructor (allocation failures included).
      }
    }
    region_name_.clear();
  }
  munmap(mapping_, static_cast<size_t>(mapping_size_));
  mapping_ = nullptr;
  data_ = nullptr;
  size_ = 0;
  connection_.reset();
}

}  // namespace arrayhub::client
