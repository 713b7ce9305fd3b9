// What the three ways in for a batch share (batch_rpcs.cc): the Batch call, BatchStream and
// batch lanes (batch_lane_rpcs.cc).
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "arrayhub/v1/compute.pb.h"
#include "server/core/array_table.h"

namespace arrayhub {

class ArrayHubService;

// Runs `request` as `caller` (the batch's session, looked up for this batch: its error is the
// batch's) into `answer`: its response, or the error the Batch call would fail with. `where`
// and `tenant` go to the debug log's line for the batch ("a stream", "a lane"). Answers the
// batch's status.
absl::Status AnswerStreamedBatch(ArrayHubService& service, const absl::StatusOr<Caller>& caller,
                                 const v1::BatchRequest& request, std::string_view where,
                                 std::string_view tenant, v1::BatchStreamResponse* answer);

}  // namespace arrayhub
