#include "server/core/user_kernel_rules.h"

#include <fmt/format.h>

#include <algorithm>

#include "server/common/status_macros.h"
#include "server/core/broadcast.h"
#include "server/core/reduction_rules.h"

namespace arrayhub {
namespace {

absl::Status OutShapeMismatch(const Shape& out, const Shape& expected) {
  return absl::InvalidArgumentError(fmt::format("Out shape is mismatched: {} while {} is expected.",
                                                FormatShape(out), FormatShape(expected)));
}

// The broadcast shape of the non-raw array arguments; nullopt when there are none.
absl::StatusOr<std::optional<Shape>> BroadcastArguments(const KernelShapes& shapes) {
  std::vector<Shape> arrays;
  for (const std::optional<Shape>& shape : shapes.inputs) {
    if (shape) arrays.push_back(*shape);
  }
  if (arrays.empty()) return std::optional<Shape>();
  AH_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(arrays));
  return std::optional<Shape>(std::move(shape));
}

// The first out= array given for a non-raw output parameter.
std::optional<Shape> FirstOutShape(const KernelShapes& shapes) {
  for (const std::optional<Shape>& shape : shapes.outputs) {
    if (shape) return shape;
  }
  return std::nullopt;
}

absl::StatusOr<KernelIteration> Elementwise(const KernelShapes& shapes,
                                            const std::vector<bool>& raw_outputs,
                                            std::optional<int64_t> size) {
  AH_ASSIGN_OR_RETURN(std::optional<Shape> broadcast, BroadcastArguments(shapes));
  KernelIteration iteration;
  if (size) {
    if (broadcast) {
      return absl::InvalidArgumentError(
          "Specified 'size' can be used only if all of the ndarray are 'raw'.");
    }
    if (*size < 0) {
      return absl::InvalidArgumentError(fmt::format("size must not be negative, got {}", *size));
    }
    iteration.shape = {*size};
  } else if (broadcast) {
    iteration.shape = *broadcast;
  } else if (std::optional<Shape> out = FirstOutShape(shapes)) {
    iteration.shape = *out;
  } else {
    return absl::InvalidArgumentError("Loop size is undecided.");
  }
  for (size_t o = 0; o < shapes.outputs.size(); ++o) {
    if (shapes.outputs[o] && *shapes.outputs[o] != iteration.shape) {
      return OutShapeMismatch(*shapes.outputs[o], iteration.shape);
    }
  }
  if (!size) {
    for (size_t o = 0; o < raw_outputs.size(); ++o) {
      // Only raw outputs given no out= array are flagged: those have no size of their own.
      if (raw_outputs[o]) {
        return absl::InvalidArgumentError("Output array size is Undecided");
      }
    }
  }
  iteration.output_shape = iteration.shape;
  iteration.written_shape = iteration.shape;
  return iteration;
}

absl::StatusOr<KernelIteration> Reduction(const kernel::KernelSource& source,
                                          const KernelShapes& shapes,
                                          const std::optional<std::vector<int64_t>>& axes,
                                          bool keepdims) {
  AH_ASSIGN_OR_RETURN(std::optional<Shape> broadcast, BroadcastArguments(shapes));
  KernelIteration iteration;
  iteration.shape = broadcast.value_or(Shape{});
  // numpy.sum's axis rules (normalized, sorted, "duplicate value in 'axis'", AxisError).
  AH_ASSIGN_OR_RETURN(ReduceResolution r, ResolveReduce(ReduceOp::kSum, DType::kFloat64,
                                                        iteration.shape, axes, std::nullopt, 0));
  iteration.reduce_axes = r.axes;
  iteration.written_shape = r.result_shape;
  iteration.output_shape = keepdims ? r.keepdims_shape : r.result_shape;
  const bool empty = std::any_of(r.axes.begin(), r.axes.end(),
                                 [&](int64_t axis) { return iteration.shape[axis] == 0; });
  if (empty && source.identity.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "zero-size array to reduction operation {} which has no identity", source.name));
  }
  for (const std::optional<Shape>& out : shapes.outputs) {
    if (out && *out != iteration.output_shape) {
      return OutShapeMismatch(*out, iteration.output_shape);
    }
  }
  return iteration;
}

void Append(std::string& key, std::string_view field) {
  key += std::to_string(field.size());
  key += ':';
  key += field;
}

}  // namespace

absl::StatusOr<KernelIteration> ResolveKernelIteration(
    const kernel::KernelSource& source, const KernelShapes& shapes,
    const std::vector<bool>& raw_outputs, std::optional<int64_t> size,
    const std::optional<std::vector<int64_t>>& axes, bool keepdims) {
  if (source.kind == kernel::KernelKind::kElementwise) {
    if (axes || keepdims) {
      return absl::InvalidArgumentError("axis and keepdims are for reduction kernels");
    }
    return Elementwise(shapes, raw_outputs, size);
  }
  if (size) return absl::InvalidArgumentError("size is for elementwise kernels");
  return Reduction(source, shapes, axes, keepdims);
}

std::string KernelCacheKey(const kernel::KernelSource& source, const kernel::ArgumentTypes& types) {
  std::string key;
  key += source.kind == kernel::KernelKind::kElementwise ? 'E' : 'R';
  for (const std::string* field :
       {&source.in_params, &source.out_params, &source.operation, &source.map_expr,
        &source.reduce_expr, &source.post_map_expr, &source.identity, &source.reduce_type,
        &source.preamble, &source.name}) {
    Append(key, *field);
  }
  for (const kernel::ArgumentTypes::Input& input : types.inputs) {
    Append(key, fmt::format("{}{}", input.array ? 'a' : 's', DTypeName(input.dtype)));
  }
  for (const std::optional<DType>& output : types.outputs) {
    Append(key, output ? DTypeName(*output) : "-");
  }
  return key;
}

}  // namespace arrayhub
