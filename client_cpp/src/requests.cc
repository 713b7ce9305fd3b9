#include "requests.h"

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "convert.h"
#include "pipeline.h"

namespace arrayhub::client::detail {
namespace {

std::string OrderName(Order order) { return order == Order::kF ? "F" : "C"; }

// Calls `by_handle` or `by_index` with how `array` is named on the wire (WireName).
template <typename ByHandle, typename ByIndex>
void Name(const Array& array, ByHandle&& by_handle, ByIndex&& by_index) {
  std::variant<std::string, int32_t> name = WireName(array);
  if (auto* handle = std::get_if<std::string>(&name)) {
    by_handle(std::move(*handle));
  } else {
    by_index(std::get<int32_t>(name));
  }
}

}  // namespace

v1::CreateRequest CreateRequestFor(const Shape& shape, std::optional<DType> dtype) {
  v1::CreateRequest request;
  request.set_dtype(ToProto(dtype));
  request.mutable_shape()->Add(shape.begin(), shape.end());
  return request;
}

v1::CreateRequest FullRequest(const Shape& shape, const Scalar& value, std::optional<DType> dtype) {
  v1::CreateRequest request = CreateRequestFor(shape, dtype);
  ToProto(value, request.mutable_full()->mutable_value());
  return request;
}

v1::CreateRequest ArangeRequest(const Scalar& start, const Scalar& stop, const Scalar& step,
                                std::optional<DType> dtype) {
  v1::CreateRequest request = CreateRequestFor({}, dtype);
  v1::ArangeSpec* spec = request.mutable_arange();
  ToProto(start, spec->mutable_start());
  ToProto(stop, spec->mutable_stop());
  ToProto(step, spec->mutable_step());
  return request;
}

v1::CreateRequest LinspaceRequest(const Scalar& start, const Scalar& stop, int64_t num,
                                  bool endpoint, std::optional<DType> dtype) {
  v1::CreateRequest request = CreateRequestFor({}, dtype);
  v1::LinspaceSpec* spec = request.mutable_linspace();
  ToProto(start, spec->mutable_start());
  ToProto(stop, spec->mutable_stop());
  spec->set_num(num);
  spec->set_endpoint(endpoint);
  return request;
}

v1::CreateRequest EyeRequest(int64_t n, std::optional<int64_t> m, int64_t k,
                             std::optional<DType> dtype) {
  v1::CreateRequest request = CreateRequestFor({}, dtype);
  v1::EyeSpec* spec = request.mutable_eye();
  spec->set_n(n);
  spec->set_has_m(m.has_value());
  spec->set_m(m.value_or(0));
  spec->set_k(k);
  return request;
}

v1::ElementwiseRequest UfuncRequest(std::string_view name, const std::vector<Operand>& operands,
                                    std::optional<DType> dtype) {
  v1::ElementwiseRequest request;
  request.set_op(std::string(name));
  request.set_dtype(ToProto(dtype));
  for (const Operand& operand : operands) ToProto(operand, request.add_operands());
  return request;
}

v1::ReduceRequest ReduceRequest(std::string_view name, const Operand& input,
                                const ReduceOptions& options) {
  v1::ReduceRequest request;
  request.set_op(std::string(name));
  ToProto(input, request.mutable_input());
  if (options.axis) {
    request.mutable_axis()->mutable_axes()->Add(options.axis->begin(), options.axis->end());
  }
  request.set_keepdims(options.keepdims);
  request.set_dtype(ToProto(options.dtype));
  request.set_ddof(options.ddof);
  return request;
}

v1::MatmulRequest MatmulRequest(const Operand& a, const Operand& b, const MatmulOptions& options) {
  v1::MatmulRequest request;
  ToProto(a, request.mutable_a());
  ToProto(b, request.mutable_b());
  request.set_transpose_a(options.transpose_a);
  request.set_transpose_b(options.transpose_b);
  request.set_conjugate_a(options.conjugate_a);
  request.set_conjugate_b(options.conjugate_b);
  request.set_precision(ToProto(options.precision));
  return request;
}

v1::ArrayOpRequest ArrayOpRequest(std::string_view op, const std::vector<Operand>& operands,
                                  const ArrayOpOptions& options) {
  v1::ArrayOpRequest request;
  request.set_op(std::string(op));
  for (const Operand& operand : operands) ToProto(operand, request.add_operands());
  request.set_dtype(ToProto(options.dtype));
  if (options.axis) {
    request.mutable_axis()->mutable_axes()->Add(options.axis->begin(), options.axis->end());
  }
  request.mutable_ints()->Add(options.ints.begin(), options.ints.end());
  request.set_side(options.side);
  request.set_stable(true);  // The server's sorts are always stable; say so.
  request.set_split_at_indices(options.split_at_indices);
  return request;
}

v1::ViewRequest ViewRequestOf(const Operand& a) {
  v1::ViewRequest request;
  if (const auto* array = std::get_if<const Array*>(&a.value())) {
    Name(
        **array, [&](std::string handle) { request.set_handle(std::move(handle)); },
        [&](int32_t index) { request.set_batch_handle(index); });
  } else if (const auto* step = std::get_if<Step>(&a.value())) {
    request.set_batch_handle(step->index());
  } else {
    throw Error(StatusCode::kInvalidArgument,
                "a view needs an array or a batch step, not a scalar");
  }
  return request;
}

v1::ViewRequest ReshapeRequest(const Operand& a, const Shape& shape, Order order) {
  v1::ViewRequest request = ViewRequestOf(a);
  request.mutable_reshape()->mutable_shape()->Add(shape.begin(), shape.end());
  request.mutable_reshape()->set_order(OrderName(order));
  return request;
}

v1::ViewRequest TransposeRequest(const Operand& a, const std::vector<int64_t>& axes) {
  v1::ViewRequest request = ViewRequestOf(a);
  request.mutable_transpose()->mutable_axes()->Add(axes.begin(), axes.end());
  return request;
}

v1::ViewRequest SwapAxesRequest(const Operand& a, int64_t axis1, int64_t axis2) {
  v1::ViewRequest request = ViewRequestOf(a);
  request.mutable_swapaxes()->set_axis1(axis1);
  request.mutable_swapaxes()->set_axis2(axis2);
  return request;
}

v1::ViewRequest SqueezeRequest(const Operand& a, const std::optional<std::vector<int64_t>>& axes) {
  v1::ViewRequest request = ViewRequestOf(a);
  v1::ViewRequest::Squeeze* squeeze = request.mutable_squeeze();
  if (axes) squeeze->mutable_axis()->mutable_axes()->Add(axes->begin(), axes->end());
  return request;
}

v1::ViewRequest ExpandDimsRequest(const Operand& a, const std::vector<int64_t>& axes) {
  v1::ViewRequest request = ViewRequestOf(a);
  request.mutable_expand_dims()->mutable_axes()->Add(axes.begin(), axes.end());
  return request;
}

v1::ViewRequest BroadcastToRequest(const Operand& a, const Shape& shape) {
  v1::ViewRequest request = ViewRequestOf(a);
  request.mutable_broadcast_to()->mutable_shape()->Add(shape.begin(), shape.end());
  return request;
}

v1::ViewRequest DiagonalRequest(const Operand& a, int64_t offset, int64_t axis1, int64_t axis2) {
  v1::ViewRequest request = ViewRequestOf(a);
  request.mutable_diagonal()->set_offset(offset);
  request.mutable_diagonal()->set_axis1(axis1);
  request.mutable_diagonal()->set_axis2(axis2);
  return request;
}

v1::ViewRequest RavelRequest(const Operand& a, Order order) {
  v1::ViewRequest request = ViewRequestOf(a);
  request.mutable_ravel()->set_order(OrderName(order));
  return request;
}

v1::GetItemRequest GetItemRequest(const Array& a, const std::vector<IndexItem>& index) {
  v1::GetItemRequest request;
  Name(
      a, [&](std::string handle) { request.set_handle(std::move(handle)); },
      [&](int32_t op) { request.set_batch_handle(op); });
  AddIndex(index, request.mutable_index());
  return request;
}

void AddIndex(const std::vector<IndexItem>& index,
              google::protobuf::RepeatedPtrField<v1::IndexItem>* wire) {
  for (const IndexItem& item : index) {
    v1::IndexItem* out = wire->Add();
    std::visit(
        [out](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, int64_t>) {
            out->set_index(value);
          } else if constexpr (std::is_same_v<T, Slice>) {
            // The wire reads step 0 as 1, so NumPy's error has to be raised here.
            if (value.step == 0) {
              throw Error(StatusCode::kInvalidArgument, "slice step cannot be zero");
            }
            v1::Slice* slice = out->mutable_slice();
            slice->set_has_start(value.start.has_value());
            slice->set_start(value.start.value_or(0));
            slice->set_has_stop(value.stop.has_value());
            slice->set_stop(value.stop.value_or(0));
            slice->set_step(value.step);
          } else if constexpr (std::is_same_v<T, EllipsisIndex>) {
            out->set_ellipsis(true);
          } else if constexpr (std::is_same_v<T, NewAxisIndex>) {
            out->set_new_axis(true);
          } else {
            Name(
                *value, [out](std::string handle) { out->set_array(std::move(handle)); },
                [out](int32_t op) { out->set_batch_array(op); });
          }
        },
        item.value());
  }
}

