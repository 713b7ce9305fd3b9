// The same-host fast path: uploads and downloads through shared-memory objects (sealed
// memfds) the client creates, hands to the daemon over its descriptor socket and registers,
// instead of a gRPC stream. One object per session is the transfer region, which data is
// copied into and out of (one copy on either side); pinned buffers (arrayhub/pinned_buffer.h)
// are objects of their own that the server copies to and from directly.
//
// Used when the server is on this host: the address is a loopback or unix-socket one, or
// ARRAYHUB_SHARED_MEMORY=1 says so (=0 turns the path off). If the server cannot use the
// object (switched off: no socket; another host or container: its socket cannot be reached,
// or the ticket is refused with PERMISSION_DENIED; an older server: UNIMPLEMENTED or no
// socket), the client streams for the rest of its life.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "arrayhub/client.h"
#include "arrayhub/v1/service.grpc.pb.h"

namespace arrayhub::client::detail {

struct Connection;

// Whether to try shared memory with the server at `address` (a gRPC target): `chosen` when
// set (ClientOptions::shared_memory), else ARRAYHUB_SHARED_MEMORY's 1 or 0, else whether the
// address is on this host.
bool SharedMemoryWanted(const std::string& address, std::optional<bool> chosen);

// Where a span of a pinned buffer lies: the region and the offset in it.
struct PinnedLocation {
  std::string region_name;
  int64_t offset = 0;
};

// A pinned buffer's object, mapped and registered; its data starts at `mapping`.
struct PinnedRegion {
  std::string region_name;
  std::byte* mapping = nullptr;
  int64_t size = 0;
};

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

  // A new object with room for `data_bytes`, page-aligned, registered with the server;
  // nullopt when the server cannot use this client's objects or cannot take one now.
  // Throws the server's limits (regions per session and tenant, bytes per region).
  std::optional<PinnedRegion> AllocatePinned(Connection& connection, int64_t data_bytes);
  // Stops finding `region` (its buffer is going); the caller unregisters and unmaps it.
  void ForgetPinned(const PinnedRegion& region);
  // The pinned buffer of this session that holds all of `span`, if one does.
  std::optional<PinnedLocation> Locate(std::span<const std::byte> span) const;

  // Whether a region is registered now.
  bool active() const;

 private:
  // A registered region with room for `data_bytes`: the current one, or a larger one
  // replacing it. False when the transfer must stream.
  bool Reserve(Connection& connection, int64_t data_bytes);
  // A new object of `size` bytes, mapped and registered as `region_name`: the mapping, or
  // null with the server's refusal in `status` (OK when the object could not be made or
  // handed over now; disabled_ is set where it never can be).
  std::byte* CreateRegion(Connection& connection, const std::string& region_name, int64_t size,
                          grpc::Status& status);
  // The daemon's descriptor socket, asked once; empty where there is none.
  const std::string& SocketPath(Connection& connection);
  // Unmaps the object and forgets it (the server is told separately).
  void Release();

  mutable std::mutex mutex_;            // One transfer at a time uses the object.
  std::atomic<bool> disabled_ = false;  // The server cannot use it: stream from now on.
  std::byte* mapping_ = nullptr;
  int64_t size_ = 0;

  std::mutex socket_mutex_;
  std::optional<std::string> socket_path_;  // Unset until asked.

  mutable std::mutex pinned_mutex_;
  // The live pinned buffers' data, by the address of their first byte.
  std::map<const std::byte*, PinnedRegion> pinned_;
};

}  // namespace arrayhub::client::detail
