// Host memory the server copies to and from directly, as CUDA's pinned memory (cudaMallocHost)
// is for cudaMemcpy: made by Client::AllocatePinned, it is a shared-memory object (a memfd) of
// its own, registered with the client's session (the CUDA backend pins it once, then).
// Client::Upload / UploadBytes from any part of it, and DownloadInto any part of it, are one
// DMA by the server and no copy in this process; other memory goes through the session's
// transfer region or streams, as before.
//
//   arrayhub::client::PinnedBuffer host = client.AllocatePinned(n * sizeof(float));
//   std::span<float> values = host.as<float>();   // fill it
//   arrayhub::client::Array a = client.Upload<float>(values, {n});
//   client.DownloadInto(a, host.bytes());
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "arrayhub/dtype.h"

namespace arrayhub::client {

namespace detail {
struct Connection;
}

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  // Unregisters the region (the server lets go of it) and unmaps it.
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  // Page-aligned, zero-filled when made.
  std::byte* data() const { return data_; }
  size_t size() const { return static_cast<size_t>(size_); }
  std::span<std::byte> bytes() const { return {data_, size()}; }
  // The memory as elements of T (size() / sizeof(T) of them).
  template <ArrayElement T>
  std::span<T> as() const {
    return {reinterpret_cast<T*>(data_), size() / sizeof(T)};
  }
  // Whether the server copies to and from this memory directly. False where it cannot use
  // this client's shared memory (another host, switched off, ARRAYHUB_SHARED_MEMORY=0): the
  // memory is then ordinary, and transfers through it work as with any other.
  bool registered() const { return !region_name_.empty(); }

 private:
  friend class Client;
  void Release() noexcept;

  std::shared_ptr<detail::Connection> connection_;
  std::string region_name_;  // Empty: not registered.
  void* mapping_ = nullptr;  // The whole mapping, rounded up to pages; data_ is its start.
  int64_t mapping_size_ = 0;
  std::byte* data_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace arrayhub::client
