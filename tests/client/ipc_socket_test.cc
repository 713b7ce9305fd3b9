// The daemon's descriptor socket on its own, with stand-ins for the engine: a memfd plays a
// pool's descriptor, and parked region descriptors are kept by the test. Pool descriptors go
// out for good tickets only, region descriptors come in one per request with the sender's
// user, and connections are served together: idle ones delay no one, and a user may hold
// only a few.
#include "server/transport/ipc_socket.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "arrayhub/client.h"
#include "client_cpp/src/descriptor_socket.h"
#include "tests/support/client_expect.h"

namespace {

using arrayhub::client::IpcExport;
using arrayhub::client::detail::AskDescriptorSocket;

class IpcSocketTest : public ::testing::Test {
 protected:
  static absl::StatusOr<arrayhub::PoolDescriptor> Redeem(std::string_view ticket) {
    if (ticket != "good-ticket") return absl::NotFoundError("unknown ticket in this test");
    const int fd = memfd_create("pool", MFD_CLOEXEC);
    const std::string content = "pool bytes";
    EXPECT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
    return arrayhub::PoolDescriptor{.pool_id = "pool-1", .fd = arrayhub::OwnedFd(fd)};
  }
  // Handlers whose region descriptors this test keeps (with their senders).
  arrayhub::IpcSocketHandlers Handlers() {
    return {.redeem_pool = &Redeem, .park_region = [this](uid_t sender, arrayhub::OwnedFd fd) {
              std::lock_guard lock(mutex_);
              parked_.emplace_back(sender, std::move(fd));
              return absl::StatusOr<std::string>("ticket-" + std::to_string(parked_.size()));
            },
            .open_batch_lane = {}};
  }
  absl::StatusOr<std::unique_ptr<arrayhub::IpcSocket>> Start(
      const std::string& path = "", arrayhub::IpcSocketOptions options = {}) {
    return arrayhub::IpcSocket::Start(path, Handlers(), options);
  }
  static IpcExport ExportFor(const std::string& path, const std::string& ticket) {
    IpcExport exported;
    exported.socket_path = path;
    exported.pool_ticket = ticket;
    exported.pool_id = "pool-1";
    return exported;
  }
  static std::string ReadAll(int fd) {
    char buffer[64] = {};
    const ssize_t got = pread(fd, buffer, sizeof(buffer), 0);
    close(fd);
    return std::string(buffer, got > 0 ? static_cast<size_t>(got) : 0);
  }
  // A connection to the abstract socket `path` that sends nothing.
  static int ConnectIdle(const std::string& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.data(), path.size());
    address.sun_path[0] = '\0';
    const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());
    EXPECT_EQ(connect(fd, reinterpret_cast<const sockaddr*>(&address), length), 0)
        << std::strerror(errno);
    return fd;
  }
  // What the server sent on `fd` (blocking until it sends or closes).
  static std::string ReplyOn(int fd) {
    char buffer[256];
    const ssize_t got = recv(fd, buffer, sizeof(buffer), 0);
    return std::string(buffer, got > 0 ? static_cast<size_t>(got) : 0);
  }

  std::mutex mutex_;
  std::vector<std::pair<uid_t, arrayhub::OwnedFd>> parked_;
};

TEST_F(IpcSocketTest, HandsTheDescriptorForAGoodTicketOnly) {
  auto socket = Start();
  ASSERT_TRUE(socket.ok()) << socket.status();
  const std::string path = (*socket)->path();
  EXPECT_EQ(ReadAll(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "good-ticket"))),
            "pool bytes");
  EXPECT_CLIENT_ERROR(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "bad")), kNotFound,
                      "NOT_FOUND: unknown ticket in this test");
  // A reply for another pool than the export names is refused.
  IpcExport other = ExportFor(path, "good-ticket");
  other.pool_id = "pool-2";
  EXPECT_CLIENT_ERROR(arrayhub::client::FetchPoolDescriptor(other), kDataLoss,
                      "unexpected reply 'OK pool-1' for pool 'pool-2'");
}

