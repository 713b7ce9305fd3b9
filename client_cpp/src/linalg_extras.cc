// numpy.linalg's routines composed from the server's (Linalg::Pinv, MatrixPower, MatrixRank,
// Cond, MultiDot) and tensordot over axis pairs, as the Python client composes them
// (client_python/arrayhub/linalg.py, _einsum.py's multi_dot, _products.py's tensordot).
#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "composed.h"

namespace arrayhub::client {
namespace {

using detail::ThrowInvalid;

// NumPy's finfo(dtype).eps of the real dtype of a linalg result.
double Epsilon(DType dtype) {
  return detail::RealOf(dtype) == DType::kFloat32 ? std::numeric_limits<float>::epsilon()
                                                  : std::numeric_limits<double>::epsilon();
}

// The last two axes swapped (NumPy's .mT).
Array MatrixTranspose(const Array& a) { return swapaxes(a, -1, -2); }

void RequireSquare(const Array& a) {
  const Shape& shape = a.shape();
  if (shape.size() < 2 || shape.back() != shape[shape.size() - 2]) {
    ThrowInvalid("Last 2 dimensions of the array must be square");
  }
}

// NumPy's _multi_dot_matrix_chain_order: split[i][j] is where the cheapest product of matrices
// i..j splits (the first of equal costs).
std::vector<std::vector<size_t>> ChainOrder(const std::vector<int64_t>& dims) {
  const size_t n = dims.size() - 1;
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t length = 1; length < n; ++length) {
    for (size_t i = 0; i + length < n; ++i) {
      const size_t j = i + length;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (size_t k = i; k < j; ++k) {
        const double c = cost[i][k] + cost[k + 1][j] +
                         static_cast<double>(dims[i]) * static_cast<double>(dims[k + 1]) *
                             static_cast<double>(dims[j + 1]);
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = k;
        }
      }
    }
  }
  return split;
}

}  // namespace

Array Linalg::Pinv(const Array& a, double rcond) {
  const Array conjugated = detail::IsComplex(a.dtype()) ? conjugate(a) : Array();
  const SvdResult svd = Svd(detail::IsComplex(a.dtype()) ? conjugated : a, false);
  const Array large =
      svd.s > max(svd.s, {.axis = std::vector<int64_t>{-1}, .keepdims = true}) * rcond;
  // 1 / s where s counts, 0 where it counts as zero.
  const Array inverse = where(large, 1 / where(large, svd.s, 1), 0);
  return matmul(MatrixTranspose(svd.vh), expand_dims(inverse, {-1}) * MatrixTranspose(svd.u));
}

Array Linalg::MatrixPower(const Array& a, int64_t n) {
  RequireSquare(a);
  const Shape& shape = a.shape();
  if (n == 0) {
    const Array identity = client_->Eye(shape.back(), std::nullopt, 0, a.dtype());
    return shape.size() == 2 ? copy(identity) : copy(broadcast_to(identity, shape));
  }
  const Array inverse = n < 0 ? Inv(a) : Array();
  const Array* square = n < 0 ? &inverse : &a;
  Array squared;  // The latest square, once one is made.
  uint64_t remaining = n < 0 ? -static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  Array result;
  while (true) {
    if (remaining & 1) result = result ? matmul(result, *square) : copy(*square);
    remaining >>= 1;
    if (remaining == 0) return result;
    squared = matmul(*square, *square);
    square = &squared;
  }
}

Array Linalg::MatrixRank(const Array& a, std::optional<double> tol) {
  if (a.shape().size() < 2) return astype(any(a != 0), DType::kInt64);
  const Array s = Svd(a, false, false).s;
  const Shape& shape = a.shape();
  const Array tolerance =
      tol ? client_->Full({}, *tol)
          : max(s, {.axis = std::vector<int64_t>{-1}, .keepdims = true}) *
                (static_cast<double>(std::max(shape.back(), shape[shape.size() - 2])) *
                 Epsilon(s.dtype()));
  return sum(s > tolerance, {.axis = std::vector<int64_t>{-1}});
}

Array Linalg::Cond(const Array& x, const std::string& p) {
  const Shape& shape = x.shape();
  if (shape.size() < 2) {
    ThrowInvalid(std::to_string(shape.size()) +
                 "-dimensional array given. Array must be at least two-dimensional");
  }
  if (p.empty() || p == "2" || p == "-2") {
    const Array s = Svd(x, false, false).s;
    const Array largest = client_->GetItem(s, {kEllipsis, 0});
    const Array smallest = client_->GetItem(s, {kEllipsis, -1});
    return p == "-2" ? smallest / largest : largest / smallest;
  }
  RequireSquare(x);
  const NormOptions norm{.ord = p, .axis = std::vector<int64_t>{-2, -1}};
  return Norm(x, norm) * Norm(Inv(x), norm);
}

