// The C++ client's pipeline: ops from many threads in issue order, errors raised where the
// caller next waits with the work after them discarded, the idle flush, frees riding with a
// batch, a host read in the batch's one round trip, quotas, and a Client destroyed with work
// queued. The rest of the client suite runs pipelined and in sync mode (ctest's "sync." tests).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "arrayhub/client.h"
#include "arrayhub/operators.h"
#include "server/transport/metrics.h"
#include "tests/support/client_expect.h"
#include "tests/support/test_server.h"

namespace arrayhub::testing {
namespace {

using client::Array;
using client::Client;
using client::ClientOptions;
using client::DType;
using client::StatusCode;
using namespace std::chrono_literals;

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer({}); }

  void StartServer(ServerOptions options) {
    client_.reset();
    server_ = StartTestServer(std::move(options));
    ASSERT_NE(server_, nullptr);
    client_.emplace(Connect());
  }

  // A pipelined client, whatever ARRAYHUB_SYNC says: every test here is about the pipeline.
  Client Connect(std::chrono::microseconds idle_flush = 1000us) {
    ClientOptions options;
    options.idle_flush = idle_flush;
    Client connected = Client::Connect(server_->address(), options);
    connected.SetSync(false);
    return connected;
  }
  // A client whose queue is sent only when it waits (or at 256 ops): what it sends is then
  // known exactly.
  Client ConnectQuiet() { return Connect(std::chrono::microseconds(std::chrono::hours(1))); }

  Client& client() { return *client_; }
  EngineStats Stats() { return server_->engine().Stats(); }

  // How many calls of `method` (all methods when empty) the server has answered.
  int64_t Calls(const std::string& method = "") {
    std::istringstream text(server_->metrics().Text());
    int64_t calls = 0;
    for (std::string line; std::getline(text, line);) {
      if (!line.starts_with("arrayhub_requests_total{")) continue;
      if (!method.empty() && line.find("method=\"" + method + "\"") == std::string::npos) continue;
      calls += static_cast<int64_t>(std::stod(line.substr(line.rfind(' ') + 1)));
    }
    return calls;
  }
  // How many batches the server has run for clients: Batch calls, and batches on lanes (a
  // client on the server's host sends them on its session's lane).
  int64_t Batches() { return Calls("Batch") + Calls("BatchLane"); }
  // Calls and lane batches, but not the OpenBatchLane a session makes once, at its first batch:
  // the round trips a client waits for.
  int64_t RoundTrips() { return Calls() - Calls("OpenBatchLane"); }

  std::unique_ptr<ArrayHubServer> server_;
  std::optional<Client> client_;
};

// Threads issue ops on one client at once: each op that writes the shared array is applied in
// the order its thread issued it (recorded under a lock held while issuing), and every thread's
// own chain of dependent ops comes out right. 2400 writes pass the queue's 256-op flush often.
TEST_F(PipelineTest, OpsFromManyThreadsRunInIssueOrder) {
  constexpr int kThreads = 8, kRounds = 100;
  constexpr int64_t kModulus = 1000003;
  Array shared = client().Zeros({1}, DType::kInt64);
  std::mutex issuing;
  std::vector<int> order;
  std::vector<std::thread> threads;
  std::vector<double> chains(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Array own = client().Full({4}, 0.0);
      for (int round = 0; round < kRounds; ++round) {
        {
          // shared = (shared * 31 + t + 1) % kModulus: the order of these matters.
          std::lock_guard lock(issuing);
          order.push_back(t + 1);
          client().UfuncOut(shared, "multiply", {shared, 31});
          client().UfuncOut(shared, "add", {shared, t + 1});
          client().UfuncOut(shared, "remainder", {shared, kModulus});
        }
        own = client().Ufunc("add", {own, 1.0});
      }
      chains[t] = client().Download<double>(own)[3];
    });
  }
  for (std::thread& thread : threads) thread.join();
  int64_t expected = 0;
  for (int value : order) expected = (expected * 31 + value) % kModulus;
  EXPECT_EQ(client().Download<int64_t>(shared), std::vector<int64_t>{expected});
  for (double chain : chains) EXPECT_EQ(chain, kRounds);
}

