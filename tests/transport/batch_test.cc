// The Batch RPC: ops reading earlier results, kept results answered and the rest freed, and a
// failing batch leaving nothing behind.
#include "tests/transport/batch_fixture.h"

namespace arrayhub::testing {
namespace {

TEST_F(BatchTest, DependentElementwiseOpsKeepOnlyTheResultsAsked) {
  const std::string a = Array({1, 2, 3, 4}), b = Array({4, 5, 6, 7});
  // r = sqrt((a * b + 1) - a), keeping r and the intermediate a * b + 1.
  const v1::BatchRequest request = Batch(
      {Elementwise("multiply", {Handle(a), Handle(b)}), Elementwise("add", {Result(0), Number(1)}),
       Elementwise("subtract", {Result(1), Handle(a)}), Elementwise("sqrt", {Result(2)})},
      {3, 1});
  v1::BatchResponse response;
  ASSERT_TRUE(Run(request, &response).ok());
  ASSERT_EQ(response.results_size(), 2);
  EXPECT_EQ(Values(response.results(0).handle()), (std::vector<double>{2, 3, 4, 5}));
  EXPECT_EQ(Values(response.results(1).handle()), (std::vector<double>{5, 11, 19, 29}));
  EXPECT_EQ(response.results(0).shape(0), 4);
  EXPECT_EQ(response.results(0).dtype(), v1::DTYPE_FLOAT64);
  EXPECT_EQ(Listed(), (std::set<std::string>{a, b, response.results(0).handle(),
                                             response.results(1).handle()}));
  // The intermediates are gone: memory is the four arrays' and nothing more.
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, baseline_.bytes_in_use + 4 * 4 * 8);
}

TEST_F(BatchTest, ABatchKeepingNothingLeavesNothing) {
  const std::string a = Array({1, 2, 3});
  const EngineStats before = server_->engine().Stats();
  v1::BatchResponse response;
  ASSERT_TRUE(Run(Batch({Arange(3), Elementwise("add", {Result(0), Handle(a)}),
                         Elementwise("exp", {Result(1)})},
                        {}),
                  &response)
                  .ok());
  EXPECT_EQ(response.results_size(), 0);
  EXPECT_EQ(Listed(), std::set<std::string>{a});
  EXPECT_EQ(server_->engine().Stats().arrays, before.arrays);
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, before.bytes_in_use);
}

