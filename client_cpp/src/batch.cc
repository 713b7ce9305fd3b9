// Batch: ops recorded as BatchRequest.Op messages, sent by Run as one Batch RPC.
#include "arrayhub/batch.h"

#include <atomic>
#include <string>
#include <utility>

#include "connection.h"
#include "convert.h"
#include "requests.h"

namespace arrayhub::client {

namespace detail {
struct BatchOps {
  v1::BatchRequest request;
  std::vector<bool> writes_out;  // Per op: its result is an existing array (UfuncOut).
};
}  // namespace detail

namespace {

// Ids tell the steps of different batches apart (a Batch can be moved, so not its address).
uint64_t NextBatchId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

// Appends one op; the request is built (and may throw) before the op is added.
template <typename Request>
void Append(v1::BatchRequest& batch, Request request) {
  *batch.add_ops() = detail::AsOp(std::move(request));
}

}  // namespace

Batch::Batch(Client& client)
    : client_(&client), id_(NextBatchId()), ops_(std::make_unique<detail::BatchOps>()) {
  client.connection();  // Throws on a moved-from Client.
}

Batch::~Batch() = default;
Batch::Batch(Batch&& other) noexcept = default;
Batch& Batch::operator=(Batch&& other) noexcept = default;

int64_t Batch::size() const { return ops_->request.ops_size(); }

void Batch::CheckSteps(const std::vector<Operand>& operands) const {
  for (const Operand& operand : operands) {
    const auto* step = std::get_if<Step>(&operand.value());
    if (step != nullptr && step->batch_ != id_) {
      throw Error(StatusCode::kInvalidArgument,
                  "step " + std::to_string(step->index()) + " belongs to another Batch");
    }
    // A Batch names arrays by handle: one the client's pipeline still computes is waited for.
    if (const auto* array = std::get_if<const Array*>(&operand.value())) (*array)->handle();
  }
}

Step Batch::Recorded(bool writes_out) {
  ops_->writes_out.push_back(writes_out);
  return Step(id_, static_cast<int32_t>(size() - 1));
}

std::vector<Array> Batch::Run(const std::vector<Step>& keep) {
  v1::BatchRequest request = ops_->request;
  for (const Step& step : keep) {
    CheckSteps({step});
    // A second Array owning the handle would free the caller's array with it.
    if (ops_->writes_out[step.index()]) {
      throw Error(StatusCode::kInvalidArgument,
                  "step " + std::to_string(step.index()) +
                      " wrote into an existing array (UfuncOut), which the caller holds; it "
                      "cannot be kept");
    }
    request.add_keep(step.index());
  }
  const v1::BatchResponse response =
      detail::Call(client_->Synced(), &v1::ArrayHub::Stub::Batch, request);
  std::vector<Array> results;
  for (const v1::ArrayInfo& info : response.results()) {
    results.push_back(client_->Adopt(detail::FromProto(info)));
  }
  return results;
}

Step Batch::Ufunc(std::string_view name, const std::vector<Operand>& operands,
                  std::optional<DType> dtype) {
  CheckSteps(operands);
  Append(ops_->request, detail::UfuncRequest(name, operands, dtype));
  return Recorded();
}

Step Batch::UfuncOut(Array& out, std::string_view name, const std::vector<Operand>& operands,
                     std::optional<DType> dtype) {
  CheckSteps(operands);
  v1::ElementwiseRequest request = detail::UfuncRequest(name, operands, dtype);
  request.set_out(out.handle());
  Append(ops_->request, std::move(request));
  return Recorded(/*writes_out=*/true);
}

Step Batch::Matmul(const Operand& a, const Operand& b, const MatmulOptions& options) {
  CheckSteps({a, b});
  Append(ops_->request, detail::MatmulRequest(a, b, options));
  return Recorded();
}

Step Batch::Reduce(std::string_view name, const Operand& array, const ReduceOptions& options) {
  CheckSteps({array});
  Append(ops_->request, detail::ReduceRequest(name, array, options));
  return Recorded();
}

Step Batch::Reshape(const Operand& a, const Shape& shape, Order order) {
  CheckSteps({a});
  Append(ops_->request, detail::ReshapeRequest(a, shape, order));
  return Recorded();
}

Step Batch::Transpose(const Operand& a, const std::vector<int64_t>& axes) {
  CheckSteps({a});
  Append(ops_->request, detail::TransposeRequest(a, axes));
  return Recorded();
}

Step Batch::SwapAxes(const Operand& a, int64_t axis1, int64_t axis2) {
  CheckSteps({a});
  Append(ops_->request, detail::SwapAxesRequest(a, axis1, axis2));
  return Recorded();
}

Step Batch::Squeeze(const Operand& a, std::optional<std::vector<int64_t>> axes) {
  CheckSteps({a});
  Append(ops_->request, detail::SqueezeRequest(a, axes));
  return Recorded();
}

Step Batch::ExpandDims(const Operand& a, const std::vector<int64_t>& axes) {
  CheckSteps({a});
  Append(ops_->request, detail::ExpandDimsRequest(a, axes));
  return Recorded();
}

Step Batch::BroadcastTo(const Operand& a, const Shape& shape) {
  CheckSteps({a});
  Append(ops_->request, detail::BroadcastToRequest(a, shape));
  return Recorded();
}

Step Batch::Diagonal(const Operand& a, int64_t offset, int64_t axis1, int64_t axis2) {
  CheckSteps({a});
  // The wire reads (0, 0) as NumPy's defaults, and a step's rank, which the Client uses to
  // spell the axis otherwise, is not known before the batch runs.
  if (axis1 == axis2) {
    throw Error(StatusCode::kInvalidArgument, "axis1 and axis2 cannot be the same");
  }
  Append(ops_->request, detail::DiagonalRequest(a, offset, axis1, axis2));
  return Recorded();
}

Step Batch::Ravel(const Operand& a, Order order) {
  CheckSteps({a});
  Append(ops_->request, detail::RavelRequest(a, order));
  return Recorded();
}

Step Batch::ArrayOp(std::string_view op, const std::vector<Operand>& operands,
                    const ArrayOpOptions& options) {
  CheckSteps(operands);
  Append(ops_->request, detail::ArrayOpRequest(op, operands, options));
  return Recorded();
}

Step Batch::Concatenate(const std::vector<Operand>& arrays, std::optional<int64_t> axis,
                        std::optional<DType> dtype) {
  return ArrayOp("concatenate", arrays, {.dtype = dtype, .axis = detail::Axis(axis)});
}

Step Batch::Stack(const std::vector<Operand>& arrays, int64_t axis, std::optional<DType> dtype) {
  return ArrayOp("stack", arrays, {.dtype = dtype, .axis = detail::Axis(axis)});
}

Step Batch::Sort(const Operand& a, std::optional<int64_t> axis) {
  return ArrayOp("sort", {a}, {.axis = detail::Axis(axis)});
}

Step Batch::Cumsum(const Operand& a, std::optional<int64_t> axis, std::optional<DType> dtype) {
  return ArrayOp("cumsum", {a}, {.dtype = dtype, .axis = detail::Axis(axis)});
}

Step Batch::Empty(const Shape& shape, DType dtype) {
  v1::CreateRequest request = detail::CreateRequestFor(shape, dtype);
  request.mutable_empty();
  Append(ops_->request, std::move(request));
  return Recorded();
}

Step Batch::Zeros(const Shape& shape, DType dtype) {
  v1::CreateRequest request = detail::CreateRequestFor(shape, dtype);
  request.mutable_zeros();
  Append(ops_->request, std::move(request));
  return Recorded();
}

Step Batch::Ones(const Shape& shape, DType dtype) {
  v1::CreateRequest request = detail::CreateRequestFor(shape, dtype);
  request.mutable_ones();
  Append(ops_->request, std::move(request));
  return Recorded();
}

Step Batch::Full(const Shape& shape, Scalar value, std::optional<DType> dtype) {
  Append(ops_->request, detail::FullRequest(shape, value, dtype));
  return Recorded();
}

Step Batch::Arange(Scalar start, Scalar stop, Scalar step, std::optional<DType> dtype) {
  Append(ops_->request, detail::ArangeRequest(start, stop, step, dtype));
  return Recorded();
}

Step Batch::Linspace(Scalar start, Scalar stop, int64_t num, bool endpoint,
                     std::optional<DType> dtype) {
  Append(ops_->request, detail::LinspaceRequest(start, stop, num, endpoint, dtype));
  return Recorded();
}

Step Batch::Eye(int64_t n, std::optional<int64_t> m, int64_t k, std::optional<DType> dtype) {
  Append(ops_->request, detail::EyeRequest(n, m, k, dtype));
  return Recorded();
}

}  // namespace arrayhub::client
