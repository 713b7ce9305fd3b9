#include "server/core/entropy.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace arrayhub {
namespace {

// Bytes straight from the kernel.
void FillFromKernel(std::span<std::byte> out) {
  size_t filled = 0;
  while (filled < out.size()) {
    ssize_t n = getrandom(out.data() + filled, out.size() - filled, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("getrandom failed: {}", std::strerror(errno)));
    }
    filled += static_cast<size_t>(n);
  }
}

// Small requests (a handle is 16 bytes) are served from a per-thread page of the kernel's
// output, so that making an array costs no system call: one getrandom per 256 handles instead
// of one each, which matters where a system call costs microseconds (sandboxed hosts) and a
// Batch makes one handle per op. Each byte is handed out once.
constexpr size_t kPoolBytes = 4096;
constexpr size_t kPooledRequest = 64;

struct EntropyPool {
  std::array<std::byte, kPoolBytes> bytes;
  size_t used = kPoolBytes;  // Bytes before `used` were handed out; all, until the first fill.
};
thread_local EntropyPool pool;

// A forked child would otherwise hand out the same bytes as its parent (only the forking
// thread's pool survives a fork).
[[maybe_unused]] const int reset_pool_on_fork =
    pthread_atfork(nullptr, nullptr, [] { pool.used = kPoolBytes; });

}  // namespace

void FillWithEntropy(std::span<std::byte> out) {
  if (out.size() > kPooledRequest) return FillFromKernel(out);
  if (kPoolBytes - pool.used < out.size()) {
    FillFromKernel(pool.bytes);
    pool.used = 0;
  }
  std::memcpy(out.data(), pool.bytes.data() + pool.used, out.size());
  pool.used += out.size();
}

uint64_t RandomSeed() {
  uint64_t seed = 0;
  FillWithEntropy(std::as_writable_bytes(std::span(&seed, 1)));
  return seed;
}

}  // namespace arrayhub