// An array another client still has queued is named by its handle once it has one, not by its
// place in that client's queue (here the place of a zeros in this one's).
TEST_F(PipelineTest, AnotherClientsQueuedArrayIsWaitedFor) {
  Client other = ConnectQuiet();
  Client quiet = ConnectQuiet();
  Array theirs = other.Full({3}, 2.0);
  Array zeros = quiet.Zeros({3});
  Array mine = quiet.Ufunc("add", {theirs, 1.0});
  EXPECT_EQ(quiet.Download<double>(mine), (std::vector<double>{3, 3, 3}));
}

TEST_F(PipelineTest, AnErrorRaisesAtTheNextWaitAndLaterWorkIsDiscarded) {
  Array x = client().Arange(0.0, 3.0);
  Array y = client().Ufunc("add", {x, 1.0});
  Array bad = client().Matmul(x, client().Ones({2, 2}));
  Array after = client().Ufunc("multiply", {y, 2.0});
  client().UfuncOut(x, "add", {x, 100.0});
  const std::string message = "(matmul): matmul: Input operand 1 has a mismatch";
  EXPECT_CLIENT_ERROR(client().Synchronize(), kInvalidArgument, message);
  // Raised once: the client works again, and what ran before the failing op stands.
  EXPECT_EQ(client().Download<double>(y), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(client().Download<double>(x), (std::vector<double>{0, 1, 2}));  // The write: dropped.
  EXPECT_CLIENT_ERROR(bad.shape(), kInvalidArgument, message);
  EXPECT_CLIENT_ERROR(client().Download<double>(after), kInvalidArgument, message);
  EXPECT_CLIENT_ERROR(client().Ufunc("add", {after, 1.0}), kInvalidArgument, message);
  EXPECT_EQ(client().List().size(), 2u);  // x and y: nothing of the failed batch is left.

  // Sent by the idle flush, the error waits for the caller; work issued meanwhile is discarded.
  const int64_t batches = Batches();
  Array wrong = client().Reshape(x, {2, 2});
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (Batches() == batches && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(Batches(), batches + 1);
  Array discarded = client().Ufunc("add", {y, 1.0});
  EXPECT_CLIENT_ERROR(client().Download<double>(y), kInvalidArgument,
                      "(view reshape): cannot reshape array of size 3 into shape (2,2)");
  EXPECT_CLIENT_ERROR(discarded.shape(), kInvalidArgument, "cannot reshape array of size 3");
  EXPECT_EQ(client().Download<double>(client().Ufunc("add", {y, 1.0})),
            (std::vector<double>{2, 3, 4}));
}

// A client on the server's host sends its batches on its session's lane, opened once at the
// first batch; ARRAYHUB_BATCH_LANE=0, or a server without lanes, leaves them to Batch calls.
TEST_F(PipelineTest, BatchesGoOnTheSessionsLaneWhereThereIsOne) {
  Client quiet = ConnectQuiet();
  Array x = quiet.Arange(0.0, 3.0);
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(quiet.Download<double>(quiet.Ufunc("add", {x, double(i)})),
              (std::vector<double>{0.0 + i, 1.0 + i, 2.0 + i}));
  }
  EXPECT_EQ(Calls("OpenBatchLane"), 1);
  EXPECT_EQ(Calls("BatchLane"), 3);
  EXPECT_EQ(Calls("Batch"), 0);

  setenv("ARRAYHUB_BATCH_LANE", "0", 1);
  Client without = ConnectQuiet();
  unsetenv("ARRAYHUB_BATCH_LANE");
  EXPECT_EQ(without.Download<double>(without.Arange(0.0, 2.0)), (std::vector<double>{0, 1}));
  EXPECT_EQ(Calls("Batch"), 1);
  EXPECT_EQ(Calls("OpenBatchLane"), 1);

  ServerOptions options;
  options.limits.batch_lanes = false;
  StartServer(options);
  Client refused = ConnectQuiet();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(refused.Download<double>(refused.Arange(0.0, 2.0)), (std::vector<double>{0, 1}));
  }
  EXPECT_EQ(Calls("OpenBatchLane"), 1);  // Refused once; the session goes without.
  EXPECT_EQ(Calls("Batch"), 2);
  EXPECT_EQ(Calls("BatchLane"), 0);
}

TEST_F(PipelineTest, SyncModeThrowsAtTheCall) {
  client().SetSync(true);
  EXPECT_TRUE(client().sync());
  Array x = client().Arange(0.0, 3.0);
  Array ones = client().Ones({2});
  const int64_t calls = Calls();
  EXPECT_CLIENT_ERROR(client().UfuncOut(x, "add", {x, ones}), kInvalidArgument,
                      "operands could not be broadcast together");
  EXPECT_EQ(Calls() - calls, 1);
  EXPECT_EQ(Batches(), 0);
}

