// Batch lanes (OpenBatchLane, server/transport/batch_lanes.h): a session's batches over a
// connection to the descriptor socket, answered as a BatchStream answers them. A ticket opens
// one lane, the daemon proves itself with the ticket's proof, an open lane takes a transfer
// slot, ends with its session, at once when the server drains, and at a frame it cannot read;
// a client that goes mid-batch leaves nothing behind; a lane spinning for its next batch
// answers it, the drain and its client's going as promptly.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/transport/batch_fixture.h"

namespace arrayhub::testing {
namespace {

using namespace std::chrono_literals;

// One connection to the daemon's descriptor socket, spoken to as a client's lane.
class LaneConnection {
 public:
  explicit LaneConnection(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.data(), path.size());
    if (path[0] == '@') address.sun_path[0] = '\0';
    const timeval timeout{.tv_sec = 10, .tv_usec = 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    connected_ =
        connect(fd_, reinterpret_cast<const sockaddr*>(&address),
                static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size())) == 0;
  }
  ~LaneConnection() { Close(); }

  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  bool connected() const { return connected_; }

  bool Send(const std::string& bytes) {
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // The daemon's answer line, without its newline ("" when the connection ended first).
  std::string Line() {
    std::string line;
    char c = 0;
    while (recv(fd_, &c, 1, 0) == 1 && c != '\n') line += c;
    return line;
  }
  static std::string Framed(const std::string& payload) {
    std::string frame(4, '\0');
    for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>((payload.size() >> (8 * i)) & 0xff);
    return frame + payload;
  }
  // Sends `request` and reads its answer; nullopt when the lane ended instead.
  std::optional<v1::BatchStreamResponse> Exchange(const v1::BatchRequest& request) {
    if (!Send(Framed(request.SerializeAsString()))) return std::nullopt;
    return Answer();
  }
  std::optional<v1::BatchStreamResponse> Answer() {
    std::string length_bytes;
    if (!Read(4, &length_bytes)) return std::nullopt;
    uint32_t length = 0;
    for (int i = 0; i < 4; ++i) {
      length |= static_cast<uint32_t>(static_cast<unsigned char>(length_bytes[i])) << (8 * i);
    }
    std::string payload;
    v1::BatchStreamResponse answer;
    if (!Read(length, &payload) || !answer.ParseFromString(payload)) return std::nullopt;
    return answer;
  }
  // Whether the daemon ended the connection (within the 10 s receive timeout).
  bool Ended() {
    char c = 0;
    return recv(fd_, &c, 1, 0) == 0;
  }

 private:
  bool Read(size_t size, std::string* out) {
    out->resize(size);
    size_t got = 0;
    while (got < size) {
      const ssize_t n = recv(fd_, out->data() + got, size - got, 0);
      if (n <= 0) return false;
      got += static_cast<size_t>(n);
    }
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
};

class BatchLaneTest : public BatchTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options;
    options.quotas.max_transfers = 2;
    options.limits.transfer_idle_timeout = 200ms;
    options.reap_interval = 50ms;
    return options;
  }

  grpc::Status Grant(const std::string& session, v1::OpenBatchLaneResponse* grant) {
    std::unique_ptr<grpc::ClientContext> context = Context(session);
    return stub_->OpenBatchLane(context.get(), {}, grant);
  }

  // A lane of `session` (the fixture's by default), opened and proved; null (with a test
  // failure) otherwise.
  std::unique_ptr<LaneConnection> OpenLane(const std::string& session = "") {
    v1::OpenBatchLaneResponse grant;
    const grpc::Status granted = Grant(session, &grant);
    EXPECT_TRUE(granted.ok()) << granted.error_message();
    if (!granted.ok()) return nullptr;
    auto lane = std::make_unique<LaneConnection>(grant.socket_path());
    EXPECT_TRUE(lane->connected());
    EXPECT_TRUE(lane->Send("BATCHES " + grant.ticket() + "\n"));
    const std::string answer = lane->Line();
    EXPECT_EQ(answer, "OK " + grant.proof());
    if (answer != "OK " + grant.proof()) return nullptr;
    return lane;
  }

  // The answer line to redeeming `ticket` on a fresh connection.
  // Drains the server: `lane`, waiting for its next batch, must end well before the drain's
  // 5 s are up.
  void ExpectTheDrainEndsItAtOnce(LaneConnection& lane) {
    const auto start = std::chrono::steady_clock::now();
    std::thread drain([&] { server_->Shutdown(5000ms); });
    EXPECT_TRUE(lane.Ended());
    drain.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  }

