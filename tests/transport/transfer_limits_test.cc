// Streamed transfers hold server memory (chunks in flight; an upload's whole array from its
// header on), so they are bounded like any other allocation: each tenant runs only so many at
// once, one that moves nothing for --transfer-idle-seconds is cancelled, a session's transfers
// end with it, and the CPU backend reserves no more than the host holds.
#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>

#include "server/backend/host/host_backend.h"
#include "tests/support/resident_memory.h"
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

using namespace std::chrono_literals;

// An upload whose client sent its header and then nothing.
struct StalledUpload {
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<v1::UploadResponse> response = std::make_unique<v1::UploadResponse>();
  std::unique_ptr<grpc::ClientWriter<v1::UploadRequest>> writer;

  grpc::Status Finish() { return writer->Finish(); }
};

class TransferLimitsTest : public RpcTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options;
    options.quotas.max_transfers = 4;
    options.reap_interval = 50ms;
    return options;
  }

  // Starts uploading a new uint8 array of `n` bytes and sends only the header.
  StalledUpload HeaderOnly(int64_t n, const std::string& session = "") {
    StalledUpload upload;
    upload.context = Context(session);
    upload.writer = stub_->Upload(upload.context.get(), upload.response.get());
    v1::UploadRequest header;
    header.mutable_header()->set_dtype(v1::DTYPE_UINT8);
    header.mutable_header()->add_shape(n);
    EXPECT_TRUE(upload.writer->Write(header));
    return upload;
  }

  bool MemoryIsBack() {
    return Eventually(
        [&] { return server_->engine().Stats().bytes_in_use == baseline_.bytes_in_use; });
  }
};

class IdleTransferTest : public TransferLimitsTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options = TransferLimitsTest::Options();
    options.limits.transfer_idle_timeout = 300ms;
    return options;
  }
};

TEST_F(IdleTransferTest, AnUploadThatSendsOnlyItsHeaderIsCancelledAndItsArrayFreed) {
  StalledUpload upload = HeaderOnly(8 << 20);
  ASSERT_TRUE(Eventually([&] {
    return server_->engine().Stats().bytes_in_use == baseline_.bytes_in_use + (8 << 20);
  }));
  EXPECT_TRUE(MemoryIsBack());
  EXPECT_EQ(upload.Finish().error_code(), grpc::StatusCode::CANCELLED);
  ExpectNothingLeaked();
  // The tenant's slots are free again.
  v1::ArrayInfo info;
  EXPECT_TRUE(Upload(v1::DTYPE_UINT8, {3}, "abc", &info).ok());
}

TEST_F(TransferLimitsTest, AnUploadEndsWithItsSession) {
  const std::string other = OpenSession();
  StalledUpload upload = HeaderOnly(8 << 20, other);
  ASSERT_TRUE(Eventually([&] {
    return server_->engine().Stats().bytes_in_use == baseline_.bytes_in_use + (8 << 20);
  }));
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(stub_->CloseSession(Context(other).get(), {}, &closed).ok());
  EXPECT_TRUE(MemoryIsBack());  // Long before --transfer-idle-seconds (60 s here).
  EXPECT_EQ(upload.Finish().error_code(), grpc::StatusCode::CANCELLED);
  ExpectNothingLeaked();
}

TEST_F(TransferLimitsTest, AnUploadEndsWhenItsSessionsLeaseRunsOut) {
  grpc::ClientContext context;
  v1::OpenSessionRequest request;
  request.set_lease_seconds(1);
  v1::OpenSessionResponse leased;
  ASSERT_TRUE(stub_->OpenSession(&context, request, &leased).ok());
  StalledUpload upload = HeaderOnly(8 << 20, leased.session_id());
  ASSERT_TRUE(Eventually([&] {
    return server_->engine().Stats().bytes_in_use == baseline_.bytes_in_use + (8 << 20);
  }));
  EXPECT_TRUE(MemoryIsBack());  // Reaped after its second, not after 60 s of idling.
  EXPECT_EQ(upload.Finish().error_code(), grpc::StatusCode::CANCELLED);
  ExpectNothingLeaked();
}

TEST_F(TransferLimitsTest, TransfersInFlightAreCappedPerTenant) {
  v1::CreateRequest zeros;
  zeros.set_dtype(v1::DTYPE_UINT8);
  zeros.add_shape(3);
  zeros.mutable_zeros();
  const v1::ArrayInfo array = Create(zeros);
  baseline_ = server_->engine().Stats();
  std::vector<StalledUpload> stalled;
  for (int i = 0; i < 4; ++i) stalled.push_back(HeaderOnly(16));
  ASSERT_TRUE(Eventually(
      [&] { return server_->engine().Stats().bytes_in_use == baseline_.bytes_in_use + 4 * 16; }));
  v1::ArrayInfo info;
  EXPECT_STATUS(Upload(v1::DTYPE_UINT8, {3}, "abc", &info), RESOURCE_EXHAUSTED,
                "tenant 'anonymous' transfer quota exceeded (--tenant-max-transfers 4): 4 "
                "uploads, downloads, Batch streams and session watches are in flight");
  grpc::Status download;
  DownloadAll(array.handle(), 0, &download);
  EXPECT_STATUS(download, RESOURCE_EXHAUSTED, "--tenant-max-transfers 4");
  // A Batch that reads a result back is not a transfer: its read is one message, bounded by
  // --max-inline-read-bytes, so it runs with the quota full.
  v1::BatchRequest batch;
  v1::ElementwiseRequest* add = batch.add_ops()->mutable_elementwise();
  add->set_op("add");
  add->add_operands()->set_handle(array.handle());
  add->add_operands()->mutable_scalar()->set_int_value(1);
  add->set_out(array.handle());
  batch.set_read(0);
  v1::BatchResponse response;
  ASSERT_TRUE(stub_->Batch(Context().get(), batch, &response).ok());
  EXPECT_EQ(response.data(), std::string(3, '\x01'));
  // One ends: its slot is free again.
  stalled.back().context->TryCancel();
  EXPECT_EQ(stalled.back().Finish().error_code(), grpc::StatusCode::CANCELLED);
  stalled.pop_back();
  EXPECT_TRUE(Eventually([&] { return Upload(v1::DTYPE_UINT8, {3}, "abc", &info).ok(); }));
  // A call's slot comes back a moment after its client has the answer, so the download too
  // may have to try again.
  std::string bytes;
  EXPECT_TRUE(Eventually([&] {
    grpc::Status status;
    bytes = DownloadAll(array.handle(), 0, &status);
    return status.ok();
  }));
  EXPECT_EQ(bytes, std::string(3, '\x01'));
}

