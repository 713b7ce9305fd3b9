// Sessions, creation and bookkeeping through a real in-process server.

#include <chrono>
#include <cstring>
#include <regex>
#include <thread>

#include "tests/support/captured_log.h"
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

template <typename T>
std::vector<T> AsVector(const std::string& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

v1::CreateRequest ZerosRequest(v1::DType dtype, std::vector<int64_t> shape) {
  v1::CreateRequest request;
  request.set_dtype(dtype);
  request.mutable_shape()->Assign(shape.begin(), shape.end());
  request.mutable_zeros();
  return request;
}

using SessionTest = RpcTest;

TEST_F(SessionTest, OpenReturnsAnUnguessableIdAndTheDefaultLease) {
  EXPECT_EQ(session_.size(), 32u);
  EXPECT_EQ(session_.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(OpenSession(), session_);

  grpc::ClientContext context;
  v1::OpenSessionRequest request;
  request.set_lease_seconds(1'000'000);
  v1::OpenSessionResponse response;
  ASSERT_TRUE(stub_->OpenSession(&context, request, &response).ok());
  EXPECT_EQ(response.lease_seconds(), 3600);  // Capped at the maximum.
  EXPECT_EQ(response.tenant(), "anonymous");
}

TEST_F(SessionTest, KeepAliveMovesTheExpiryIntoTheFuture) {
  v1::KeepAliveResponse response;
  ASSERT_TRUE(stub_->KeepAlive(Context().get(), v1::KeepAliveRequest(), &response).ok());
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  EXPECT_GT(response.lease_expires_unix_ms(), now_ms + 50'000);
  EXPECT_LT(response.lease_expires_unix_ms(), now_ms + 70'000);
}

TEST_F(SessionTest, CloseFreesTheSessionsArraysAndForgetsIt) {
  Create(ZerosRequest(v1::DTYPE_FLOAT32, {1000}));
  Create(ZerosRequest(v1::DTYPE_INT8, {7}));
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, baseline_.bytes_in_use + 4007);

  v1::CloseSessionResponse response;
  ASSERT_TRUE(stub_->CloseSession(Context().get(), v1::CloseSessionRequest(), &response).ok());
  EXPECT_EQ(response.arrays_freed(), 2);
  ExpectNothingLeaked();
  v1::ArrayInfo info;
  EXPECT_STATUS(stub_->Create(Context().get(), ZerosRequest(v1::DTYPE_INT8, {1}), &info), NOT_FOUND,
                "not found (closed, expired, or never opened)");
}

class SessionLeaseTest : public RpcTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options;
    options.sessions.default_lease = std::chrono::seconds(1);
    options.reap_interval = std::chrono::milliseconds(50);
    return options;
  }
};

TEST_F(SessionLeaseTest, AnExpiredSessionsArraysAreFreed) {
  Create(ZerosRequest(v1::DTYPE_FLOAT64, {128}));
  EXPECT_EQ(server_->engine().Stats().arrays, 1);
  EXPECT_TRUE(Eventually([&] { return server_->engine().Stats().arrays == 0; }))
      << "the expired session's array is still there";
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, 0);
  EXPECT_EQ(server_->engine().Stats().sessions, 0);
}

using CreateTest = RpcTest;