void SetOut(const Array& out, v1::ElementwiseRequest& request) {
  Name(
      out, [&](std::string handle) { request.set_out(std::move(handle)); },
      [&](int32_t op) { request.set_out_batch_result(op); });
}

void SetOut(const Array& out, v1::MatmulRequest& request) {
  Name(
      out, [&](std::string handle) { request.set_out(std::move(handle)); },
      [&](int32_t op) { request.set_out_batch_result(op); });
}

namespace {

// The Batch op carrying `request` in the oneof member that `member` gives access to.
template <typename Request>
v1::BatchRequest::Op Carrying(Request request, Request* (v1::BatchRequest::Op::*member)()) {
  v1::BatchRequest::Op op;
  *(op.*member)() = std::move(request);
  return op;
}

}  // namespace

v1::BatchRequest::Op AsOp(v1::ElementwiseRequest request) {
  return Carrying(std::move(request), &v1::BatchRequest::Op::mutable_elementwise);
}
v1::BatchRequest::Op AsOp(v1::MatmulRequest request) {
  return Carrying(std::move(request), &v1::BatchRequest::Op::mutable_matmul);
}
v1::BatchRequest::Op AsOp(v1::ReduceRequest request) {
  return Carrying(std::move(request), &v1::BatchRequest::Op::mutable_reduce);
}
v1::BatchRequest::Op AsOp(v1::ViewRequest request) {
  return Carrying(std::move(request), &v1::BatchRequest::Op::mutable_view);
}
v1::BatchRequest::Op AsOp(v1::ArrayOpRequest request) {
  return Carrying(std::move(request), &v1::BatchRequest::Op::mutable_array_op);
}
v1::BatchRequest::Op AsOp(v1::CreateRequest request) {
  return Carrying(std::move(request), &v1::BatchRequest::Op::mutable_create);
}
v1::BatchRequest::Op AsOp(v1::GetItemRequest request) {
  return Carrying(std::move(request), &v1::BatchRequest::Op::mutable_get_item);
}
v1::BatchRequest::Op AsOp(v1::TensorProductRequest request) {
  return Carrying(std::move(request), &v1::BatchRequest::Op::mutable_tensor_product);
}
v1::BatchRequest::Op AsOp(v1::LinalgRequest request) {
  return Carrying(std::move(request), &v1::BatchRequest::Op::mutable_linalg);
}

std::vector<const Array*> ArraysOf(const std::vector<Operand>& operands) {
  std::vector<const Array*> arrays;
  for (size_t k = 0; k < operands.size(); ++k) {
    if (const auto* array = std::get_if<const Array*>(&operands[k].value())) {
      arrays.push_back(*array);
    } else if (std::holds_alternative<Step>(operands[k].value())) {
      throw Error(StatusCode::kInvalidArgument, "operands[" + std::to_string(k) +
                                                    "] refers to a batch result outside a "
                                                    "Batch request");
    }
  }
  return arrays;
}

std::vector<const Array*> ArraysOf(const std::vector<IndexItem>& index) {
  std::vector<const Array*> arrays;
  for (const IndexItem& item : index) {
    if (const auto* array = std::get_if<const Array*>(&item.value())) arrays.push_back(*array);
  }
  return arrays;
}

std::optional<std::vector<int64_t>> Axis(std::optional<int64_t> axis) {
  if (!axis) return std::nullopt;
  return std::vector<int64_t>{*axis};
}

}  // namespace arrayhub::client::detail
