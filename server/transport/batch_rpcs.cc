// Batch: ops run in order, each reading earlier results through the internal handles that the
// batch gives them; only the results the client keeps are answered, the rest are freed as soon
// as no later op reads them (server/core/batch_plan.h has the rules). A run of elementwise ops
// that make new arrays runs as one chain (Engine::ElementwiseChain): its results that nothing
// after the run reads and the client does not keep never become arrays.
#include <fmt/format.h>

#include <string>

#include "server/core/batch_plan.h"
#include "server/core/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {
namespace {

using BatchOp = v1::BatchRequest::Op;
using Records = std::vector<ArrayTable::RecordPtr>;

// The arrays of a running batch, by op. Those the batch created (not an `out` array an op
// wrote into) are freed by Free, or when the batch ends, unless Keep handed them to the caller:
// a failed batch leaves none behind.
class BatchArrays final : public BatchResults {
 public:
  BatchArrays(Engine& engine, const Caller& caller, size_t ops)
      : engine_(engine), caller_(caller), arrays_(ops), created_(ops) {}
  ~BatchArrays() override {
    for (size_t op = 0; op < arrays_.size(); ++op) Free(static_cast<int64_t>(op));
  }
  BatchArrays(const BatchArrays&) = delete;
  BatchArrays& operator=(const BatchArrays&) = delete;

  void Set(int64_t op, Records arrays, bool created) {
    arrays_[op] = std::move(arrays);
    created_[op] = created;
  }
  // The single array of an op that PlanBatch let later ops read or the client keep.
  const ArrayRecord& Of(int64_t op) const { return *arrays_[op].front(); }
  std::string HandleOf(int64_t op) const override { return Of(op).handle.ToString(); }
  void Keep(int64_t op) { created_[op] = false; }
  void Free(int64_t op) {
    if (created_[op]) {
      for (const ArrayTable::RecordPtr& array : arrays_[op]) {
        // NOT_FOUND only when the session closed during the call and took its arrays along.
        engine_.Free(caller_, std::vector<Handle>{array->handle}).IgnoreError();
      }
    }
    arrays_[op].clear();
    created_[op] = false;
  }

 private:
  Engine& engine_;
  const Caller& caller_;
  std::vector<Records> arrays_;
  std::vector<bool> created_;
};

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
    if (operands[k].value_case() == v1::Operand::kBatchResult) {
      step.references.push_back({.field = "operands[" + std::to_string(k) + "].batch_result",
                                 .op = operands[k].batch_result()});
    }
  }
}

BatchStep StepOf(const BatchOp& op) {
  BatchStep step{.label = LabelOf(op),
                 .has_op = op.op_case() != BatchOp::OP_NOT_SET,
                 .gives_several = false,
                 .references = {}};
  switch (op.op_case()) {
    case BatchOp::kElementwise:
      AddReferences(op.elementwise().operands(), step);
      break;
    case BatchOp::kMatmul:
      AddReference(op.matmul().a(), "a", step);
      AddReference(op.matmul().b(), "b", step);
      break;
    case BatchOp::kReduce:
      AddReference(op.reduce().input(), "input", step);
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
    case BatchOp::kCreate:
    case BatchOp::OP_NOT_SET:
      break;
  }
  return step;
}

// The existing array an op writes its result into (NumPy's out=); empty when it makes one.
std::string_view OutOf(const BatchOp& op) {
  switch (op.op_case()) {
    case BatchOp::kElementwise:
      return op.elementwise().out();
    case BatchOp::kMatmul:
      return op.matmul().out();
    case BatchOp::kReduce:
      return op.reduce().out();
    default:
      return "";
  }
}

absl::StatusOr<Records> One(absl::StatusOr<ArrayTable::RecordPtr> result) {
  if (!result.ok()) return result.status();
  return Records{*std::move(result)};
}

// Inside a run of elementwise ops [start, ...): results of the run are chain values, earlier
// ones arrays.
class ChainOperands final : public BatchResults {
 public:
  ChainOperands(const BatchResults& before, int64_t start) : before_(before), start_(start) {}
  std::string HandleOf(int64_t op) const override { return before_.HandleOf(op); }
  OperandSpec OperandOf(int64_t op) const override {
    if (op < start_) return before_.OperandOf(op);
    return OperandSpec{.handle = std::nullopt, .scalar = std::nullopt, .chain_value = op - start_};
  }

 private:
  const BatchResults& before_;
  int64_t start_;
};

// An elementwise op that makes a new array: one that can run in an elementwise chain.
bool Chainable(const BatchOp& op) {
  return op.op_case() == BatchOp::kElementwise && op.elementwise().out().empty();
}

