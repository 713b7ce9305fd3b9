// Per-tenant quotas and server-wide limits: over one, a request fails with RESOURCE_EXHAUSTED
// naming the limit, the request and the usage; nothing is allocated and other tenants carry
// on. Device out-of-memory fails only the request that hit it.
#include <google/protobuf/text_format.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

class QuotaTest : public TenantsTest {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.quotas = {.max_bytes = 1000, .max_arrays = 3, .max_sessions = 2};
    options.limits.max_array_elements = 1 << 20;
    Start(options);
  }

  grpc::Status TryZeros(const TenantClient& client, int64_t n, v1::DType dtype,
                        v1::ArrayInfo* info = nullptr) {
    v1::CreateRequest request;
    request.set_dtype(dtype);
    request.add_shape(n);
    request.mutable_zeros();
    v1::ArrayInfo result;
    grpc::Status status = client.stub->Create(client.Context().get(), request, &result);
    if (info != nullptr) *info = result;
    return status;
  }
};

TEST_F(QuotaTest, BytesOverTheTenantsQuotaAreRefusedAndOthersCarryOn) {
  const TenantClient alice = Connect("alice");
  v1::ArrayInfo first;
  ASSERT_TRUE(TryZeros(alice, 100, v1::DTYPE_FLOAT64, &first).ok());  // 800 bytes.
  const int64_t used = server_->engine().Stats().bytes_in_use;
  EXPECT_STATUS(TryZeros(alice, 201, v1::DTYPE_INT8), RESOURCE_EXHAUSTED,
                "tenant 'alice' memory quota exceeded (--tenant-max-bytes 1000): the request "
                "needs 201 bytes and the tenant already uses 800 bytes");
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, used);  // Nothing allocated.
  EXPECT_TRUE(TryZeros(alice, 200, v1::DTYPE_INT8).ok());   // Exactly up to the quota.
  // The same goes for results of computation.
  EXPECT_STATUS(alice.AddOne(first.handle()), RESOURCE_EXHAUSTED, "--tenant-max-bytes");
  // Bob has his own quota.
  EXPECT_TRUE(TryZeros(Connect("bob"), 125, v1::DTYPE_FLOAT64).ok());
  // Freeing makes room again.
  ASSERT_TRUE(alice.Free(first.handle()).ok());
  EXPECT_TRUE(TryZeros(alice, 100, v1::DTYPE_FLOAT64).ok());
}

TEST_F(QuotaTest, ArraysCountHandlesAndPublishedNames) {
  const TenantClient alice = Connect("alice");
  const v1::ArrayInfo a = alice.Zeros({1});
  alice.Zeros({1});
  ASSERT_TRUE(alice.Publish(a.handle(), "counted").ok());
  EXPECT_STATUS(TryZeros(alice, 1, v1::DTYPE_INT8), RESOURCE_EXHAUSTED,
                "tenant 'alice' array quota exceeded (--tenant-max-arrays 3): the request needs 1 "
                "more and the tenant holds 2 handles and 1 published names");
  EXPECT_STATUS(alice.Publish(a.handle(), "another"), RESOURCE_EXHAUSTED, "--tenant-max-arrays");
  EXPECT_STATUS(alice.Attach("counted", ""), RESOURCE_EXHAUSTED, "--tenant-max-arrays");
}

