// What a pipelined client's flush uses of the Batch RPC: results written into earlier results
// (out_batch_result), indexing of and by batch results (get_item, batch_array), the frees that
// ride with a batch, and one result read back inline.
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "tests/transport/batch_fixture.h"

namespace arrayhub::testing {
namespace {

// A syntactically valid handle that no array has.
constexpr char kMadeUpHandle[] = "0123456789abcdef0123456789abcdef";

std::vector<int64_t> ShapeOf(const v1::ArrayInfo& info) {
  return std::vector<int64_t>(info.shape().begin(), info.shape().end());
}

v1::BatchRequest Freeing(v1::BatchRequest request, std::vector<std::string> handles) {
  for (std::string& handle : handles) request.add_free(std::move(handle));
  return request;
}

using BatchOutTest = BatchTest;

TEST_F(BatchOutTest, AnOpWritesIntoACreatedResultWhichIsThenKept) {
  const std::string a = Array({1, 2, 3});
  // out = zeros(3); add(a, 1, out=out); the add kept: its result is `out`, which the batch
  // created and now does not free.
  v1::BatchResponse response;
  ASSERT_TRUE(
      Run(Batch({Zeros({3}), WritingInto(Elementwise("add", {Handle(a), Number(1)}), 0)}, {1}),
          &response)
          .ok());
  ASSERT_EQ(response.results_size(), 1);
  const std::string out = response.results(0).handle();
  EXPECT_EQ(ShapeOf(response.results(0)), (std::vector<int64_t>{3}));
  EXPECT_TRUE(response.results(0).owns_data());
  EXPECT_EQ(Values(out), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(Listed(), (std::set<std::string>{a, out}));
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, baseline_.bytes_in_use + 2 * 3 * 8);

  // Keeping both names of the array answers its one handle twice.
  ASSERT_TRUE(
      Run(Batch({Zeros({3}), WritingInto(Elementwise("add", {Handle(a), Number(1)}), 0)}, {0, 1}),
          &response)
          .ok());
  EXPECT_EQ(response.results(0).handle(), response.results(1).handle());
}

TEST_F(BatchOutTest, LaterOpsReadTheTargetThroughTheWritingOp) {
  const std::string a = Array({1, 2, 3, 4}), m = Array({1, 2, 3, 4}, {2, 2});
  // t = zeros(2, 2); matmul(m, m, out=t); sum(m, out=s) with s = zeros(()); t * s, kept alone.
  v1::BatchResponse response;
  ASSERT_TRUE(
      Run(Batch({Zeros({2, 2}), WritingInto(Matmul(Handle(m), Handle(m)), 0), Zeros({}),
                 WritingInto(Sum(Handle(a)), 2), Elementwise("multiply", {Result(1), Result(3)})},
                {4}),
          &response)
          .ok());
  // [[1, 2], [3, 4]] @ itself = [[7, 10], [15, 22]]; sum(a) = 10.
  EXPECT_EQ(Values(response.results(0).handle()), (std::vector<double>{70, 100, 150, 220}));
  // The two targets went with their last reader.
  EXPECT_EQ(Listed(), (std::set<std::string>{a, m, response.results(0).handle()}));
}

TEST_F(BatchOutTest, ATargetOfTheWrongShapeFailsTheOpAndLeavesNothing) {
  const std::string a = Array({1, 2, 3});
  ExpectFails(Batch({Zeros({2}), WritingInto(Elementwise("add", {Handle(a), Number(1)}), 0)}, {1}),
              grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (elementwise add): operands could not be broadcast together with shapes (3,) "
              "(2,) ");
  ExpectFails(Batch({Zeros({2}), WritingInto(Elementwise("add", {Handle(a), Number(1)}), 2)}, {}),
              grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (elementwise add): out_batch_result = 2 names a later op: a batch result "
              "must name an earlier op (0 to 0)");
}

TEST_F(BatchOutTest, OutBatchResultOutsideABatchIsRefused) {
  const std::string a = Array({1, 2});
  v1::ArrayInfo info;
  EXPECT_STATUS(
      stub_->Elementwise(Context().get(),
                         WritingInto(Elementwise("add", {Handle(a), Number(1)}), 0).elementwise(),
                         &info),
      INVALID_ARGUMENT, "out_batch_result refers to a batch result outside a Batch request");
  EXPECT_STATUS(
      stub_->Matmul(Context().get(), WritingInto(Matmul(Handle(a), Handle(a)), 0).matmul(), &info),
      INVALID_ARGUMENT, "out_batch_result refers to a batch result outside a Batch request");
  EXPECT_STATUS(stub_->Reduce(Context().get(), WritingInto(Sum(Handle(a)), 0).reduce(), &info),
                INVALID_ARGUMENT,
                "out_batch_result refers to a batch result outside a Batch request");
  EXPECT_EQ(Values(a), (std::vector<double>{1, 2}));
}

using BatchGetItemTest = BatchTest;

TEST_F(BatchGetItemTest, IndexesABatchResultAsTheGetItemRpcDoes) {
  // arange(6)[1::2], a view, kept; then a sum of it.
  v1::BatchResponse response;
  ASSERT_TRUE(
      Run(Batch({Arange(6), GetItem(Result(0), {Slice(1, 2)}), Sum(Result(1))}, {1, 2}), &response)
          .ok());
  const v1::ArrayInfo& view = response.results(0);
  EXPECT_FALSE(view.owns_data());
  // Strides in elements: NumPy's strides divided by the item size.
  EXPECT_EQ(std::vector<int64_t>(view.strides().begin(), view.strides().end()),
            (std::vector<int64_t>{2}));
  EXPECT_EQ(Values(view.handle()), (std::vector<double>{1, 3, 5}));
  EXPECT_EQ(Values(response.results(1).handle()), (std::vector<double>{9}));
}

TEST_F(BatchGetItemTest, IndexArraysMayBeBatchResults) {
  const std::string a = Array({10, 20, 30, 40, 50});
  // a[a > 25], the mask a batch result; then a[astype(arange(3) * 2, int64)].
  Op as_int;
  as_int.mutable_array_op()->set_op("astype");
  *as_int.mutable_array_op()->add_operands() = Result(3);
  as_int.mutable_array_op()->set_dtype(v1::DTYPE_INT64);
  v1::BatchResponse response;
  ASSERT_TRUE(Run(Batch({Elementwise("greater", {Handle(a), Number(25)}),
                         GetItem(Handle(a), {IndexArray(Result(0))}), Arange(3),
                         Elementwise("multiply", {Result(2), Number(2)}), as_int,
                         GetItem(Handle(a), {IndexArray(Result(4))})},
                        {1, 5}),
                  &response)
                  .ok());
  EXPECT_EQ(Values(response.results(0).handle()), (std::vector<double>{30, 40, 50}));
  EXPECT_EQ(Values(response.results(1).handle()), (std::vector<double>{10, 30, 50}));
  EXPECT_EQ(Listed(),
            (std::set<std::string>{a, response.results(0).handle(), response.results(1).handle()}));
}

TEST_F(BatchGetItemTest, ErrorsNameTheOpAndLeaveNothing) {
  const std::string a = Array({1, 2, 3});
  v1::IndexItem ten;
  ten.set_index(10);
  ExpectFails(Batch({Arange(6), GetItem(Result(0), {ten})}, {}), grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (get_item): index 10 is out of bounds for axis 0 with size 6");
  ExpectFails(Batch({Arange(6), GetItem(Handle(a), {IndexArray(Result(2))}), Arange(2)}, {}),
              grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (get_item): index[0].batch_array = 2 names a later op: a batch result "
              "must name an earlier op (0 to 0)");
  ExpectFails(Batch({GetItem(Result(0), {})}, {}), grpc::StatusCode::INVALID_ARGUMENT,
              "ops[0] (get_item): batch_handle = 0 names this op itself: a batch result must "
              "name an earlier op and ops[0] has none");
}

TEST_F(BatchGetItemTest, BatchResultsOutsideABatchAreRefused) {
  const std::string a = Array({1, 2});
  v1::ArrayInfo info;
  EXPECT_STATUS(stub_->GetItem(Context().get(), GetItem(Result(0), {}).get_item(), &info),
                INVALID_ARGUMENT, "batch_handle refers to a batch result outside a Batch request");
  EXPECT_STATUS(stub_->GetItem(Context().get(),
                               GetItem(Handle(a), {IndexArray(Result(0))}).get_item(), &info),
                INVALID_ARGUMENT,
                "index[0].batch_array refers to a batch result outside a Batch request");
  v1::SetItemRequest set;
  set.set_handle(a);
  *set.add_index() = IndexArray(Result(0));
  *set.mutable_value() = Number(0);
  v1::SetItemResponse set_response;
  EXPECT_STATUS(stub_->SetItem(Context().get(), set, &set_response), INVALID_ARGUMENT,
                "index[0].batch_array refers to a batch result outside a Batch request");
  EXPECT_EQ(Values(a), (std::vector<double>{1, 2}));
}

using BatchFreeTest = BatchTest;

TEST_F(BatchFreeTest, FreesGoAfterTheOpsAndSkipHandlesAlreadyGone) {
  const std::string a = Array({1, 2}), b = Array({3, 4}), c = Array({5, 6});
  ASSERT_TRUE(Run(Batch({Elementwise("add", {Handle(c), Number(1)}, c)}, {})).ok());
  // The op reads b, which is also freed: frees come after the ops. One handle never existed.
  v1::BatchResponse response;
  ASSERT_TRUE(Run(Freeing(Batch({Elementwise("add", {Handle(a), Handle(b)})}, {0}),
                          {b, kMadeUpHandle, c, c}),
                  &response)
                  .ok());
  EXPECT_EQ(Values(response.results(0).handle()), (std::vector<double>{4, 6}));
  EXPECT_EQ(Listed(), (std::set<std::string>{a, response.results(0).handle()}));
}

TEST_F(BatchFreeTest, AFailedOpStillFreesAndLeavesNothingOfItsBatch) {
  const std::string a = Array({1, 2, 3}), b = Array({4, 5, 6}), m = Array({1, 2, 3, 4}, {2, 2});
  const EngineStats before = server_->engine().Stats();
  const grpc::Status status =
      Run(Freeing(Batch({Elementwise("multiply", {Handle(a), Number(2)}),
                         Matmul(Result(0), Handle(m)), Elementwise("exp", {Result(1)})},
                        {0, 2}),
                  {b}));
  EXPECT_STATUS(status, INVALID_ARGUMENT,
                "ops[1] (matmul): matmul: Input operand 1 has a mismatch");
  EXPECT_EQ(Listed(), (std::set<std::string>{a, m}));
  EXPECT_EQ(server_->engine().Stats().arrays, before.arrays - 1);
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, before.bytes_in_use - 3 * 8);
}

TEST_F(BatchFreeTest, AnEntryThatDoesNotParseFailsTheBatchBeforeAnythingRuns) {
  const std::string a = Array({1, 2}), b = Array({3, 4});
  ExpectFails(Freeing(Batch({Elementwise("add", {Handle(a), Number(1)}, a)}, {}), {b, "xyz"}),
              grpc::StatusCode::INVALID_ARGUMENT,
              "malformed free[1]: expected 32 hex characters, got 3 characters");
  ExpectFails(Freeing(Batch({Elementwise("add", {Handle(a), Number(1)}, a)}, {}), {""}),
              grpc::StatusCode::INVALID_ARGUMENT, "free[0] is empty");
  EXPECT_EQ(Values(a), (std::vector<double>{1, 2}));
}

using BatchReadTest = BatchTest;

TEST_F(BatchReadTest, AResultNotKeptComesBackInlineAndGoes) {
  const std::string a = Array({1, 2, 3});
  v1::BatchResponse response;
  ASSERT_TRUE(Run(Reading(Batch({Elementwise("add", {Handle(a), Number(1)}),
                                 Elementwise("multiply", {Result(0), Number(2)})},
                                {}),
                          1),
                  &response)
                  .ok());
  EXPECT_EQ(AsDoubles(response.data()), (std::vector<double>{4, 6, 8}));
  EXPECT_FALSE(response.data_omitted());
  EXPECT_EQ(response.read_info().handle(), "");
  EXPECT_EQ(ShapeOf(response.read_info()), (std::vector<int64_t>{3}));
  EXPECT_EQ(response.read_info().dtype(), v1::DTYPE_FLOAT64);
  EXPECT_EQ(response.read_info().nbytes(), 24);
  EXPECT_EQ(response.results_size(), 0);
  EXPECT_EQ(Listed(), std::set<std::string>{a});
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, baseline_.bytes_in_use + 3 * 8);
}

TEST_F(BatchReadTest, AKeptResultReadBackNamesItsHandle) {
  const std::string a = Array({1, 2, 3});
  // The read is the middle of a fused chain: it becomes an array all the same.
  v1::BatchResponse response;
  ASSERT_TRUE(Run(Reading(Batch({Elementwise("multiply", {Handle(a), Number(2)}),
                                 Elementwise("add", {Result(0), Number(1)}),
                                 Elementwise("negative", {Result(1)})},
                                {1}),
                          1),
                  &response)
                  .ok());
  EXPECT_EQ(AsDoubles(response.data()), (std::vector<double>{3, 5, 7}));
  ASSERT_EQ(response.results_size(), 1);
  EXPECT_EQ(response.read_info().handle(), response.results(0).handle());
  EXPECT_EQ(Values(response.results(0).handle()), (std::vector<double>{3, 5, 7}));
  // And the middle of a chain that nobody keeps.
  ASSERT_TRUE(Run(Reading(Batch({Elementwise("multiply", {Handle(a), Number(2)}),
                                 Elementwise("add", {Result(0), Number(1)}),
                                 Elementwise("negative", {Result(1)})},
                                {}),
                          0),
                  &response)
                  .ok());
  EXPECT_EQ(AsDoubles(response.data()), (std::vector<double>{2, 4, 6}));
}

TEST_F(BatchReadTest, AViewComesBackInCOrder) {
  Op transpose;
  transpose.mutable_view()->set_batch_handle(1);
  transpose.mutable_view()->mutable_transpose();
  v1::BatchResponse response;
  ASSERT_TRUE(
      Run(Reading(Batch({Arange(6), Reshape(0, {2, 3}), transpose}, {}), 2), &response).ok());
  // [[0, 1, 2], [3, 4, 5]].T in C order.
  EXPECT_EQ(AsDoubles(response.data()), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(ShapeOf(response.read_info()), (std::vector<int64_t>{3, 2}));
  EXPECT_FALSE(response.read_info().c_contiguous());
  // A strided basic index.
  ASSERT_TRUE(
      Run(Reading(Batch({Arange(6), GetItem(Result(0), {Slice(1, 2)})}, {}), 1), &response).ok());
  EXPECT_EQ(AsDoubles(response.data()), (std::vector<double>{1, 3, 5}));
  ExpectNothingLeaked();
}

TEST_F(BatchReadTest, ReadingAnOpThatWroteIntoAResultReadsThatArray) {
  const std::string a = Array({1, 2, 3});
  v1::BatchResponse response;
  ASSERT_TRUE(
      Run(Reading(Batch({Zeros({}), WritingInto(Sum(Handle(a)), 0)}, {}), 1), &response).ok());
  EXPECT_EQ(AsDoubles(response.data()), (std::vector<double>{6}));
  EXPECT_EQ(ShapeOf(response.read_info()), (std::vector<int64_t>{}));
  EXPECT_EQ(Listed(), std::set<std::string>{a});
}

TEST_F(BatchReadTest, TheReadIsCheckedBeforeAnythingRuns) {
  const std::string a = Array({1, 2, 3, 4});
  const Op write = Elementwise("add", {Handle(a), Number(1)}, a);
  ExpectFails(Reading(Batch({write, Arange(2)}, {}), 2), grpc::StatusCode::INVALID_ARGUMENT,
              "read = 2 is out of range: the batch has 2 ops");
  ExpectFails(Reading(Batch({write, Arange(2)}, {}), -1), grpc::StatusCode::INVALID_ARGUMENT,
              "read = -1 is out of range: the batch has 2 ops");
  ExpectFails(Reading(Batch({write, Split(Handle(a), 2)}, {}), 1),
              grpc::StatusCode::INVALID_ARGUMENT,
              "read = 1 names ops[1] (array_op split), which gives several arrays; only an op "
              "giving one array can be read back");
  EXPECT_EQ(Values(a), (std::vector<double>{1, 2, 3, 4}));
}

TEST_F(BatchReadTest, AFailedBatchAnswersNoData) {
  const std::string a = Array({1, 2, 3});
  v1::BatchResponse response;
  EXPECT_STATUS(Run(Reading(Batch({Arange(2), Elementwise("add", {Result(0), Handle(a)})}, {}), 0),
                    &response),
                INVALID_ARGUMENT, "ops[1] (elementwise add): operands could not be broadcast");
  EXPECT_TRUE(response.data().empty());
  EXPECT_FALSE(response.has_read_info());
  EXPECT_EQ(Listed(), std::set<std::string>{a});
}

// Reads past 64 bytes are left to a download.
using BatchSmallReadTest = WithLimit<BatchTest, &Limits::max_inline_read_bytes, 64>;

TEST_F(BatchSmallReadTest, AResultPastTheInlineLimitIsOmittedAndTheBatchStands) {
  v1::BatchResponse response;
  ASSERT_TRUE(
      Run(Reading(Batch({Arange(9), Elementwise("sqrt", {Result(0)})}, {0, 1}), 1), &response)
          .ok());
  EXPECT_TRUE(response.data_omitted());
  EXPECT_TRUE(response.data().empty());
  EXPECT_EQ(ShapeOf(response.read_info()), (std::vector<int64_t>{9}));
  EXPECT_EQ(response.read_info().nbytes(), 72);
  ASSERT_EQ(response.results_size(), 2);
  EXPECT_EQ(response.read_info().handle(), response.results(1).handle());
  EXPECT_EQ(Values(response.results(1).handle())[4], 2);
  // 64 bytes still come inline.
  ASSERT_TRUE(Run(Reading(Batch({Arange(8)}, {}), 0), &response).ok());
  EXPECT_FALSE(response.data_omitted());
  EXPECT_EQ(AsDoubles(response.data()), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(BatchTest, ServerInfoNamesTheBatchLimits) {
  v1::ServerInfo info;
  ASSERT_TRUE(stub_->GetServerInfo(Context().get(), {}, &info).ok());
  EXPECT_EQ(info.limits().max_batch_ops(), 1024);
  EXPECT_EQ(info.limits().max_inline_read_bytes(), 1 << 20);
  EXPECT_EQ(info.limits().max_inline_create_bytes(), 1 << 20);
  EXPECT_TRUE(info.limits().batch_stream());
}

// A create with the client's bytes (a queued small upload).
Op CreateWithData(const std::vector<double>& values, std::vector<int64_t> shape,
                  v1::DType dtype = v1::DTYPE_FLOAT64) {
  Op op;
  v1::CreateRequest& create = *op.mutable_create();
  create.set_dtype(dtype);
  create.mutable_shape()->Assign(shape.begin(), shape.end());
  create.mutable_data()->set_values(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double)));
  return op;
}

using BatchInlineCreateTest = BatchTest;

TEST_F(BatchInlineCreateTest, TheBytesBecomeAnArrayThatLaterOpsRead) {
  v1::BatchResponse response;
  ASSERT_TRUE(Run(Reading(Batch({CreateWithData({1, 2, 3, 4, 5, 6}, {2, 3}),
                                 Elementwise("multiply", {Result(0), Number(10)})},
                                {0}),
                          1),
                  &response)
                  .ok());
  EXPECT_EQ(AsDoubles(response.data()), (std::vector<double>{10, 20, 30, 40, 50, 60}));
  ASSERT_EQ(response.results_size(), 1);
  EXPECT_EQ(ShapeOf(response.results(0)), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values(response.results(0).handle()), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  // An empty array takes no bytes.
  ASSERT_TRUE(Run(Reading(Batch({CreateWithData({}, {0, 4})}, {}), 0), &response).ok());
  EXPECT_EQ(ShapeOf(response.read_info()), (std::vector<int64_t>{0, 4}));
}

TEST_F(BatchInlineCreateTest, BytesThatDoNotFitTheArrayFailTheBatchAndLeaveNothing) {
  const std::string a = Array({1, 2, 3});
  ExpectFails(Batch({Elementwise("add", {Handle(a), Number(1)}), CreateWithData({1, 2}, {3})}, {0}),
              grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (create data): create.data has 16 bytes; a float64 array of shape (3,) "
              "holds 24");
  Op untyped = CreateWithData({1}, {1});
  untyped.mutable_create()->clear_dtype();
  ExpectFails(Batch({untyped}, {0}), grpc::StatusCode::INVALID_ARGUMENT,
              "ops[0] (create data): create.data needs a dtype: the bytes do not say theirs");
  EXPECT_EQ(Listed(), std::set<std::string>{a});
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, baseline_.bytes_in_use + 3 * 8);
}

// At most 16 bytes inline: an upload's work, not a Batch's.
using BatchSmallCreateTest = WithLimit<BatchTest, &Limits::max_inline_create_bytes, 16>;

TEST_F(BatchSmallCreateTest, BytesPastTheInlineLimitAreRefused) {
  v1::BatchResponse response;
  ASSERT_TRUE(Run(Reading(Batch({CreateWithData({1, 2}, {2})}, {}), 0), &response).ok());
  EXPECT_EQ(AsDoubles(response.data()), (std::vector<double>{1, 2}));
  ExpectFails(Batch({CreateWithData({1, 2, 3}, {3})}, {0}), grpc::StatusCode::INVALID_ARGUMENT,
              "ops[0] (create data): create.data has 24 bytes; the server takes at most 16 inline "
              "(--max-inline-create-bytes): upload larger arrays");
  ExpectNothingLeaked();
}

using BatchProductsTest = BatchTest;

// A conjugate-gradient step's products pipeline: dot of batch results, written into one, and a
// vector norm of a batch result read back inline.
TEST_F(BatchProductsTest, DotAndNormReadAndWriteBatchResults) {
  const std::string a = Array({1, 2, 3}), b = Array({4, 5, 6});
  v1::BatchResponse response;
  ASSERT_TRUE(Run(Reading(Batch({Elementwise("add", {Handle(a), Number(1)}),
                                 TensorProduct("dot", Result(0), Handle(b)), Zeros({}),
                                 WritingInto(TensorProduct("inner", Handle(a), Result(0)), 2),
                                 Linalg("norm", {Result(0)})},
                                {1, 3}),
                          4),
                  &response)
                  .ok());
  // a + 1 = [2, 3, 4]: dot with b = 47; inner(a, a + 1) = 20; norm(a + 1) = sqrt(29).
  ASSERT_EQ(response.results_size(), 2);
  EXPECT_EQ(Values(response.results(0).handle()), (std::vector<double>{47}));
  EXPECT_EQ(Values(response.results(1).handle()), (std::vector<double>{20}));
  EXPECT_DOUBLE_EQ(AsDoubles(response.data()).at(0), std::sqrt(29.0));
  EXPECT_TRUE(response.read_info().handle().empty());
}

// Every routine that answers a tuple (eig among them: it once counted as one array, so a batch
// kept its eigenvalues and left its eigenvectors in the session, unnamed).
TEST_F(BatchProductsTest, ALinalgRoutineGivingATupleRunsButCannotBeReadOrKept) {
  const std::string m = Array({4, 1, 1, 3}, {2, 2});
  const std::string v = Array({1, 2}, {2});
  v1::BatchRequest::Op reduced_qr = Linalg("qr", {Handle(m)});
  reduced_qr.mutable_linalg()->set_mode("reduced");
  v1::BatchRequest::Op full_svd = Linalg("svd", {Handle(m)});
  full_svd.mutable_linalg()->set_compute_uv(true);
  std::set<std::string> listed = {m, v};
  for (const v1::BatchRequest::Op& tuple :
       {Linalg("eigh", {Handle(m)}), Linalg("eig", {Handle(m)}), Linalg("slogdet", {Handle(m)}),
        Linalg("lstsq", {Handle(m), Handle(v)}), reduced_qr, full_svd}) {
    const std::string label = "linalg " + tuple.linalg().op();
    SCOPED_TRACE(label);
    ExpectFails(Batch({tuple, Elementwise("negative", {Result(0)})}, {}),
                grpc::StatusCode::INVALID_ARGUMENT,
                "ops[1] (elementwise negative): operands[0].batch_result = 0 names ops[0] (" +
                    label +
                    "), which gives several arrays; only an op giving one array can be read by "
                    "later ops or kept");
    ExpectFails(Batch({tuple}, {0}), grpc::StatusCode::INVALID_ARGUMENT,
                "keep[0] = 0 names ops[0] (" + label +
                    "), which gives several arrays; only an op giving one array can be read by "
                    "later ops or kept");
    v1::BatchResponse response;
    ASSERT_TRUE(Run(Batch({tuple, Linalg("det", {Handle(m)})}, {1}), &response).ok());
    EXPECT_DOUBLE_EQ(Values(response.results(0).handle()).at(0), 11.0);
    // The tuple's arrays are all freed with the batch: only the kept determinants stay.
    listed.insert(response.results(0).handle());
    EXPECT_EQ(Listed(), listed);
  }
}

using BatchConcurrencyTest = BatchTest;

// Pipelined flushes from several threads at once on one array: an in-place add (out= the
// array), a result made from it and kept, a view of that result read back inline, and the
// previous round's result freed in the same batch. Every add lands, every read sees a whole
// number of them, and nothing is left behind.
TEST_F(BatchConcurrencyTest, FlushesFromManyThreadsOnOneArrayLoseNothingAndLeaveNothing) {
  const std::string a = Array({0, 0, 0, 0});
  constexpr int kThreads = 6;
  constexpr int kRounds = 40;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      std::string previous;
      for (int round = 0; round < kRounds; ++round) {
        Op add = Elementwise("add", {Handle(a), Number(1)});
        add.mutable_elementwise()->set_out(a);
        v1::BatchRequest request =
            Reading(Batch({add, Elementwise("multiply", {Handle(a), Number(2)}),
                           GetItem(Result(1), {Slice(1, 1)})},
                          {1}),
                    2);
        if (!previous.empty()) request.add_free(previous);
        v1::BatchResponse response;
        if (!Run(request, &response).ok() || response.results_size() != 1) {
          ++bad;
          return;
        }
        previous = response.results(0).handle();
        const std::vector<double> read = AsDoubles(response.data());
        // Two times a count of adds, the same in all three places: no torn read.
        if (read.size() != 3 || read[0] != read[1] || read[1] != read[2] || read[0] < 2 ||
            read[0] > 2 * kThreads * kRounds || std::fmod(read[0], 2) != 0) {
          ++bad;
        }
      }
      v1::BatchRequest last = Batch({Elementwise("add", {Handle(a), Number(0)})}, {});
      last.add_free(previous);
      v1::BatchResponse response;
      if (!Run(last, &response).ok()) ++bad;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(Values(a), std::vector<double>(4, kThreads * kRounds));
  EXPECT_EQ(Listed(), (std::set<std::string>{a}));
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, baseline_.bytes_in_use + 4 * 8);
}

}  // namespace
}  // namespace arrayhub::testing
