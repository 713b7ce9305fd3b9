// Bad requests: each gets the canonical code and a message naming the problem, and leaves
// nothing behind.
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

class ErrorsTest : public RpcTest {
 protected:
  void TearDown() override { ExpectNothingLeaked(); }

  grpc::Status TryCreate(const v1::CreateRequest& request) {
    v1::ArrayInfo info;
    return stub_->Create(Context().get(), request, &info);
  }

  grpc::Status TryDescribe(const std::string& handle) {
    v1::DescribeRequest request;
    request.set_handle(handle);
    v1::ArrayInfo info;
    return stub_->Describe(Context().get(), request, &info);
  }

  static v1::CreateRequest Zeros(std::vector<int64_t> shape, v1::DType dtype = v1::DTYPE_FLOAT32) {
    v1::CreateRequest request;
    request.set_dtype(dtype);
    request.mutable_shape()->Assign(shape.begin(), shape.end());
    request.mutable_zeros();
    return request;
  }
};

TEST_F(ErrorsTest, CallsWithoutAValidSessionAreRefused) {
  grpc::ClientContext no_session;
  v1::ArrayInfo info;
  EXPECT_STATUS(stub_->Create(&no_session, Zeros({1}), &info), INVALID_ARGUMENT,
                "missing x-arrayhub-session metadata");
  EXPECT_STATUS(stub_->Create(Context("not-a-session").get(), Zeros({1}), &info), INVALID_ARGUMENT,
                "malformed session id: expected 32 hex characters");
  EXPECT_STATUS(stub_->Create(Context("0123456789abcdef0123456789abcdef").get(), Zeros({1}), &info),
                NOT_FOUND, "session 0123456789abcdef0123456789abcdef not found");
  grpc::ClientContext open;
  v1::OpenSessionRequest request;
  request.set_lease_seconds(-5);
  v1::OpenSessionResponse response;
  EXPECT_STATUS(stub_->OpenSession(&open, request, &response), INVALID_ARGUMENT,
                "lease_seconds must not be negative");
}

TEST_F(ErrorsTest, UnknownAndMalformedHandles) {
  EXPECT_STATUS(TryDescribe("0123456789abcdef0123456789abcdef"), NOT_FOUND,
                "array 0123456789abcdef0123456789abcdef not found");
  EXPECT_STATUS(TryDescribe("xyz"), INVALID_ARGUMENT,
                "malformed handle: expected 32 hex characters, got 3 characters");
  EXPECT_STATUS(TryDescribe("0123456789abcdef0123456789abcdeg"), INVALID_ARGUMENT,
                "character 31 is not a hex digit");
  EXPECT_STATUS(TryDescribe(""), INVALID_ARGUMENT, "handle is empty");
}

TEST_F(ErrorsTest, FreeIsAllOrNothing) {
  v1::ArrayInfo kept;
  ASSERT_TRUE(stub_->Create(Context().get(), Zeros({4}), &kept).ok());
  v1::FreeRequest request;
  request.add_handles(kept.handle());
  request.add_handles("ffffffffffffffffffffffffffffffff");
  v1::FreeResponse response;
  EXPECT_STATUS(stub_->Free(Context().get(), request, &response), NOT_FOUND,
                "array ffffffffffffffffffffffffffffffff not found");
  EXPECT_TRUE(TryDescribe(kept.handle()).ok());  // Still there.
  request.set_handles(1, "nope");
  EXPECT_STATUS(stub_->Free(Context().get(), request, &response), INVALID_ARGUMENT,
                "malformed handles[1]");
  request.mutable_handles()->RemoveLast();
  ASSERT_TRUE(stub_->Free(Context().get(), request, &response).ok());
}

TEST_F(ErrorsTest, DdofInBothFieldsIsRefused) {
  v1::ArrayInfo input;
  ASSERT_TRUE(stub_->Create(Context().get(), Zeros({3}), &input).ok());
  v1::ReduceRequest request;
  request.set_op("var");
  request.mutable_input()->set_handle(input.handle());
  request.set_ddof(1);
  request.set_ddof_real(0.5);
  v1::ArrayInfo result;
  EXPECT_STATUS(stub_->Reduce(Context().get(), request, &result), INVALID_ARGUMENT,
                "ddof and ddof_real can't be provided simultaneously");
  v1::FreeRequest free;
  free.add_handles(input.handle());
  v1::FreeResponse freed;
  ASSERT_TRUE(stub_->Free(Context().get(), free, &freed).ok());
}

TEST_F(ErrorsTest, BadShapes) {
  EXPECT_STATUS(TryCreate(Zeros({3, -2})), INVALID_ARGUMENT,
                "negative dimensions are not allowed: shape (3, -2) has -2 at axis 1");
  EXPECT_STATUS(TryCreate(Zeros({int64_t{1} << 40, int64_t{1} << 40})), INVALID_ARGUMENT,
                "has more elements than fit in int64");
  EXPECT_STATUS(TryCreate(Zeros({int64_t{1} << 31, int64_t{1} << 31}, v1::DTYPE_COMPLEX128)),
                INVALID_ARGUMENT, "overflows int64");
  EXPECT_STATUS(TryCreate(Zeros(std::vector<int64_t>(65, 1))), INVALID_ARGUMENT,
                "shape has 65 dimensions; the server allows at most 64");
  EXPECT_STATUS(TryCreate(Zeros({int64_t{1} << 40})), RESOURCE_EXHAUSTED,
                "needs 4398046511104 bytes; the server allows at most");
}