// Batch intermediates hold handles while alive and are freed after their last reader, so a
// long chain fits in a quota that three live results at once do not. A fused chain of
// elementwise ops makes no intermediate arrays at all.
TEST_F(QuotaTest, BatchIntermediatesCountWhileAlive) {
  const TenantClient alice = Connect("alice");
  const std::string a = alice.Zeros({1}).handle();
  auto run = [&](const std::string& text) {
    v1::BatchRequest request;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &request));
    v1::BatchResponse response;
    return alice.stub->Batch(alice.Context().get(), request, &response);
  };
  const std::string add_one = R"(operands { scalar { float_value: 1 } } } })";
  const std::string a_plus_one =
      R"(ops { elementwise { op: "add" operands { handle: ")" + a + R"(" } )" + add_one;
  // a + 1 + 1 + 1: never more than a, the previous sum and the next one.
  EXPECT_TRUE(run(a_plus_one + R"(ops { elementwise { op: "add" operands { batch_result: 0 } )" +
                  add_one + R"(ops { elementwise { op: "add" operands { batch_result: 1 } )" +
                  add_one)
                  .ok());
  // zeros + zeros needs a and both zeros alive, and the sum is a fourth.
  const std::string zeros = R"(ops { create { dtype: DTYPE_FLOAT32 shape: 1 zeros {} } } )";
  EXPECT_STATUS(run(zeros + zeros +
                    R"(ops { elementwise { op: "add" operands { batch_result: 0 } )"
                    R"(operands { batch_result: 1 } } })"),
                RESOURCE_EXHAUSTED,
                "ops[2] (elementwise add): tenant 'alice' array quota exceeded "
                "(--tenant-max-arrays 3): the request needs 1 more and the tenant holds 3 handles "
                "and 0 published names");
  // (a + 1) + (a + 1) is one fused chain: its sums never become arrays.
  EXPECT_TRUE(run(a_plus_one + a_plus_one +
                  R"(ops { elementwise { op: "add" operands { batch_result: 0 } )"
                  R"(operands { batch_result: 1 } } })")
                  .ok());
  // Keeping three sums of one chain needs three handles: the third is refused, and the two
  // kept before it are freed with the failed batch.
  v1::BatchRequest keep_three;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      a_plus_one + R"(ops { elementwise { op: "add" operands { batch_result: 0 } )" + add_one +
          R"(ops { elementwise { op: "add" operands { batch_result: 1 } )" + add_one +
          "keep: 0 keep: 1 keep: 2",
      &keep_three));
  v1::BatchResponse kept;
  EXPECT_STATUS(alice.stub->Batch(alice.Context().get(), keep_three, &kept), RESOURCE_EXHAUSTED,
                "ops[2] (elementwise add): tenant 'alice' array quota exceeded "
                "(--tenant-max-arrays 3): the request needs 1 more and the tenant holds 3 handles "
                "and 0 published names");
  v1::ListResponse listed;
  ASSERT_TRUE(alice.stub->List(alice.Context().get(), {}, &listed).ok());
  EXPECT_EQ(listed.arrays_size(), 1);  // Only a: no batch left anything.
}

// Scratch and host memory a request uses while it runs are charged like its result: an
// argsort of 100 int8 needs its input's copy (100 bytes), the sorted indices (800) and the
// result (800), more than the 900 bytes of room left; afterwards the usage is back.
TEST_F(QuotaTest, ScratchIsChargedWhileTheRequestRuns) {
  const TenantClient alice = Connect("alice");
  v1::ArrayInfo a;
  ASSERT_TRUE(TryZeros(alice, 100, v1::DTYPE_INT8, &a).ok());
  v1::ArrayOpRequest argsort;
  argsort.set_op("argsort");
  argsort.add_operands()->set_handle(a.handle());
  v1::ArrayOpResponse response;
  EXPECT_STATUS(alice.stub->ArrayOp(alice.Context().get(), argsort, &response), RESOURCE_EXHAUSTED,
                "tenant 'alice' memory quota exceeded (--tenant-max-bytes 1000)");
  EXPECT_EQ(alice.Info().tenant_bytes_in_use(), 100);
}

