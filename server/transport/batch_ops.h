// The ops a Batch can hold, one kind at a time: how messages name each, what PlanBatch needs to
// know of it (the earlier results it reads or writes into), and its decoding into the spec its
// own RPC's engine method takes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arrayhub/v1/service.pb.h"
#include "server/core/batch_plan.h"
#include "server/core/batch_runner.h"
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

// For a reduce op that makes a new array of a batch result: that result's op.
std::optional<int64_t> ReducedResult(const BatchOp& op);

// The op decoded as its own RPC's request is, the batch results it reads named through
// `results`; the batch runner runs it (server/core/batch_runner.h).
absl::StatusOr<BatchOpSpec> BatchOpSpecFromProto(const BatchOp& op, const BatchResults& results);

}  // namespace arrayhub
