// The ops a Batch can hold, one kind at a time: how messages name each, what PlanBatch needs to
// know of it (the earlier results it reads or writes into), and how it runs, exactly as its
// own RPC would.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arrayhub/v1/service.pb.h"
#include "server/core/batch_plan.h"
#include "server/core/engine.h"
#include "server/transport/convert.h"

namespace arrayhub {

using BatchOp = v1::BatchRequest::Op;

// The op as PlanBatch sees it, its label as messages name it ("elementwise add", "get_item").
BatchStep StepOf(const BatchOp& op);

// The op writes its result into an existing array or an earlier result (NumPy's out=).
bool WritesIntoOut(const BatchOp& op);

// An elementwise op that makes a new array: one that can run in an elementwise chain.
bool Chainable(const BatchOp& op);

// Runs the op as its own RPC would, the batch results it reads named through `results`.
absl::StatusOr<std::vector<ArrayTable::RecordPtr>> RunBatchOp(Engine& engine, const Caller& caller,
                                                              const BatchOp& op,
                                                              const BatchResults& results);

}  // namespace arrayhub
