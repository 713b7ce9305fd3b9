// Random creation, ufuncs and reductions.
#include <utility>

#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"
#include "pipeline.h"
#include "requests.h"

namespace arrayhub::client {
namespace {

v1::CreateRequest RandomRequest(const Shape& shape, const v1::RandomSpec& random,
                                std::optional<DType> dtype, std::optional<uint64_t> seed) {
  v1::CreateRequest request;
  request.set_dtype(detail::ToProto(dtype));
  request.mutable_shape()->Add(shape.begin(), shape.end());
  *request.mutable_random() = random;
  request.mutable_random()->set_has_seed(seed.has_value());
  request.mutable_random()->set_seed(seed.value_or(0));
  return request;
}

}  // namespace

Array Client::RandomUniform(const Shape& shape, double low, double high, std::optional<DType> dtype,
                            std::optional<uint64_t> seed) {
  v1::RandomSpec random;
  random.mutable_uniform()->set_low(low);
  random.mutable_uniform()->set_high(high);
  return Issue({}, {[&] { return detail::AsOp(RandomRequest(shape, random, dtype, seed)); }});
}

Array Client::RandomNormal(const Shape& shape, double mean, double stddev,
                           std::optional<DType> dtype, std::optional<uint64_t> seed) {
  v1::RandomSpec random;
  random.mutable_normal()->set_mean(mean);
  random.mutable_normal()->set_stddev(stddev);
  return Issue({}, {[&] { return detail::AsOp(RandomRequest(shape, random, dtype, seed)); }});
}

Array Client::RandomIntegers(const Shape& shape, int64_t low, int64_t high,
                             std::optional<DType> dtype, std::optional<uint64_t> seed) {
  v1::RandomSpec random;
  random.mutable_integers()->set_low(low);
  random.mutable_integers()->set_high(high);
  return Issue({}, {[&] { return detail::AsOp(RandomRequest(shape, random, dtype, seed)); }});
}

Array Client::Ufunc(std::string_view name, const std::vector<Operand>& operands,
                    std::optional<DType> dtype) {
  return Issue(detail::ArraysOf(operands),
               {[&] { return detail::AsOp(detail::UfuncRequest(name, operands, dtype)); }});
}

void Client::UfuncOut(Array& out, std::string_view name, const std::vector<Operand>& operands,
                      std::optional<DType> dtype) {
  std::vector<const Array*> inputs = detail::ArraysOf(operands);
  inputs.push_back(&out);
  IssueOut(inputs, {[&] {
             v1::ElementwiseRequest request = detail::UfuncRequest(name, operands, dtype);
             detail::SetOut(out, request);
             return detail::AsOp(std::move(request));
           }});
}

Array Client::Reduce(std::string_view name, const Array& array, const ReduceOptions& options) {
  return Issue({&array},
               {[&] { return detail::AsOp(detail::ReduceRequest(name, array, options)); }});
}

}  // namespace arrayhub::client
