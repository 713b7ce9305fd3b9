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

namespace arrayhub::client::detail {
namespace {

constexpr int64_t kHeaderBytes = 32;        // The registration key (see arrays.proto).
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

bool IsLoopbackTarget(std::string_view target) {
  for (std::string_view scheme : {"dns:///", "ipv4:", "ipv6:"}) {
    if (target.starts_with(scheme)) target.remove_prefix(scheme.size());
  }
  if (target.starts_with("unix:") || target.starts_with("unix-abstract:")) return true;
  for (std::string_view host : {"localhost:", "127.", "[::1]:"}) {
    if (target.starts_with(host)) return true;
  }
  return target == "localhost";
}

// Creates an object of `size` bytes, maps it and registers it as `region_name`. Returns the
// mapping, or null with the server's refusal in `status` (OK when /dev/shm cannot hold it).
std::byte* CreateRegion(Connection& connection, const std::string& region_name, int64_t size,
                        grpc::Status& status) {
  status = grpc::Status::OK;
  std::array<unsigned char, 8> id{};
  RandomBytes(id.data(), id.size());
  std::string name = "/arrayhub-" + std::to_string(getpid()) + "-";
  for (unsigned char b : id) name += "0123456789abcdef"[b >> 4], name += "0123456789abcdef"[b & 15];
  // Readable and writable by this user only: the daemon must run as the same user (or root).
  // The key, which only a reader of the object can know, keeps other tenants from registering
  // it even where the daemon could open it.
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) return nullptr;
  // The name is needed only until the server has opened the object: it is removed whatever
  // happens, so that nothing is left in /dev/shm even if this process dies.
  struct Cleanup {
    int fd;
    const std::string& name;
    ~Cleanup() {
      close(fd);
      shm_unlink(name.c_str());
    }
  } cleanup{fd, name};
  // Reserves the pages now: a full /dev/shm fails here (stream instead) rather than as SIGBUS
  // when this process writes to the mapping.
  if (posix_fallocate(fd, 0, static_cast<off_t>(size)) != 0) return nullptr;
  void* mapped =
      mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapped == MAP_FAILED) return nullptr;
  auto* mapping = static_cast<std::byte*>(mapped);
  RandomBytes(mapping, kHeaderBytes);

  grpc::ClientContext context;
  connection.Prepare(context);
  v1::RegisterSharedMemoryRequest request;
  request.set_region_name(region_name);
  request.set_shm_key(name);
  request.set_byte_size(size);
  request.set_key(mapping, kHeaderBytes);
  v1::RegisterSharedMemoryResponse response;
  status = connection.stub->RegisterSharedMemory(&context, request, &response);
  if (status.ok()) return mapping;
  munmap(mapping, static_cast<size_t>(size));
  return nullptr;
}

}  // namespace

bool SharedMemoryWanted(const std::string& address) {
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

bool SharedMemoryTransfer::Reserve(Connection& connection, int64_t data_bytes) {
  if (disabled_) return false;
  if (mapping_ != nullptr && data_bytes <= size_ - kHeaderBytes) return true;
  // Grown at least twofold, so that a run of growing transfers registers few objects, and
  // in whole MiB.
  const int64_t wanted = std::max({kMinimumBytes, data_bytes + kHeaderBytes, 2 * size_});
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
  if (MeansNeverOnThisServer(status.error_code())) {
    disabled_ = true;
    return false;
  }
  // Larger than the server's region limit: this transfer streams, a smaller one may not.
  if (status.ok() || status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) return false;
  Check(status);
  return false;
}

std::optional<PinnedRegion> SharedMemoryTransfer::AllocatePinned(Connection& connection,
                                                                 int64_t data_bytes) {
  if (disabled_) return std::nullopt;
  // The data starts a page in, page-aligned as cudaMallocHost's memory is, so that DMA to and
  // from it runs at the same rate.
  const int64_t page = sysconf(_SC_PAGESIZE);
  const int64_t size = (page + data_bytes + page - 1) / page * page;
  std::array<unsigned char, 8> id{};
  RandomBytes(id.data(), id.size());
  std::string region_name = "pinned-";
  for (unsigned char b : id) {
    region_name += "0123456789abcdef"[b >> 4], region_name += "0123456789abcdef"[b & 15];
  }
  grpc::Status status;
  std::byte* mapping = CreateRegion(connection, region_name, size, status);
  if (mapping == nullptr) {
    if (MeansNeverOnThisServer(status.error_code())) disabled_ = true;
    if (status.ok() || disabled_) return std::nullopt;
    Check(status);  // The server's limits, say.
  }
  PinnedRegion region{
      .region_name = std::move(region_name), .mapping = mapping, .size = size, .data_offset = page};
  std::lock_guard lock(pinned_mutex_);
  pinned_.emplace(mapping + page, region);
  return region;
}

void SharedMemoryTransfer::ForgetPinned(const PinnedRegion& region) {
  std::lock_guard lock(pinned_mutex_);
  pinned_.erase(region.mapping + region.data_offset);
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
  std::memcpy(mapping_ + kHeaderBytes, data.data(), data.size());
  v1::SharedMemoryCopyRequest request;
  request.set_region_name(kRegionName);
  request.set_offset_bytes(kHeaderBytes);
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
  request.set_offset_bytes(kHeaderBytes);
  request.set_handle(handle);
  const v1::SharedMemoryCopyResponse response =
      Call(connection, &v1::ArrayHub::Stub::CopyToSharedMemory, request);
  if (response.array().nbytes() != static_cast<int64_t>(destination.size())) {
    throw Error(StatusCode::kDataLoss, "download of " + handle + ": the server copied " +
                                           std::to_string(response.array().nbytes()) +
                                           " bytes, expected " +
                                           std::to_string(destination.size()));
  }
  std::memcpy(destination.data(), mapping_ + kHeaderBytes, destination.size());
  return true;
}

}  // namespace arrayhub::client::detail
