// Runs a Batch's ops for one caller: in order, runs of elementwise ops that make new arrays as
// one chain (Engine::ElementwiseChain, whose results that nothing after the run reads and the
// client does not keep never become arrays), with the reduction that follows a run and reads
// one of its results, each result that is not kept freed as soon as no
// later op reads it (BatchPlan), and whatever the batch made and did not hand to the caller
// freed when it ends, so that a failed batch leaves no array behind. The transport decodes
// each op (its operands name earlier results, so an op is decoded only once those exist) and
// encodes the answer; the runner keeps the results and decides what runs when.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/core/array_table.h"
#include "server/core/batch_plan.h"
#include "server/core/compute_specs.h"
#include "server/core/engine.h"
#include "server/core/handle.h"

namespace arrayhub {

using BatchRecords = std::vector<ArrayTable::RecordPtr>;

// The results of the ops a running Batch has run so far, which later ops of it read
// (batch_result, batch_handle, batch_array) or write into (out_batch_result). The transport's
// converters take one inside a Batch only; without it, a field naming a batch result is
// INVALID_ARGUMENT.
class BatchResults {
 public:
  virtual ~BatchResults() = default;
  // The handle of op `op`'s result (PlanBatch has checked that it exists and is one array).
  virtual std::string HandleOf(int64_t op) const = 0;
  // Op `op`'s result as an operand: its handle, or inside an elementwise chain an earlier
  // op's value.
  virtual OperandSpec OperandOf(int64_t op) const {
    return OperandSpec{.handle = HandleOf(op), .scalar = std::nullopt, .chain_value = std::nullopt};
  }
};

// A Batch op decoded: the spec the Engine method of its own RPC takes.
struct BatchKernelOp {
  RunKernelSpec spec;
  bool writes_into_out = false;  // Every output names an existing array.
};
struct BatchCopyToDeviceOp {
  std::string handle;
  int device = 0;
};
struct BatchRecordEventOp {
  uint64_t event_id = 0;
};
using BatchOpSpec = std::variant<ElementwiseSpec, MatmulSpec, ReduceSpec, ViewSpec, ArrayOpSpec,
                                 CreateSpec, GetItemSpec, TensorProductSpec, LinalgSpec, FftSpec,
                                 BatchKernelOp, BatchCopyToDeviceOp, BatchRecordEventOp>;

// Runs `op` as its own RPC would: its arrays (none for record_event, several for the ops that
// give several).
absl::StatusOr<BatchRecords> RunBatchOp(Engine& engine, const Caller& caller,
                                        const BatchOpSpec& op);

// The ops of one Batch as the runner asks for them, op by op (indices as in the request).
class BatchOps {
 public:
  virtual ~BatchOps() = default;
  // An elementwise op that makes a new array: one that can run in an elementwise chain.
  virtual bool Chainable(int64_t op) const = 0;
  // The op writes its result into an existing array or an earlier result (NumPy's out=).
  virtual bool WritesIntoOut(int64_t op) const = 0;
  // For a reduction that makes a new array of an earlier op's result (its input a batch
  // result): that op, whose chain can fold it.
  virtual std::optional<int64_t> ReducedResult(int64_t op) const = 0;
  // A chainable op's spec, its operands named through `results`.
  virtual absl::StatusOr<ElementwiseSpec> ChainSpec(int64_t op,
                                                    const BatchResults& results) const = 0;
  // The op decoded, the batch results it reads named through `results`.
  virtual absl::StatusOr<BatchOpSpec> Decode(int64_t op, const BatchResults& results) const = 0;
};

// One Batch's run: its results by op, and the loop that makes them. Destroying it frees every
// array the batch made that Keep did not hand to the caller.
class BatchRunner final : public BatchResults {
 public:
  // `steps` and `plan` are PlanBatch's input and answer; both outlive the runner.
  BatchRunner(Engine& engine, const Caller& caller, std::span<const BatchStep> steps,
              const BatchPlan& plan);
  ~BatchRunner() override;
  BatchRunner(const BatchRunner&) = delete;
  BatchRunner& operator=(const BatchRunner&) = delete;

  // Runs every op; the first failure ends the batch, its message naming the op
  // ("ops[2] (elementwise add): ..."), as does a stop of the call between ops.
  absl::Status Run(const BatchOps& ops);

  // The single array of an op that PlanBatch let later ops read, the client keep or the batch
  // read back.
  const ArrayRecord& Of(int64_t op) const { return *arrays_[op].front(); }
  std::string HandleOf(int64_t op) const override { return Of(op).handle.ToString(); }
  // Op `op`'s array outlives the batch (the client keeps it).
  void Keep(int64_t op) { created_[op] = false; }

 private:
  void Set(int64_t op, BatchRecords arrays, bool created);
  void Free(int64_t op);
  // Runs ops [start, end) as one elementwise chain, and op `end` with it when `reduced` (a
  // reduction of a result of the chain).
  absl::Status RunChain(const BatchOps& ops, int64_t start, int64_t end, bool reduced);

  Engine& engine_;
  const Caller& caller_;
  std::span<const BatchStep> steps_;
  const BatchPlan& plan_;
  std::vector<BatchRecords> arrays_;
  std::vector<bool> created_;  // Made by the batch (not an out array), so the batch frees it.
};

// Frees each handle on its own (a Batch's `free`, after its ops). The only failure is
// NOT_FOUND, for a handle already gone or one the caller may not see (the same answer, so
// nothing can be probed): it is skipped.
void FreeEach(Engine& engine, const Caller& caller, const std::vector<Handle>& handles);

}  // namespace arrayhub
