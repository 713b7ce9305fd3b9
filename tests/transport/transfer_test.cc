// Upload and download: bit-exact round trips, chunking, and uploads that go wrong, including a
// client process killed mid-stream. None may leave an array or memory behind.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

class TransferTest : public RpcTest {
 protected:
  // Sends raw messages, for the malformed-stream cases.
  grpc::Status UploadMessages(const std::vector<v1::UploadRequest>& messages) {
    auto context = Context();
    v1::UploadResponse response;
    auto writer = stub_->Upload(context.get(), &response);
    for (const auto& message : messages) writer->Write(message);
    writer->WritesDone();
    return writer->Finish();
  }
};

struct DTypeCase {
  v1::DType dtype;
  int itemsize;
};

TEST_F(TransferTest, EveryDTypeRoundTripsBitExactly) {
  const DTypeCase cases[] = {
      {v1::DTYPE_BOOL, 1},      {v1::DTYPE_INT8, 1},        {v1::DTYPE_INT16, 2},
      {v1::DTYPE_INT32, 4},     {v1::DTYPE_INT64, 8},       {v1::DTYPE_UINT8, 1},
      {v1::DTYPE_UINT16, 2},    {v1::DTYPE_UINT32, 4},      {v1::DTYPE_UINT64, 8},
      {v1::DTYPE_FLOAT16, 2},   {v1::DTYPE_FLOAT32, 4},     {v1::DTYPE_FLOAT64, 8},
      {v1::DTYPE_COMPLEX64, 8}, {v1::DTYPE_COMPLEX128, 16},
  };
  uint64_t seed = 1;
  for (const DTypeCase& c : cases) {
    SCOPED_TRACE(v1::DType_Name(c.dtype));
    // Bool elements must be 0 or 1; every other dtype takes arbitrary bits (NaN payloads too).
    std::string bytes = RandomBytes(size_t{37} * 53 * c.itemsize, seed++);
    if (c.dtype == v1::DTYPE_BOOL) {
      for (auto& b : bytes) b = static_cast<char>(b & 1);
    }
    v1::ArrayInfo info;
    ASSERT_TRUE(Upload(c.dtype, {37, 53}, bytes, &info, 1000).ok());
    EXPECT_EQ(info.nbytes(), static_cast<int64_t>(bytes.size()));
    EXPECT_EQ(DownloadAll(info.handle(), 777), bytes);
  }
}

TEST_F(TransferTest, EmptyAndZeroDimensionalArraysRoundTrip) {
  v1::ArrayInfo empty;
  ASSERT_TRUE(Upload(v1::DTYPE_FLOAT64, {0, 5}, "", &empty).ok());
  EXPECT_EQ(empty.nbytes(), 0);
  EXPECT_EQ(DownloadAll(empty.handle()), "");

  const std::string scalar = RandomBytes(8, 99);
  v1::ArrayInfo zero_d;
  ASSERT_TRUE(Upload(v1::DTYPE_INT64, {}, scalar, &zero_d).ok());
  EXPECT_EQ(zero_d.shape_size(), 0);
  EXPECT_EQ(DownloadAll(zero_d.handle()), scalar);
}

TEST_F(TransferTest, DownloadChunksRespectTheRequestAndTheServerCap) {
  const std::string bytes = RandomBytes(5 << 20, 7);
  v1::ArrayInfo info;
  ASSERT_TRUE(Upload(v1::DTYPE_UINT8, {5 << 20}, bytes, &info).ok());
  for (int64_t asked : {int64_t{0}, int64_t{4096}, int64_t{1} << 30}) {
    auto context = Context();
    v1::DownloadRequest request;
    request.set_handle(info.handle());
    request.set_chunk_bytes(asked);
    auto reader = stub_->Download(context.get(), request);
    v1::DownloadResponse message;
    ASSERT_TRUE(reader->Read(&message));
    ASSERT_TRUE(message.has_info());
    std::string data;
    const size_t expected_chunk =
        asked == 0 ? (1 << 20)
                   : std::min<size_t>(asked, server_->engine().limits().max_chunk_bytes);
    while (reader->Read(&message)) {
      ASSERT_TRUE(message.has_chunk());
      EXPECT_LE(message.chunk().size(), expected_chunk);
      data += message.chunk();
    }
    ASSERT_TRUE(reader->Finish().ok());
    EXPECT_EQ(data, bytes);
  }
}

TEST_F(TransferTest, TooManyBytesCreateNothing) {
  v1::ArrayInfo info;
  EXPECT_STATUS(Upload(v1::DTYPE_FLOAT32, {10}, RandomBytes(44, 3), &info), INVALID_ARGUMENT,
                "upload has more data than the header declares: 44 bytes received, float32 "
                "array of shape (10,) holds 40 bytes");
  ExpectNothingLeaked();
}

TEST_F(TransferTest, TooFewBytesCreateNothing) {
  v1::ArrayInfo info;
  EXPECT_STATUS(Upload(v1::DTYPE_FLOAT32, {2, 5}, RandomBytes(36, 4), &info, 8), INVALID_ARGUMENT,
                "upload ended after 36 bytes, but the float32 array of shape (2, 5) needs 40 "
                "bytes");
  ExpectNothingLeaked();
}

