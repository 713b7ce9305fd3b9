#include "server/descriptor_limit.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>

namespace arrayhub {

int64_t RaiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    spdlog::warn("getrlimit(RLIMIT_NOFILE): {}", std::strerror(errno));
    return 1024;  // What the limit usually is; the daemon still runs.
  }
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      limit = raised;
    } else {
      spdlog::warn("cannot raise the descriptor limit from {} to {}: {}", limit.rlim_cur,
                   limit.rlim_max, std::strerror(errno));
    }
  }
  return limit.rlim_cur == RLIM_INFINITY ? int64_t{1} << 20 : static_cast<int64_t>(limit.rlim_cur);
}

}  // namespace arrayhub
