// The wire request of each operation, built in one place for the Client's calls, the
// pipeline's queue and the Batch's ops. Operands may be arrays (named as WireName says),
// scalars or batch steps; the view requests take the array they view as an operand too (an
// array or a step).
#pragma once

#include <string_view>
#include <vector>

#include "arrayhub/client.h"
#include "arrayhub/v1/arrays.pb.h"
#include "arrayhub/v1/compute.pb.h"

namespace arrayhub::client::detail {

// Creation: shape and dtype set, the kind left for the caller.
v1::CreateRequest CreateRequestFor(const Shape& shape, std::optional<DType> dtype);
v1::CreateRequest FullRequest(const Shape& shape, const Scalar& value, std::optional<DType> dtype);
v1::CreateRequest ArangeRequest(const Scalar& start, const Scalar& stop, const Scalar& step,
                                std::optional<DType> dtype);
v1::CreateRequest LinspaceRequest(const Scalar& start, const Scalar& stop, int64_t num,
                                  bool endpoint, std::optional<DType> dtype);
v1::CreateRequest EyeRequest(int64_t n, std::optional<int64_t> m, int64_t k,
                             std::optional<DType> dtype);

v1::ElementwiseRequest UfuncRequest(std::string_view name, const std::vector<Operand>& operands,
                                    std::optional<DType> dtype);
v1::ReduceRequest ReduceRequest(std::string_view name, const Operand& input,
                                const ReduceOptions& options);
v1::MatmulRequest MatmulRequest(const Operand& a, const Operand& b, const MatmulOptions& options);
v1::ArrayOpRequest ArrayOpRequest(std::string_view op, const std::vector<Operand>& operands,
                                  const ArrayOpOptions& options);

// A view of `a` (an array or a batch step; a scalar throws kInvalidArgument), op unset.
v1::ViewRequest ViewRequestOf(const Operand& a);
v1::ViewRequest ReshapeRequest(const Operand& a, const Shape& shape, Order order);
v1::ViewRequest TransposeRequest(const Operand& a, const std::vector<int64_t>& axes);
v1::ViewRequest SwapAxesRequest(const Operand& a, int64_t axis1, int64_t axis2);
v1::ViewRequest SqueezeRequest(const Operand& a, const std::optional<std::vector<int64_t>>& axes);
v1::ViewRequest ExpandDimsRequest(const Operand& a, const std::vector<int64_t>& axes);
v1::ViewRequest BroadcastToRequest(const Operand& a, const Shape& shape);
// The axes as sent: the wire reads axis1 = axis2 = 0 as NumPy's defaults (0, 1).
v1::ViewRequest DiagonalRequest(const Operand& a, int64_t offset, int64_t axis1, int64_t axis2);
v1::ViewRequest RavelRequest(const Operand& a, Order order);

// a[index].
v1::GetItemRequest GetItemRequest(const Array& a, const std::vector<IndexItem>& index);
// The index items as sent (throws kInvalidArgument for a zero slice step).
void AddIndex(const std::vector<IndexItem>& index,
              google::protobuf::RepeatedPtrField<v1::IndexItem>* wire);
// Sets NumPy's out= to `out` (its handle, or its op in the queue being built).
void SetOut(const Array& out, v1::ElementwiseRequest& request);
void SetOut(const Array& out, v1::MatmulRequest& request);

// An op of a BatchRequest.
v1::BatchRequest::Op AsOp(v1::ElementwiseRequest request);
v1::BatchRequest::Op AsOp(v1::MatmulRequest request);
v1::BatchRequest::Op AsOp(v1::ReduceRequest request);
v1::BatchRequest::Op AsOp(v1::ViewRequest request);
v1::BatchRequest::Op AsOp(v1::ArrayOpRequest request);
v1::BatchRequest::Op AsOp(v1::CreateRequest request);
v1::BatchRequest::Op AsOp(v1::GetItemRequest request);
v1::BatchRequest::Op AsOp(v1::TensorProductRequest request);
v1::BatchRequest::Op AsOp(v1::LinalgRequest request);

// The arrays among `operands` of a Client call (its inputs, which the pipeline waits for).
// Throws the server's kInvalidArgument for a Batch's Step: outside its Batch it names nothing
// (and in the client's queue it would name another op).
std::vector<const Array*> ArraysOf(const std::vector<Operand>& operands);
// The arrays an index reads.
std::vector<const Array*> ArraysOf(const std::vector<IndexItem>& index);

// numpy's axis argument of one axis, or None.
std::optional<std::vector<int64_t>> Axis(std::optional<int64_t> axis);

}  // namespace arrayhub::client::detail
