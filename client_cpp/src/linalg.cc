// Matrix products and numpy.linalg.
#include <utility>

#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"
#include "pipeline.h"
#include "requests.h"

namespace arrayhub::client {
namespace {

v1::TensorProductRequest ProductRequest(std::string_view op, const Operand& a, const Operand& b,
                                        Precision precision) {
  v1::TensorProductRequest request;
  request.set_op(std::string(op));
  detail::ToProto(a, request.mutable_a());
  detail::ToProto(b, request.mutable_b());
  request.set_precision(detail::ToProto(precision));
  return request;
}

v1::LinalgRequest LinalgRequest(std::string_view op, std::initializer_list<const Array*> operands) {
  v1::LinalgRequest request;
  request.set_op(std::string(op));
  for (const Array* operand : operands) detail::ToProto(Operand(*operand), request.add_operands());
  return request;
}

std::vector<ArrayInfo> CallLinalg(detail::Connection& connection,
                                  const v1::LinalgRequest& request) {
  const v1::LinalgResponse response =
      detail::Call(connection, &v1::ArrayHub::Stub::Linalg, request);
  std::vector<ArrayInfo> results;
  for (const v1::ArrayInfo& info : response.results()) results.push_back(detail::FromProto(info));
  return results;
}

}  // namespace

Array Client::Matmul(const Operand& a, const Operand& b, const MatmulOptions& options) {
  return Issue(detail::ArraysOf({a, b}),
               {[&] { return detail::AsOp(detail::MatmulRequest(a, b, options)); }});
}

void Client::MatmulOut(Array& out, const Operand& a, const Operand& b,
                       const MatmulOptions& options) {
  std::vector<const Array*> inputs = detail::ArraysOf({a, b});
  inputs.push_back(&out);
  IssueOut(inputs, {[&] {
             v1::MatmulRequest request = detail::MatmulRequest(a, b, options);
             detail::SetOut(out, request);
             return detail::AsOp(std::move(request));
           }});
}

Array Client::Dot(const Operand& a, const Operand& b, Precision precision) {
  return Issue(detail::ArraysOf({a, b}),
               {[&] { return detail::AsOp(ProductRequest("dot", a, b, precision)); }});
}

Array Client::Vdot(const Operand& a, const Operand& b, Precision precision) {
  return Issue(detail::ArraysOf({a, b}),
               {[&] { return detail::AsOp(ProductRequest("vdot", a, b, precision)); }});
}

Array Client::Inner(const Operand& a, const Operand& b, Precision precision) {
  return Issue(detail::ArraysOf({a, b}),
               {[&] { return detail::AsOp(ProductRequest("inner", a, b, precision)); }});
}

Array Client::Outer(const Operand& a, const Operand& b, Precision precision) {
  return Issue(detail::ArraysOf({a, b}),
               {[&] { return detail::AsOp(ProductRequest("outer", a, b, precision)); }});
}

Array Client::Tensordot(const Operand& a, const Operand& b, int64_t axes, Precision precision) {
  return Issue(detail::ArraysOf({a, b}), {[&] {
                 v1::TensorProductRequest request = ProductRequest("tensordot", a, b, precision);
                 request.set_axes(axes);
                 return detail::AsOp(std::move(request));
               }});
}

Linalg Client::linalg() {
  connection();  // Throws on a moved-from Client.
  return Linalg(*this);
}

detail::Connection& Linalg::connection() const { return client_->Synced(); }

std::vector<Array> Linalg::Adopt(const std::vector<ArrayInfo>& results) const {
  return client_->AdoptAll(results);
}

SvdResult Linalg::Svd(const Array& a, bool full_matrices, bool compute_uv) {
  detail::Connection& conn = connection();  // Before the request names a.
  v1::LinalgRequest request = LinalgRequest("svd", {&a});
  request.set_full_matrices(full_matrices);
  request.set_compute_uv(compute_uv);
  std::vector<Array> results = Adopt(CallLinalg(conn, request));
  if (!compute_uv) return {.u = Array(), .s = std::move(results[0]), .vh = Array()};
  return {.u = std::move(results[0]), .s = std::move(results[1]), .vh = std::move(results[2])};
}

QrResult Linalg::Qr(const Array& a, std::string_view mode) {
  detail::Connection& conn = connection();
  v1::LinalgRequest request = LinalgRequest("qr", {&a});
  request.set_mode(std::string(mode));
  std::vector<Array> results = Adopt(CallLinalg(conn, request));
  if (results.size() == 1) return {.q = Array(), .r = std::move(results[0])};
  return {.q = std::move(results[0]), .r = std::move(results[1])};
}

Array Linalg::Cholesky(const Array& a, bool upper) {
  return client_->Issue({&a}, {[&] {
                          v1::LinalgRequest request = LinalgRequest("cholesky", {&a});
                          request.set_uplo(upper ? "U" : "L");
                          return detail::AsOp(std::move(request));
                        }});
}

EighResult Linalg::Eigh(const Array& a, std::string_view uplo) {
  detail::Connection& conn = connection();
  v1::LinalgRequest request = LinalgRequest("eigh", {&a});
  request.set_uplo(std::string(uplo));
  std::vector<Array> results = Adopt(CallLinalg(conn, request));
  return {.eigenvalues = std::move(results[0]), .eigenvectors = std::move(results[1])};
}

Array Linalg::Eigvalsh(const Array& a, std::string_view uplo) {
  return client_->Issue({&a}, {[&] {
                          v1::LinalgRequest request = LinalgRequest("eigvalsh", {&a});
                          request.set_uplo(std::string(uplo));
                          return detail::AsOp(std::move(request));
                        }});
}

EigResult Linalg::Eig(const Array& a) {
  // The queue runs before the request names `a` (an argument's order of evaluation is not).
  detail::Connection& conn = connection();
  std::vector<Array> results = Adopt(CallLinalg(conn, LinalgRequest("eig", {&a})));
  return {.eigenvalues = std::move(results[0]), .eigenvectors = std::move(results[1])};
}

Array Linalg::Eigvals(const Array& a) {
  return client_->Issue({&a}, {[&] { return detail::AsOp(LinalgRequest("eigvals", {&a})); }});
}

Array Linalg::Solve(const Array& a, const Array& b) {
  return client_->Issue({&a, &b}, {[&] { return detail::AsOp(LinalgRequest("solve", {&a, &b})); }});
}

Array Linalg::Inv(const Array& a) {
  return client_->Issue({&a}, {[&] { return detail::AsOp(LinalgRequest("inv", {&a})); }});
}

Array Linalg::Det(const Array& a) {
  return client_->Issue({&a}, {[&] { return detail::AsOp(LinalgRequest("det", {&a})); }});
}

SlogdetResult Linalg::Slogdet(const Array& a) {
  detail::Connection& conn = connection();
  std::vector<Array> results = Adopt(CallLinalg(conn, LinalgRequest("slogdet", {&a})));
  return {.sign = std::move(results[0]), .logabsdet = std::move(results[1])};
}

Array Linalg::Norm(const Array& x, const NormOptions& options) {
  return client_->Issue({&x}, {[&] {
                          v1::LinalgRequest request = LinalgRequest("norm", {&x});
                          request.set_ord(options.ord);
                          if (options.axis) {
                            request.mutable_axis()->mutable_axes()->Add(options.axis->begin(),
                                                                        options.axis->end());
                          }
                          request.set_keepdims(options.keepdims);
                          return detail::AsOp(std::move(request));
                        }});
}

LstsqResult Linalg::Lstsq(const Array& a, const Array& b, std::optional<double> rcond) {
  detail::Connection& conn = connection();
  v1::LinalgRequest request = LinalgRequest("lstsq", {&a, &b});
  request.set_rcond(rcond.value_or(-1));  // Negative: NumPy's default.
  std::vector<Array> results = Adopt(CallLinalg(conn, request));
  return {.x = std::move(results[0]),
          .residuals = std::move(results[1]),
          .rank = std::move(results[2]),
          .s = std::move(results[3])};
}

}  // namespace arrayhub::client
