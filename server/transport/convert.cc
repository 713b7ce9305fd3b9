#include "server/transport/convert.h"

#include <fmt/format.h>

#include <chrono>

#include "server/common/status_macros.h"
#include "server/core/linalg_rules.h"

namespace arrayhub {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

int64_t UnixMillis(Clock::time_point steady) {
  const auto now_system = std::chrono::system_clock::now();
  const auto remaining = steady - Clock::now();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             (now_system + remaining).time_since_epoch())
      .count();
}

absl::StatusOr<std::optional<DType>> OptionalDType(int wire_value, std::string_view field) {
  if (wire_value == v1::DTYPE_UNSPECIFIED) return std::optional<DType>();
  std::optional<DType> dtype = DTypeFromWire(wire_value);
  if (!dtype) {
    return absl::InvalidArgumentError(fmt::format("unknown dtype {} in {}", wire_value, field));
  }
  return dtype;
}

absl::StatusOr<DType> RequiredDType(int wire_value, std::string_view field) {
  AH_ASSIGN_OR_RETURN(std::optional<DType> dtype, OptionalDType(wire_value, field));
  if (!dtype) return absl::InvalidArgumentError(fmt::format("{} is required", field));
  return *dtype;
}

absl::StatusOr<Scalar> ScalarFromProto(const v1::Scalar& scalar, std::string_view field) {
  switch (scalar.value_case()) {
    case v1::Scalar::kBoolValue:
      return Scalar::Bool(scalar.bool_value());
    case v1::Scalar::kIntValue:
      return Scalar::Int(scalar.int_value());
    case v1::Scalar::kUintValue:
      return Scalar::UInt(scalar.uint_value());
    case v1::Scalar::kFloatValue:
      return Scalar::Float(scalar.float_value());
    case v1::Scalar::kComplexValue:
      return Scalar::Complex({scalar.complex_value().real(), scalar.complex_value().imag()});
    case v1::Scalar::VALUE_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(fmt::format("{} has no value", field));
}

namespace {

absl::Status OutsideABatch(std::string_view field) {
  return absl::InvalidArgumentError(
      fmt::format("{} refers to a batch result outside a Batch request", field));
}

// A scalar sub-field that must be present.
absl::StatusOr<Scalar> RequiredScalar(bool present, const v1::Scalar& scalar,
                                      std::string_view field) {
  if (!present) return absl::InvalidArgumentError(fmt::format("{} is required", field));
  return ScalarFromProto(scalar, field);
}

// A distribution with (up to) two real parameters, in RandomCall's order.
RandomKind Parameters(RandomKind kind, RandomDistribution distribution, double first, double last) {
  kind.distribution = distribution;
  kind.low = first;
  kind.high = last;
  return kind;
}

absl::StatusOr<RandomKind> RandomKindFromProto(const v1::RandomSpec& random) {
  RandomKind kind;
  if (random.has_seed()) kind.seed = random.seed();
  switch (random.distribution_case()) {
    case v1::RandomSpec::kUniform:
      kind.distribution = RandomDistribution::kUniform;
      kind.low = random.uniform().low();
      kind.high = random.uniform().high();
      return kind;
    case v1::RandomSpec::kNormal:
      kind.distribution = RandomDistribution::kNormal;
      kind.low = random.normal().mean();
      kind.high = random.normal().stddev();
      return kind;
    case v1::RandomSpec::kIntegers:
      kind.distribution = RandomDistribution::kIntegers;
      kind.int_low = random.integers().low();
      kind.int_high = random.integers().high();
      return kind;
    case v1::RandomSpec::kExponential:
      return Parameters(kind, RandomDistribution::kExponential, 0, random.exponential().scale());
    case v1::RandomSpec::kGamma:
      return Parameters(kind, RandomDistribution::kGamma, random.gamma().shape(),
                        random.gamma().scale());
    case v1::RandomSpec::kBeta:
      return Parameters(kind, RandomDistribution::kBeta, random.beta().a(), random.beta().b());
    case v1::RandomSpec::kBinomial:
      kind.int_high = random.binomial().n();
      return Parameters(kind, RandomDistribution::kBinomial, 0, random.binomial().p());
    case v1::RandomSpec::kPoisson:
      return Parameters(kind, RandomDistribution::kPoisson, 0, random.poisson().lam());
    case v1::RandomSpec::kLognormal:
      return Parameters(kind, RandomDistribution::kLognormal, random.lognormal().mean(),
                        random.lognormal().stddev());
    case v1::RandomSpec::kStandardT:
      return Parameters(kind, RandomDistribution::kStandardT, 0, random.standard_t().a());
    case v1::RandomSpec::kChisquare:
      return Parameters(kind, RandomDistribution::kChisquare, 0, random.chisquare().a());
    case v1::RandomSpec::kGeometric:
      return Parameters(kind, RandomDistribution::kGeometric, 0, random.geometric().p());
    case v1::RandomSpec::kLaplace:
      return Parameters(kind, RandomDistribution::kLaplace, random.laplace().loc(),
                        random.laplace().scale());
    case v1::RandomSpec::kLogistic:
      return Parameters(kind, RandomDistribution::kLogistic, random.logistic().loc(),
                        random.logistic().scale());
    case v1::RandomSpec::kGumbel:
      return Parameters(kind, RandomDistribution::kGumbel, random.gumbel().loc(),
                        random.gumbel().scale());
    case v1::RandomSpec::kWeibull:
      return Parameters(kind, RandomDistribution::kWeibull, 0, random.weibull().a());
    case v1::RandomSpec::kPareto:
      return Parameters(kind, RandomDistribution::kPareto, 0, random.pareto().a());
    case v1::RandomSpec::kRayleigh:
      return Parameters(kind, RandomDistribution::kRayleigh, 0, random.rayleigh().scale());
    case v1::RandomSpec::kStandardCauchy:
      return Parameters(kind, RandomDistribution::kStandardCauchy, 0, 0);
    case v1::RandomSpec::kPower:
      return Parameters(kind, RandomDistribution::kPower, 0, random.power().a());
    case v1::RandomSpec::kF:
      return Parameters(kind, RandomDistribution::kF, random.f().dfnum(), random.f().dfden());
    case v1::RandomSpec::kNegativeBinomial:
      return Parameters(kind, RandomDistribution::kNegativeBinomial, random.negative_binomial().n(),
                        random.negative_binomial().p());
    case v1::RandomSpec::kWald:
      return Parameters(kind, RandomDistribution::kWald, random.wald().mean(),
                        random.wald().scale());
    case v1::RandomSpec::DISTRIBUTION_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("random.distribution is required (uniform, normal, ...)");
}

}  // namespace

absl::StatusOr<OperandSpec> OperandFromProto(const v1::Operand& operand, std::string_view field,
                                             const BatchResults* batch) {
  switch (operand.value_case()) {
    case v1::Operand::kHandle:
      return OperandSpec{
          .handle = operand.handle(), .scalar = std::nullopt, .chain_value = std::nullopt};
    case v1::Operand::kScalar: {
      AH_ASSIGN_OR_RETURN(Scalar scalar, ScalarFromProto(operand.scalar(), field));
      return OperandSpec{.handle = std::nullopt, .scalar = scalar, .chain_value = std::nullopt};
    }
    case v1::Operand::kBatchResult:
      if (batch == nullptr) return OutsideABatch(field);
      return batch->OperandOf(operand.batch_result());
    case v1::Operand::VALUE_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(fmt::format("{} has no value", field));
}

absl::StatusOr<std::string> BatchHandleFromProto(int64_t op, std::string_view field,
                                                 const BatchResults* batch) {
  if (batch == nullptr) return OutsideABatch(field);
  return batch->HandleOf(op);
}

absl::StatusOr<std::string> CopyToDeviceHandleFromProto(const v1::CopyToDeviceRequest& request,
                                                        const BatchResults* batch) {
  if (request.array_case() == v1::CopyToDeviceRequest::kBatchHandle) {
    return BatchHandleFromProto(request.batch_handle(), "batch_handle", batch);
  }
  return request.handle();
}

namespace {

// The `out_array` oneof of ElementwiseRequest, MatmulRequest, ReduceRequest and
// TensorProductRequest: the handle of the array to write into, empty for a new one.
template <typename Request>
absl::StatusOr<std::string> OutFromProto(const Request& request, const BatchResults* batch) {
  if (request.out_array_case() == Request::kOutBatchResult) {
    return BatchHandleFromProto(request.out_batch_result(), "out_batch_result", batch);
  }
  return request.out();
}

}  // namespace

absl::StatusOr<std::vector<OperandSpec>> OperandsFromProto(
    const google::protobuf::RepeatedPtrField<v1::Operand>& operands, const BatchResults* batch) {
  std::vector<OperandSpec> specs;
  specs.reserve(operands.size());
  for (int i = 0; i < operands.size(); ++i) {
    AH_ASSIGN_OR_RETURN(OperandSpec operand,
                        OperandFromProto(operands[i], fmt::format("operands[{}]", i), batch));
    specs.push_back(std::move(operand));
  }
  return specs;
}

std::optional<std::vector<int64_t>> AxesFromProto(bool present, const v1::AxisList& axes) {
  if (!present) return std::nullopt;
  return std::vector<int64_t>(axes.axes().begin(), axes.axes().end());
}

absl::StatusOr<ElementwiseSpec> ElementwiseSpecFromProto(const v1::ElementwiseRequest& request,
                                                         const BatchResults* batch) {
  ElementwiseSpec spec;
  std::optional<ElementwiseOp> op = ElementwiseOpFromName(request.op());
  if (!op) {
    return absl::InvalidArgumentError(fmt::format("unknown elementwise op '{}'", request.op()));
  }
  spec.op = *op;
  AH_ASSIGN_OR_RETURN(spec.operands, OperandsFromProto(request.operands(), batch));
  AH_ASSIGN_OR_RETURN(spec.out, OutFromProto(request, batch));
  AH_ASSIGN_OR_RETURN(spec.dtype, OptionalDType(request.dtype(), "dtype"));
  return spec;
}

absl::StatusOr<ReduceSpec> ReduceSpecFromProto(const v1::ReduceRequest& request,
                                               const BatchResults* batch) {
  ReduceSpec spec;
  std::optional<ReduceOp> op = ReduceOpFromName(request.op());
  if (!op) return absl::InvalidArgumentError(fmt::format("unknown reduction '{}'", request.op()));
  spec.op = *op;
  AH_ASSIGN_OR_RETURN(OperandSpec input, OperandFromProto(request.input(), "input", batch));
  if (!input.handle) return absl::InvalidArgumentError("input must be an array handle");
  spec.input = *input.handle;
  spec.axes = AxesFromProto(request.has_axis(), request.axis());
  spec.keepdims = request.keepdims();
  AH_ASSIGN_OR_RETURN(spec.dtype, OptionalDType(request.dtype(), "dtype"));
  if (request.has_ddof_real() && request.ddof() != 0) {
    return absl::InvalidArgumentError("ddof and ddof_real can't be provided simultaneously");
  }
  spec.ddof = request.has_ddof_real() ? request.ddof_real() : static_cast<double>(request.ddof());
  AH_ASSIGN_OR_RETURN(spec.out, OutFromProto(request, batch));
  return spec;
}

namespace {

// PRECISION_DEFAULT leaves the choice to the session (nullopt).
absl::StatusOr<std::optional<MatmulPrecision>> PrecisionFromProto(int precision) {
  switch (precision) {
    case v1::PRECISION_DEFAULT:
      return std::optional<MatmulPrecision>();
    case v1::PRECISION_HIGHEST:
      return MatmulPrecision::kHighest;
    case v1::PRECISION_TF32:
      return MatmulPrecision::kTF32;
    default:
      return absl::InvalidArgumentError(fmt::format("unknown precision {}", precision));
  }
}

}  // namespace

absl::StatusOr<MatmulSpec> MatmulSpecFromProto(const v1::MatmulRequest& request,
                                               const BatchResults* batch) {
  MatmulSpec spec;
  AH_ASSIGN_OR_RETURN(spec.a, OperandFromProto(request.a(), "a", batch));
  AH_ASSIGN_OR_RETURN(spec.b, OperandFromProto(request.b(), "b", batch));
  spec.transpose_a = request.transpose_a();
  spec.transpose_b = request.transpose_b();
  spec.conjugate_a = request.conjugate_a();
  spec.conjugate_b = request.conjugate_b();
  AH_ASSIGN_OR_RETURN(spec.out, OutFromProto(request, batch));
  AH_ASSIGN_OR_RETURN(spec.precision, PrecisionFromProto(request.precision()));
  return spec;
}

absl::StatusOr<TensorProductSpec> TensorProductSpecFromProto(
    const v1::TensorProductRequest& request, const BatchResults* batch) {
  TensorProductSpec spec;
  std::optional<TensorProductOp> op = TensorProductOpFromName(request.op());
  if (!op) {
    return absl::InvalidArgumentError(fmt::format(
        "unknown tensor product '{}' (dot, vdot, inner, outer or tensordot)", request.op()));
  }
  spec.op = *op;
  AH_ASSIGN_OR_RETURN(spec.a, OperandFromProto(request.a(), "a", batch));
  AH_ASSIGN_OR_RETURN(spec.b, OperandFromProto(request.b(), "b", batch));
  spec.axes = request.axes();
  AH_ASSIGN_OR_RETURN(spec.out, OutFromProto(request, batch));
  AH_ASSIGN_OR_RETURN(spec.precision, PrecisionFromProto(request.precision()));
  return spec;
}

absl::StatusOr<LinalgSpec> LinalgSpecFromProto(const v1::LinalgRequest& request,
                                               const BatchResults* batch) {
  LinalgSpec spec;
  std::optional<LinalgOp> op = LinalgOpFromName(request.op());
  if (!op) {
    return absl::InvalidArgumentError(fmt::format("unknown linalg op '{}'", request.op()));
  }
  spec.op = *op;
  AH_ASSIGN_OR_RETURN(spec.operands, OperandsFromProto(request.operands(), batch));
  spec.full_matrices = request.full_matrices();
  spec.compute_uv = request.compute_uv();
  spec.mode = request.mode();
  spec.uplo = request.uplo();
  spec.ord = request.ord();
  spec.axes = AxesFromProto(request.has_axis(), request.axis());
  spec.keepdims = request.keepdims();
  spec.rcond = request.rcond();
  return spec;
}

absl::StatusOr<FftSpec> FftSpecFromProto(const v1::FftRequest& request, const BatchResults* batch) {
  FftSpec spec;
  std::optional<FftOp> op = FftOpFromName(request.op());
  if (!op) {
    return absl::InvalidArgumentError(
        fmt::format("unknown fft op '{}' (fft, ifft, rfft, irfft, hfft or ihfft)", request.op()));
  }
  spec.op = *op;
  AH_ASSIGN_OR_RETURN(spec.input, OperandFromProto(request.input(), "input", batch));
  spec.axes = AxesFromProto(request.has_axes(), request.axes());
  if (request.has_s()) spec.s.emplace(request.s().values().begin(), request.s().values().end());
  spec.norm = request.norm();
  return spec;
}

absl::StatusOr<CreateSpec> CreateSpecFromProto(const v1::CreateRequest& request) {
  CreateSpec spec;
  AH_ASSIGN_OR_RETURN(spec.dtype, OptionalDType(request.dtype(), "dtype"));
  spec.shape = ShapeFromProto(request.shape());
  switch (request.kind_case()) {
    case v1::CreateRequest::kEmpty:
      spec.kind = EmptyKind{};
      break;
    case v1::CreateRequest::kZeros:
      spec.kind = ZerosKind{};
      break;
    case v1::CreateRequest::kOnes:
      spec.kind = OnesKind{};
      break;
    case v1::CreateRequest::kFull: {
      AH_ASSIGN_OR_RETURN(Scalar value, RequiredScalar(request.full().has_value(),
                                                       request.full().value(), "full.value"));
      spec.kind = FullKind{value};
      break;
    }
    case v1::CreateRequest::kArange: {
      const auto& a = request.arange();
      ArangeKind kind;
      AH_ASSIGN_OR_RETURN(kind.start, RequiredScalar(a.has_start(), a.start(), "arange.start"));
      AH_ASSIGN_OR_RETURN(kind.stop, RequiredScalar(a.has_stop(), a.stop(), "arange.stop"));
      if (a.has_step()) {
        AH_ASSIGN_OR_RETURN(kind.step, ScalarFromProto(a.step(), "arange.step"));
      }
      spec.kind = kind;
      break;
    }
    case v1::CreateRequest::kLinspace: {
      const auto& l = request.linspace();
      LinspaceKind kind{.num = l.num(), .endpoint = l.endpoint()};
      AH_ASSIGN_OR_RETURN(kind.start, RequiredScalar(l.has_start(), l.start(), "linspace.start"));
      AH_ASSIGN_OR_RETURN(kind.stop, RequiredScalar(l.has_stop(), l.stop(), "linspace.stop"));
      spec.kind = kind;
      break;
    }
    case v1::CreateRequest::kEye: {
      const auto& e = request.eye();
      spec.kind =
          EyeKind{.n = e.n(), .m = e.has_m() ? std::optional(e.m()) : std::nullopt, .k = e.k()};
      break;
    }
    case v1::CreateRequest::kRandom: {
      AH_ASSIGN_OR_RETURN(spec.kind, RandomKindFromProto(request.random()));
      break;
    }
    case v1::CreateRequest::kData:
      spec.kind = DataKind{request.data().values()};
      break;
    case v1::CreateRequest::KIND_NOT_SET:
      return absl::InvalidArgumentError(
          "CreateRequest.kind is required (empty, zeros, ones, full, arange, linspace, eye, "
          "random or data)");
  }
  return spec;
}

void ArrayInfoToProto(const ArrayRecord& record, std::string_view device, v1::ArrayInfo* info) {
  if (!record.handle.IsNull()) info->set_handle(record.handle.ToString());
  info->set_dtype(static_cast<v1::DType>(record.dtype));
  info->mutable_shape()->Assign(record.shape.begin(), record.shape.end());
  info->mutable_strides()->Assign(record.strides.begin(), record.strides.end());
  info->set_offset_bytes(record.offset_bytes);
  info->set_device(std::string(device));
  info->set_device_index(record.device);
  info->set_nbytes(record.nbytes());
  info->set_owner(record.owner);
  info->set_name(record.name);
  info->set_c_contiguous(IsCContiguous(record.shape, record.strides));
  info->set_f_contiguous(IsFContiguous(record.shape, record.strides));
  info->set_owns_data(record.owns_data());
  if (!record.base.IsNull()) info->set_base_handle(record.base.ToString());
  info->set_writable(record.writable && !record.shared_read_only);
}

}  // namespace arrayhub
