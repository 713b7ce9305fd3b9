// Cost limits on work: a request's work is bounded before it starts (elements, through views
// too; ranks on every path that makes a shape; the lengths of its lists), and long work stops
// when its caller goes away or the server's drain runs out, freeing what it made.
#include <chrono>
#include <functional>
#include <thread>

#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

class WorkBoundsTest : public RpcTest {
 protected:
  v1::ArrayInfo Zeros(const std::vector<int64_t>& shape) {
    v1::CreateRequest request;
    request.set_dtype(v1::DTYPE_FLOAT32);
    request.mutable_shape()->Assign(shape.begin(), shape.end());
    request.mutable_zeros();
    return Create(request);
  }

  grpc::Status View(const v1::ViewRequest& request) {
    v1::ArrayInfo info;
    return stub_->View(Context().get(), request, &info);
  }

  grpc::Status ArrayOp(const v1::ArrayOpRequest& request) {
    v1::ArrayOpResponse response;
    return stub_->ArrayOp(Context().get(), request, &response);
  }

  // A random float64 array of 2^20 elements, then `sorts` sorts of it (1023: a full batch),
  // minutes of work.
  static v1::BatchRequest Sorts(int sorts) {
    v1::BatchRequest batch;
    v1::CreateRequest* data = batch.add_ops()->mutable_create();
    data->set_dtype(v1::DTYPE_FLOAT64);
    data->add_shape(int64_t{1} << 20);
    data->mutable_random()->set_has_seed(true);
    data->mutable_random()->mutable_uniform()->set_high(1);
    for (int i = 0; i < sorts; ++i) {
      v1::ArrayOpRequest* sort = batch.add_ops()->mutable_array_op();
      sort->set_op("sort");
      sort->add_operands()->set_batch_result(0);
    }
    return batch;
  }

  // Whether `done` holds within `limit`, asked every 5 ms.
  static bool Within(milliseconds limit, const std::function<bool()>& done) {
    const auto end = Clock::now() + limit;
    while (!done()) {
      if (Clock::now() > end) return false;
      std::this_thread::sleep_for(milliseconds(5));
    }
    return true;
  }

  bool Idle() {
    const EngineStats now = server_->engine().Stats();
    return now.arrays == baseline_.arrays && now.bytes_in_use == baseline_.bytes_in_use;
  }
};

TEST_F(WorkBoundsTest, ABroadcastViewPastTheElementLimitIsRefusedAtOnce) {
  // A 41-byte Reduce over this view would have walked 2^50 elements, for days.
  v1::ViewRequest request;
  request.set_handle(Zeros({1}).handle());
  request.mutable_broadcast_to()->add_shape(int64_t{1} << 25);
  request.mutable_broadcast_to()->add_shape(int64_t{1} << 25);
  const auto start = Clock::now();
  EXPECT_STATUS(View(request), RESOURCE_EXHAUSTED,
                "broadcast_to.shape (33554432, 33554432) has 1125899906842624 elements; the "
                "server allows at most 68719476736 elements per array (--max-array-elements)");
  EXPECT_LT(Clock::now() - start, seconds(1));
}

TEST_F(WorkBoundsTest, RanksPastMaxRankAreRefusedOnEveryPath) {
  const std::string one = Zeros({1}).handle();
  v1::ViewRequest reshape;
  reshape.set_handle(one);
  for (int i = 0; i < 20001; ++i) reshape.mutable_reshape()->add_shape(1);
  EXPECT_STATUS(View(reshape), INVALID_ARGUMENT,
                "reshape.shape has 20001 dimensions; the server allows at most 64 (--max-rank)");
  v1::BatchRequest batch;
  *batch.add_ops()->mutable_view() = reshape;
  batch.add_keep(0);
  v1::BatchResponse response;
  EXPECT_STATUS(stub_->Batch(Context().get(), batch, &response), INVALID_ARGUMENT,
                "ops[0].view.reshape.shape has 20001 dimensions");

  const std::string full = Zeros(std::vector<int64_t>(64, 1)).handle();
  v1::ViewRequest expand;
  expand.set_handle(full);
  expand.mutable_expand_dims()->add_axes(0);
  EXPECT_STATUS(View(expand), INVALID_ARGUMENT,
                "the result of expand_dims has 65 dimensions; the server allows at most 64");
  v1::GetItemRequest newaxis;
  newaxis.set_handle(full);
  newaxis.add_index()->set_new_axis(true);
  v1::ArrayInfo info;
  EXPECT_STATUS(stub_->GetItem(Context().get(), newaxis, &info), INVALID_ARGUMENT,
                "the result of indexing has 65 dimensions; the server allows at most 64");
  v1::ArrayOpRequest tile;
  tile.set_op("tile");
  tile.add_operands()->set_handle(one);
  for (int i = 0; i < 65; ++i) tile.add_ints(1);
  EXPECT_STATUS(ArrayOp(tile), INVALID_ARGUMENT,
                "tile's reps (ints) has 65 dimensions; the server allows at most 64 (--max-rank)");
  v1::ArrayOpRequest stack;
  stack.set_op("stack");
  stack.add_operands()->set_handle(full);
  EXPECT_STATUS(ArrayOp(stack), INVALID_ARGUMENT, "shape has 65 dimensions");
  const std::string half = Zeros(std::vector<int64_t>(33, 1)).handle();
  v1::TensorProductRequest tensordot;  // np.tensordot(a, b, 0): the ranks add up.
  tensordot.set_op("tensordot");
  tensordot.mutable_a()->set_handle(half);
  tensordot.mutable_b()->set_handle(half);
  EXPECT_STATUS(stub_->TensorProduct(Context().get(), tensordot, &info), INVALID_ARGUMENT,
                "the result of tensordot has 66 dimensions; the server allows at most 64");
}

