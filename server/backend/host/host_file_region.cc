#include "server/backend/host/host_file_region.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "server/backend/host/host_queue.h"
#include "server/backend/region_file.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

class HostFileRegion final : public HostRegion {
 public:
  explicit HostFileRegion(RegionFile file) : file_(std::move(file)) {}

  absl::Status CopyIn(QueueBinding& queue, int64_t region_offset, Buffer& buffer,
                      int64_t buffer_offset, int64_t size) const override {
    AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
    auto* destination = static_cast<std::byte*>(buffer.data()) + buffer_offset;
    int64_t done = 0;
    while (done < size) {
      const ssize_t n = pread(file_.fd(), destination + done, static_cast<size_t>(size - done),
                              static_cast<off_t>(region_offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return IoError("read", errno);
      // The seal core checked keeps the object at least as long as the region; a loop that
      // read nothing must still end.
      if (n == 0) {
        return absl::InternalError(fmt::format(
            "the shared-memory object ended at byte {}, inside its region", region_offset + done));
      }
      done += n;
    }
    return absl::OkStatus();
  }

  absl::Status CopyOut(QueueBinding& queue, const Buffer& buffer, int64_t buffer_offset,
                       int64_t region_offset, int64_t size) const override {
    AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
    const auto* source = static_cast<const std::byte*>(buffer.data()) + buffer_offset;
    int64_t done = 0;
    while (done < size) {
      const ssize_t n = pwrite(file_.fd(), source + done, static_cast<size_t>(size - done),
                               static_cast<off_t>(region_offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return IoError("write", errno);
      done += n;
    }
    return absl::OkStatus();
  }

 private:
  static absl::Status IoError(std::string_view what, int error) {
    // ENOSPC: tmpfs is full (writing into a hole the client punched). EPERM: the client sealed
    // the object against writing after registering it.
    const std::string message =
        fmt::format("cannot {} the shared-memory object: {}", what, std::strerror(error));
    if (error == ENOSPC) return absl::ResourceExhaustedError(message);
    if (error == EPERM) return absl::FailedPreconditionError(message);
    return absl::InternalError(message);
  }

  RegionFile file_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HostRegion>> OpenHostFileRegion(int fd) {
  AH_ASSIGN_OR_RETURN(RegionFile file, RegionFile::Duplicate(fd));
  return std::make_unique<HostFileRegion>(std::move(file));
}

}  // namespace arrayhub