Array Linalg::MultiDot(const std::vector<std::reference_wrapper<const Array>>& arrays) {
  const size_t n = arrays.size();
  if (n < 2) ThrowInvalid("Expecting at least two arrays.");
  if (n == 2) return dot(arrays[0], arrays[1].get());  // NumPy's: dot, whatever the dimensions.
  const bool first_1d = arrays.front().get().shape().size() == 1;
  const bool last_1d = arrays.back().get().shape().size() == 1;
  std::vector<Array> ends(2);
  std::vector<const Array*> matrices;
  for (const Array& a : arrays) matrices.push_back(&a);
  if (first_1d) {
    ends[0] = reshape(arrays.front(), {1, -1});
    matrices.front() = &ends[0];
  }
  if (last_1d) {
    ends[1] = reshape(arrays.back(), {-1, 1});
    matrices.back() = &ends[1];
  }
  std::vector<int64_t> dims;
  for (const Array* a : matrices) {
    if (a->shape().size() != 2) {
      ThrowInvalid(std::to_string(a->shape().size()) +
                   "-dimensional array given. Array must be two-dimensional");
    }
    dims.push_back(a->shape()[0]);
  }
  dims.push_back(matrices.back()->shape()[1]);
  const std::vector<std::vector<size_t>> split = ChainOrder(dims);
  // The product of matrices i..j (i < j), split where the chain order says.
  const std::function<Array(size_t, size_t)> product = [&](size_t i, size_t j) -> Array {
    const size_t k = split[i][j];
    Array left, right;
    const Array& l = i == k ? *matrices[i] : (left = product(i, k));
    const Array& r = k + 1 == j ? *matrices[j] : (right = product(k + 1, j));
    return matmul(l, r);
  };
  Array result = product(0, n - 1);
  if (first_1d && last_1d) return client_->GetItem(result, {0, 0});
  if (first_1d || last_1d) return ravel(result);
  return result;
}

Array tensordot(const Array& a, const Array& b, const std::vector<int64_t>& axes_a,
                const std::vector<int64_t>& axes_b, Precision precision) {
  if (axes_a.size() != axes_b.size()) ThrowInvalid("shape-mismatch for sum");
  const Shape& shape_a = a.shape();
  const Shape& shape_b = b.shape();
  const auto rank_a = static_cast<int64_t>(shape_a.size());
  const auto rank_b = static_cast<int64_t>(shape_b.size());
  std::vector<int64_t> summed_a, summed_b;
  int64_t summed = 1;
  for (size_t k = 0; k < axes_a.size(); ++k) {
    summed_a.push_back(detail::NormalizeAxis(axes_a[k], rank_a));
    summed_b.push_back(detail::NormalizeAxis(axes_b[k], rank_b));
    if (shape_a[summed_a.back()] != shape_b[summed_b.back()]) {
      ThrowInvalid("shape-mismatch for sum");
    }
    summed *= shape_a[summed_a.back()];
  }
  // a as (free, summed), b as (summed, free); the result has a's free axes, then b's.
  std::vector<int64_t> order_a, order_b = summed_b;
  Shape result_shape;
  for (int64_t d = 0; d < rank_a; ++d) {
    if (std::find(summed_a.begin(), summed_a.end(), d) == summed_a.end()) {
      order_a.push_back(d);
      result_shape.push_back(shape_a[d]);
    }
  }
  const int64_t free_a = ElementCount(result_shape);
  order_a.insert(order_a.end(), summed_a.begin(), summed_a.end());
  int64_t free_b = 1;
  for (int64_t d = 0; d < rank_b; ++d) {
    if (std::find(summed_b.begin(), summed_b.end(), d) == summed_b.end()) {
      order_b.push_back(d);
      result_shape.push_back(shape_b[d]);
      free_b *= shape_b[d];
    }
  }
  Client client = detail::ClientOf(a);
  const Array left = reshape(transpose(a, order_a), {free_a, summed});
  const Array right = reshape(transpose(b, order_b), {summed, free_b});
  return reshape(client.Matmul(left, right, {.precision = precision}), result_shape);
}

}  // namespace arrayhub::client
