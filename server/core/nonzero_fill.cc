#include "server/core/nonzero_fill.h"

#include <fmt/format.h>

#include "server/common/status_macros.h"

namespace arrayhub {

absl::Status FillNonzero(IndexingKernels& indexing, QueueBinding& queue, const NonzeroCall& call,
                         int64_t count) {
  AH_ASSIGN_OR_RETURN(const int64_t found, indexing.Nonzero(queue, call));
  if (found == count) return absl::OkStatus();
  return absl::AbortedError(fmt::format(
      "the array changed while its nonzero elements were listed (another call wrote it): {} "
      "when counted, {} when filled",
      count, found));
}

}  // namespace arrayhub
