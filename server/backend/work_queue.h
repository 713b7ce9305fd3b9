// Ordered device work. Each session has a queue of its own (a CUDA stream on the GPU), so the
// work of one session runs in the order it was asked for while the client already holds the
// answer, and the work of different sessions overlaps. See docs/execution.md.
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "server/backend/buffer.h"
#include "server/backend/timestamp.h"

namespace arrayhub {

// Opaque to core: what Queues::NewQueue made. Buffers allocated while a queue is bound belong
// to it: their later users wait for its work, and their memory goes back in its order.
class WorkQueue {
 public:
  virtual ~WorkQueue() = default;
};

// One caller's hold on a queue (Queues::Bind): handed to every backend call that enqueues work
// or touches buffers, as its first argument, so that the call's work goes to that queue, ordered
// between the earlier and the later work of the queues owning the buffers it borrowed
// (Queues::Use): their writes and their frees. A binding serves one thread at a time; it is
// what a backend call's order is read from, never the calling thread.
// Each backend hands out bindings of its own type and refuses another's (INTERNAL); a plain
// QueueBinding is no backend's, so every call refuses it: what an unbound caller holds.
class QueueBinding {
 public:
  QueueBinding() = default;
  QueueBinding(const QueueBinding&) = delete;
  QueueBinding& operator=(const QueueBinding&) = delete;
  virtual ~QueueBinding() = default;
};

// `binding` as `Own`, the type of binding backend `backend` hands out; INTERNAL when it is
// another backend's or none (an unbound caller's): no call of that backend runs with it.
template <typename Own>
absl::StatusOr<Own*> OwnBinding(QueueBinding& binding, const char* backend) {
  auto* own = dynamic_cast<Own*>(&binding);
  if (own == nullptr) {
    return absl::InternalError(absl::StrCat("a ", backend,
                                            " backend call was handed no binding of a ", backend,
                                            " queue (Queues::Bind)"));
  }
  return own;
}

// A backend's ordering of work: its queues, the bindings its calls are handed, and points in a
// queue's order whose time can be read (timestamp.h).
class Queues {
 public:
  virtual ~Queues() = default;

  // A new queue for a session of tenant `memory_owner`: memory allocated while it is bound is
  // that tenant's (on a backend that keeps tenants' memory apart for export, see
  // HostExchange::ExportMemory).
  virtual absl::StatusOr<std::shared_ptr<WorkQueue>> NewQueue(std::string_view memory_owner) = 0;
  // A binding of `queue` (null: the backend's default queue) for one caller's calls; `label`
  // names them in the report of a device error found later.
  virtual std::unique_ptr<QueueBinding> Bind(std::shared_ptr<WorkQueue> queue,
                                             std::string_view label) = 0;
  // The calls of `binding` are about to read or write `buffer`: from now on each of them is a
  // critical section over the queue that owns it too, after the work that queue enqueued before
  // the call and before the work it enqueues after (docs/execution.md). Nothing to do when the
  // buffer is the bound queue's own.
  virtual absl::Status Use(QueueBinding& binding, const std::shared_ptr<Buffer>& buffer) = 0;

  // A point in the bound queue's order, its time taken when the queue reaches it (after the
  // work enqueued before it, before the work enqueued after).
  virtual absl::StatusOr<std::shared_ptr<Timestamp>> RecordTimestamp(QueueBinding& binding) = 0;
  // Milliseconds from `start` to `end`, two timestamps of this backend (negative when `end`
  // was reached first); waits until the queues have reached both.
  virtual absl::StatusOr<double> ElapsedMilliseconds(Timestamp& start, Timestamp& end) = 0;
};

}  // namespace arrayhub
