// User kernels: one RunKernel call, after the queued work (its outputs may be several); raw
// CUDA kernels: one RunRawKernel call.
#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"
#include "pipeline.h"

namespace arrayhub::client {

std::vector<Array> Client::RunKernel(const KernelSource& source,
                                     const std::vector<Operand>& arguments,
                                     const KernelOptions& options) {
  detail::Connection& conn = Synced();  // Before the request names queued arrays.
  v1::RunKernelRequest request;
  v1::KernelSource& wire = *request.mutable_source();
  wire.set_kind(source.reduction ? v1::KernelSource::KIND_REDUCTION
                                 : v1::KernelSource::KIND_ELEMENTWISE);
  wire.set_in_params(source.in_params);
  wire.set_out_params(source.out_params);
  wire.set_operation(source.operation);
  wire.set_map_expr(source.map_expr);
  wire.set_reduce_expr(source.reduce_expr);
  wire.set_post_map_expr(source.post_map_expr);
  wire.set_identity(source.identity);
  wire.set_reduce_type(source.reduce_type);
  wire.set_preamble(source.preamble);
  wire.set_name(source.name);
  for (const Operand& argument : arguments) {
    v1::Operand operand;
    detail::ToProto(argument, &operand);
    v1::KernelArgument& converted = *request.add_arguments();
    if (operand.has_scalar()) {
      *converted.mutable_scalar() = operand.scalar();
    } else if (operand.value_case() == v1::Operand::kHandle) {
      converted.set_handle(operand.handle());
    } else {
      throw Error(StatusCode::kInvalidArgument,
                  "RunKernel takes arrays and scalars, not the steps of a Batch");
    }
  }
  for (const Array* out : options.out) {
    v1::KernelOutput& output = *request.add_outputs();
    if (out != nullptr) output.set_out(out->handle());
  }
  if (options.size) request.set_size(*options.size);
  if (options.axis) {
    request.mutable_axis()->mutable_axes()->Add(options.axis->begin(), options.axis->end());
  }
  request.set_keepdims(options.keepdims);
  const v1::RunKernelResponse response =
      detail::Call(conn, &v1::ArrayHub::Stub::RunKernel, request);
  std::vector<Array> results;
  for (int k = 0; k < response.outputs_size(); ++k) {
    const bool given = static_cast<size_t>(k) < options.out.size() && options.out[k] != nullptr;
    if (!given) results.push_back(Adopt(detail::FromProto(response.outputs(k))));
  }
  return results;
}

void Client::RunRawKernel(const RawKernelLaunch& launch,
                          const std::vector<RawKernelArgument>& arguments) {
  detail::Connection& conn = Synced();  // Before the request names queued arrays.
  v1::RunRawKernelRequest request;
  request.set_code(launch.code);
  request.set_name(launch.name);
  for (const std::string& option : launch.options) request.add_options(option);
  request.mutable_grid()->Add(launch.grid.begin(), launch.grid.end());
  request.mutable_block()->Add(launch.block.begin(), launch.block.end());
  request.set_shared_mem(launch.shared_mem);
  for (const RawKernelArgument& argument : arguments) {
    v1::RawKernelArgument& converted = *request.add_arguments();
    if (argument.array() != nullptr) {
      converted.set_handle(argument.array()->handle());
    } else {
      detail::ToProto(argument.scalar(), converted.mutable_scalar());
      converted.set_dtype(detail::ToProto(argument.dtype()));
    }
  }
  detail::Call(conn, &v1::ArrayHub::Stub::RunRawKernel, request);
}

}  // namespace arrayhub::client
