#include "shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "connection.h"
#include "convert.h"
#include "descriptor_socket.h"

namespace arrayhub::client::detail {
namespace {

constexpr int64_t kMinimumBytes = 1 << 20;  // Smallest object made, and its unit of growth.
constexpr char kRegionName[] = "transfer";

void RandomBytes(void* out, size_t size) {
  auto* bytes = static_cast<char*>(out);
  for (size_t done = 0; done < size;) {
    const ssize_t n = getrandom(bytes + done, size - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw Error(StatusCode::kInternal, std::string("getrandom: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

// Codes with which the server says it cannot use this client's objects at all.
bool MeansNeverOnThisServer(grpc::StatusCode code) {
  return code == grpc::StatusCode::FAILED_PRECONDITION || code == grpc::StatusCode::NOT_FOUND ||
         code == grpc::StatusCode::UNIMPLEMENTED || code == grpc::StatusCode::PERMISSION_DENIED;
}

// A memfd of `size` bytes, its pages reserved and sealed against shrinking (what the daemon
// requires), or -1 when this host cannot make one now.
int MakeSealedObject(int64_t size) {
  ScopedFd fd(memfd_create("arrayhub-region", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd.get() < 0) return -1;
  // Reserves the pages now: a full tmpfs fails here (stream instead) rather than as SIGBUS
  // when this process writes to the mapping.
  if (posix_fallocate(fd.get(), 0, static_cast<off_t>(size)) != 0 ||
      fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
    return -1;
  }
  return fd.release();
}

}  // namespace

bool SharedMemoryWanted(const std::string& address, std::optional<bool> chosen) {
  if (chosen.has_value()) return *chosen;
  const char* setting = std::getenv("ARRAYHUB_SHARED_MEMORY");
  if (setting != nullptr && std::string_view(setting) == "1") return true;
  if (setting != nullptr && std::string_view(setting) == "0") return false;
  return IsLoopbackTarget(address);
}

SharedMemoryTransfer::~SharedMemoryTransfer() { Release(); }

bool SharedMemoryTransfer::active() const {
  std::lock_guard lock(mutex_);
  return mapping_ != nullptr;
}

void SharedMemoryTransfer::Release() {
  if (mapping_ != nullptr) munmap(mapping_, static_cast<size_t>(size_));
  mapping_ = nullptr;
  size_ = 0;
}

const std::string& SharedMemoryTransfer::SocketPath(Connection& connection) {
  std::lock_guard lock(socket_mutex_);
  if (!socket_path_.has_value()) {
    socket_path_ = connection.ReadServerInfo().shared_memory_socket();
  }
  return *socket_path_;
}

std::byte* SharedMemoryTransfer::CreateRegion(Connection& connection,
                                              const std::string& region_name, int64_t size,
                                              grpc::Status& status) {
  status = grpc::Status::OK;
  const std::string& socket_path = SocketPath(connection);
  if (socket_path.empty()) {  // Switched off, or a server older than the socket.
    disabled_ = true;
    return nullptr;
  }
  ScopedFd fd(MakeSealedObject(size));
  if (fd.get() < 0) return nullptr;
  void* mapped =
      mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (mapped == MAP_FAILED) return nullptr;
  auto* mapping = static_cast<std::byte*>(mapped);
  std::string ticket;
  try {
    SocketReply reply = AskDescriptorSocket(socket_path, "REGION", fd.get());
    // An ERROR says the daemon cannot take a descriptor now (its limits): stream this time.
    if (reply.line.starts_with("OK ")) ticket = reply.line.substr(3);
  } catch (const Error&) {
    // The socket is not on this host (a daemon elsewhere, or in another container).
    disabled_ = true;
  }
  if (!ticket.empty()) {
    grpc::ClientContext context;
    connection.Prepare(context);
    v1::RegisterSharedMemoryRequest request;
    request.set_region_name(region_name);
    request.set_byte_size(size);
    request.set_descriptor_ticket(ticket);
    v1::RegisterSharedMemoryResponse response;
    status = connection.stub->RegisterSharedMemory(&context, request, &response);
    if (status.ok()) return mapping;  // The daemon holds its own descriptor now.
    if (MeansNeverOnThisServer(status.error_code())) disabled_ = true;
  }
  munmap(mapping, static_cast<size_t>(size));
  return nullptr;
}

bool SharedMemoryTransfer::Reserve(Connection& connection, int64_t data_bytes) {
  if (disabled_) return false;
  if (mapping_ != nullptr && data_bytes <= size_) return true;
  // Grown at least twofold, so that a run of growing transfers registers few objects, and
  // in whole MiB.
  const int64_t wanted = std::max({kMinimumBytes, data_bytes, 2 * size_});
  const int64_t size = (wanted + kMinimumBytes - 1) / kMinimumBytes * kMinimumBytes;
  if (mapping_ != nullptr) {
    // Replaced by a larger one: the server lets go of the old one first.
    grpc::ClientContext context;
    connection.Prepare(context);
    v1::UnregisterSharedMemoryRequest request;
    request.set_region_name(kRegionName);
    v1::UnregisterSharedMemoryResponse response;
    Check(connection.stub->UnregisterSharedMemory(&context, request, &response));
    Release();
  }
  grpc::Status status;
  mapping_ = CreateRegion(connection, kRegionName, size, status);
  if (mapping_ != nullptr) {
    size_ = size;
    return true;
  }
  // Larger than the server's region limit, or over its other limits: this transfer streams,
  // a smaller or later one may not.
  if (status.ok() || disabled_ || status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
    return false;
  }
  Check(status);
  return false;
}

std::optional<PinnedRegion> SharedMemoryTransfer::AllocatePinned(Connection& connection,
                                                                 int64_t data_bytes) {
  if (disabled_) return std::nullopt;
  // Page-aligned, as cudaMallocHost's memory is, so that DMA to and from it runs at the same
  // rate; one page at least, since an object cannot be empty.
  const int64_t page = sysconf(_SC_PAGESIZE);
  const int64_t size = std::max(page, (data_bytes + page - 1) / page * page);
  std::array<unsigned char, 8> id{};
  RandomBytes(id.data(), id.size());
  std::string region_name = "pinned-";
  for (unsigned char b : id) {
    region_name += "0123456789abcdef"[b >> 4], region_name += "0123456789abcdef"[b & 15];
  }
  grpc::Status status;
  std::byte* mapping = CreateRegion(connection, region_name, size, status);
  if (mapping == nullptr) {
    if (status.ok() || disabled_) return std::nullopt;
    Check(status);  // The server's limits, say.
  }
  PinnedRegion region{.region_name = std::move(region_name), .mapping = mapping, .size = size};
  std::lock_guard lock(pinned_mutex_);
  pinned_.emplace(mapping, region);
  return region;
}

void SharedMemoryTransfer::ForgetPinned(const PinnedRegion& region) {
  std::lock_guard lock(pinned_mutex_);
  pinned_.erase(region.mapping);
}

std::optional<PinnedLocation> SharedMemoryTransfer::Locate(std::span<const std::byte> span) const {
  std::lock_guard lock(pinned_mutex_);
  // The buffer whose data starts at or before the span's first byte, if any, must hold it all.
  auto it = pinned_.upper_bound(span.data());
  if (it == pinned_.begin()) return std::nullopt;
  --it;
  const PinnedRegion& region = it->second;
  const auto start = reinterpret_cast<uintptr_t>(span.data());
  const auto begin = reinterpret_cast<uintptr_t>(region.mapping);
  const auto end = begin + static_cast<uintptr_t>(region.size);
  if (start + span.size() > end) return std::nullopt;
  return PinnedLocation{.region_name = region.region_name,
                        .offset = static_cast<int64_t>(start - begin)};
}

std::optional<v1::ArrayInfo> SharedMemoryTransfer::Upload(Connection& connection,
                                                          std::span<const std::byte> data,
                                                          DType dtype, const Shape& shape) {
  std::lock_guard lock(mutex_);
  if (!Reserve(connection, static_cast<int64_t>(data.size()))) return std::nullopt;
  std::memcpy(mapping_, data.data(), data.size());
  v1::SharedMemoryCopyRequest request;
  request.set_region_name(kRegionName);
  request.set_offset_bytes(0);
  request.set_dtype(ToProto(dtype));
  request.mutable_shape()->Add(shape.begin(), shape.end());
  return Call(connection, &v1::ArrayHub::Stub::CopyFromSharedMemory, request).array();
}

bool SharedMemoryTransfer::Download(Connection& connection, const std::string& handle,
                                    std::span<std::byte> destination) {
  std::lock_guard lock(mutex_);
  if (!Reserve(connection, static_cast<int64_t>(destination.size()))) return false;
  v1::SharedMemoryCopyRequest request;
  request.set_region_name(kRegionName);
  request.set_offset_bytes(0);
  request.set_handle(handle);
  const v1::SharedMemoryCopyResponse response =
      Call(connection, &v1::ArrayHub::Stub::CopyToSharedMemory, request);
  if (response.array().nbytes() != static_cast<int64_t>(destination.size())) {
    throw Error(StatusCode::kDataLoss, "download of " + handle + ": the server copied " +
                                           std::to_string(response.array().nbytes()) +
                                           " bytes, expected " +
                                           std::to_string(destination.size()));
  }
  std::memcpy(destination.data(), mapping_, destination.size());
  return true;
}

}  // namespace arrayhub::client::detail