TEST_F(CreateTest, ZerosDescribesItselfLikeNumPy) {
  const v1::ArrayInfo info = Create(ZerosRequest(v1::DTYPE_FLOAT32, {3, 4}));
  EXPECT_EQ(info.handle().size(), 32u);
  EXPECT_EQ(info.dtype(), v1::DTYPE_FLOAT32);
  EXPECT_EQ(std::vector<int64_t>(info.shape().begin(), info.shape().end()),
            (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(std::vector<int64_t>(info.strides().begin(), info.strides().end()),
            (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(info.nbytes(), 48);
  EXPECT_TRUE(info.c_contiguous());
  EXPECT_FALSE(info.f_contiguous());
  EXPECT_TRUE(info.owns_data());
  EXPECT_EQ(info.owner(), "anonymous");
  EXPECT_EQ(info.device(), server_->engine().backend().DeviceName());
  EXPECT_EQ(DownloadAll(info.handle()), std::string(48, '\0'));
}

TEST_F(CreateTest, FullArangeLinspaceAndEyeHoldNumPysValues) {
  v1::CreateRequest full;
  full.add_shape(3);
  full.mutable_full()->mutable_value()->set_float_value(2.5);  // dtype from the value: float64
  const v1::ArrayInfo full_info = Create(full);
  EXPECT_EQ(full_info.dtype(), v1::DTYPE_FLOAT64);
  EXPECT_EQ(AsVector<double>(DownloadAll(full_info.handle())),
            (std::vector<double>{2.5, 2.5, 2.5}));

  v1::CreateRequest arange;
  arange.mutable_arange()->mutable_start()->set_int_value(-3);
  arange.mutable_arange()->mutable_stop()->set_int_value(7);
  arange.mutable_arange()->mutable_step()->set_int_value(2);
  const v1::ArrayInfo arange_info = Create(arange);
  EXPECT_EQ(arange_info.dtype(), v1::DTYPE_INT64);
  EXPECT_EQ(AsVector<int64_t>(DownloadAll(arange_info.handle())),
            (std::vector<int64_t>{-3, -1, 1, 3, 5}));

  v1::CreateRequest linspace;
  linspace.set_dtype(v1::DTYPE_FLOAT32);
  linspace.mutable_linspace()->mutable_start()->set_float_value(0);
  linspace.mutable_linspace()->mutable_stop()->set_float_value(1);
  linspace.mutable_linspace()->set_num(5);
  linspace.mutable_linspace()->set_endpoint(true);
  EXPECT_EQ(AsVector<float>(DownloadAll(Create(linspace).handle())),
            (std::vector<float>{0.f, 0.25f, 0.5f, 0.75f, 1.f}));

  v1::CreateRequest eye;
  eye.set_dtype(v1::DTYPE_INT32);
  eye.mutable_eye()->set_n(2);
  eye.mutable_eye()->set_has_m(true);
  eye.mutable_eye()->set_m(3);
  eye.mutable_eye()->set_k(1);
  EXPECT_EQ(AsVector<int32_t>(DownloadAll(Create(eye).handle())),
            (std::vector<int32_t>{0, 1, 0, 0, 0, 1}));
}

TEST_F(CreateTest, DataHoldsTheClientsBytesAsTheDTypeSays) {
  const std::vector<int32_t> values{7, -1, 1 << 30, 0, 5, 6};
  v1::CreateRequest request;
  request.set_dtype(v1::DTYPE_INT32);
  request.add_shape(3);
  request.add_shape(2);
  request.mutable_data()->set_values(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(int32_t)));
  const v1::ArrayInfo info = Create(request);
  EXPECT_EQ(info.dtype(), v1::DTYPE_INT32);
  EXPECT_EQ(info.nbytes(), 24);
  EXPECT_EQ(AsVector<int32_t>(DownloadAll(info.handle())), values);

  request.add_shape(2);  // 48 bytes now, 24 sent.
  v1::ArrayInfo refused;
  EXPECT_STATUS(stub_->Create(Context().get(), request, &refused), INVALID_ARGUMENT,
                "create.data has 24 bytes; a int32 array of shape (3, 2, 2) holds 48");
  EXPECT_EQ(server_->engine().Stats().arrays, baseline_.arrays + 1);
}

using BookkeepingTest = RpcTest;

TEST_F(BookkeepingTest, ListShowsTheSessionsArraysAndAllSessionsOnRequest) {
  const std::string mine = Create(ZerosRequest(v1::DTYPE_UINT8, {2})).handle();
  const std::string other_session = OpenSession();
  v1::ArrayInfo theirs;
  ASSERT_TRUE(
      stub_->Create(Context(other_session).get(), ZerosRequest(v1::DTYPE_UINT8, {3}), &theirs)
          .ok());

  v1::ListRequest request;
  v1::ListResponse response;
  ASSERT_TRUE(stub_->List(Context().get(), request, &response).ok());
  ASSERT_EQ(response.arrays_size(), 1);
  EXPECT_EQ(response.arrays(0).handle(), mine);

  request.set_all_sessions(true);
  response.Clear();
  ASSERT_TRUE(stub_->List(Context().get(), request, &response).ok());
  EXPECT_EQ(response.arrays_size(), 2);
}

TEST_F(BookkeepingTest, FreeReleasesMemoryAndTheHandleIsGone) {
  const std::string handle = Create(ZerosRequest(v1::DTYPE_COMPLEX128, {10, 10})).handle();
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, baseline_.bytes_in_use + 1600);
  v1::FreeRequest request;
  request.add_handles(handle);
  v1::FreeResponse response;
  ASSERT_TRUE(stub_->Free(Context().get(), request, &response).ok());
  EXPECT_EQ(response.freed(), 1);
  ExpectNothingLeaked();
  v1::DescribeRequest describe;
  describe.set_handle(handle);
  v1::ArrayInfo info;
  EXPECT_STATUS(stub_->Describe(Context().get(), describe, &info), NOT_FOUND, "not found");
}

TEST_F(BookkeepingTest, ServerInfoReportsBackendLimitsAndMemory) {
  Create(ZerosRequest(v1::DTYPE_INT64, {1024}));
  grpc::ClientContext context;
  v1::ServerInfo info;
  ASSERT_TRUE(stub_->GetServerInfo(&context, v1::ServerInfoRequest(), &info).ok());
  EXPECT_EQ(info.backend(), server_->engine().backend().name());
  ASSERT_GE(info.devices_size(), 1);
  EXPECT_GT(info.devices(0).total_memory_bytes(), 0);
  EXPECT_EQ(info.bytes_in_use(), baseline_.bytes_in_use + 8192);
  EXPECT_EQ(info.arrays(), baseline_.arrays + 1);
  EXPECT_EQ(info.sessions(), 1);
  EXPECT_EQ(info.limits().max_rank(), 64);
  EXPECT_EQ(info.limits().default_chunk_bytes(), 1 << 20);
  EXPECT_FALSE(info.version().empty());
}

// The health service answers SERVING for the whole server.
TEST_F(BookkeepingTest, HealthServiceReportsServing) {
  EXPECT_EQ(HealthCheck(), std::string("\x08\x01", 2));
}

TEST_F(BookkeepingTest, DebugLogHasALinePerRequestAndNoPayloads) {
  std::string text;
  {
    CapturedLog log(spdlog::level::debug);
    grpc::ClientContext context;
    v1::ServerInfo info;
    ASSERT_TRUE(stub_->GetServerInfo(&context, v1::ServerInfoRequest(), &info).ok());
    v1::DescribeRequest describe;
    describe.set_handle("xyz");
    v1::ArrayInfo array;
    EXPECT_FALSE(stub_->Describe(Context().get(), describe, &array).ok());
    text = log.Text();
  }
  EXPECT_NE(text.find("rpc /arrayhub.v1.ArrayHub/GetServerInfo OK"), std::string::npos) << text;
  EXPECT_NE(text.find("rpc /arrayhub.v1.ArrayHub/Describe INVALID_ARGUMENT"), std::string::npos)
      << text;
  EXPECT_NE(text.find("malformed handle"), std::string::npos) << text;
  EXPECT_EQ(text.find(session_), std::string::npos) << "metadata must not be logged";

  CapturedLog quiet(spdlog::level::info);
  grpc::ClientContext context;
  v1::ServerInfo info;
  ASSERT_TRUE(stub_->GetServerInfo(&context, v1::ServerInfoRequest(), &info).ok());
  EXPECT_EQ(quiet.Text(), "");
}

// Each line names the request (the client's x-request-id when it is a short token, else a
// random one) and the tenant, once the handler has read the credentials.
TEST_F(BookkeepingTest, DebugLogNamesTheRequestAndTheTenant) {
  std::string text;
  {
    CapturedLog log(spdlog::level::debug);
    grpc::ClientContext named;
    named.AddMetadata("x-request-id", "job-42.step:7");
    v1::ServerInfo info;
    ASSERT_TRUE(stub_->GetServerInfo(&named, v1::ServerInfoRequest(), &info).ok());
    grpc::ClientContext unusable;
    unusable.AddMetadata("x-request-id", "two words");
    ASSERT_TRUE(stub_->GetServerInfo(&unusable, v1::ServerInfoRequest(), &info).ok());
    // Credentials are read first (anonymous here: no authentication), then the session.
    grpc::ClientContext no_session;
    v1::DescribeRequest describe;
    v1::ArrayInfo array;
    EXPECT_FALSE(stub_->Describe(&no_session, describe, &array).ok());
    text = log.Text();
  }
  EXPECT_NE(text.find("request=job-42.step:7 tenant=anonymous"), std::string::npos) << text;
  EXPECT_EQ(text.find("two words"), std::string::npos) << text;
  const std::regex generated("GetServerInfo OK [0-9]+ us request=[0-9a-f]{16} tenant=anonymous");
  EXPECT_TRUE(std::regex_search(text, generated)) << text;
  EXPECT_NE(text.find("tenant=anonymous: missing x-arrayhub-session"), std::string::npos) << text;
}

}  // namespace
}  // namespace arrayhub::testing
