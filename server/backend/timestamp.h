// Points in a queue's order whose time the backend reads when the queue reaches them: what a
// CUDA event with timing is, on both backends (docs/execution.md, "Events"). Core keeps them
// per session; the backend records them and measures between two.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace arrayhub {

// Opaque to core: what Queues::RecordTimestamp made. A timestamp may outlive its queue (the
// session closed while another call still measures with it).
class Timestamp {
 public:
  virtual ~Timestamp() = default;
  // Whether the queue has reached the point: the work enqueued before it is done. Never waits.
  // A failure of that work (a kernel fault) is its error.
  virtual absl::StatusOr<bool> Reached() = 0;
  // Waits until the queue has reached the point; the error of the work before it, if any.
  virtual absl::Status Wait() = 0;
};

}  // namespace arrayhub
