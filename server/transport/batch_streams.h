// The open BatchStreams, so that a drain ends the ones waiting for their client's next batch at
// once instead of holding the drain for --drain-seconds (a Python client keeps its stream open
// for 5 s after its last batch). A stream running a batch when the drain starts answers it,
// then ends; a batch that arrives once the drain has begun is not run.
#pragma once

#include <grpcpp/server_context.h>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace arrayhub {

class BatchStreams {
 public:
  // The stream of `context` opened, waiting for its first batch; false once the drain has
  // begun (end it now). Every Open that answered true is matched by a Close.
  bool Open(grpc::ServerContextBase* context);
  void Close(grpc::ServerContextBase* context);
  // About to run a batch that arrived: false once the drain has begun (do not run it).
  bool Begin(grpc::ServerContextBase* context);
  // Done with the batch (answered), waiting for the next: false once the drain has begun.
  bool Idle(grpc::ServerContextBase* context);
  // Cancels every stream that waits for a batch; from now on the calls above answer false.
  void Drain();

 private:
  absl::Mutex mutex_;
  bool draining_ ABSL_GUARDED_BY(mutex_) = false;
  // Each open stream, and whether it runs a batch now (a cancel would cut that batch short).
  absl::flat_hash_map<grpc::ServerContextBase*, bool> running_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
