// Views, indexing and array manipulation: the View, GetItem, SetItem and ArrayOp RPCs.
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"
#include "requests.h"

namespace arrayhub::client {
namespace {

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
            out->set_array(value->handle());
          }
        },
        item.value());
  }
}

std::vector<Operand> Operands(const std::vector<std::reference_wrapper<const Array>>& arrays) {
  return {arrays.begin(), arrays.end()};
}

ArrayInfo CallView(detail::Connection& connection, const v1::ViewRequest& request) {
  return detail::FromProto(detail::Call(connection, &v1::ArrayHub::Stub::View, request));
}

// The single result of an op.
Array Only(std::vector<Array> results) { return std::move(results[0]); }

}  // namespace

Array Client::Reshape(const Array& a, const Shape& shape, Order order) {
  return Adopt(CallView(connection(), detail::ReshapeRequest(a, shape, order)));
}

Array Client::Transpose(const Array& a, const std::vector<int64_t>& axes) {
  return Adopt(CallView(connection(), detail::TransposeRequest(a, axes)));
}

Array Client::SwapAxes(const Array& a, int64_t axis1, int64_t axis2) {
  return Adopt(CallView(connection(), detail::SwapAxesRequest(a, axis1, axis2)));
}

Array Client::Squeeze(const Array& a, std::optional<std::vector<int64_t>> axes) {
  return Adopt(CallView(connection(), detail::SqueezeRequest(a, axes)));
}

Array Client::ExpandDims(const Array& a, const std::vector<int64_t>& axes) {
  return Adopt(CallView(connection(), detail::ExpandDimsRequest(a, axes)));
}

Array Client::BroadcastTo(const Array& a, const Shape& shape) {
  return Adopt(CallView(connection(), detail::BroadcastToRequest(a, shape)));
}

Array Client::Diagonal(const Array& a, int64_t offset, int64_t axis1, int64_t axis2) {
  // The wire reads axis1 = axis2 = 0 as NumPy's defaults (0, 1). The same axis spelled
  // -ndim keeps NumPy's answer, "axis1 and axis2 cannot be the same".
  const bool both_zero = axis1 == 0 && axis2 == 0;
  return Adopt(
      CallView(connection(),
               detail::DiagonalRequest(
                   a, offset, axis1, both_zero ? -static_cast<int64_t>(a.shape().size()) : axis2)));
}

Array Client::Ravel(const Array& a, Order order) {
  return Adopt(CallView(connection(), detail::RavelRequest(a, order)));
}

Array Client::GetItem(const Array& a, const std::vector<IndexItem>& index) {
  v1::GetItemRequest request;
  request.set_handle(a.handle());
  AddIndex(index, request.mutable_index());
  return Adopt(
      detail::FromProto(detail::Call(connection(), &v1::ArrayHub::Stub::GetItem, request)));
}

void Client::SetItem(Array& a, const std::vector<IndexItem>& index, const Operand& value) {
  v1::SetItemRequest request;
  request.set_handle(a.handle());
  AddIndex(index, request.mutable_index());
  detail::ToProto(value, request.mutable_value());
  detail::Call(connection(), &v1::ArrayHub::Stub::SetItem, request);
}

std::vector<Array> Client::ArrayOp(std::string_view op, const std::vector<Operand>& operands,
                                   const ArrayOpOptions& options) {
  const v1::ArrayOpResponse response = detail::Call(connection(), &v1::ArrayHub::Stub::ArrayOp,
                                                    detail::ArrayOpRequest(op, operands, options));
  std::vector<Array> results;
  for (const v1::ArrayInfo& info : response.results()) {
    results.push_back(Adopt(detail::FromProto(info)));
  }
  return results;
}

Array Client::Copy(const Array& a) { return Only(ArrayOp("copy", {a})); }

Array Client::Astype(const Array& a, DType dtype) {
  return Only(ArrayOp("astype", {a}, {.dtype = dtype}));
}

Array Client::Take(const Array& a, const Operand& indices, std::optional<int64_t> axis) {
  return Only(ArrayOp("take", {a, indices}, {.axis = detail::Axis(axis)}));
}

Array Client::Concatenate(const std::vector<std::reference_wrapper<const Array>>& arrays,
                          std::optional<int64_t> axis, std::optional<DType> dtype) {
  return Only(
      ArrayOp("concatenate", Operands(arrays), {.dtype = dtype, .axis = detail::Axis(axis)}));
}

Array Client::Stack(const std::vector<std::reference_wrapper<const Array>>& arrays, int64_t axis,
                    std::optional<DType> dtype) {
  return Only(ArrayOp("stack", Operands(arrays), {.dtype = dtype, .axis = detail::Axis(axis)}));
}

std::vector<Array> Client::Split(const Array& a, int64_t sections, int64_t axis) {
  return ArrayOp("split", {a}, {.axis = detail::Axis(axis), .ints = {sections}});
}

std::vector<Array> Client::SplitAt(const Array& a, const std::vector<int64_t>& indices,
                                   int64_t axis) {
  return ArrayOp("split", {a},
                 {.axis = detail::Axis(axis), .ints = indices, .split_at_indices = true});
}

Array Client::Sort(const Array& a, std::optional<int64_t> axis) {
  return Only(ArrayOp("sort", {a}, {.axis = detail::Axis(axis)}));
}

Array Client::Argsort(const Array& a, std::optional<int64_t> axis) {
  return Only(ArrayOp("argsort", {a}, {.axis = detail::Axis(axis)}));
}

Array Client::Cumsum(const Array& a, std::optional<int64_t> axis, std::optional<DType> dtype) {
  return Only(ArrayOp("cumsum", {a}, {.dtype = dtype, .axis = detail::Axis(axis)}));
}

Array Client::Unique(const Array& a) { return Only(ArrayOp("unique", {a})); }

std::vector<Array> Client::Nonzero(const Array& a) { return ArrayOp("nonzero", {a}); }

Array Client::SearchSorted(const Array& a, const Operand& v, std::string_view side) {
  return Only(ArrayOp("searchsorted", {a, v}, {.side = std::string(side)}));
}

}  // namespace arrayhub::client
