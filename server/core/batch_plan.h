// The legality of a Batch request as a whole, checked before any op runs: ops reference only
// earlier results, kept results are distinct and exist, the result read back exists, and
// whatever is read, written into, kept or read back is a single array. The plan then says when
// each result that is not kept can be freed (after its last reader, or at the end of the batch
// for the one read back). The ops themselves are validated when they run, by the engine as for
// single calls.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace arrayhub {

// An operand that names the result of op `op` of the batch.
struct BatchReference {
  std::string field;  // The operand's field, for messages ("operands[1].batch_result").
  int64_t op = 0;     // As sent: PlanBatch checks it.
  // out_batch_result: the op writes its result into op `op`'s, so its result is that array
  // (made by that op, or by the op that one wrote into): it lives as long as either is needed.
  bool is_out = false;
};

// One op of a batch, as far as the plan needs to know it.
struct BatchStep {
  std::string label;           // How messages name the op: "matmul", "elementwise add".
  bool has_op = true;          // false: the request left the op's oneof unset.
  bool gives_several = false;  // The op answers a list of arrays (split, nonzero).
  bool gives_none = false;     // The op answers no array (record_event).
  std::vector<BatchReference> references;
};

struct BatchPlan {
  // free_after[i]: the ops whose results can be freed once op i has run, because no later op
  // reads them (an op's own index when nothing reads it). Kept results, the one read back and
  // those that are another op's array (array_of) are never listed.
  std::vector<std::vector<int64_t>> free_after;
  // Per op: the last op that reads its result (itself when none), or the op count when the
  // batch reads it back at its end.
  std::vector<int64_t> last_use;
  // Per op: its result outlives the batch, because the client keeps it or an op that wrote
  // into it.
  std::vector<bool> kept;
  // Per op: the op whose array its result is: itself, or for an op that wrote into a batch
  // result (out_batch_result), that result's array_of. Only an op's own array is freed.
  std::vector<int64_t> array_of;
};

// INVALID_ARGUMENT for a batch of no ops or of more than `max_ops`. Checked on the request's
// op count before its ops are looked at, so that a huge request costs nothing more.
absl::Status CheckBatchSize(int64_t ops, int64_t max_ops);

// INVALID_ARGUMENT, naming the op, the `keep` entry or `read`, for an op with no op set, a
// reference that is not to an earlier op, a `keep` index out of range or repeated, a `read`
// index out of range, or a result of several arrays or of none that is referenced, kept or read.
// `read`: the op whose result the batch reads back after its last op, if any. `steps` has passed
// CheckBatchSize.
absl::StatusOr<BatchPlan> PlanBatch(std::span<const BatchStep> steps, std::span<const int32_t> keep,
                                    std::optional<int64_t> read = std::nullopt);

// `status` as the failure of op `index` of a batch: the same code, the message prefixed
// "ops[index] (label): ".
absl::Status InBatchOp(const absl::Status& status, int64_t index, std::string_view label);

}  // namespace arrayhub