  std::string Redeem(const std::string& socket_path, const std::string& ticket) {
    LaneConnection lane(socket_path);
    EXPECT_TRUE(lane.Send("BATCHES " + ticket + "\n"));
    return lane.Line();
  }
};

TEST_F(BatchLaneTest, BatchesRunInOrderAndAFailedOneAnswersItsErrorAndTheLaneGoesOn) {
  const std::string a = Array({1, 2, 3});
  std::unique_ptr<LaneConnection> lane = OpenLane();
  ASSERT_NE(lane, nullptr);
  std::optional<v1::BatchStreamResponse> answer =
      lane->Exchange(Reading(Batch({Elementwise("add", {Handle(a), Number(1)})}, {0}), 0));
  ASSERT_TRUE(answer.has_value() && answer->has_response());
  EXPECT_EQ(AsDoubles(answer->response().data()), (std::vector<double>{2, 3, 4}));
  const std::string kept = answer->response().results(0).handle();

  answer = lane->Exchange(
      Batch({Elementwise("add", {Handle(kept), Number(1)}), Elementwise("frobnicate", {Result(0)})},
            {0, 1}));
  ASSERT_TRUE(answer.has_value() && answer->has_error());
  EXPECT_EQ(answer->error().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(answer->error().message(),
            "ops[1] (elementwise frobnicate): unknown elementwise op 'frobnicate'");
  EXPECT_EQ(Listed(), (std::set<std::string>{a, kept}));

  answer =
      lane->Exchange(Reading(Batch({Elementwise("multiply", {Handle(kept), Number(10)})}, {}), 0));
  ASSERT_TRUE(answer.has_value() && answer->has_response());
  EXPECT_EQ(AsDoubles(answer->response().data()), (std::vector<double>{20, 30, 40}));
  lane->Close();
  EXPECT_EQ(Listed(), (std::set<std::string>{a, kept}));
}

TEST_F(BatchLaneTest, ATicketOpensOneLaneAndAnyOtherLineIsRefusedAlike) {
  v1::OpenBatchLaneResponse grant;
  ASSERT_TRUE(Grant("", &grant).ok());
  EXPECT_EQ(grant.ticket().size(), 32u);
  EXPECT_NE(grant.proof(), grant.ticket());
  {
    LaneConnection lane(grant.socket_path());
    ASSERT_TRUE(lane.Send("BATCHES " + grant.ticket() + "\n"));
    EXPECT_EQ(lane.Line(), "OK " + grant.proof());
  }
  const std::string refused = "ERROR no such batch lane ticket (unknown, used, or older than 10 s)";
  EXPECT_EQ(Redeem(grant.socket_path(), grant.ticket()), refused);  // Used.
  EXPECT_EQ(Redeem(grant.socket_path(), std::string(32, '0')), refused);
  EXPECT_EQ(Redeem(grant.socket_path(), ""), refused);

  // Bytes after the line, before the answer, would be lost: refused, the ticket spent.
  ASSERT_TRUE(Grant("", &grant).ok());
  LaneConnection eager(grant.socket_path());
  ASSERT_TRUE(eager.Send("BATCHES " + grant.ticket() + "\n" + LaneConnection::Framed("x")));
  EXPECT_EQ(eager.Line(), "ERROR send nothing after the request line before the answer");
}

TEST_F(BatchLaneTest, AGrantNeedsASession) {
  grpc::ClientContext context;
  v1::OpenBatchLaneResponse grant;
  EXPECT_STATUS(stub_->OpenBatchLane(&context, {}, &grant), INVALID_ARGUMENT,
                "missing x-arrayhub-session metadata");
}

TEST_F(BatchLaneTest, AnIdleLaneStaysOpenAndEndsWithItsSession) {
  const std::string other = OpenSession();
  const std::string a = Array({5});
  std::unique_ptr<LaneConnection> lane = OpenLane(other);
  ASSERT_NE(lane, nullptr);
  ASSERT_TRUE(lane->Exchange(Batch({Arange(3)}, {0})).has_value());
  std::this_thread::sleep_for(600ms);  // Three idle timeouts: an upload would be cancelled.
  ASSERT_TRUE(lane->Exchange(Batch({Arange(4)}, {0})).has_value());

  grpc::ClientContext close;
  close.AddMetadata("x-arrayhub-session", other);
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(stub_->CloseSession(&close, {}, &closed).ok());
  EXPECT_EQ(closed.arrays_freed(), 2);
  EXPECT_TRUE(lane->Ended());
  EXPECT_EQ(Listed(), (std::set<std::string>{a}));
}

TEST_F(BatchLaneTest, TheDrainEndsALaneThatWaitsForItsNextBatchAtOnce) {
  std::unique_ptr<LaneConnection> lane = OpenLane();
  ASSERT_NE(lane, nullptr);
  ASSERT_TRUE(lane->Exchange(Batch({Arange(3)}, {0})).has_value());
  ExpectTheDrainEndsItAtOnce(*lane);
}

TEST_F(BatchLaneTest, AnOpenLaneTakesATransferSlot) {
  std::unique_ptr<LaneConnection> first = OpenLane(), second = OpenLane();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  v1::OpenBatchLaneResponse grant;
  ASSERT_TRUE(Grant("", &grant).ok());  // Granting takes nothing; redeeming does.
  EXPECT_EQ(Redeem(grant.socket_path(), grant.ticket()),
            "ERROR tenant 'anonymous' transfer quota exceeded (--tenant-max-transfers 2): 2 "
            "uploads, downloads, Batch streams and session watches are in flight");
  first->Close();
  EXPECT_TRUE(Eventually([&] {
    v1::OpenBatchLaneResponse again;
    return Grant("", &again).ok() &&
           Redeem(again.socket_path(), again.ticket()) == "OK " + again.proof();
  }));
}

// A frame too long for --max-message-bytes, or one that is not a BatchRequest, ends its lane
// (the frames after it cannot be found); the daemon and the session's other lanes go on.
TEST_F(BatchLaneTest, AFrameTheLaneCannotReadEndsItAndNothingElse) {
  std::unique_ptr<LaneConnection> good = OpenLane();
  ASSERT_NE(good, nullptr);
  {
    std::unique_ptr<LaneConnection> lane = OpenLane();
    ASSERT_NE(lane, nullptr);
    ASSERT_TRUE(lane->Send(std::string("\xff\xff\xff\xff", 4)));
    EXPECT_TRUE(lane->Ended());
  }
  {
    std::unique_ptr<LaneConnection> lane = OpenLane();
    ASSERT_NE(lane, nullptr);
    ASSERT_TRUE(lane->Send(LaneConnection::Framed(std::string("\xff\xff\xff", 3))));
    EXPECT_TRUE(lane->Ended());
  }
  std::optional<v1::BatchStreamResponse> answer =
      good->Exchange(Reading(Batch({Arange(3)}, {}), 0));
  ASSERT_TRUE(answer.has_value() && answer->has_response());
  EXPECT_EQ(AsDoubles(answer->response().data()), (std::vector<double>{0, 1, 2}));
}

// The client goes while a long batch runs: the batch stops, and neither its arrays nor the
// lane's slot stay behind.
TEST_F(BatchLaneTest, AClientThatGoesMidBatchLeavesNothing) {
  constexpr int64_t kElements = 1 << 20;
  const std::string big = Array(std::vector<double>(kElements, 1.0));
  const std::set<std::string> before = Listed();
  v1::BatchRequest request;
  *request.add_ops() = Elementwise("add", {Handle(big), Number(1)});
  while (request.ops_size() < 1001) {
    *request.add_ops() = Sum(Result(request.ops_size() - 1));
    *request.add_ops() = Elementwise("add", {Handle(big), Result(request.ops_size() - 1)});
  }
  request.add_keep(request.ops_size() - 1);
  {
    std::unique_ptr<LaneConnection> lane = OpenLane();
    ASSERT_NE(lane, nullptr);
    ASSERT_TRUE(lane->Send(LaneConnection::Framed(request.SerializeAsString())));
    // Short: the CUDA backend only enqueues each op, so the whole batch takes its host about
    // 15 ms (20 ms let it finish first on the H200, and its kept result then stood).
    std::this_thread::sleep_for(2ms);
  }  // Closed mid-batch.
  EXPECT_TRUE(Eventually([&] { return Listed() == before; }));
  EXPECT_TRUE(Eventually([&] {
    return server_->engine().Stats().bytes_in_use == baseline_.bytes_in_use + 8 * kElements;
  }));
  // Both slots are free again once the lane's thread has ended.
  EXPECT_TRUE(Eventually([&] {
    v1::OpenBatchLaneResponse one, other;
    return Grant("", &one).ok() && Grant("", &other).ok() &&
           Redeem(one.socket_path(), one.ticket()) == "OK " + one.proof() &&
           Redeem(other.socket_path(), other.ticket()) == "OK " + other.proof();
  }));
}

using BatchLanesOffTest = WithLimit<BatchTest, &Limits::batch_lanes, false>;

TEST_F(BatchLanesOffTest, AGrantIsRefusedAndServerInfoSaysSo) {
  std::unique_ptr<grpc::ClientContext> context = Context();
  v1::OpenBatchLaneResponse grant;
  EXPECT_STATUS(stub_->OpenBatchLane(context.get(), {}, &grant), FAILED_PRECONDITION,
                "batch lanes are switched off on this daemon (--batch-lanes=false)");
  grpc::ClientContext info_context;
  v1::ServerInfo info;
  ASSERT_TRUE(stub_->GetServerInfo(&info_context, {}, &info).ok());
  EXPECT_FALSE(info.limits().batch_lane());
  EXPECT_TRUE(info.limits().batch_stream());
}

// Lanes that spin for up to 10 s between batches (server/transport/lane_spin.h): a lane whose
// client came back quickly is polling when the next event comes, and must answer it as fast.
class BatchLaneSpinTest : public BatchLaneTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options = BatchLaneTest::Options();
    options.limits.lane_spin = 10s;
    return options;
  }