// Runs an op as its own RPC would, the batch results it reads named by their handles.
absl::StatusOr<Records> Run(Engine& engine, const Caller& caller, const BatchOp& op,
                            const BatchResults& results) {
  switch (op.op_case()) {
    case BatchOp::kElementwise: {
      AH_ASSIGN_OR_RETURN(ElementwiseSpec spec,
                          ElementwiseSpecFromProto(op.elementwise(), &results));
      return One(engine.Elementwise(caller, spec));
    }
    case BatchOp::kMatmul: {
      AH_ASSIGN_OR_RETURN(MatmulSpec spec, MatmulSpecFromProto(op.matmul(), &results));
      return One(engine.Matmul(caller, spec));
    }
    case BatchOp::kReduce: {
      AH_ASSIGN_OR_RETURN(ReduceSpec spec, ReduceSpecFromProto(op.reduce(), &results));
      return One(engine.Reduce(caller, spec));
    }
    case BatchOp::kView: {
      AH_ASSIGN_OR_RETURN(ViewSpec spec, ViewSpecFromProto(op.view(), &results));
      return One(engine.View(caller, spec));
    }
    case BatchOp::kArrayOp: {
      AH_ASSIGN_OR_RETURN(ArrayOpSpec spec, ArrayOpSpecFromProto(op.array_op(), &results));
      return engine.ArrayOp(caller, spec);
    }
    case BatchOp::kCreate: {
      AH_ASSIGN_OR_RETURN(CreateSpec spec, CreateSpecFromProto(op.create()));
      return One(engine.Create(caller, spec));
    }
    case BatchOp::OP_NOT_SET:
      break;
  }
  return absl::InternalError("an op with no op set got past PlanBatch");
}

}  // namespace

grpc::Status ArrayHubService::Batch(grpc::ServerContext* context, const v1::BatchRequest* request,
                                    v1::BatchResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_RETURN_IF_ERROR(CheckBatchSize(request->ops_size(), engine_.limits().max_batch_ops));
    std::vector<BatchStep> steps;
    steps.reserve(request->ops_size());
    for (const BatchOp& op : request->ops()) steps.push_back(StepOf(op));
    const std::span<const int32_t> keep(request->keep().data(), request->keep().size());
    AH_ASSIGN_OR_RETURN(BatchPlan plan, PlanBatch(steps, keep));

    BatchArrays arrays(engine_, caller, steps.size());
    const int ops = request->ops_size();
    for (int i = 0; i < ops;) {
      // A caller that went away, or a drain that ran out, ends the batch here; `arrays` frees
      // what it made.
      if (absl::Status stop = CheckStop(caller.stop.get()); !stop.ok()) {
        return absl::Status(
            stop.code(), fmt::format("{} (before ops[{}] ({}) of {})", std::string(stop.message()),
                                     i, steps[i].label, ops));
      }
      // A run of two or more elementwise ops goes to the engine whole, as a chain.
      int end = i;
      while (engine_.limits().fuse_batches && end < ops && Chainable(request->ops(end))) ++end;
      if (end - i >= 2) {
        const ChainOperands operands(arrays, i);
        std::vector<ChainOp> chain;
        for (int j = i; j < end; ++j) {
          absl::StatusOr<ElementwiseSpec> spec =
              ElementwiseSpecFromProto(request->ops(j).elementwise(), &operands);
          if (!spec.ok()) return InBatchOp(spec.status(), j, steps[j].label);
          chain.push_back({.batch_op = j,
                           .label = steps[j].label,
                           .spec = *std::move(spec),
                           .keep = plan.kept[j] || plan.last_use[j] >= end});
        }
        AH_ASSIGN_OR_RETURN(Records results, engine_.ElementwiseChain(caller, chain));
        for (int j = i; j < end; ++j) {
          if (results[j - i]) arrays.Set(j, {results[j - i]}, /*created=*/true);
        }
        for (int j = i; j < end; ++j) {
          for (int64_t done : plan.free_after[j]) arrays.Free(done);
        }
        i = end;
        continue;
      }
      const BatchOp& op = request->ops(i);
      absl::StatusOr<Records> results = Run(engine_, caller, op, arrays);
      if (!results.ok()) return InBatchOp(results.status(), i, steps[i].label);
      arrays.Set(i, *std::move(results), OutOf(op).empty());
      for (int64_t done : plan.free_after[i]) arrays.Free(done);
      ++i;
    }
    for (int32_t op : keep) {
      FillInfo(arrays.Of(op), response->add_results());
      arrays.Keep(op);
    }
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