TEST_F(TransferTest, ChunkOverTheLimitIsRefused) {
  v1::ArrayInfo info;
  const int64_t limit = server_->engine().limits().max_chunk_bytes;
  EXPECT_STATUS(Upload(v1::DTYPE_UINT8, {limit + 1}, RandomBytes(limit + 1, 5), &info, limit + 1),
                INVALID_ARGUMENT, "exceeds the limit of");
  ExpectNothingLeaked();
}

TEST_F(TransferTest, MalformedStreamsAreRefused) {
  v1::UploadRequest header;
  header.mutable_header()->set_dtype(v1::DTYPE_INT16);
  header.mutable_header()->add_shape(4);
  v1::UploadRequest chunk;
  chunk.set_chunk(RandomBytes(8, 6));
  v1::UploadRequest unset;  // Neither header nor chunk.

  EXPECT_STATUS(UploadMessages({}), INVALID_ARGUMENT, "ended before its header");
  EXPECT_STATUS(UploadMessages({chunk}), INVALID_ARGUMENT, "first upload message must be a header");
  EXPECT_STATUS(UploadMessages({header, header}), INVALID_ARGUMENT,
                "upload message after 0 bytes is not a chunk");
  EXPECT_STATUS(UploadMessages({header, unset}), INVALID_ARGUMENT, "is not a chunk");
  v1::UploadRequest no_dtype;
  no_dtype.mutable_header()->add_shape(4);
  EXPECT_STATUS(UploadMessages({no_dtype, chunk}), INVALID_ARGUMENT, "header.dtype is required");
  v1::UploadRequest unknown_dtype = header;
  unknown_dtype.mutable_header()->set_dtype(static_cast<v1::DType>(42));
  EXPECT_STATUS(UploadMessages({unknown_dtype, chunk}), INVALID_ARGUMENT,
                "unknown dtype 42 in header.dtype");
  ExpectNothingLeaked();
}

TEST_F(TransferTest, CancelledUploadLeavesNothingBehind) {
  auto context = Context();
  v1::UploadResponse response;
  auto writer = stub_->Upload(context.get(), &response);
  v1::UploadRequest header;
  header.mutable_header()->set_dtype(v1::DTYPE_FLOAT32);
  header.mutable_header()->add_shape(int64_t{4} << 20);  // 16 MiB
  ASSERT_TRUE(writer->Write(header));
  v1::UploadRequest chunk;
  chunk.set_chunk(RandomBytes(1 << 20, 8));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(writer->Write(chunk));
  // The server has reserved the array's memory...
  ASSERT_TRUE(Eventually([&] {
    return server_->engine().Stats().bytes_in_use >= baseline_.bytes_in_use + (16 << 20);
  }));
  context->TryCancel();
  EXPECT_EQ(writer->Finish().error_code(), grpc::StatusCode::CANCELLED);
  // ...and gives it back once it sees the stream is gone.
  EXPECT_TRUE(
      Eventually([&] { return server_->engine().Stats().bytes_in_use == baseline_.bytes_in_use; }));
  ExpectNothingLeaked();
}

// Run as a child process by KilledClientLeavesNothingBehind: starts a large upload against
// the server named in the environment and stalls so that the parent can kill it.
TEST(TransferChildProcess, UploadThenStall) {
  const char* address = std::getenv("ARRAYHUB_CHILD_SERVER");
  if (address == nullptr) GTEST_SKIP() << "only run as a child process";
  auto stub =
      v1::ArrayHub::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext open_context;
  v1::OpenSessionResponse session;
  ASSERT_TRUE(stub->OpenSession(&open_context, v1::OpenSessionRequest(), &session).ok());
  grpc::ClientContext context;
  context.AddMetadata("x-arrayhub-session", session.session_id());
  v1::UploadResponse response;
  auto writer = stub->Upload(&context, &response);
  v1::UploadRequest header;
  header.mutable_header()->set_dtype(v1::DTYPE_FLOAT64);
  header.mutable_header()->add_shape(int64_t{4} << 20);  // 32 MiB
  writer->Write(header);
  v1::UploadRequest chunk;
  chunk.set_chunk(RandomBytes(1 << 20, 9));
  for (int i = 0; i < 4; ++i) writer->Write(chunk);
  std::this_thread::sleep_for(std::chrono::seconds(60));  // Killed long before this ends.
}

TEST_F(TransferTest, KilledClientLeavesNothingBehind) {
  const pid_t child = SpawnChildTest("TransferChildProcess.UploadThenStall");
  ASSERT_NE(child, 0);

  const bool uploading = Eventually([&] {
    return server_->engine().Stats().bytes_in_use >= baseline_.bytes_in_use + (32 << 20);
  });
  kill(child, SIGKILL);
  int wait_status = 0;
  waitpid(child, &wait_status, 0);
  ASSERT_TRUE(uploading) << "the child never started its upload";
  EXPECT_TRUE(WIFSIGNALED(wait_status));
  EXPECT_TRUE(
      Eventually([&] { return server_->engine().Stats().bytes_in_use == baseline_.bytes_in_use; }));
  ExpectNothingLeaked();
}

}  // namespace
}  // namespace arrayhub::testing