  // A lane whose client came back within the window: it spins for its next batch.
  std::unique_ptr<LaneConnection> OpenSpinningLane() {
    std::unique_ptr<LaneConnection> lane = OpenLane();
    for (int i = 0; lane != nullptr && i < 2; ++i) {
      EXPECT_TRUE(lane->Exchange(Batch({Arange(3)}, {0})).has_value());
    }
    return lane;
  }
};

TEST_F(BatchLaneSpinTest, ASpinningLaneRunsEachBatchItIsSent) {
  std::unique_ptr<LaneConnection> lane = OpenSpinningLane();
  ASSERT_NE(lane, nullptr);
  for (int i = 1; i <= 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(i % 3));
    std::optional<v1::BatchStreamResponse> answer =
        lane->Exchange(Reading(Batch({Arange(i)}, {}), 0));
    ASSERT_TRUE(answer.has_value() && answer->has_response()) << "batch " << i;
    std::vector<double> expected(static_cast<size_t>(i));
    std::iota(expected.begin(), expected.end(), 0.0);
    EXPECT_EQ(AsDoubles(answer->response().data()), expected);
  }
}

TEST_F(BatchLaneSpinTest, TheDrainEndsASpinningLaneAtOnce) {
  std::unique_ptr<LaneConnection> lane = OpenSpinningLane();
  ASSERT_NE(lane, nullptr);
  ExpectTheDrainEndsItAtOnce(*lane);
}

