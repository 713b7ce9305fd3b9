// RunKernel: user kernels (ElementwiseKernel, ReductionKernel), and their request's conversion;
// RunRawKernel: raw CUDA kernels (RawKernel, RawModule).
#include <fmt/format.h>

#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

absl::StatusOr<RunKernelSpec> RunKernelSpecFromProto(const v1::RunKernelRequest& request,
                                                     const BatchResults* batch) {
  RunKernelSpec spec;
  const v1::KernelSource& source = request.source();
  switch (source.kind()) {
    case v1::KernelSource::KIND_ELEMENTWISE:
      spec.source.kind = kernel::KernelKind::kElementwise;
      break;
    case v1::KernelSource::KIND_REDUCTION:
      spec.source.kind = kernel::KernelKind::kReduction;
      break;
    default:
      return absl::InvalidArgumentError(
          fmt::format("unknown kernel kind {} in source.kind", static_cast<int>(source.kind())));
  }
  spec.source.in_params = source.in_params();
  spec.source.out_params = source.out_params();
  spec.source.operation = source.operation();
  spec.source.map_expr = source.map_expr();
  spec.source.reduce_expr = source.reduce_expr();
  spec.source.post_map_expr = source.post_map_expr();
  spec.source.identity = source.identity();
  spec.source.reduce_type = source.reduce_type();
  spec.source.preamble = source.preamble();
  spec.source.name = source.name();
  for (int k = 0; k < request.arguments_size(); ++k) {
    const v1::KernelArgument& argument = request.arguments(k);
    const std::string field = fmt::format("arguments[{}]", k);
    KernelArgumentSpec converted;
    switch (argument.value_case()) {
      case v1::KernelArgument::kHandle: {
        converted.handle = argument.handle();
        break;
      }
      case v1::KernelArgument::kScalar: {
        AH_ASSIGN_OR_RETURN(converted.scalar, ScalarFromProto(argument.scalar(), field));
        AH_ASSIGN_OR_RETURN(converted.scalar_dtype,
                            OptionalDType(argument.dtype(), field + ".dtype"));
        break;
      }
      case v1::KernelArgument::kBatchResult: {
        AH_ASSIGN_OR_RETURN(converted.handle,
                            BatchHandleFromProto(argument.batch_result(), field, batch));
        break;
      }
      case v1::KernelArgument::VALUE_NOT_SET:
        return absl::InvalidArgumentError(fmt::format("{} has no value", field));
    }
    spec.arguments.push_back(std::move(converted));
  }
  for (int k = 0; k < request.outputs_size(); ++k) {
    const v1::KernelOutput& output = request.outputs(k);
    if (output.out_array_case() == v1::KernelOutput::kOutBatchResult) {
      AH_ASSIGN_OR_RETURN(
          std::string handle,
          BatchHandleFromProto(output.out_batch_result(),
                               fmt::format("outputs[{}].out_batch_result", k), batch));
      spec.outputs.push_back(std::move(handle));
    } else {
      spec.outputs.push_back(output.out());
    }
  }
  if (request.has_size()) spec.size = request.size();
  spec.axes = AxesFromProto(request.has_axis(), request.axis());
  spec.keepdims = request.keepdims();
  return spec;
}

grpc::Status ArrayHubService::RunKernel(grpc::ServerContext* context,
                                        const v1::RunKernelRequest* request,
                                        v1::RunKernelResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(RunKernelSpec spec, RunKernelSpecFromProto(*request));
    AH_ASSIGN_OR_RETURN(std::vector<ArrayTable::RecordPtr> outputs,
                        engine_.RunKernel(caller, spec));
    for (const ArrayTable::RecordPtr& output : outputs) FillInfo(*output, response->add_outputs());
    return absl::OkStatus();
  }());
}

namespace {

absl::StatusOr<RunRawKernelSpec> RunRawKernelSpecFromProto(const v1::RunRawKernelRequest& request) {
  RunRawKernelSpec spec;
  spec.source.code = request.code();
  spec.source.name = request.name();
  spec.source.options.assign(request.options().begin(), request.options().end());
  spec.grid.assign(request.grid().begin(), request.grid().end());
  spec.block.assign(request.block().begin(), request.block().end());
  spec.shared_mem = request.shared_mem();
  for (int k = 0; k < request.arguments_size(); ++k) {
    const v1::RawKernelArgument& argument = request.arguments(k);
    const std::string field = fmt::format("arguments[{}]", k);
    RawKernelArgumentSpec converted;
    switch (argument.value_case()) {
      case v1::RawKernelArgument::kHandle:
        converted.handle = argument.handle();
        break;
      case v1::RawKernelArgument::kScalar: {
        AH_ASSIGN_OR_RETURN(converted.scalar, ScalarFromProto(argument.scalar(), field));
        AH_ASSIGN_OR_RETURN(std::optional<DType> dtype,
                            OptionalDType(argument.dtype(), field + ".dtype"));
        if (!dtype) {
          return absl::InvalidArgumentError(fmt::format(
              "{}.dtype is required: a raw kernel's scalar is passed in its C type", field));
        }
        converted.scalar_dtype = *dtype;
        break;
      }
      case v1::RawKernelArgument::VALUE_NOT_SET:
        return absl::InvalidArgumentError(fmt::format("{} has no value", field));
    }
    spec.arguments.push_back(std::move(converted));
  }
  return spec;
}

}  // namespace

grpc::Status ArrayHubService::RunRawKernel(grpc::ServerContext* context,
                                           const v1::RunRawKernelRequest* request,
                                           v1::RunRawKernelResponse*) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(RunRawKernelSpec spec, RunRawKernelSpecFromProto(*request));
    return engine_.RunRawKernel(caller, spec);
  }());
}

}  // namespace arrayhub
