#include "server/transport/batch_streams.h"

namespace arrayhub {

bool BatchStreams::Open(grpc::ServerContextBase* context) {
  absl::MutexLock lock(&mutex_);
  if (draining_) return false;
  running_[context] = false;
  return true;
}

void BatchStreams::Close(grpc::ServerContextBase* context) {
  absl::MutexLock lock(&mutex_);
  running_.erase(context);
}

bool BatchStreams::Begin(grpc::ServerContextBase* context) {
  absl::MutexLock lock(&mutex_);
  if (draining_) return false;
  running_[context] = true;
  return true;
}

bool BatchStreams::Idle(grpc::ServerContextBase* context) {
  absl::MutexLock lock(&mutex_);
  running_[context] = false;
  return !draining_;
}

void BatchStreams::Drain() {
  absl::MutexLock lock(&mutex_);
  draining_ = true;
  // Under the lock: a stream's context outlives its entry (Close comes before its handler
  // returns), and none can start a batch in between.
  for (const auto& [context, running] : running_) {
    if (!running) context->TryCancel();
  }
}

}  // namespace arrayhub
