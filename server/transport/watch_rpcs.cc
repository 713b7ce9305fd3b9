// WatchSession: a session's events (server/core/session_watchers.h) as a server stream. A
// callback method, so that a watch that waits for days holds no thread: it is a registration
// in core, a transfer slot of its tenant and at most a few queued messages.
//
// The stream ends OK after the watch's last event (the session's end, or the drain), and at
// once, freeing all of it, when its client goes.
#include <fmt/format.h>

#include <deque>
#include <memory>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {
namespace {

v1::SessionEvent ToProto(const SessionEvent& event) {
  v1::SessionEvent message;
  switch (event.kind) {
    case SessionEvent::Kind::kWatching:
      message.set_kind(v1::SessionEvent::KIND_WATCHING);
      break;
    case SessionEvent::Kind::kLeaseExpiring:
      message.set_kind(v1::SessionEvent::KIND_LEASE_EXPIRING);
      break;
    case SessionEvent::Kind::kSessionEnded: {
      message.set_kind(v1::SessionEvent::KIND_SESSION_ENDED);
      v1::SessionEnded& ended = *message.mutable_session_ended();
      ended.set_reason(event.reason == SessionEvent::EndReason::kClosed
                           ? v1::SessionEnded::REASON_CLOSED
                           : v1::SessionEnded::REASON_LEASE_EXPIRED);
      ended.set_arrays_freed(event.arrays_freed);
      break;
    }
    case SessionEvent::Kind::kDraining:
      message.set_kind(v1::SessionEvent::KIND_DRAINING);
      break;
  }
  if (event.kind == SessionEvent::Kind::kWatching ||
      event.kind == SessionEvent::Kind::kLeaseExpiring) {
    message.set_lease_expires_unix_ms(UnixMillis(event.lease_expires_at));
  }
  return message;
}

// Writes one event at a time; those heard meanwhile wait in a queue that a client which reads
// nothing cannot grow: a watch hears one kWatching, one last event, and kLeaseExpiring at most
// once per renewal, of which only the newest waits.
class WatchReactor final : public grpc::ServerWriteReactor<v1::SessionEvent> {
 public:
  WatchReactor(ArrayHubService& service, grpc::CallbackServerContext& context) {
    const absl::Status started = Start(service, context);
    absl::MutexLock lock(&mutex_);
    if (!started.ok()) {
      End(ToGrpcStatus(started));
      return;
    }
    started_ = true;
    SendNext();
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mutex_);
    writing_ = false;
    if (!ok || cancelled_) {
      End(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
      return;
    }
    SendNext();
  }

  // The client cancelled or went. A write in flight must complete first: OnWriteDone ends
  // the call then.
  void OnCancel() override {
    absl::MutexLock lock(&mutex_);
    cancelled_ = true;
    if (!writing_) End(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
  }

  // The watch and the ticket go first (declared last): neither calls in once the rest goes.
  void OnDone() override { delete this; }

 private:
  // Takes the tenant's slot, then watches; the events it hears meanwhile wait in the queue.
  // Called without mutex_: the watch's listener takes it.
  absl::Status Start(ArrayHubService& service, grpc::CallbackServerContext& context) {
    AH_ASSIGN_OR_RETURN(Caller caller, service.CallerOf(context));
    // A watch's slot is cancelled only when its session ends (it is kept from the idle cancel),
    // after the session's end was queued here: the stream ends once that has gone out.
    AH_ASSIGN_OR_RETURN(ticket_, service.engine().BeginTransfer(caller, [this] {
      absl::MutexLock lock(&mutex_);
      closing_ = true;
      SendNext();
    }));
    ticket_->KeepFromIdleCancel();
    AH_ASSIGN_OR_RETURN(watch_,
                        service.engine().WatchSession(caller, [this](const SessionEvent& event) {
                          absl::MutexLock lock(&mutex_);
                          Hear(event);
                        }));
    return absl::OkStatus();
  }

  void Hear(const SessionEvent& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (finished_) return;
    v1::SessionEvent message = ToProto(event);
    if (!queue_.empty() && queue_.back().kind() == v1::SessionEvent::KIND_LEASE_EXPIRING &&
        message.kind() == v1::SessionEvent::KIND_LEASE_EXPIRING) {
      queue_.back() = std::move(message);  // Only the newest expiry matters.
    } else {
      queue_.push_back(std::move(message));
    }
    if (event.last()) closing_ = true;
    SendNext();
  }

  // Starts the next write, or ends the call once the last event has gone out. Nothing is
  // written before the watch is in place: a watch refused after its kWatching answers its
  // error alone.
  void SendNext() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (!started_ || writing_ || finished_) return;
    if (queue_.empty()) {
      if (closing_) End(grpc::Status::OK);
      return;
    }
    sending_ = std::move(queue_.front());
    queue_.pop_front();
    writing_ = true;
    StartWrite(&sending_);
  }

  void End(grpc::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (finished_) return;
    finished_ = true;
    Finish(std::move(status));
  }

  absl::Mutex mutex_;
  std::deque<v1::SessionEvent> queue_ ABSL_GUARDED_BY(mutex_);
  v1::SessionEvent sending_ ABSL_GUARDED_BY(mutex_);  // Held until its write completes.
  bool started_ ABSL_GUARDED_BY(mutex_) = false;
  bool writing_ ABSL_GUARDED_BY(mutex_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mutex_) = false;
  bool closing_ ABSL_GUARDED_BY(mutex_) = false;  // End once the queue is sent.
  bool finished_ ABSL_GUARDED_BY(mutex_) = false;
  // Declared last, so destroyed first: no event or cancel reaches the reactor once it goes.
  std::unique_ptr<TransferRegistry::Ticket> ticket_;
  std::unique_ptr<SessionWatchers::Watch> watch_;
};

}  // namespace

grpc::ServerWriteReactor<v1::SessionEvent>* ArrayHubService::WatchSession(
    grpc::CallbackServerContext* context, const v1::WatchSessionRequest*) {
  return new WatchReactor(*this, *context);
}

}  // namespace arrayhub
