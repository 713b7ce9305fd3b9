// numpy.nonzero's two passes as core runs them: CountNonzero sizes the result, then Nonzero
// fills it. Another call may write the input between the two; the backend never writes more
// positions than were allocated, and this turns a count that moved into an error instead of
// a result with missing or uninitialised positions.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "server/backend/indexing.h"

namespace arrayhub {

// Runs `call`, whose coordinates hold `count` positions each, and answers ABORTED when the
// input did not have exactly `count` nonzero elements as it was filled.
absl::Status FillNonzero(IndexingKernels& indexing, QueueBinding& queue, const NonzeroCall& call,
                         int64_t count);

}  // namespace arrayhub