TEST_F(ErrorsTest, BadDTypesAndKinds) {
  EXPECT_STATUS(TryCreate(Zeros({2}, static_cast<v1::DType>(99))), INVALID_ARGUMENT,
                "unknown dtype 99 in dtype");
  v1::CreateRequest no_kind;
  no_kind.add_shape(2);
  EXPECT_STATUS(TryCreate(no_kind), INVALID_ARGUMENT, "CreateRequest.kind is required");
  v1::CreateRequest full_without_value;
  full_without_value.mutable_full();
  EXPECT_STATUS(TryCreate(full_without_value), INVALID_ARGUMENT, "full.value is required");
  v1::CreateRequest overflowing_full;
  overflowing_full.set_dtype(v1::DTYPE_INT8);
  overflowing_full.mutable_full()->mutable_value()->set_int_value(300);
  EXPECT_STATUS(TryCreate(overflowing_full), INVALID_ARGUMENT,
                "Python integer 300 out of bounds for int8");
  v1::CreateRequest arange_with_shape;
  arange_with_shape.add_shape(3);
  arange_with_shape.mutable_arange()->mutable_start()->set_int_value(0);
  arange_with_shape.mutable_arange()->mutable_stop()->set_int_value(3);
  EXPECT_STATUS(TryCreate(arange_with_shape), INVALID_ARGUMENT, "arange takes no shape");
  v1::CreateRequest zero_step;
  zero_step.mutable_arange()->mutable_start()->set_int_value(0);
  zero_step.mutable_arange()->mutable_stop()->set_int_value(3);
  zero_step.mutable_arange()->mutable_step()->set_int_value(0);
  EXPECT_STATUS(TryCreate(zero_step), INVALID_ARGUMENT, "step must not be zero");
}

TEST_F(ErrorsTest, BadDownloadRequests) {
  v1::ArrayInfo info;
  ASSERT_TRUE(stub_->Create(Context().get(), Zeros({4}), &info).ok());
  grpc::Status status;
  DownloadAll(info.handle(), -1, &status);
  EXPECT_STATUS(status, INVALID_ARGUMENT, "chunk_bytes must not be negative, got -1");
  DownloadAll("0123456789abcdef0123456789abcdef", 0, &status);
  EXPECT_STATUS(status, NOT_FOUND, "not found");
  v1::FreeRequest request;
  request.add_handles(info.handle());
  v1::FreeResponse response;
  ASSERT_TRUE(stub_->Free(Context().get(), request, &response).ok());
}

TEST_F(ErrorsTest, CollectivesNameTheirBadFields) {
  v1::ArrayInfo input;
  ASSERT_TRUE(stub_->Create(Context().get(), Zeros({4}), &input).ok());
  v1::CollectiveRequest request;
  request.add_handles(input.handle());
  v1::CollectiveResponse response;
  request.set_kind(static_cast<v1::CollectiveRequest::Kind>(9));
  EXPECT_STATUS(stub_->Collective(Context().get(), request, &response), INVALID_ARGUMENT,
                "kind must be ALL_REDUCE, REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER or "
                "ALL_TO_ALL, got 9");
  request.set_kind(v1::CollectiveRequest::ALL_REDUCE);
  request.set_op(static_cast<v1::CollectiveRequest::ReduceOp>(-1));
  EXPECT_STATUS(stub_->Collective(Context().get(), request, &response), INVALID_ARGUMENT,
                "op must be SUM, PROD, MIN, MAX or AVG, got -1");
  request.set_op(v1::CollectiveRequest::REDUCE_OP_UNSPECIFIED);
  EXPECT_STATUS(stub_->Collective(Context().get(), request, &response), INVALID_ARGUMENT,
                "all_reduce: op is required (sum, prod, min, max or avg)");
  request.set_op(v1::CollectiveRequest::SUM);
  request.set_handles(0, "nope");
  EXPECT_STATUS(stub_->Collective(Context().get(), request, &response), INVALID_ARGUMENT,
                "malformed handles[0]");
  // One rank on the session's one device: the sum of one array is a copy of it.
  request.set_handles(0, input.handle());
  ASSERT_TRUE(stub_->Collective(Context().get(), request, &response).ok());
  ASSERT_EQ(response.results_size(), 1);
  EXPECT_EQ(response.results(0).shape_size(), 1);
  v1::FreeRequest free;
  free.add_handles(input.handle());
  free.add_handles(response.results(0).handle());
  v1::FreeResponse freed;
  ASSERT_TRUE(stub_->Free(Context().get(), free, &freed).ok());
}

}  // namespace
}  // namespace arrayhub::testing
