// Views, indexing and array manipulation: the View, GetItem, SetItem and ArrayOp RPCs.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"
#include "pipeline.h"
#include "requests.h"

namespace arrayhub::client {
namespace {

std::vector<Operand> Operands(const std::vector<std::reference_wrapper<const Array>>& arrays) {
  return {arrays.begin(), arrays.end()};
}

// Ops giving several arrays, which a Batch cannot keep: they are not pipelined.
bool GivesSeveral(std::string_view op) { return op == "split" || op == "nonzero"; }

// The single result of an op.
Array Only(std::vector<Array> results) { return std::move(results[0]); }

}  // namespace

Array Client::Reshape(const Array& a, const Shape& shape, Order order) {
  return Issue({&a}, {[&] { return detail::AsOp(detail::ReshapeRequest(a, shape, order)); }});
}

Array Client::Transpose(const Array& a, const std::vector<int64_t>& axes) {
  return Issue({&a}, {[&] { return detail::AsOp(detail::TransposeRequest(a, axes)); }});
}

Array Client::SwapAxes(const Array& a, int64_t axis1, int64_t axis2) {
  return Issue({&a}, {[&] { return detail::AsOp(detail::SwapAxesRequest(a, axis1, axis2)); }});
}

Array Client::Squeeze(const Array& a, std::optional<std::vector<int64_t>> axes) {
  return Issue({&a}, {[&] { return detail::AsOp(detail::SqueezeRequest(a, axes)); }});
}

Array Client::ExpandDims(const Array& a, const std::vector<int64_t>& axes) {
  return Issue({&a}, {[&] { return detail::AsOp(detail::ExpandDimsRequest(a, axes)); }});
}

Array Client::BroadcastTo(const Array& a, const Shape& shape) {
  return Issue({&a}, {[&] { return detail::AsOp(detail::BroadcastToRequest(a, shape)); }});
}

Array Client::Diagonal(const Array& a, int64_t offset, int64_t axis1, int64_t axis2) {
  // The wire reads axis1 = axis2 = 0 as NumPy's defaults (0, 1). The same axis spelled
  // -ndim keeps NumPy's answer, "axis1 and axis2 cannot be the same" (a's rank: a wait).
  const bool both_zero = axis1 == 0 && axis2 == 0;
  const int64_t second = both_zero ? -static_cast<int64_t>(a.shape().size()) : axis2;
  return Issue({&a},
               {[&] { return detail::AsOp(detail::DiagonalRequest(a, offset, axis1, second)); }});
}

Array Client::Ravel(const Array& a, Order order) {
  return Issue({&a}, {[&] { return detail::AsOp(detail::RavelRequest(a, order)); }});
}

Array Client::GetItem(const Array& a, const std::vector<IndexItem>& index) {
  std::vector<const Array*> inputs = detail::ArraysOf(index);
  inputs.push_back(&a);
  return Issue(inputs, {[&] { return detail::AsOp(detail::GetItemRequest(a, index)); }});
}

namespace {

v1::SetItemRequest SetItemRequest(const Array& a, const std::vector<IndexItem>& index,
                                  const Operand& value) {
  v1::SetItemRequest request;
  request.set_handle(a.handle());
  detail::AddIndex(index, request.mutable_index());
  detail::ToProto(value, request.mutable_value());
  return request;
}

}  // namespace

void Client::SetItem(Array& a, const std::vector<IndexItem>& index, const Operand& value) {
  detail::Connection& conn = Synced();
  detail::Call(conn, &v1::ArrayHub::Stub::SetItem, SetItemRequest(a, index, value));
}

void Client::At(std::string_view ufunc, Array& a, const std::vector<IndexItem>& index,
                const Operand& value) {
  detail::Connection& conn = Synced();
  v1::SetItemRequest request = SetItemRequest(a, index, value);
  request.set_combine(std::string(ufunc));
  detail::Call(conn, &v1::ArrayHub::Stub::SetItem, request);
}

std::vector<Array> Client::ArrayOp(std::string_view op, const std::vector<Operand>& operands,
                                   const ArrayOpOptions& options) {
  if (!GivesSeveral(op)) {
    std::vector<Array> result;
    result.push_back(Issue(detail::ArraysOf(operands), {[&] {
                             return detail::AsOp(detail::ArrayOpRequest(op, operands, options));
                           }}));
    return result;
  }
  detail::Connection& conn = Synced();  // Before the request names the operands.
  const v1::ArrayOpResponse response = detail::Call(conn, &v1::ArrayHub::Stub::ArrayOp,
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

Array Client::Partition(const Array& a, const std::vector<int64_t>& kth,
                        std::optional<int64_t> axis) {
  return Only(ArrayOp("partition", {a}, {.axis = detail::Axis(axis), .ints = kth}));
}

Array Client::Argpartition(const Array& a, const std::vector<int64_t>& kth,
                           std::optional<int64_t> axis) {
  return Only(ArrayOp("argpartition", {a}, {.axis = detail::Axis(axis), .ints = kth}));
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
