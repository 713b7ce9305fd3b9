#include "server/shutdown_signals.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace arrayhub {
namespace {

int signal_pipe[2] = {-1, -1};
std::atomic<int> signals_received{0};  // Lock-free, so usable in a handler.
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void OnShutdownSignal(int signal_number) {
  if (signals_received.fetch_add(1) > 0) _exit(128 + signal_number);
  const unsigned char byte = static_cast<unsigned char>(signal_number);
  // Nothing to do if the write fails: the pipe is empty and has room for one byte.
  [[maybe_unused]] const ssize_t written = write(signal_pipe[1], &byte, 1);
}

}  // namespace

absl::Status InstallShutdownSignals() {
  if (pipe2(signal_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(fmt::format("signal pipe: {}", std::strerror(errno)));
  }
  struct sigaction action {};
  action.sa_handler = OnShutdownSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int signal_number : {SIGTERM, SIGINT}) {
    if (sigaction(signal_number, &action, nullptr) != 0) {
      return absl::InternalError(fmt::format("sigaction: {}", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

void RequestStopForDeviceLoss() {
  const unsigned char byte = kDeviceLost;
  // A failed write leaves the pipe as it was: a signal still stops the daemon.
  [[maybe_unused]] const ssize_t written = write(signal_pipe[1], &byte, 1);
}

int WaitForShutdownSignal() {
  unsigned char byte = 0;
  ssize_t got = 0;
  do {
    got = read(signal_pipe[0], &byte, 1);
  } while (got < 0 && errno == EINTR);
  // A pipe whose write end stays open fails no other way; were it to, draining is the safe
  // reading of it.
  return got == 1 ? byte : SIGTERM;
}

}  // namespace arrayhub
