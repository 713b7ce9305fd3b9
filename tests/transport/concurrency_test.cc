// 64 client threads of three tenants, each with its own session, creating, computing on,
// downloading, sharing and freeing arrays through the server at once for a bounded time. The
// only errors allowed are the expected ones (attaching a name its publisher withdrew or has not
// published yet); at the end nothing is left on the server.
#include <atomic>
#include <thread>

#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

constexpr int kThreads = 64;
constexpr auto kDuration = std::chrono::seconds(3);

using ConcurrencyTest = TenantsTest;

TEST_F(ConcurrencyTest, SixtyFourClientsAtOnceLeaveNothingBehind) {
  const char* tenants[] = {"alice", "bob", "carol"};
  std::vector<TenantClient> clients;
  for (int i = 0; i < kThreads; ++i) clients.push_back(Connect(tenants[i % 3]));
  std::atomic<int> unexpected{0};
  std::atomic<int64_t> rounds{0}, attached{0};
  const auto deadline = std::chrono::steady_clock::now() + kDuration;
  auto check = [&](const grpc::Status& status, const char* what) {
    if (status.ok()) return true;
    ++unexpected;
    ADD_FAILURE() << what << ": " << status.error_message();
    return false;
  };
  auto work = [&](int index) {
    const TenantClient& client = clients[index];
    const int previous = (index + kThreads - 1) % kThreads;
    for (int round = 0; std::chrono::steady_clock::now() < deadline; ++round) {
      const v1::ArrayInfo zeros = client.Zeros({100 + index}, v1::DTYPE_INT8);
      v1::ArrayInfo ones;
      if (!check(client.AddOne(zeros.handle(), "", &ones), "add")) continue;
      auto context = client.Context();
      v1::DownloadRequest request;
      request.set_handle(ones.handle());
      auto reader = client.stub->Download(context.get(), request);
      std::string data;
      for (v1::DownloadResponse message; reader->Read(&message);) data += message.chunk();
      if (check(reader->Finish(), "download") && data != std::string(100 + index, '\1')) {
        ++unexpected;
        ADD_FAILURE() << "thread " << index << " downloaded wrong bytes";
      }
      const std::string name = "t" + std::to_string(index) + "-" + std::to_string(round);
      check(client.Publish(ones.handle(), name, {}, /*all_tenants=*/true), "publish");
      v1::ArrayInfo theirs;
      const grpc::Status attach =
          client.Attach("t" + std::to_string(previous) + "-" + std::to_string(round),
                        tenants[previous % 3], &theirs);
      if (attach.ok()) {
        ++attached;
        check(client.Free(theirs.handle()), "free attached");
      } else if (attach.error_code() != grpc::StatusCode::NOT_FOUND) {
        check(attach, "attach");
      }
      check(client.Free(zeros.handle()), "free");
      check(client.Free(ones.handle()), "free");
      v1::UnpublishRequest unpublish;
      unpublish.set_name(name);
      v1::UnpublishResponse response;
      check(client.stub->Unpublish(client.Context().get(), unpublish, &response), "unpublish");
      ++rounds;
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(work, i);
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_GT(rounds.load(), kThreads);
  for (const TenantClient& client : clients) {
    v1::CloseSessionResponse closed;
    EXPECT_TRUE(client.stub->CloseSession(client.Context().get(), {}, &closed).ok());
    EXPECT_EQ(closed.arrays_freed(), 0);
  }
  ExpectNothingLeaked();
  EXPECT_EQ(server_->engine().Stats().sessions, 0);
  RecordProperty("rounds", std::to_string(rounds.load()));
  RecordProperty("attached", std::to_string(attached.load()));
}

}  // namespace
}  // namespace arrayhub::testing