TEST_F(BatchTest, CreateViewsAndProductsOfBatchResults) {
  const std::string m = Array({1, 0, 0, 2}, {2, 2});
  // arange(6).reshape(3, 2).T, then m @ that, then its column sums; keep the view and the sum.
  Op transpose;
  transpose.mutable_view()->set_batch_handle(1);
  transpose.mutable_view()->mutable_transpose();
  Op sum;
  sum.mutable_reduce()->set_op("sum");
  *sum.mutable_reduce()->mutable_input() = Result(3);
  sum.mutable_reduce()->mutable_axis()->add_axes(0);
  v1::BatchResponse response;
  ASSERT_TRUE(
      Run(Batch({Arange(6), Reshape(0, {3, 2}), transpose, Matmul(Handle(m), Result(2)), sum},
                {2, 4}),
          &response)
          .ok());
  ASSERT_EQ(response.results_size(), 2);
  const v1::ArrayInfo& view = response.results(0);
  EXPECT_EQ(std::vector<int64_t>(view.shape().begin(), view.shape().end()),
            (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::vector<int64_t>(view.strides().begin(), view.strides().end()),
            (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(view.owns_data());
  EXPECT_EQ(Values(view.handle()), (std::vector<double>{0, 2, 4, 1, 3, 5}));
  // [[1, 0], [0, 2]] @ [[0, 2, 4], [1, 3, 5]] = [[0, 2, 4], [2, 6, 10]]; column sums:
  EXPECT_EQ(Values(response.results(1).handle()), (std::vector<double>{2, 8, 14}));
  EXPECT_EQ(Listed(), (std::set<std::string>{m, view.handle(), response.results(1).handle()}));
}

TEST_F(BatchTest, ResultsWrittenThroughOutAreTheExistingArray) {
  const std::string a = Array({1, 2, 3});
  v1::BatchResponse response;
  ASSERT_TRUE(Run(Batch({Elementwise("add", {Handle(a), Number(1)}, a),
                         Elementwise("multiply", {Result(0), Number(10)})},
                        {0, 1}),
                  &response)
                  .ok());
  EXPECT_EQ(response.results(0).handle(), a);
  EXPECT_EQ(Values(a), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(Values(response.results(1).handle()), (std::vector<double>{20, 30, 40}));
  // An out= result that is not kept is not freed either.
  ASSERT_TRUE(Run(Batch({Elementwise("add", {Handle(a), Number(1)}, a)}, {})).ok());
  EXPECT_EQ(Values(a), (std::vector<double>{3, 4, 5}));
}

TEST_F(BatchTest, AFailingOpFreesEverythingTheBatchMadeAndNamesTheOp) {
  const std::string a = Array({1, 2, 3}), m = Array({1, 2, 3, 4}, {2, 2});
  // Ops 0 and 1 succeed (and 0 is kept) before the matmul of shapes (3,) and (2, 2) fails.
  ExpectFails(
      Batch({Elementwise("multiply", {Handle(a), Number(2)}),
             Elementwise("add", {Result(0), Number(1)}), Matmul(Result(1), Handle(m)),
             Elementwise("negative", {Result(2)})},
            {0, 3}),
      grpc::StatusCode::INVALID_ARGUMENT,
      "ops[2] (matmul): matmul: Input operand 1 has a mismatch in its core dimension 0, "
      "with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 2 is different from 3); shapes (3,) "
      "and (2,2)");
  // The op's own code stays.
  ExpectFails(
      Batch({Arange(4), Elementwise("add", {Result(0), Handle(std::string(32, 'f'))})}, {0}),
      grpc::StatusCode::NOT_FOUND,
      "ops[1] (elementwise add): array ffffffffffffffffffffffffffffffff not found");
  ExpectFails(Batch({Arange(4), Elementwise("frobnicate", {Result(0)})}, {0}),
              grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (elementwise frobnicate): unknown elementwise op 'frobnicate'");
  // Writes into existing arrays before the failure stay.
  ExpectFails(Batch({Elementwise("add", {Handle(a), Number(1)}, a), Reshape(0, {2, 2})}, {}),
              grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (view reshape): cannot reshape array of size 3 into shape (2,2)");
  EXPECT_EQ(Values(a), (std::vector<double>{2, 3, 4}));
}

TEST_F(BatchTest, TheBatchIsCheckedBeforeAnythingRuns) {
  const std::string a = Array({1, 2});
  // Each of these has a first op that would write into `a` if the batch ran at all.
  const Op write = Elementwise("add", {Handle(a), Number(1)}, a);
  ExpectFails(Batch({write, Elementwise("add", {Result(2), Number(1)}), Arange(2)}, {}),
              grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (elementwise add): operands[0].batch_result = 2 names a later op: a batch "
              "result must name an earlier op (0 to 0)");
  ExpectFails(Batch({write, Matmul(Handle(a), Result(1))}, {}), grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (matmul): b.batch_result = 1 names this op itself: a batch result must "
              "name an earlier op (0 to 0)");
  ExpectFails(Batch({write, Reshape(-1, {2})}, {}), grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (view reshape): batch_handle = -1 is negative: a batch result must name an "
              "earlier op (0 to 0)");
  ExpectFails(Batch({write, Arange(2)}, {1, 2}), grpc::StatusCode::INVALID_ARGUMENT,
              "keep[1] = 2 is out of range: the batch has 2 ops");
  ExpectFails(Batch({write, Arange(2)}, {1, 0, 1}), grpc::StatusCode::INVALID_ARGUMENT,
              "keep[2] = 1 repeats keep[0]");
  ExpectFails(Batch({write, Split(Handle(a), 2), Elementwise("exp", {Result(1)})}, {}),
              grpc::StatusCode::INVALID_ARGUMENT,
              "ops[2] (elementwise exp): operands[0].batch_result = 1 names ops[1] (array_op "
              "split), which gives several arrays; only an op giving one array can be read by "
              "later ops or kept");
  ExpectFails(Batch({write, Split(Handle(a), 2)}, {1}), grpc::StatusCode::INVALID_ARGUMENT,
              "keep[0] = 1 names ops[1] (array_op split), which gives several arrays; only an op "
              "giving one array can be read by later ops or kept");
  ExpectFails(
      Batch({write, Op()}, {}), grpc::StatusCode::INVALID_ARGUMENT,
      "ops[1] has no op set (elementwise, matmul, reduce, view, array_op, create, get_item, "
      "tensor_product, linalg, fft, run_kernel or record_event)");
  ExpectFails(Batch({}, {}), grpc::StatusCode::INVALID_ARGUMENT,
              "ops is empty: a batch needs at least one op");
  ExpectFails(Batch(std::vector<Op>(1025, write), {}), grpc::StatusCode::INVALID_ARGUMENT,
              "ops has 1025 entries; a batch has at most 1024");
  EXPECT_EQ(Values(a), (std::vector<double>{1, 2}));
}

TEST_F(BatchTest, SeveralArraysNobodyReadsAreFreed) {
  const std::string a = Array({1, 2, 3, 4});
  ASSERT_TRUE(Run(Batch({Split(Handle(a), 2)}, {})).ok());
  EXPECT_EQ(Listed(), std::set<std::string>{a});
}

TEST_F(BatchTest, BatchResultsOutsideABatchAreRefused) {
  const std::string a = Array({1, 2});
  v1::ElementwiseRequest elementwise;
  elementwise.set_op("add");
  *elementwise.add_operands() = Handle(a);
  *elementwise.add_operands() = Result(0);
  v1::ArrayInfo info;
  EXPECT_STATUS(stub_->Elementwise(Context().get(), elementwise, &info), INVALID_ARGUMENT,
                "operands[1] refers to a batch result outside a Batch request");
  EXPECT_STATUS(stub_->View(Context().get(), Reshape(0, {2}).view(), &info), INVALID_ARGUMENT,
                "batch_handle refers to a batch result outside a Batch request");
}

TEST_F(BatchTest, NeedsASession) {
  grpc::ClientContext no_session;
  v1::BatchResponse response;
  EXPECT_STATUS(stub_->Batch(&no_session, Batch({Arange(2)}, {0}), &response), INVALID_ARGUMENT,
                "missing x-arrayhub-session metadata");
  ExpectNothingLeaked();
}

}  // namespace
}  // namespace arrayhub::testing