// Nothing waits on the client, yet its queue reaches the server: another client sees it.
TEST_F(PipelineTest, AQuietClientsQueueIsSentWhenIdle) {
  Client observer = Connect();
  Array queued = client().Zeros({1000});
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  size_t seen = 0;
  while (seen == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
    seen = observer.List(/*all_sessions=*/true).size();
  }
  EXPECT_EQ(seen, 1u);
  EXPECT_EQ(Batches(), 1);
}

// With nothing queued the idle thread sleeps: half a second of an idle client costs (almost) no
// CPU time.
TEST_F(PipelineTest, AnIdleClientDoesNotSpin) {
  auto cpu_seconds = [] {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  };
  Array x = client().Ufunc("add", {client().Zeros({10}), 1.0});
  std::this_thread::sleep_for(50ms);  // The idle flush has run.
  const double before = cpu_seconds();
  std::this_thread::sleep_for(500ms);
  EXPECT_LT(cpu_seconds() - before, 0.1);  // Spinning would take about 0.5.
  EXPECT_EQ(Batches(), 1);
}

TEST_F(PipelineTest, FreesRideWithTheNextBatch) {
  Client quiet = ConnectQuiet();
  Array x = quiet.Arange(0.0, 3.0);
  std::vector<Array> dropped;
  for (int i = 0; i < 10; ++i) dropped.push_back(quiet.Full({100}, i));
  quiet.Synchronize();
  const int64_t arrays = Stats().arrays;
  const int64_t batches = Batches();
  dropped.clear();
  EXPECT_EQ(Stats().arrays, arrays) << "freed before any batch went";
  Array y = quiet.Ufunc("add", {x, 1.0});
  quiet.Synchronize();
  EXPECT_EQ(Stats().arrays, arrays - 10 + 1);
  EXPECT_EQ(Batches(), batches + 1);
  EXPECT_EQ(Calls("Free"), 0);
  // With no op to ride with, the idle flush frees them in one call.
  Client idle = Connect();
  std::vector<Array> more;
  for (int i = 0; i < 5; ++i) more.push_back(idle.Full({100}, i));
  idle.Synchronize();
  more.clear();
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (Stats().arrays != arrays - 9 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(Stats().arrays, arrays - 9);
  EXPECT_GE(Calls("Free"), 1);  // One, unless the thread found the queue idle between two drops.
}

// More dropped arrays than a request may list go over several batches.
TEST_F(PipelineTest, ManyFreesAreSplitAcrossBatches) {
  ServerOptions options;
  options.limits.max_list_entries = 5000;
  StartServer(std::move(options));
  const int64_t before = Stats().arrays;
  Client quiet = ConnectQuiet();
  {
    std::vector<Array> many;
    for (int i = 0; i < 6000; ++i) many.push_back(quiet.Zeros({1}));
    quiet.Synchronize();
    EXPECT_EQ(Stats().arrays, before + 6000);
  }
  quiet.Synchronize();
  EXPECT_EQ(Stats().arrays, before);
}

// float((x + 1)[0]): the ops and the read in one round trip.
TEST_F(PipelineTest, AddThenReadOneElementIsOneRoundTrip) {
  Client quiet = ConnectQuiet();
  Array x = quiet.Upload(std::vector<float>{1.5f, 2.5f, 3.5f}, {3});
  const int64_t calls = RoundTrips();
  Array element = quiet.GetItem(quiet.Ufunc("add", {x, 1}), {0});
  EXPECT_EQ(quiet.Download<float>(element), std::vector<float>{2.5f});
  EXPECT_EQ(RoundTrips() - calls, 1);
  EXPECT_EQ(Batches(), 1);
  EXPECT_EQ(element.shape(), client::Shape{});  // Known since the read: no call.
  EXPECT_EQ(RoundTrips() - calls, 1);
  // Past the inline limit (1 MiB) the batch answers no data: the result is downloaded.
  Array big = quiet.Ufunc("add", {quiet.Zeros({300000}, DType::kFloat32), 2});
  const std::vector<float> values = quiet.Download<float>(big);
  EXPECT_EQ(values, std::vector<float>(300000, 2.0f));
  // Reads of every kind of result: empty, bool (one byte each), a dtype asked wrongly.
  EXPECT_TRUE(quiet.Download<float>(quiet.Zeros({0}, DType::kFloat32)).empty());
  EXPECT_EQ(quiet.Download<bool>(quiet.Ufunc("greater", {x, 2})),
            (std::vector<bool>{false, true, true}));
  EXPECT_CLIENT_ERROR(quiet.Download<double>(quiet.Ufunc("add", {x, 1})), kInvalidArgument,
                      "has dtype float32, not float64");
}

// The operators are pipelined as the Client's calls are: a chain of 100 of them, each reading
// the one before, and the read of its result go as one batch.
// A small upload is queued with its bytes (copied before Upload returns): the uploads, the ops
// on them and the read are one round trip. Past the inline size an upload is its own call.
TEST_F(PipelineTest, ASmallUploadIsQueuedWithItsBytes) {
  Client quiet = ConnectQuiet();
  quiet.Upload(std::vector<float>{0}, {1});  // The first small upload reads the server's limit.
  quiet.Synchronize();
  const int64_t calls = RoundTrips();
  std::vector<float> host{1, 2, 3, 4};
  Array x = quiet.Upload(host, {2, 2});
  host[0] = 100;
  Array ones = quiet.Upload(std::vector<float>{1, 1, 1, 1}, {2, 2});
  const std::vector<float> values =
      quiet.Download<float>(quiet.Ufunc("add", {quiet.Ufunc("multiply", {x, 2}), ones}));
  EXPECT_EQ(values, (std::vector<float>{3, 5, 7, 9}));
  EXPECT_EQ(RoundTrips() - calls, 1);
  EXPECT_EQ(x.shape(), (client::Shape{2, 2}));

  const std::vector<double> large(40000, 0.5);  // 320 KB: past 256 KiB.
  Array uploaded = quiet.Upload(large, {40000});
  EXPECT_GE(RoundTrips() - calls, 2);
  EXPECT_EQ(quiet.Download<double>(uploaded), large);
}

TEST_F(PipelineTest, AChainOfOperatorsIsOneBatch) {
  Client quiet = ConnectQuiet();
  Array x = quiet.Upload(std::vector<double>{0, 1, 2}, {3});
  const int64_t calls = RoundTrips();
  Array y = x * 1.0;
  for (int i = 1; i < 50; ++i) y = (y + 2) - 1;
  y = -y;  // 100 operators.
  EXPECT_EQ(quiet.Download<double>(y), (std::vector<double>{-49, -50, -51}));
  EXPECT_EQ(RoundTrips() - calls, 1);
  EXPECT_EQ(Batches(), 1);
  EXPECT_EQ(quiet.List().size(), 2u);  // x and y: the intermediate results were not kept.
}

TEST_F(PipelineTest, QuotasAreRefusedAtTheWait) {
  ServerOptions options;
  options.quotas.max_bytes = 1 << 20;
  StartServer(std::move(options));
  Client quiet = ConnectQuiet();
  Array small = quiet.Zeros({1000});
  Array huge = quiet.Zeros({1 << 20});  // 8 MiB.
  Array later = quiet.Ufunc("add", {small, 1.0});
  EXPECT_CLIENT_ERROR(quiet.Synchronize(), kResourceExhausted, "(create zeros)");
  EXPECT_CLIENT_ERROR(later.shape(), kResourceExhausted, "(create zeros)");
  EXPECT_EQ(quiet.Download<double>(small), std::vector<double>(1000, 0.0));
}

TEST_F(PipelineTest, ADestroyedClientRunsItsQueueAndLeavesNothing) {
  const EngineStats before = Stats();
  Array outlives;
  {
    Client quiet = ConnectQuiet();
    Array published = quiet.Zeros({4});
    quiet.Publish(published, "written-at-close");
    quiet.UfuncOut(published, "add", {published, 5.0});
    outlives = quiet.Ufunc("add", {published, 1.0});
    for (int i = 0; i < 10; ++i) Array dropped = quiet.Ones({100});
  }
  EXPECT_FALSE(outlives.shape().empty());  // Made at close; its session is gone since.
  Array attached = client().Attach("written-at-close");
  EXPECT_EQ(client().Download<double>(attached), std::vector<double>(4, 5.0));
  client().Unpublish("written-at-close");
  attached = Array();
  outlives = Array();
  client().Synchronize();
  EXPECT_EQ(Stats().arrays, before.arrays);
  EXPECT_EQ(Stats().sessions, before.sessions);
  EXPECT_EQ(Stats().bytes_in_use, before.bytes_in_use);
}

}  // namespace
}  // namespace arrayhub::testing
