// The free functions and operators (functions.h, ufuncs.h, operators.h): each the Client method
// of the same job, called on a Client that shares its array's connection.
#include "arrayhub/functions.h"

#include <string>
#include <utility>

#include "arrayhub/operators.h"
#include "arrayhub/ufuncs.h"
#include "connection.h"
#include "pipeline.h"

namespace arrayhub::client {
namespace detail {

Client ClientOf(const Array& array) {
  const std::shared_ptr<Connection>& connection = ArrayAccess::SharedConnectionOf(array);
  if (connection == nullptr) {
    throw Error(StatusCode::kFailedPrecondition,
                "the Array is empty (default-constructed, moved from or released)");
  }
  return Client(connection, /*owns_session=*/false);
}

Array CallUfunc(std::string_view name, const std::vector<Operand>& operands,
                std::optional<DType> dtype) {
  // The overloads of ufuncs.h let no call without an array through.
  for (const Operand& operand : operands) {
    if (const auto* array = std::get_if<const Array*>(&operand.value())) {
      return ClientOf(**array).Ufunc(name, operands, dtype);
    }
  }
  throw Error(StatusCode::kInvalidArgument, "a ufunc's operands must include an array");
}

void CallUfuncOut(Array& out, std::string_view name, const std::vector<Operand>& operands) {
  ClientOf(out).UfuncOut(out, name, operands);
}

}  // namespace detail

namespace {

// The client of the first of `arrays`; NumPy's message when there is none.
Client ClientOfFirst(const std::vector<std::reference_wrapper<const Array>>& arrays,
                     std::string_view verb) {
  if (arrays.empty()) {
    throw Error(StatusCode::kInvalidArgument, "need at least one array to " + std::string(verb));
  }
  return detail::ClientOf(arrays.front().get());
}

}  // namespace

Array sum(const Array& a, const ReduceOptions& options) {
  return detail::ClientOf(a).Reduce("sum", a, options);
}
Array prod(const Array& a, const ReduceOptions& options) {
  return detail::ClientOf(a).Reduce("prod", a, options);
}
Array mean(const Array& a, const ReduceOptions& options) {
  return detail::ClientOf(a).Reduce("mean", a, options);
}
Array var(const Array& a, const ReduceOptions& options) {
  return detail::ClientOf(a).Reduce("var", a, options);
}
Array max(const Array& a, const ReduceOptions& options) {
  return detail::ClientOf(a).Reduce("max", a, options);
}
Array min(const Array& a, const ReduceOptions& options) {
  return detail::ClientOf(a).Reduce("min", a, options);
}
Array argmax(const Array& a, const ReduceOptions& options) {
  return detail::ClientOf(a).Reduce("argmax", a, options);
}
Array argmin(const Array& a, const ReduceOptions& options) {
  return detail::ClientOf(a).Reduce("argmin", a, options);
}
Array any(const Array& a, const ReduceOptions& options) {
  return detail::ClientOf(a).Reduce("any", a, options);
}
Array all(const Array& a, const ReduceOptions& options) {
  return detail::ClientOf(a).Reduce("all", a, options);
}

Array matmul(const Array& a, const Operand& b, const MatmulOptions& options) {
  return detail::ClientOf(a).Matmul(a, b, options);
}
Array dot(const Array& a, const Operand& b, Precision precision) {
  return detail::ClientOf(a).Dot(a, b, precision);
}
Array vdot(const Array& a, const Operand& b, Precision precision) {
  return detail::ClientOf(a).Vdot(a, b, precision);
}
Array inner(const Array& a, const Operand& b, Precision precision) {
  return detail::ClientOf(a).Inner(a, b, precision);
}
Array outer(const Array& a, const Operand& b, Precision precision) {
  return detail::ClientOf(a).Outer(a, b, precision);
}
Array tensordot(const Array& a, const Operand& b, int64_t axes, Precision precision) {
  return detail::ClientOf(a).Tensordot(a, b, axes, precision);
}

Array reshape(const Array& a, const Shape& shape, Order order) {
  return detail::ClientOf(a).Reshape(a, shape, order);
}
Array transpose(const Array& a, const std::vector<int64_t>& axes) {
  return detail::ClientOf(a).Transpose(a, axes);
}
Array swapaxes(const Array& a, int64_t axis1, int64_t axis2) {
  return detail::ClientOf(a).SwapAxes(a, axis1, axis2);
}
Array squeeze(const Array& a, std::optional<std::vector<int64_t>> axes) {
  return detail::ClientOf(a).Squeeze(a, std::move(axes));
}
Array expand_dims(const Array& a, const std::vector<int64_t>& axes) {
  return detail::ClientOf(a).ExpandDims(a, axes);
}
Array broadcast_to(const Array& a, const Shape& shape) {
  return detail::ClientOf(a).BroadcastTo(a, shape);
}
Array diagonal(const Array& a, int64_t offset, int64_t axis1, int64_t axis2) {
  return detail::ClientOf(a).Diagonal(a, offset, axis1, axis2);
}
Array ravel(const Array& a, Order order) { return detail::ClientOf(a).Ravel(a, order); }

Array where(const Array& condition, const Operand& x, const Operand& y) {
  return detail::ClientOf(condition).Ufunc("where", {condition, x, y});
}

Array copy(const Array& a) { return detail::ClientOf(a).Copy(a); }
Array astype(const Array& a, DType dtype) { return detail::ClientOf(a).Astype(a, dtype); }
Array take(const Array& a, const Operand& indices, std::optional<int64_t> axis) {
  return detail::ClientOf(a).Take(a, indices, axis);
}
Array concatenate(const std::vector<std::reference_wrapper<const Array>>& arrays,
                  std::optional<int64_t> axis, std::optional<DType> dtype) {
  return ClientOfFirst(arrays, "concatenate").Concatenate(arrays, axis, dtype);
}
Array stack(const std::vector<std::reference_wrapper<const Array>>& arrays, int64_t axis,
            std::optional<DType> dtype) {
  return ClientOfFirst(arrays, "stack").Stack(arrays, axis, dtype);
}
std::vector<Array> split(const Array& a, int64_t sections, int64_t axis) {
  return detail::ClientOf(a).Split(a, sections, axis);
}
std::vector<Array> split(const Array& a, const std::vector<int64_t>& indices, int64_t axis) {
  return detail::ClientOf(a).SplitAt(a, indices, axis);
}
Array sort(const Array& a, std::optional<int64_t> axis) {
  return detail::ClientOf(a).Sort(a, axis);
}
Array argsort(const Array& a, std::optional<int64_t> axis) {
  return detail::ClientOf(a).Argsort(a, axis);
}
Array cumsum(const Array& a, std::optional<int64_t> axis, std::optional<DType> dtype) {
  return detail::ClientOf(a).Cumsum(a, axis, dtype);
}
Array unique(const Array& a) { return detail::ClientOf(a).Unique(a); }
std::vector<Array> nonzero(const Array& a) { return detail::ClientOf(a).Nonzero(a); }
Array searchsorted(const Array& a, const Operand& v, std::string_view side) {
  return detail::ClientOf(a).SearchSorted(a, v, side);
}

}  // namespace arrayhub::client
