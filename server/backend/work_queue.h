// Ordered device work. Each session has a queue of its own (a CUDA stream on the GPU), so the
// work of one session runs in the order it was asked for while the client already holds the
// answer, and the work of different sessions overlaps. See docs/execution.md.
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/backend/buffer.h"
#include "server/backend/timestamp.h"

namespace arrayhub {

// Opaque to core: what Queues::NewQueue made. Buffers allocated while a queue is bound belong
// to it: their later users wait for its work, and their memory goes back in its order.
class WorkQueue {
 public:
  virtual ~WorkQueue() = default;
};

// While alive, the backend calls of the thread that bound it enqueue on one queue (see
// Queues::Bind), each ordered between the earlier and the later work of the queues owning the
// buffers it borrowed (Queues::Use): their writes and their frees.
// A backend that runs every call at once (the CPU backend) hands out plain QueueBindings.
class QueueBinding {
 public:
  QueueBinding() = default;
  QueueBinding(const QueueBinding&) = delete;
  QueueBinding& operator=(const QueueBinding&) = delete;
  virtual ~QueueBinding() = default;
};

// A backend's ordering of work: its queues, the calling thread's binding to one, and points in
// a queue's order whose time can be read (timestamp.h).
class Queues {
 public:
  virtual ~Queues() = default;

  // A new queue for a session of tenant `memory_owner`: memory allocated while it is bound is
  // that tenant's (on a backend that keeps tenants' memory apart for export, see
  // HostExchange::ExportMemory).
  virtual absl::StatusOr<std::shared_ptr<WorkQueue>> NewQueue(std::string_view memory_owner) = 0;
  // Until the binding ends, the calling thread's calls enqueue on `queue` (null: the backend's
  // default queue); `label` names them in the report of a device error found later. Binding
  // the queue the thread has bound already gives an empty binding.
  virtual std::unique_ptr<QueueBinding> Bind(std::shared_ptr<WorkQueue> queue,
                                             std::string_view label) = 0;
  // The bound calls are about to read or write `buffer`: from now on each of them is a critical
  // section over the queue that owns it too, after the work that queue enqueued before the call
  // and before the work it enqueues after (docs/execution.md). Nothing to do when the buffer is
  // the bound queue's own or no queue is bound.
  virtual absl::Status Use(const std::shared_ptr<Buffer>& buffer) = 0;

  // A point in the bound queue's order, its time taken when the queue reaches it (after the
  // work enqueued before it, before the work enqueued after).
  virtual absl::StatusOr<std::shared_ptr<Timestamp>> RecordTimestamp() = 0;
  // Milliseconds from `start` to `end`, two timestamps of this backend (negative when `end`
  // was reached first); waits until the queues have reached both.
  virtual absl::StatusOr<double> ElapsedMilliseconds(Timestamp& start, Timestamp& end) = 0;
};

}  // namespace arrayhub
