// Engine::RunKernel: a user kernel (ElementwiseKernel, ReductionKernel) checked once per source
// and binding through the process-wide UserKernelCache, its shapes resolved by CuPy's rules
// (user_kernel_rules.h), its outputs and work bounded and charged before anything runs, then
// one backend call. Outputs the backend writes never overlap its inputs: an out= array that
// would, one whose dtype differs from its parameter's, and every out= array of a kernel with
// raw parameters (which may fail halfway, at an index out of range) is computed in a temporary
// seeded with its contents and copied in only once the kernel has succeeded.
#include <fmt/format.h>

#include <algorithm>

#include "server/common/status_macros.h"
#include "server/core/broadcast.h"
#include "server/core/engine.h"
#include "server/core/overlap.h"
#include "server/core/shape_limits.h"
#include "server/core/user_kernel_rules.h"

namespace arrayhub {
namespace {

// CuPy's parameter count: the non-empty entries of the comma-separated list.
size_t ParameterCount(std::string_view params) {
  size_t count = 0;
  size_t start = 0;
  while (start <= params.size()) {
    size_t end = params.find(',', start);
    if (end == std::string_view::npos) end = params.size();
    if (params.substr(start, end - start).find_first_not_of(" \t\r\n") != std::string_view::npos) {
      ++count;
    }
    start = end + 1;
  }
  return count;
}

ArrayView BroadcastView(ArrayView view, const Shape& shape) {
  view.strides = BroadcastStrides(view.shape, view.strides, shape);
  view.shape = shape;
  return view;
}

// `view` (of the output's shape, keepdims applied) without the reduced axes kept as 1.
ArrayView WrittenView(ArrayView view, const KernelIteration& iteration, bool keepdims) {
  if (keepdims) {
    Strides strides;
    for (size_t d = 0; d < view.strides.size(); ++d) {
      if (!std::binary_search(iteration.reduce_axes.begin(), iteration.reduce_axes.end(),
                              static_cast<int64_t>(d))) {
        strides.push_back(view.strides[d]);
      }
    }
    view.strides = std::move(strides);
  }
  view.shape = iteration.written_shape;
  return view;
}

int64_t SaturatingProduct(int64_t a, int64_t b) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return INT64_MAX;
  return product;
}

}  // namespace

