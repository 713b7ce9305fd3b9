// Moving test data in and out of a backend's buffers, the way every backend suite needs to.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "server/backend/backend.h"
#include "tests/support/test_queue.h"

namespace arrayhub {

using Bytes = std::vector<std::byte>;

// A new buffer on `backend` holding `values`' bytes, allocated and copied on `queue`.
template <typename T>
absl::StatusOr<std::shared_ptr<Buffer>> Upload(QueueBinding& queue, Backend& backend,
                                               const std::vector<T>& values) {
  const std::span<const std::byte> bytes = std::as_bytes(std::span(values));
  absl::StatusOr<std::shared_ptr<Buffer>> buffer =
      backend.memory().Allocate(queue, static_cast<int64_t>(bytes.size()));
  if (!buffer.ok()) return buffer.status();
  if (absl::Status copied = backend.memory().CopyFromHost(queue, **buffer, 0, bytes);
      !copied.ok()) {
    return copied;
  }
  return buffer;
}

// The first `count` elements of type T in `buffer` (all that it holds when `count` is -1),
// copied on `queue`.
template <typename T = std::byte>
absl::StatusOr<std::vector<T>> Download(QueueBinding& queue, Backend& backend, const Buffer& buffer,
                                        int64_t count = -1) {
  const auto n = static_cast<size_t>(count >= 0 ? count : buffer.size() / int64_t{sizeof(T)});
  std::vector<T> values(n);
  if (absl::Status copied =
          backend.memory().CopyToHost(queue, buffer, 0, std::as_writable_bytes(std::span(values)));
      !copied.ok()) {
    return copied;
  }
  return values;
}

// The same on the test's queue of the device (TestQueue).
template <typename T>
absl::StatusOr<std::shared_ptr<Buffer>> Upload(Backend& backend, const std::vector<T>& values) {
  return Upload(TestQueue(backend), backend, values);
}
template <typename T = std::byte>
absl::StatusOr<std::vector<T>> Download(Backend& backend, const Buffer& buffer,
                                        int64_t count = -1) {
  return Download<T>(TestQueue(backend), backend, buffer, count);
}

}  // namespace arrayhub