// With both transfer slots taken, a new lane opens only once the spinning one has seen its
// client go, well within the 10 s it would otherwise spin.
TEST_F(BatchLaneSpinTest, ASpinningLaneEndsWithItsClient) {
  std::unique_ptr<LaneConnection> spinning = OpenSpinningLane(), other = OpenLane();
  ASSERT_NE(spinning, nullptr);
  ASSERT_NE(other, nullptr);
  const auto start = std::chrono::steady_clock::now();
  spinning->Close();
  EXPECT_TRUE(Eventually([&] {
    v1::OpenBatchLaneResponse again;
    return Grant("", &again).ok() &&
           Redeem(again.socket_path(), again.ticket()) == "OK " + again.proof();
  }));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

// The default transfer slots (32): one lane per thread.
class BatchLaneConcurrencyTest : public BatchLaneTest {
 protected:
  ServerOptions Options() const override { return ServerOptions(); }
};

// Lanes of several sessions at once on one array: in-place adds, and reads of what they made,
// each lane's batches in its own order. Every add lands, every read sees a whole number of
// them, and nothing is left behind.
TEST_F(BatchLaneConcurrencyTest, LanesOfManySessionsOnOneArrayLoseNothing) {
  const std::string a = Array({0, 0, 0});
  constexpr int kLanes = 4;
  constexpr int kRounds = 40;
  std::vector<std::string> sessions;
  for (int t = 0; t < kLanes; ++t) sessions.push_back(OpenSession());
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kLanes; ++t) {
    threads.emplace_back([&, t] {
      std::unique_ptr<LaneConnection> lane = OpenLane(sessions[t]);
      if (lane == nullptr) {
        ++bad;
        return;
      }
      for (int round = 0; round < kRounds; ++round) {
        std::optional<v1::BatchStreamResponse> answer = lane->Exchange(AddOneThenReadTwice(a));
        if (!answer.has_value() || !answer->has_response()) {
          ++bad;
          return;
        }
        if (!ShowsWholeAdds(AsDoubles(answer->response().data()), kLanes * kRounds)) ++bad;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(Values(a), std::vector<double>(3, kLanes * kRounds));
  EXPECT_EQ(Listed(), (std::set<std::string>{a}));
}

}  // namespace
}  // namespace arrayhub::testing
