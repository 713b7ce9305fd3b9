// Building Batch requests, and a fixture that runs them and checks what a failed one left.
#pragma once

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {

using Op = v1::BatchRequest::Op;

inline v1::Operand Handle(const std::string& handle) {
  v1::Operand operand;
  operand.set_handle(handle);
  return operand;
}

inline v1::Operand Result(int32_t op) {
  v1::Operand operand;
  operand.set_batch_result(op);
  return operand;
}

inline v1::Operand Number(double value) {
  v1::Operand operand;
  operand.mutable_scalar()->set_float_value(value);
  return operand;
}

inline Op Elementwise(const std::string& name, std::vector<v1::Operand> operands,
                      const std::string& out = "") {
  Op op;
  op.mutable_elementwise()->set_op(name);
  for (v1::Operand& operand : operands) *op.mutable_elementwise()->add_operands() = operand;
  op.mutable_elementwise()->set_out(out);
  return op;
}

inline Op Arange(double stop) {
  Op op;
  v1::CreateRequest* create = op.mutable_create();
  create->set_dtype(v1::DTYPE_FLOAT64);
  create->mutable_arange()->mutable_start()->set_float_value(0);
  create->mutable_arange()->mutable_stop()->set_float_value(stop);
  return op;
}

inline Op Reshape(int32_t of, std::vector<int64_t> shape) {
  Op op;
  op.mutable_view()->set_batch_handle(of);
  op.mutable_view()->mutable_reshape()->mutable_shape()->Assign(shape.begin(), shape.end());
  return op;
}

inline Op Split(v1::Operand of, int64_t sections) {
  Op op;
  op.mutable_array_op()->set_op("split");
  *op.mutable_array_op()->add_operands() = of;
  op.mutable_array_op()->add_ints(sections);
  return op;
}

inline Op Matmul(v1::Operand a, v1::Operand b) {
  Op op;
  *op.mutable_matmul()->mutable_a() = a;
  *op.mutable_matmul()->mutable_b() = b;
  return op;
}

inline Op Zeros(std::vector<int64_t> shape) {
  Op op;
  op.mutable_create()->set_dtype(v1::DTYPE_FLOAT64);
  op.mutable_create()->mutable_shape()->Assign(shape.begin(), shape.end());
  op.mutable_create()->mutable_zeros();
  return op;
}

inline Op Sum(v1::Operand input) {
  Op op;
  op.mutable_reduce()->set_op("sum");
  *op.mutable_reduce()->mutable_input() = input;
  return op;
}

inline Op TensorProduct(const std::string& name, v1::Operand a, v1::Operand b) {
  Op op;
  op.mutable_tensor_product()->set_op(name);
  *op.mutable_tensor_product()->mutable_a() = a;
  *op.mutable_tensor_product()->mutable_b() = b;
  return op;
}

inline Op Linalg(const std::string& name, std::vector<v1::Operand> operands) {
  Op op;
  op.mutable_linalg()->set_op(name);
  for (v1::Operand& operand : operands) *op.mutable_linalg()->add_operands() = operand;
  return op;
}

// `op` (elementwise, matmul, reduce or tensor product) writing into op `target`'s result
// (out_batch_result).
inline Op WritingInto(Op op, int32_t target) {
  switch (op.op_case()) {
    case Op::kElementwise:
      op.mutable_elementwise()->set_out_batch_result(target);
      break;
    case Op::kMatmul:
      op.mutable_matmul()->set_out_batch_result(target);
      break;
    case Op::kReduce:
      op.mutable_reduce()->set_out_batch_result(target);
      break;
    case Op::kTensorProduct:
      op.mutable_tensor_product()->set_out_batch_result(target);
      break;
    default:
      ADD_FAILURE() << "only elementwise, matmul, reduce and tensor product ops write into an "
                       "out array";
  }
  return op;
}

// a[start::step].
inline v1::IndexItem Slice(int64_t start, int64_t step) {
  v1::IndexItem item;
  item.mutable_slice()->set_has_start(true);
  item.mutable_slice()->set_start(start);
  item.mutable_slice()->set_step(step);
  return item;
}

// An index array: a handle (`array`) or a batch result (`batch_array`).
inline v1::IndexItem IndexArray(const v1::Operand& of) {
  v1::IndexItem item;
  if (of.value_case() == v1::Operand::kBatchResult) {
    item.set_batch_array(of.batch_result());
  } else {
    item.set_array(of.handle());
  }
  return item;
}

// of[index], `of` a handle (`handle`) or a batch result (`batch_handle`).
inline Op GetItem(const v1::Operand& of, std::vector<v1::IndexItem> index) {
  Op op;
  if (of.value_case() == v1::Operand::kBatchResult) {
    op.mutable_get_item()->set_batch_handle(of.batch_result());
  } else {
    op.mutable_get_item()->set_handle(of.handle());
  }
  for (v1::IndexItem& item : index) *op.mutable_get_item()->add_index() = item;
  return op;
}

inline v1::BatchRequest Batch(std::vector<Op> ops, std::vector<int32_t> keep) {
  v1::BatchRequest request;
  for (Op& op : ops) *request.add_ops() = op;
  request.mutable_keep()->Assign(keep.begin(), keep.end());
  return request;
}

// `request` asking for op `read`'s data inline.
inline v1::BatchRequest Reading(v1::BatchRequest request, int32_t read) {
  request.set_read(read);
  return request;
}

inline std::vector<double> AsDoubles(const std::string& bytes) {
  std::vector<double> values(bytes.size() / sizeof(double));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// The batch of the tests that run streams or lanes of many sessions on one float64 array `a`:
// 1 added into `a` in place, then 2a read back.
inline v1::BatchRequest AddOneThenReadTwice(const std::string& a) {
  Op add = Elementwise("add", {Handle(a), Number(1)});
  add.mutable_elementwise()->set_out(a);
  return Reading(Batch({add, Elementwise("multiply", {Handle(a), Number(2)})}, {}), 1);
}

// Whether `read`, what AddOneThenReadTwice read of a 3-element array, shows a whole number of
// the adds, at least its own and at most `adds`.
inline bool ShowsWholeAdds(const std::vector<double>& read, int adds) {
  return read.size() == 3 && read[0] == read[1] && read[1] == read[2] && read[0] >= 2 &&
         read[0] <= 2 * adds;
}

class BatchTest : public RpcTest {
 protected:
  // A float64 array with these values, shaped `shape` (default: 1-D).
  std::string Array(const std::vector<double>& values, std::vector<int64_t> shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(values.size())};
    v1::ArrayInfo info;
    const std::string bytes(reinterpret_cast<const char*>(values.data()),
                            values.size() * sizeof(double));
    EXPECT_TRUE(Upload(v1::DTYPE_FLOAT64, shape, bytes, &info).ok());
    return info.handle();
  }

  grpc::Status Run(const v1::BatchRequest& request, v1::BatchResponse* response = nullptr) {
    v1::BatchResponse ignored;
    return stub_->Batch(Context().get(), request, response ? response : &ignored);
  }

  std::vector<double> Values(const std::string& handle) { return AsDoubles(DownloadAll(handle)); }

  std::set<std::string> Listed() {
    v1::ListResponse response;
    EXPECT_TRUE(stub_->List(Context().get(), v1::ListRequest(), &response).ok());
    std::set<std::string> handles;
    for (const v1::ArrayInfo& info : response.arrays()) handles.insert(info.handle());
    return handles;
  }

  // The batch fails with `code` and `message`, and the server holds what it held before.
  void ExpectFails(const v1::BatchRequest& request, grpc::StatusCode code,
                   const std::string& message) {
    const EngineStats before = server_->engine().Stats();
    const std::set<std::string> listed = Listed();
    const grpc::Status status = Run(request);
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    EXPECT_EQ(status.error_message(), message);
    const EngineStats after = server_->engine().Stats();
    EXPECT_EQ(after.arrays, before.arrays);
    EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
    EXPECT_EQ(Listed(), listed);
  }
};

}  // namespace arrayhub::testing