TEST_F(IpcSocketTest, TakesExactlyOneRegionDescriptorWithItsSendersUser) {
  auto socket = Start();
  ASSERT_TRUE(socket.ok()) << socket.status();
  const std::string path = (*socket)->path();
  const int object = memfd_create("region", MFD_CLOEXEC);
  EXPECT_EQ(AskDescriptorSocket(path, "REGION", object).line, "OK ticket-1");
  EXPECT_EQ(AskDescriptorSocket(path, "REGION").line,
            "ERROR attach exactly one descriptor to REGION");
  // A pool ticket carries nothing in, nor does a batch lane's.
  EXPECT_EQ(AskDescriptorSocket(path, "good-ticket", object).line,
            "ERROR a ticket carries no descriptor");
  EXPECT_EQ(AskDescriptorSocket(path, "BATCHES good-ticket", object).line,
            "ERROR a ticket carries no descriptor");
  // A socket without lanes (these handlers have none) says so.
  EXPECT_EQ(AskDescriptorSocket(path, "BATCHES good-ticket").line,
            "ERROR this daemon has no batch lanes");
  close(object);
  ASSERT_EQ(parked_.size(), 1u);
  EXPECT_EQ(parked_[0].first, geteuid());
  struct stat kept {};
  EXPECT_EQ(fstat(parked_[0].second.get(), &kept), 0);  // The server's own descriptor.
}

TEST_F(IpcSocketTest, ManyIdleConnectionsDoNotDelayARealOne) {
  auto socket = Start();
  ASSERT_TRUE(socket.ok()) << socket.status();
  // Served one at a time with a second each, these held the next request up for 12 s.
  std::vector<int> idle;
  for (int i = 0; i < 12; ++i) idle.push_back(ConnectIdle((*socket)->path()));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(
      ReadAll(arrayhub::client::FetchPoolDescriptor(ExportFor((*socket)->path(), "good-ticket"))),
      "pool bytes");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  for (int fd : idle) close(fd);
}

TEST_F(IpcSocketTest, ASilentConnectionIsAnsweredAtItsDeadline) {
  auto socket = Start("", {.request_timeout = std::chrono::milliseconds(100)});
  ASSERT_TRUE(socket.ok()) << socket.status();
  const int idle = ConnectIdle((*socket)->path());
  EXPECT_EQ(ReplyOn(idle), "ERROR no request line within 100 ms\n");
  close(idle);
}

TEST_F(IpcSocketTest, AUserMayHoldOnlyAFewConnectionsAtOnce) {
  auto socket = Start("", {.max_connections_per_user = 3});
  ASSERT_TRUE(socket.ok()) << socket.status();
  const std::string path = (*socket)->path();
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(ConnectIdle(path));
  const int refused = ConnectIdle(path);
  EXPECT_EQ(ReplyOn(refused), "ERROR too many connections open (at most 3 per user, 256 in all)\n");
  close(refused);
  close(idle.back());
  idle.pop_back();
  // The server notices the closed one when it polls next; a fresh request then gets through.
  std::string reply;
  for (int attempt = 0; attempt < 50; ++attempt) {
    reply = AskDescriptorSocket(path, "good-ticket").line;
    if (reply == "OK pool-1") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(reply, "OK pool-1");
  for (int fd : idle) close(fd);
}

TEST_F(IpcSocketTest, AFilesystemPathIsRemovedWithTheSocket) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("arrayhub-ipc-test-" + std::to_string(getpid())))
          .string();
  {
    auto socket = Start(path);
    ASSERT_TRUE(socket.ok()) << socket.status();
    EXPECT_TRUE(std::filesystem::exists(path));
    EXPECT_EQ(ReadAll(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "good-ticket"))),
              "pool bytes");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_CLIENT_ERROR(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "x")), kUnavailable,
                      "IPC socket " + path);
}

TEST_F(IpcSocketTest, AStaleSocketFileIsReplacedButALiveOneIsNot) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("arrayhub-ipc-stale-" + std::to_string(getpid())))
          .string();
  // What a daemon killed with SIGKILL leaves: a socket file nothing listens on.
  const int dead = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  ASSERT_EQ(bind(dead, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  close(dead);
  ASSERT_TRUE(std::filesystem::exists(path));

  auto socket = Start(path);
  ASSERT_TRUE(socket.ok()) << socket.status();
  EXPECT_EQ(ReadAll(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "good-ticket"))),
            "pool bytes");
  // A second daemon configured with the same path must not take the live socket away.
  auto second = Start(path);
  EXPECT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("cannot listen on"), std::string::npos)
      << second.status();
  EXPECT_EQ(ReadAll(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "good-ticket"))),
            "pool bytes");
}

}  // namespace
