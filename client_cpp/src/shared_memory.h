// The same-host fast path: uploads and downloads through one POSIX shared-memory object the
// client creates and registers with the server, so that each is one copy on either side
// instead of a gRPC stream.
//
// Used when the server is on this host: the address is a loopback or unix-socket one, or
// ARRAYHUB_SHARED_MEMORY=1 says so (=0 turns the path off). If the server cannot use the
// object (another host or container: NOT_FOUND; switched off: FAILED_PRECONDITION; a daemon
// running as another user: PERMISSION_DENIED; an older server: UNIMPLEMENTED), the client
// streams for the rest of its life.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "arrayhub/client.h"
#include "arrayhub/v1/service.grpc.pb.h"

namespace arrayhub::client::detail {

struct Connection;

// Whether `address` (a gRPC target) is on this host, after ARRAYHUB_SHARED_MEMORY.
bool SharedMemoryWanted(const std::string& address);

class SharedMemoryTransfer {
 public:
  SharedMemoryTransfer() = default;
  ~SharedMemoryTransfer();
  SharedMemoryTransfer(const SharedMemoryTransfer&) = delete;
  SharedMemoryTransfer& operator=(const SharedMemoryTransfer&) = delete;

  // The new array, or nullopt when this transfer must stream instead.
  std::optional<v1::ArrayInfo> Upload(Connection& connection, std::span<const std::byte> data,
                                      DType dtype, const Shape& shape);
  // False when this transfer must stream instead.
  bool Download(Connection& connection, const std::string& handle,
                std::span<std::byte> destination);

  // Whether a region is registered now.
  bool active() const;

 private:
  // A registered region with room for `data_bytes` after its header: the current one, or a
  // larger one replacing it. False when the transfer must stream.
  bool Reserve(Connection& connection, int64_t data_bytes);
  // Unmaps the object and forgets it (the server is told separately).
  void Release();

  mutable std::mutex mutex_;  // One transfer at a time uses the object.
  bool disabled_ = false;     // The server cannot use it: stream from now on.
  std::byte* mapping_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace arrayhub::client::detail