// Run as a child process by UnreadDownloadsHoldBoundedMemory: makes an 8 MiB array and starts
// downloads of it in 2 MiB chunks, each on a connection of its own, and reads none of them.
TEST(TransferLimitsChildProcess, DownloadWithoutReading) {
  const char* address = std::getenv("ARRAYHUB_CHILD_SERVER");
  if (address == nullptr) GTEST_SKIP() << "only run as a child process";
  auto channel = [address](int i) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetInt("arrayhub.test.connection", i);  // Keeps the connections apart.
    return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  };
  auto stub = v1::ArrayHub::NewStub(channel(0));
  grpc::ClientContext open_context;
  v1::OpenSessionResponse session;
  ASSERT_TRUE(stub->OpenSession(&open_context, {}, &session).ok());
  grpc::ClientContext create_context;
  create_context.AddMetadata("x-arrayhub-session", session.session_id());
  v1::CreateRequest create;
  create.set_dtype(v1::DTYPE_UINT8);
  create.add_shape(8 << 20);
  create.mutable_ones();
  v1::ArrayInfo array;
  ASSERT_TRUE(stub->Create(&create_context, create, &array).ok());
  std::vector<std::unique_ptr<v1::ArrayHub::Stub>> stubs;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::DownloadResponse>>> readers;
  for (int i = 0; i < 40; ++i) {
    stubs.push_back(v1::ArrayHub::NewStub(channel(i + 1)));
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    contexts.back()->AddMetadata("x-arrayhub-session", session.session_id());
    v1::DownloadRequest request;
    request.set_handle(array.handle());
    request.set_chunk_bytes(2 << 20);
    readers.push_back(stubs.back()->Download(contexts.back().get(), request));
  }
  std::this_thread::sleep_for(60s);  // Killed long before this ends.
}

// The server keeps at most four chunks per download however slowly its client reads (HTTP/2
// flow control holds the rest back), and the transfer quota bounds the downloads: 40 unread
// downloads of 2 MiB chunks held 320 MiB when nothing bounded them.
TEST_F(TransferLimitsTest, UnreadDownloadsHoldBoundedMemory) {
  const int64_t before = ResidentBytes();
  const pid_t child = SpawnChildTest("TransferLimitsChildProcess.DownloadWithoutReading");
  ASSERT_NE(child, 0);
  const bool created = Eventually(
      [&] { return server_->engine().Stats().bytes_in_use >= baseline_.bytes_in_use + (8 << 20); });
  std::this_thread::sleep_for(3s);  // The downloads start and stall.
  const int64_t grown = ResidentBytes() - before;
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(created) << "the child never made its array";
  // The array, four downloads of four 2 MiB chunks, and slack for gRPC's own buffers.
  EXPECT_LT(grown, int64_t{100} << 20) << "resident memory grew by " << (grown >> 20) << " MiB";
}

// The CPU backend reserves no more than it has: header-only uploads cannot claim memory the
// host (here a backend of 16 MiB) does not hold.
TEST(HostMemoryLimitTest, UploadsCannotReserveMoreThanTheHostHolds) {
  ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  auto server = ArrayHubServer::Start(options, std::make_unique<HostBackend>(16 << 20));
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::ArrayHub::NewStub(
      grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext open_context;
  v1::OpenSessionResponse session;
  ASSERT_TRUE(stub->OpenSession(&open_context, {}, &session).ok());
  auto header_only = [&](grpc::ClientContext& context, v1::UploadResponse& response) {
    context.AddMetadata("x-arrayhub-session", session.session_id());
    auto writer = stub->Upload(&context, &response);
    v1::UploadRequest header;
    header.mutable_header()->set_dtype(v1::DTYPE_UINT8);
    header.mutable_header()->add_shape(10 << 20);
    writer->Write(header);
    return writer;
  };
  grpc::ClientContext first_context, second_context;
  v1::UploadResponse first_response, second_response;
  auto first = header_only(first_context, first_response);
  ASSERT_TRUE(Eventually([&] { return (*server)->engine().Stats().bytes_in_use == 10 << 20; }));
  auto second = header_only(second_context, second_response);
  EXPECT_STATUS(second->Finish(), RESOURCE_EXHAUSTED,
                "out of host memory allocating 10485760 bytes: arrays hold 10485760 of the "
                "16777216 bytes this host can give them");
  first_context.TryCancel();
  first->Finish().IgnoreError();
}

}  // namespace
}  // namespace arrayhub::testing
