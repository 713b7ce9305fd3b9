#include "batch_lane.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "arrayhub/error.h"
#include "connection.h"

namespace arrayhub::client::detail {
namespace {

constexpr size_t kLengthBytes = 4;

// Waits until `fd` can be read or `deadline` passes (false then).
bool Readable(int fd, std::optional<std::chrono::system_clock::time_point> deadline) {
  if (!deadline) return true;  // The read itself waits.
  for (;;) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(*deadline - std::chrono::system_clock::now());
    if (left.count() <= 0) return false;
    pollfd wanted{.fd = fd, .events = POLLIN, .revents = 0};
    const int ready = poll(&wanted, 1, static_cast<int>(left.count()));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return true;  // The read says what is wrong.
  }
}

// Reads exactly `size` bytes; kUnavailable when the lane ends first, kDeadlineExceeded when
// `deadline` passes.
void ReadAll(int fd, char* data, size_t size,
             std::optional<std::chrono::system_clock::time_point> deadline) {
  while (size > 0) {
    if (!Readable(fd, deadline)) {
      throw Error(StatusCode::kDeadlineExceeded,
                  "the batch's deadline passed before the daemon answered on its lane");
    }
    const ssize_t got = recv(fd, data, size, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw Error(StatusCode::kUnavailable, "the server ended the batch lane");
    data += got;
    size -= static_cast<size_t>(got);
  }
}

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t sent = send(fd, data, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    data += sent;
    size -= static_cast<size_t>(sent);
  }
  return true;
}

}  // namespace

bool BatchLane::Wanted(const std::string& address) {
  const char* setting = std::getenv("ARRAYHUB_BATCH_LANE");
  if (setting != nullptr && std::string_view(setting) == "1") return true;
  if (setting != nullptr && std::string_view(setting) == "0") return false;
  return IsLoopbackTarget(address);
}

int BatchLane::Open(Connection& connection) {
  grpc::ClientContext context;
  connection.Prepare(context, /*with_session=*/true, /*with_device=*/false);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::OpenBatchLaneResponse grant;
  if (!connection.stub->OpenBatchLane(&context, {}, &grant).ok()) return -1;
  try {
    ScopedFd lane = ConnectDescriptorSocket(grant.socket_path());
    const std::string hello = "BATCHES " + grant.ticket() + "\n";
    if (!WriteAll(lane.get(), hello.data(), hello.size())) return -1;
    // The answer is one short line, and nothing follows it before the first batch.
    std::string answer;
    char c = 0;
    while (answer.size() < 256 && recv(lane.get(), &c, 1, 0) == 1 && c != '\n') answer += c;
    // The proof shows that the socket is the daemon's that issued the ticket, and not a
    // process's that took its name on this host.
    if (answer != "OK " + grant.proof()) return -1;
    const timeval no_timeout{.tv_sec = 0, .tv_usec = 0};
    setsockopt(lane.get(), SOL_SOCKET, SO_RCVTIMEO, &no_timeout, sizeof(no_timeout));
    return lane.release();
  } catch (const Error&) {
    return -1;  // The socket cannot be reached from here (another host, a container).
  }
}

std::optional<v1::BatchStreamResponse> BatchLane::Call(
    Connection& connection, const v1::BatchRequest& request,
    std::optional<std::chrono::system_clock::time_point> deadline) {
  std::lock_guard lock(mutex_);
  if (lane_.get() < 0 && !unavailable_) {
    lane_.reset(Open(connection));
    unavailable_ = lane_.get() < 0;
    last_use_ = std::chrono::steady_clock::now();
  }
  if (lane_.get() < 0) return std::nullopt;
  const size_t size = request.ByteSizeLong();
  std::string frame(kLengthBytes + size, '\0');
  for (size_t i = 0; i < kLengthBytes; ++i) frame[i] = static_cast<char>((size >> (8 * i)) & 0xff);
  request.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(frame.data() + kLengthBytes));
  try {
    if (!WriteAll(lane_.get(), frame.data(), frame.size())) {
      throw Error(StatusCode::kUnavailable, "the server ended the batch lane");
    }
    char length_bytes[kLengthBytes];
    ReadAll(lane_.get(), length_bytes, kLengthBytes, deadline);
    uint32_t length = 0;
    for (size_t i = 0; i < kLengthBytes; ++i) {
      length |= static_cast<uint32_t>(static_cast<unsigned char>(length_bytes[i])) << (8 * i);
    }
    std::string payload(length, '\0');
    ReadAll(lane_.get(), payload.data(), length, deadline);
    v1::BatchStreamResponse answer;
    if (!answer.ParseFromString(payload)) {
      throw Error(StatusCode::kInternal, "the daemon's answer on the batch lane did not parse");
    }
    last_use_ = std::chrono::steady_clock::now();
    return answer;
  } catch (const Error&) {
    // Sent or not, run or not: it cannot be known, so the batch is not sent again, and the
    // lane, whose place in its frames is lost, is closed (the next batch opens another).
    lane_.reset(-1);
    throw;
  }
}

std::optional<std::chrono::steady_clock::time_point> BatchLane::IdleDeadline() {
  std::lock_guard lock(mutex_);
  if (lane_.get() < 0) return std::nullopt;
  return last_use_ + kIdleClose;
}

void BatchLane::CloseIfIdle() {
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || lane_.get() < 0) return;
  if (std::chrono::steady_clock::now() >= last_use_ + kIdleClose) lane_.reset(-1);
}

}  // namespace arrayhub::client::detail