TEST_F(WorkBoundsTest, LongListsAreRefusedBeforeAnyWork) {
  const std::string one = Zeros({1}).handle();
  // Within the request's list bound, tile's reps still make the rank: refused before the
  // padding that was quadratic in their number.
  v1::ArrayOpRequest tile;
  tile.set_op("tile");
  tile.add_operands()->set_handle(one);
  for (int i = 0; i < 60000; ++i) tile.add_ints(1);
  auto start = Clock::now();
  EXPECT_STATUS(ArrayOp(tile), INVALID_ARGUMENT, "tile's reps (ints) has 60000 dimensions");
  EXPECT_LT(Clock::now() - start, seconds(1));
  // Past it, the list is refused by length alone.
  for (int i = 0; i < 1000000; ++i) tile.add_ints(1);
  start = Clock::now();
  EXPECT_STATUS(ArrayOp(tile), INVALID_ARGUMENT,
                "ints has 1060000 entries; the server allows at most 65536 (--max-list-entries)");
  v1::CreateRequest create;
  create.mutable_zeros();
  for (int i = 0; i < 1000000; ++i) create.add_shape(1);
  v1::ArrayInfo info;
  EXPECT_STATUS(stub_->Create(Context().get(), create, &info), INVALID_ARGUMENT,
                "shape has 1000000 dimensions; the server allows at most 64 (--max-rank)");
  EXPECT_LT(Clock::now() - start, seconds(1));
}

TEST_F(WorkBoundsTest, ABatchOfSortsStopsSoonAfterItsDeadlineAndLeavesNothing) {
  if (testing::TestBackendIsCuda()) {
    // The GPU enqueues the sorts in microseconds and runs them long before the deadline; its
    // work stops only between a Batch's ops, and there is nothing left to stop here.
    GTEST_SKIP() << "the batch finishes before its deadline on the GPU";
  }
  auto context = Context();
  context->set_deadline(std::chrono::system_clock::now() + milliseconds(300));
  v1::BatchResponse response;
  const grpc::Status status = stub_->Batch(context.get(), Sorts(1023), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  // The server's side stops at its next check and frees the batch's arrays.
  EXPECT_TRUE(Within(seconds(2), [&] { return Idle(); }));
  ExpectNothingLeaked();
}

TEST_F(WorkBoundsTest, TheDrainStopsALongBatchWhenItsTimeRunsOut) {
  if (testing::TestBackendIsCuda()) {
    // The GPU enqueues the sorts in microseconds and runs them long before the deadline; its
    // work stops only between a Batch's ops, and there is nothing left to stop here.
    GTEST_SKIP() << "the batch finishes before its deadline on the GPU";
  }
  grpc::Status status;
  std::thread client([&] {
    v1::BatchResponse response;
    status = stub_->Batch(Context().get(), Sorts(1023), &response);
  });
  // Once the batch runs (its random array exists), drain with a short limit.
  EXPECT_TRUE(Within(seconds(10), [&] { return !Idle(); }));
  const auto start = Clock::now();
  server_->Shutdown(milliseconds(300));
  const auto took = Clock::now() - start;
  client.join();
  EXPECT_GE(took, milliseconds(300));
  EXPECT_LT(took, milliseconds(300 + 1000));
  EXPECT_STATUS(status, UNAVAILABLE,
                "the server is shutting down: the call was stopped when its drain time "
                "(--drain-seconds) ran out");
  ExpectNothingLeaked();
}

}  // namespace
}  // namespace arrayhub::testing
