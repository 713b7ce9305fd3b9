// The rules of a collective across devices (CollectiveRequest in arrays.proto; docs/devices.md):
// which dtypes each reduction takes, and the shape and element count of the results.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/backend/collectives.h"
#include "server/common/dtype.h"
#include "server/common/shape.h"

namespace arrayhub {

struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  // The reductions' op; none for the others.
  std::optional<CollectiveReduction> reduction = std::nullopt;
  std::vector<std::string> handles = {};  // One array per rank; kBroadcast: the array it sends.
  std::vector<int> devices = {};          // kBroadcast: the ranks' devices. Others: empty.
  int root = 0;                           // kReduce: the rank (index of `handles`) that receives.
};

// "all_reduce", "reduce", ...: what messages call the kind.
std::string_view CollectiveName(CollectiveKind kind);
// "sum", "prod", "min", "max", "avg".
std::string_view ReductionName(CollectiveReduction reduction);

// What one collective of `ranks` ranks over arrays of `dtype` and `shape` makes, once the
// arrays are known to match: each result's shape, and the CollectiveCall's dtype and count.
struct CollectivePlan {
  Shape result_shape;
  DType dtype = DType::kUInt8;  // The inputs' for a reduction; kUInt8 (bytes) for the others.
  int64_t count = 0;            // In CollectiveCall's sense (collectives.h).
};

// INVALID_ARGUMENT, prefixed with the kind's name, when the op, root, dtype or shape do not
// suit the kind: a reduction without an op or another kind with one, a root out of range, a
// dtype the reduction does not take (NCCL's types), a 0-d array where the kind splits or joins
// along axis 0, or a first axis that does not split into `ranks` equal parts.
absl::StatusOr<CollectivePlan> PlanCollective(const CollectiveSpec& spec, DType dtype,
                                              const Shape& shape, int ranks);

}  // namespace arrayhub
