// Ordered device work. Each session has a queue of its own (a CUDA stream on the GPU), so the
// work of one session runs in the order it was asked for while the client already holds the
// answer, and the work of different sessions overlaps. See docs/execution.md.
#pragma once

namespace arrayhub {

// Opaque to core: what Backend::NewQueue made. Buffers allocated while a queue is bound belong
// to it: their later users wait for its work, and their memory goes back in its order.
class WorkQueue {
 public:
  virtual ~WorkQueue() = default;
};

// While alive, the backend calls of the thread that bound it enqueue on one queue (see
// Backend::Bind), each ordered between the earlier and the later work of the queues owning the
// buffers it borrowed (Backend::Use): their writes and their frees.
// A backend that runs every call at once (the CPU backend) hands out plain QueueBindings.
class QueueBinding {
 public:
  QueueBinding() = default;
  QueueBinding(const QueueBinding&) = delete;
  QueueBinding& operator=(const QueueBinding&) = delete;
  virtual ~QueueBinding() = default;
};

}  // namespace arrayhub
