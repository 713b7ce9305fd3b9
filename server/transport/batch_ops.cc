#include "server/transport/batch_ops.h"

#include <string_view>
#include <utility>

#include "server/common/status_macros.h"
#include "server/core/linalg_rules.h"

namespace arrayhub {
namespace {

// "elementwise add", or the kind alone when the op names nothing.
std::string Label(std::string_view kind, std::string_view name) {
  std::string label(kind);
  if (!name.empty()) label.append(" ").append(name);
  return label;
}

// The name of the oneof member that is set in `message` ("reshape", "zeros"); empty if none.
template <typename Message>
std::string_view SetMember(const Message& message, int field_number) {
  const google::protobuf::FieldDescriptor* field =
      message.GetDescriptor()->FindFieldByNumber(field_number);
  return field ? std::string_view(field->name()) : std::string_view();
}

std::string LabelOf(const BatchOp& op) {
  switch (op.op_case()) {
    case BatchOp::kElementwise:
      return Label("elementwise", op.elementwise().op());
    case BatchOp::kMatmul:
      return "matmul";
    case BatchOp::kReduce:
      return Label("reduce", op.reduce().op());
    case BatchOp::kView:
      return Label("view", SetMember(op.view(), op.view().op_case()));
    case BatchOp::kArrayOp:
      return Label("array_op", op.array_op().op());
    case BatchOp::kCreate:
      return Label("create", SetMember(op.create(), op.create().kind_case()));
    case BatchOp::kGetItem:
      return "get_item";
    case BatchOp::kTensorProduct:
      return Label("tensor_product", op.tensor_product().op());
    case BatchOp::kLinalg:
      return Label("linalg", op.linalg().op());
    case BatchOp::kFft:
      return Label("fft", op.fft().op());
    case BatchOp::kRunKernel:
      return Label("run_kernel", op.run_kernel().source().name());
    case BatchOp::kCopyToDevice:
      return "copy_to_device";
    case BatchOp::kRecordEvent:
      return "record_event";
    case BatchOp::OP_NOT_SET:
      break;
  }
  return "";
}

void AddReference(const v1::Operand& operand, std::string_view field, BatchStep& step) {
  if (operand.value_case() == v1::Operand::kBatchResult) {
    step.references.push_back(
        {.field = std::string(field) + ".batch_result", .op = operand.batch_result()});
  }
}

void AddReferences(const google::protobuf::RepeatedPtrField<v1::Operand>& operands,
                   BatchStep& step) {
  for (int k = 0; k < operands.size(); ++k) {
    AddReference(operands[k], "operands[" + std::to_string(k) + "]", step);
  }
}

// The `out_array` oneof of an elementwise, matmul or reduce request, when it names a result.
template <typename Request>
void AddOutReference(const Request& request, BatchStep& step) {
  if (request.out_array_case() == Request::kOutBatchResult) {
    step.references.push_back(
        {.field = "out_batch_result", .op = request.out_batch_result(), .is_out = true});
  }
}

void AddGetItemReferences(const v1::GetItemRequest& request, BatchStep& step) {
  if (request.array_case() == v1::GetItemRequest::kBatchHandle) {
    step.references.push_back({.field = "batch_handle", .op = request.batch_handle()});
  }
  for (int k = 0; k < request.index_size(); ++k) {
    if (request.index(k).item_case() == v1::IndexItem::kBatchArray) {
      step.references.push_back({.field = "index[" + std::to_string(k) + "].batch_array",
                                 .op = request.index(k).batch_array()});
    }
  }
}

void AddKernelReferences(const v1::RunKernelRequest& request, BatchStep& step) {
  for (int k = 0; k < request.arguments_size(); ++k) {
    if (request.arguments(k).value_case() == v1::KernelArgument::kBatchResult) {
      step.references.push_back({.field = "arguments[" + std::to_string(k) + "].batch_result",
                                 .op = request.arguments(k).batch_result()});
    }
  }
  for (int k = 0; k < request.outputs_size(); ++k) {
    if (request.outputs(k).out_array_case() == v1::KernelOutput::kOutBatchResult) {
      step.references.push_back({.field = "outputs[" + std::to_string(k) + "].out_batch_result",
                                 .op = request.outputs(k).out_batch_result(),
                                 .is_out = true});
    }
  }
  step.gives_several = request.outputs_size() > 1;
}

// A kernel writes into out= arrays only: every output names one.
bool KernelWritesIntoOut(const v1::RunKernelRequest& request) {
  if (request.outputs().empty()) return false;
  for (const v1::KernelOutput& output : request.outputs()) {
    if (output.out_array_case() == v1::KernelOutput::OUT_ARRAY_NOT_SET) return false;
  }
  return true;
}

template <typename Request>
bool HasOut(const Request& request) {
  return request.out_array_case() == Request::kOutBatchResult || !request.out().empty();
}

// The linalg routines that give several arrays (NumPy's tuples), as the request asks for them;
// an unknown routine is refused when the op is decoded.
bool LinalgGivesSeveral(const v1::LinalgRequest& request) {
  const std::optional<LinalgOp> op = LinalgOpFromName(request.op());
  return op && LinalgGivesSeveral(*op, request.compute_uv(), request.mode());
}

}  // namespace

BatchStep StepOf(const BatchOp& op) {
  BatchStep step{.label = LabelOf(op),
                 .has_op = op.op_case() != BatchOp::OP_NOT_SET,
                 .gives_several = false,
                 .gives_none = op.op_case() == BatchOp::kRecordEvent,
                 .references = {}};
  switch (op.op_case()) {
    case BatchOp::kElementwise:
      AddReferences(op.elementwise().operands(), step);
      AddOutReference(op.elementwise(), step);
      break;
    case BatchOp::kMatmul:
      AddReference(op.matmul().a(), "a", step);
      AddReference(op.matmul().b(), "b", step);
      AddOutReference(op.matmul(), step);
      break;
    case BatchOp::kReduce:
      AddReference(op.reduce().input(), "input", step);
      AddOutReference(op.reduce(), step);
      break;
    case BatchOp::kView:
      if (op.view().array_case() == v1::ViewRequest::kBatchHandle) {
        step.references.push_back({.field = "batch_handle", .op = op.view().batch_handle()});
      }
      break;
    case BatchOp::kArrayOp: {
      AddReferences(op.array_op().operands(), step);
      const std::optional<ArrayOpKind> kind = ArrayOpFromName(op.array_op().op());
      step.gives_several = kind && ArrayOpGivesSeveral(*kind);
      break;
    }
    case BatchOp::kGetItem:
      AddGetItemReferences(op.get_item(), step);
      break;
    case BatchOp::kTensorProduct:
      AddReference(op.tensor_product().a(), "a", step);
      AddReference(op.tensor_product().b(), "b", step);
      AddOutReference(op.tensor_product(), step);
      break;
    case BatchOp::kLinalg:
      AddReferences(op.linalg().operands(), step);
      step.gives_several = LinalgGivesSeveral(op.linalg());
      break;
    case BatchOp::kFft:
      AddReference(op.fft().input(), "input", step);
      break;
    case BatchOp::kRunKernel:
      AddKernelReferences(op.run_kernel(), step);
      break;
    case BatchOp::kCopyToDevice:
      if (op.copy_to_device().array_case() == v1::CopyToDeviceRequest::kBatchHandle) {
        step.references.push_back(
            {.field = "batch_handle", .op = op.copy_to_device().batch_handle()});
      }
      break;
    case BatchOp::kCreate:
    case BatchOp::kRecordEvent:
    case BatchOp::OP_NOT_SET:
      break;
  }
  return step;
}

bool WritesIntoOut(const BatchOp& op) {
  switch (op.op_case()) {
    case BatchOp::kElementwise:
      return HasOut(op.elementwise());
    case BatchOp::kMatmul:
      return HasOut(op.matmul());
    case BatchOp::kReduce:
      return HasOut(op.reduce());
    case BatchOp::kTensorProduct:
      return HasOut(op.tensor_product());
    case BatchOp::kRunKernel:
      return KernelWritesIntoOut(op.run_kernel());
    default:
      return false;
  }
}

bool Chainable(const BatchOp& op) {
  return op.op_case() == BatchOp::kElementwise && !WritesIntoOut(op);
}

std::optional<int64_t> ReducedResult(const BatchOp& op) {
  if (op.op_case() != BatchOp::kReduce || HasOut(op.reduce()) ||
      op.reduce().input().value_case() != v1::Operand::kBatchResult) {
    return std::nullopt;
  }
  return op.reduce().input().batch_result();
}

absl::StatusOr<BatchOpSpec> BatchOpSpecFromProto(const BatchOp& op, const BatchResults& results) {
  switch (op.op_case()) {
    case BatchOp::kElementwise:
      return ElementwiseSpecFromProto(op.elementwise(), &results);
    case BatchOp::kMatmul:
      return MatmulSpecFromProto(op.matmul(), &results);
    case BatchOp::kReduce:
      return ReduceSpecFromProto(op.reduce(), &results);
    case BatchOp::kView:
      return ViewSpecFromProto(op.view(), &results);
    case BatchOp::kArrayOp:
      return ArrayOpSpecFromProto(op.array_op(), &results);
    case BatchOp::kCreate:
      return CreateSpecFromProto(op.create());
    case BatchOp::kGetItem:
      return GetItemSpecFromProto(op.get_item(), &results);
    case BatchOp::kTensorProduct:
      return TensorProductSpecFromProto(op.tensor_product(), &results);
    case BatchOp::kLinalg:
      return LinalgSpecFromProto(op.linalg(), &results);
    case BatchOp::kFft:
      return FftSpecFromProto(op.fft(), &results);
    case BatchOp::kRunKernel: {
      AH_ASSIGN_OR_RETURN(RunKernelSpec spec, RunKernelSpecFromProto(op.run_kernel(), &results));
      return BatchKernelOp{.spec = std::move(spec),
                           .writes_into_out = KernelWritesIntoOut(op.run_kernel())};
    }
    case BatchOp::kCopyToDevice: {
      AH_ASSIGN_OR_RETURN(std::string handle,
                          CopyToDeviceHandleFromProto(op.copy_to_device(), &results));
      return BatchCopyToDeviceOp{.handle = std::move(handle),
                                 .device = op.copy_to_device().device()};
    }
    case BatchOp::kRecordEvent:
      return BatchRecordEventOp{.event_id = op.record_event().event_id()};
    case BatchOp::OP_NOT_SET:
      break;
  }
  return absl::InternalError("an op with no op set got past PlanBatch");
}

}  // namespace arrayhub