// repeat with a counts array: the result and the index the counts size (on the backend and on
// the host) are refused before any is allocated. 100 repeats of one int8 make a 100-byte
// result but an 800-byte index, held twice, while the array, the counts and their int64 copies
// on the backend and the host hold 25 bytes; a count of 2^40 is refused at once.
TEST_F(QuotaTest, RepeatCountsAreChargedBeforeTheyAllocate) {
  const TenantClient alice = Connect("alice");
  v1::ArrayInfo a;
  ASSERT_TRUE(TryZeros(alice, 1, v1::DTYPE_INT8, &a).ok());
  auto repeat = [&](int64_t count) {
    v1::CreateRequest full;
    full.set_dtype(v1::DTYPE_INT64);
    full.add_shape(1);
    full.mutable_full()->mutable_value()->set_int_value(count);
    v1::ArrayInfo counts;
    EXPECT_TRUE(alice.stub->Create(alice.Context().get(), full, &counts).ok());
    v1::ArrayOpRequest request;
    request.set_op("repeat");
    request.add_operands()->set_handle(a.handle());
    request.add_operands()->set_handle(counts.handle());
    v1::ArrayOpResponse response;
    const grpc::Status status = alice.stub->ArrayOp(alice.Context().get(), request, &response);
    EXPECT_TRUE(alice.Free(counts.handle()).ok());
    return status;
  };
  EXPECT_STATUS(repeat(100), RESOURCE_EXHAUSTED,
                "tenant 'alice' memory quota exceeded (--tenant-max-bytes 1000): the request needs "
                "1700 bytes and the tenant already uses 25 bytes");
  EXPECT_STATUS(repeat(int64_t{1} << 40), RESOURCE_EXHAUSTED, "(--max-array-bytes)");
  EXPECT_TRUE(repeat(20).ok());  // 20 + 2 * 160 bytes fit.
  EXPECT_EQ(alice.Info().tenant_bytes_in_use(), 1 + 20);
}

// Every handle counts, however it was made: views, basic indexing, split parts and attached
// names alike. A request that needs several handles gets all of them or none.
TEST_F(QuotaTest, ViewsAndSplitPartsAreHandlesToo) {
  const TenantClient alice = Connect("alice");
  const v1::ArrayInfo a = alice.Zeros({6});
  auto split = [&](int64_t sections) {
    v1::ArrayOpRequest request;
    request.set_op("split");
    request.add_operands()->set_handle(a.handle());
    request.add_ints(sections);
    v1::ArrayOpResponse response;
    return alice.stub->ArrayOp(alice.Context().get(), request, &response);
  };
  auto view = [&] {
    v1::ViewRequest request;
    request.set_handle(a.handle());
    request.mutable_transpose();
    v1::ArrayInfo info;
    return alice.stub->View(alice.Context().get(), request, &info);
  };
  auto count_handles = [&] {
    v1::ListRequest request;
    request.set_all_sessions(true);
    v1::ListResponse listed;
    EXPECT_TRUE(alice.stub->List(alice.Context().get(), request, &listed).ok());
    return listed.arrays_size();
  };
  EXPECT_STATUS(split(3), RESOURCE_EXHAUSTED,
                "tenant 'alice' array quota exceeded (--tenant-max-arrays 3): the request needs 3 "
                "more and the tenant holds 1 handles and 0 published names");
  EXPECT_EQ(count_handles(), 1);  // None of the three parts.
  ASSERT_TRUE(split(2).ok());
  EXPECT_STATUS(view(), RESOURCE_EXHAUSTED,
                "the request needs 1 more and the tenant holds 3 handles");
  v1::GetItemRequest slice;
  slice.set_handle(a.handle());
  slice.add_index()->mutable_slice();
  v1::ArrayInfo sliced;
  EXPECT_STATUS(alice.stub->GetItem(alice.Context().get(), slice, &sliced), RESOURCE_EXHAUSTED,
                "--tenant-max-arrays 3");
  EXPECT_EQ(count_handles(), 3);
}