absl::StatusOr<std::vector<ArrayTable::RecordPtr>> Engine::RunKernel(const Caller& caller,
                                                                     const RunKernelSpec& spec) {
  const kernel::KernelSource& source = spec.source;
  const auto bound = Bind(caller, "kernel");
  const size_t input_count = ParameterCount(source.in_params);
  const size_t output_count = ParameterCount(source.out_params);
  if (spec.arguments.size() != input_count) {
    return absl::InvalidArgumentError(
        fmt::format("Wrong number of arguments for {}: {} given, {} expected", source.name,
                    spec.arguments.size(), input_count));
  }
  if (!spec.outputs.empty() && spec.outputs.size() != output_count) {
    return absl::InvalidArgumentError(
        fmt::format("Wrong number of outputs for {}: {} given, {} expected", source.name,
                    spec.outputs.size(), output_count));
  }

  // The arguments, with the session's rights: read for inputs, write for out= arrays.
  kernel::ArgumentTypes types;
  std::vector<ArrayTable::RecordPtr> inputs(input_count);
  for (size_t a = 0; a < input_count; ++a) {
    const KernelArgumentSpec& argument = spec.arguments[a];
    if (argument.handle) {
      AH_ASSIGN_OR_RETURN(inputs[a],
                          Find(bound.caller(), *argument.handle, fmt::format("arguments[{}]", a)));
      types.inputs.push_back({.dtype = inputs[a]->dtype, .array = true});
    } else if (argument.scalar) {
      types.inputs.push_back(
          {.dtype = argument.scalar_dtype.value_or(DefaultDType(*argument.scalar)),
           .array = false});
    } else {
      return absl::InvalidArgumentError(fmt::format("arguments[{}] has no value", a));
    }
  }
  std::vector<ArrayTable::RecordPtr> outs(output_count);
  types.outputs.resize(output_count);
  for (size_t o = 0; o < spec.outputs.size(); ++o) {
    if (spec.outputs[o].empty()) continue;
    AH_ASSIGN_OR_RETURN(
        outs[o], FindWritable(bound.caller(), spec.outputs[o], fmt::format("outputs[{}]", o)));
    types.outputs[o] = outs[o]->dtype;
  }

  // Checked and prepared once per source and binding, whichever session asks.
  const std::string key = KernelCacheKey(source, types);
  AH_ASSIGN_OR_RETURN(
      CachedUserKernel compiled,
      kernels_.Get(
          key, static_cast<int64_t>(key.size()), [&]() -> absl::StatusOr<CachedUserKernel> {
            AH_ASSIGN_OR_RETURN(std::shared_ptr<const kernel::CheckedKernel> checked,
                                kernel::CheckKernel(source, types));
            AH_ASSIGN_OR_RETURN(std::shared_ptr<const PreparedUserKernel> prepared,
                                backend(bound.caller()).user_kernels().PrepareUserKernel(checked));
            return CachedUserKernel{.checked = std::move(checked), .prepared = std::move(prepared)};
          }));
  const std::vector<kernel::Parameter>& parameters = compiled.checked->parameters();
  if (parameters.size() != input_count + output_count) {
    return absl::InternalError("the checked kernel's parameters do not match its source");
  }

  // Shapes, by CuPy's rules.
  KernelShapes shapes{.inputs = std::vector<std::optional<Shape>>(input_count),
                      .outputs = std::vector<std::optional<Shape>>(output_count)};
  std::vector<bool> raw_outputs(output_count);
  std::vector<bool> new_raw_outputs(output_count);  // Raw outputs with no out= array.
  bool any_raw = false;
  for (size_t a = 0; a < input_count; ++a) {
    const kernel::Parameter& parameter = parameters[a];
    any_raw = any_raw || parameter.raw;
    if (parameter.raw && !inputs[a]) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: raw parameter '{}' takes an array, got a scalar", source.name, parameter.name));
    }
    if (inputs[a] && !parameter.raw) shapes.inputs[a] = inputs[a]->shape;
  }
  for (size_t o = 0; o < output_count; ++o) {
    raw_outputs[o] = parameters[input_count + o].raw;
    any_raw = any_raw || raw_outputs[o];
    if (outs[o] && !raw_outputs[o]) shapes.outputs[o] = outs[o]->shape;
    new_raw_outputs[o] = raw_outputs[o] && !outs[o];
  }
  AH_ASSIGN_OR_RETURN(
      KernelIteration iteration,
      ResolveKernelIteration(source, shapes, new_raw_outputs, spec.size, spec.axes, spec.keepdims));
  AH_ASSIGN_OR_RETURN(const int64_t elements,
                      CheckShape(iteration.shape, limits_, "the kernel's iteration shape"));

  // The work, before anything is allocated: elements times the kernel's cost per element
  // (its loops' trip counts, which may depend on scalar arguments and raw sizes).
  std::vector<Scalar> scalars;
  std::vector<int64_t> raw_sizes;
  for (size_t a = 0; a < input_count; ++a) {
    if (!inputs[a]) scalars.push_back(*spec.arguments[a].scalar);
    if (parameters[a].raw) {
      AH_ASSIGN_OR_RETURN(int64_t count, ElementCount(inputs[a]->shape));
      raw_sizes.push_back(count);
    }
  }
  for (size_t o = 0; o < output_count; ++o) {
    if (!raw_outputs[o]) continue;
    AH_ASSIGN_OR_RETURN(int64_t count,
                        ElementCount(outs[o] ? outs[o]->shape : iteration.output_shape));
    raw_sizes.push_back(count);
  }
  const int64_t work =
      SaturatingProduct(elements, compiled.checked->WorkPerElement(scalars, raw_sizes));
  if (work > limits_.max_kernel_work) {
    return absl::ResourceExhaustedError(fmt::format(
        "kernel {}: {} elements at up to {} operations each exceed the server's limit of {} "
        "operations per call (--max-kernel-work)",
        source.name, elements, compiled.checked->WorkPerElement(scalars, raw_sizes),
        limits_.max_kernel_work));
  }

  UserKernelCall call{.kernel = compiled.checked,
                      .prepared = compiled.prepared,
                      .shape = iteration.shape,
                      .reduce_axes = iteration.reduce_axes,
                      .arguments = {}};
  std::vector<std::shared_ptr<Buffer>> keep;  // Converted inputs and temporary outputs.
  for (size_t a = 0; a < input_count; ++a) {
    const kernel::Parameter& parameter = parameters[a];
    UserKernelArgument argument;
    if (!inputs[a]) {
      argument.kind = UserKernelArgument::Kind::kScalar;
      AH_ASSIGN_OR_RETURN(argument.scalar,
                          EncodeScalar(*spec.arguments[a].scalar, parameter.dtype));
    } else {
      ArrayView view = ViewOf(*inputs[a]);
      if (view.dtype != parameter.dtype) {
        AH_ASSIGN_OR_RETURN(ArrayView converted,
                            NewScratch(bound.caller(), parameter.dtype, view.shape, keep));
        AH_RETURN_IF_ERROR(CopyInto(bound.caller(), view, converted));
        view = converted;
      }
      argument.kind =
          parameter.raw ? UserKernelArgument::Kind::kRaw : UserKernelArgument::Kind::kArray;
      argument.view = parameter.raw ? view : BroadcastView(view, iteration.shape);
    }
    call.arguments.push_back(std::move(argument));
  }

  // Outputs: new arrays, out= arrays written in place, or temporaries copied in afterwards.
  std::vector<ArrayRecord> created;
  std::vector<std::pair<ArrayView, ArrayView>> copy_back;  // (temporary, out=) pairs.
  for (size_t o = 0; o < output_count; ++o) {
    const kernel::Parameter& parameter = parameters[input_count + o];
    UserKernelArgument argument{
        .kind = raw_outputs[o] ? UserKernelArgument::Kind::kRaw : UserKernelArgument::Kind::kArray,
        .view = {},
        .scalar = {}};
    if (!outs[o]) {
      AH_ASSIGN_OR_RETURN(int64_t nbytes,
                          CheckedArrayBytes(iteration.output_shape, parameter.dtype, limits_));
      AH_ASSIGN_OR_RETURN(ArrayRecord record, NewArray(bound.caller(), parameter.dtype,
                                                       iteration.output_shape, nbytes));
      argument.view = ViewOf(record);
      created.push_back(std::move(record));
    } else {
      const ArrayView out = ViewOf(*outs[o]);
      bool overlaps = out.dtype != parameter.dtype || any_raw;
      for (size_t a = 0; a < input_count && !overlaps; ++a) {
        overlaps = inputs[a] && MayShareMemory(out, ViewOf(*inputs[a]));
      }
      for (size_t other = 0; other < output_count && !overlaps; ++other) {
        overlaps = other != o && outs[other] && MayShareMemory(out, ViewOf(*outs[other]));
      }
      argument.view = out;
      if (overlaps) {
        // Seeded with out='s contents: elements the kernel leaves alone keep their values.
        AH_ASSIGN_OR_RETURN(argument.view,
                            NewScratch(bound.caller(), parameter.dtype, out.shape, keep));
        AH_RETURN_IF_ERROR(CopyInto(bound.caller(), out, argument.view));
        copy_back.emplace_back(argument.view, out);
      }
    }
    if (!raw_outputs[o]) argument.view = WrittenView(argument.view, iteration, spec.keepdims);
    call.arguments.push_back(std::move(argument));
  }

  AH_ASSIGN_OR_RETURN(int64_t written, ElementCount(iteration.written_shape));
  if (elements > 0 || (written > 0 && source.kind == kernel::KernelKind::kReduction)) {
    AH_RETURN_IF_ERROR(
        backend(bound.caller()).user_kernels().RunUserKernel(QueueOf(bound.caller()), call));
  }
  for (const auto& [temporary, out] : copy_back)
    AH_RETURN_IF_ERROR(CopyInto(bound.caller(), temporary, out));

  AH_ASSIGN_OR_RETURN(std::vector<ArrayTable::RecordPtr> registered,
                      RegisterAll(std::move(created)));
  std::vector<ArrayTable::RecordPtr> results;
  size_t next = 0;
  for (size_t o = 0; o < output_count; ++o) {
    results.push_back(outs[o] ? outs[o] : registered[next++]);
  }
  return results;
}

}  // namespace arrayhub
