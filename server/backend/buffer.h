// A block of backend memory (host RAM or device memory), freed when the last owner lets go.
#pragma once

#include <cstdint>

namespace arrayhub {

class Buffer {
 public:
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // Host pointer for the CPU backend, device pointer for the CUDA backend. Never null, even for
  // zero bytes, so that views of empty arrays stay well-defined.
  void* data() const { return data_; }
  int64_t size() const { return size_; }
  // The buffer the backend made, behind any wrapper that only adds bookkeeping (core charges
  // each buffer to a tenant by wrapping it): where a backend finds what it keeps per buffer.
  virtual const Buffer& backend_buffer() const { return *this; }

 protected:
  Buffer(void* data, int64_t size) : data_(data), size_(size) {}
  // For a wrapper whose backend memory is replaced (core's spilling, server/core/spiller.h),
  // only while no call uses the buffer.
  void set_data(void* data) { data_ = data; }

 private:
  void* data_;
  int64_t size_;
};

}  // namespace arrayhub