// The quota is checked and the handles added under one lock: many threads making views of one
// array at once end with exactly the quota's number of handles.
TEST_F(TenantsTest, ConcurrentViewsStopExactlyAtTheArrayQuota) {
  ServerOptions options;
  options.quotas.max_arrays = 10;
  Start(options);
  const TenantClient alice = Connect("alice");
  const std::string a = alice.Zeros({4}).handle();
  std::atomic<int> made{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        v1::ViewRequest request;
        request.set_handle(a);
        request.mutable_transpose();
        v1::ArrayInfo info;
        const grpc::Status status = alice.stub->View(alice.Context().get(), request, &info);
        if (status.ok()) {
          made.fetch_add(1);
        } else {
          EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(made.load(), 9);
  EXPECT_EQ(server_->engine().Stats().arrays, baseline_.arrays + 10);
}

TEST_F(QuotaTest, SessionsPerTenantAreCapped) {
  Connect("alice");
  Connect("alice");
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + TokenOf("alice"));
  v1::OpenSessionResponse response;
  EXPECT_STATUS(Connect("bob").stub->OpenSession(&context, {}, &response), RESOURCE_EXHAUSTED,
                "tenant 'alice' session quota exceeded (--tenant-max-sessions 2): 2 sessions are "
                "open");
}

// A session keeps its client_name: bounded in length, and free of control characters.
TEST_F(TenantsTest, ClientNamesAreBounded) {
  auto open = [&](const std::string& name) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + TokenOf("alice"));
    v1::OpenSessionRequest request;
    request.set_client_name(name);
    v1::OpenSessionResponse response;
    return v1::ArrayHub::NewStub(channel_)->OpenSession(&context, request, &response);
  };
  EXPECT_TRUE(open(std::string(256, 'n')).ok());
  EXPECT_STATUS(open(std::string(3 << 20, 'n')), INVALID_ARGUMENT,
                "client_name is 3145728 bytes; the server keeps at most 256");
  EXPECT_STATUS(open("notebook\n[info] forged"), INVALID_ARGUMENT,
                "client_name must not contain control characters; byte 8 is 0x0a");
  EXPECT_EQ(server_->engine().Stats().sessions, 1);
}

// Sessions are finite by default: each holds server memory (its queue, its name) that no byte
// quota counts.
TEST_F(TenantsTest, SessionsHaveAFiniteDefaultQuota) {
  EXPECT_EQ(TenantQuota{}.max_sessions, 1024);
  EXPECT_EQ(TenantQuota{}.max_arrays, 100'000);
  for (int i = 0; i < 1024; ++i) Connect("alice");
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + TokenOf("alice"));
  v1::OpenSessionResponse response;
  EXPECT_STATUS(v1::ArrayHub::NewStub(channel_)->OpenSession(&context, {}, &response),
                RESOURCE_EXHAUSTED,
                "tenant 'alice' session quota exceeded (--tenant-max-sessions 1024): 1024 "
                "sessions are open");
}

TEST_F(QuotaTest, ServerLimitsNameTheLimitAndTheRequest) {
  const TenantClient alice = Connect("alice");
  EXPECT_STATUS(TryZeros(alice, (1 << 20) + 1, v1::DTYPE_BOOL), RESOURCE_EXHAUSTED,
                "array of shape (1048577,) has 1048577 elements; the server allows at most "
                "1048576 elements per array (--max-array-elements)");
  v1::CreateRequest deep;
  for (int i = 0; i < 65; ++i) deep.add_shape(1);
  deep.mutable_zeros();
  v1::ArrayInfo info;
  EXPECT_STATUS(alice.stub->Create(alice.Context().get(), deep, &info), INVALID_ARGUMENT,
                "shape has 65 dimensions; the server allows at most 64 (--max-rank)");
}

class OutOfMemoryTest : public RpcTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options;
    // Limits far beyond any machine, so that the allocation itself fails.
    options.limits.max_array_bytes = int64_t{1} << 56;
    options.limits.max_array_elements = int64_t{1} << 56;
    return options;
  }
};

TEST_F(OutOfMemoryTest, FailsTheRequestOnlyAndTheServerCarriesOn) {
  auto create = [&](int64_t n) {
    v1::CreateRequest request;
    request.set_dtype(v1::DTYPE_INT8);
    request.add_shape(n);
    request.mutable_zeros();
    v1::ArrayInfo info;
    return stub_->Create(Context().get(), request, &info);
  };
  EXPECT_STATUS(create(int64_t{1} << 55), RESOURCE_EXHAUSTED, "out of");
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, 0);
  EXPECT_TRUE(create(16).ok());
}

}  // namespace
}  // namespace arrayhub::testing
