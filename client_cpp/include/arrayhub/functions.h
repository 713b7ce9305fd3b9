// NumPy's functions of arrays under NumPy's names, as free functions: sum(a), matmul(a, b),
// reshape(a, {2, 3}), where(c, a, b), ... Each calls the Client method of the same job on the
// client of its (first) array, so it is pipelined as that method is (client.h): those a Batch
// can hold return their Array at once. The ufuncs are in ufuncs.h, the operators in operators.h;
// arrayhub/arrayhub.h includes them all.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "arrayhub/client.h"

namespace arrayhub::client {

// Reductions (Client::Reduce): axis, keepdims, dtype (sum, prod, mean, var) and ddof (var) as
// NumPy takes them, e.g. sum(a, {.axis = std::vector<int64_t>{0}, .keepdims = true}).
Array sum(const Array& a, const ReduceOptions& options = {});
Array prod(const Array& a, const ReduceOptions& options = {});
Array mean(const Array& a, const ReduceOptions& options = {});
Array var(const Array& a, const ReduceOptions& options = {});
Array max(const Array& a, const ReduceOptions& options = {});
Array min(const Array& a, const ReduceOptions& options = {});
Array argmax(const Array& a, const ReduceOptions& options = {});
Array argmin(const Array& a, const ReduceOptions& options = {});
Array any(const Array& a, const ReduceOptions& options = {});
Array all(const Array& a, const ReduceOptions& options = {});

// Matrix products (Client::Matmul, Dot, ...). b may be a scalar where NumPy takes one.
Array matmul(const Array& a, const Operand& b, const MatmulOptions& options = {});
Array dot(const Array& a, const Operand& b, Precision precision = Precision::kDefault);
Array vdot(const Array& a, const Operand& b, Precision precision = Precision::kDefault);
Array inner(const Array& a, const Operand& b, Precision precision = Precision::kDefault);
Array outer(const Array& a, const Operand& b, Precision precision = Precision::kDefault);
Array tensordot(const Array& a, const Operand& b, int64_t axes = 2,
                Precision precision = Precision::kDefault);
// numpy.tensordot(a, b, axes=(axes_a, axes_b)): the sum over the paired axes, by one matmul of
// the operands' transposed and reshaped forms (src/linalg_extras.cc).
Array tensordot(const Array& a, const Array& b, const std::vector<int64_t>& axes_a,
                const std::vector<int64_t>& axes_b, Precision precision = Precision::kDefault);
// numpy.einsum(subscripts, *operands): implicit and explicit output, ellipses, repeated letters
// (diagonals), size-1 broadcasting; contracted in NumPy's greedy einsum_path order, each pair by
// one batched matmul on the server (src/einsum.cc), in the operands' result dtype. Argument
// errors are einsum_path's messages.
Array einsum(std::string_view subscripts,
             const std::vector<std::reference_wrapper<const Array>>& operands);

// Views (Client::Reshape, Transpose, ...): they share a's memory.
Array reshape(const Array& a, const Shape& shape, Order order = Order::kC);
Array transpose(const Array& a, const std::vector<int64_t>& axes = {});
Array swapaxes(const Array& a, int64_t axis1, int64_t axis2);
Array squeeze(const Array& a, std::optional<std::vector<int64_t>> axes = std::nullopt);
Array expand_dims(const Array& a, const std::vector<int64_t>& axes);
Array broadcast_to(const Array& a, const Shape& shape);
Array diagonal(const Array& a, int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1);
Array ravel(const Array& a, Order order = Order::kC);

// numpy.where(condition, x, y): x where condition is true, else y (the "where" ufunc).
Array where(const Array& condition, const Operand& x, const Operand& y);

// Array manipulation (Client::Copy, Astype, ...). concatenate and stack of no arrays throw
// kInvalidArgument as NumPy does; split gives views.
Array copy(const Array& a);
Array astype(const Array& a, DType dtype);
Array take(const Array& a, const Operand& indices, std::optional<int64_t> axis = std::nullopt);
Array concatenate(const std::vector<std::reference_wrapper<const Array>>& arrays,
                  std::optional<int64_t> axis = 0, std::optional<DType> dtype = std::nullopt);
Array stack(const std::vector<std::reference_wrapper<const Array>>& arrays, int64_t axis = 0,
            std::optional<DType> dtype = std::nullopt);
std::vector<Array> split(const Array& a, int64_t sections, int64_t axis = 0);
std::vector<Array> split(const Array& a, const std::vector<int64_t>& indices, int64_t axis = 0);
Array sort(const Array& a, std::optional<int64_t> axis = -1);
Array argsort(const Array& a, std::optional<int64_t> axis = -1);
Array cumsum(const Array& a, std::optional<int64_t> axis = std::nullopt,
             std::optional<DType> dtype = std::nullopt);
Array unique(const Array& a);
std::vector<Array> nonzero(const Array& a);
Array searchsorted(const Array& a, const Operand& v, std::string_view side = "left");

}  // namespace arrayhub::client
