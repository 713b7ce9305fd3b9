#include "server/backend/fused_steps.h"

#include <memory>
#include <optional>
#include <vector>

#include "server/common/status_macros.h"

namespace arrayhub {

absl::Status RunFusedStepByStep(DeviceMemory& memory, ComputeKernels& compute, QueueBinding& queue,
                                const FusedElementwiseCall& call) {
  const size_t inputs = call.inputs.size();
  const size_t steps = call.steps.size();
  int64_t elements = 1;
  for (int64_t extent : call.shape) elements *= extent;

  // Where each step's value lives: an output view, or a temporary freed after its last reader.
  std::vector<std::optional<ArrayView>> values(steps);
  std::vector<std::shared_ptr<Buffer>> temporaries(steps);
  std::vector<size_t> last_reader(steps, 0);
  for (size_t s = 0; s < steps; ++s) {
    for (int operand : call.steps[s].operands) {
      if (static_cast<size_t>(operand) >= inputs) last_reader[operand - inputs] = s;
    }
  }
  if (call.reduction) last_reader[call.reduction->step] = steps;   // Read after the last step.
  std::vector<const FusedElementwiseCall::Output*> extra_outputs;  // A step's second output on.
  for (const FusedElementwiseCall::Output& output : call.outputs) {
    std::optional<ArrayView>& value = values[output.step];
    if (!value && output.view.dtype == call.steps[output.step].result_dtype) {
      value = output.view;
    } else {
      extra_outputs.push_back(&output);
    }
  }

  for (size_t s = 0; s < steps; ++s) {
    const FusedElementwiseCall::Step& step = call.steps[s];
    if (!values[s]) {
      AH_ASSIGN_OR_RETURN(temporaries[s],
                          memory.Allocate(queue, elements * ItemSize(step.result_dtype)));
      values[s] = ArrayView{.buffer = temporaries[s].get(),
                            .offset_bytes = 0,
                            .dtype = step.result_dtype,
                            .shape = call.shape,
                            .strides = ContiguousStrides(call.shape)};
    }
    ElementwiseCall single{.op = step.op,
                           .compute_dtype = step.compute_dtype,
                           .result_dtype = step.result_dtype,
                           .shape = call.shape,
                           .operands = {},
                           .output = *values[s]};
    for (int operand : step.operands) {
      if (static_cast<size_t>(operand) < inputs) {
        single.operands.push_back(call.inputs[operand]);
      } else {
        const ArrayView& value = *values[operand - inputs];
        single.operands.push_back(ElementwiseOperand{.array = value, .dtype = value.dtype});
      }
    }
    AH_RETURN_IF_ERROR(compute.Elementwise(queue, single));
    // Outputs of another dtype than the step's result are converted from its value.
    for (const FusedElementwiseCall::Output* output : extra_outputs) {
      if (static_cast<size_t>(output->step) != s) continue;
      AH_RETURN_IF_ERROR(compute.Elementwise(
          queue, ElementwiseCall{.op = ElementwiseOp::kCopy,
                                 .compute_dtype = step.result_dtype,
                                 .result_dtype = step.result_dtype,
                                 .shape = call.shape,
                                 .operands = {ElementwiseOperand{.array = *values[s],
                                                                 .dtype = step.result_dtype}},
                                 .output = output->view}));
    }
    for (size_t done = 0; done < s; ++done) {
      if (temporaries[done] && last_reader[done] == s) temporaries[done].reset();
    }
  }
  if (!call.reduction) return absl::OkStatus();
  const FusedElementwiseCall::Reduction& reduction = *call.reduction;
  ReduceCall reduce{.op = reduction.op,
                    .input = *values[reduction.step],
                    .axes = {},
                    .accumulate_dtype = reduction.accumulate_dtype,
                    .ddof = 0,
                    .output = reduction.output};
  for (size_t axis = 0; axis < call.shape.size(); ++axis) {
    reduce.axes.push_back(static_cast<int64_t>(axis));
  }
  return compute.Reduce(queue, reduce);
}

}  // namespace arrayhub
