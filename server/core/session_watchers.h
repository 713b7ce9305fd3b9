// Who watches which session (the WatchSession RPC), and the events they hear: the lease about
// to run out, the session's end with its arrays freed, and the server's drain.
//
// Core knows no RPCs: a watch hands in a listener, which the transport turns into messages on
// its stream. Listeners are called with the registry's lock held, so that none is called once
// its watch is gone; they must only queue the event, never block or call back in here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "server/core/handle.h"
#include "server/core/session_manager.h"

namespace arrayhub {

struct SessionEvent {
  enum class Kind { kWatching, kLeaseExpiring, kSessionEnded, kDraining };
  enum class EndReason { kClosed, kLeaseExpired };

  Kind kind = Kind::kWatching;
  Clock::time_point lease_expires_at{};   // kWatching, kLeaseExpiring.
  EndReason reason = EndReason::kClosed;  // kSessionEnded.
  int64_t arrays_freed = 0;               // kSessionEnded.

  // The events after which a watch hears nothing more.
  bool last() const { return kind == Kind::kSessionEnded || kind == Kind::kDraining; }
};

class SessionWatchers {
 public:
  using Listener = std::function<void(const SessionEvent&)>;
  struct Entry;

  // Held by a watch while it runs; ends it when it goes. Once the destructor has returned its
  // listener is never called again.
  class Watch {
   public:
    ~Watch();
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;

   private:
    friend class SessionWatchers;
    Watch(SessionWatchers& watchers, const Entry* entry) : watchers_(watchers), entry_(entry) {}
    SessionWatchers& watchers_;
    const Entry* entry_;
  };

  // `warning_fraction`: the part of a lease after which, without a KeepAlive, its watchers
  // hear kLeaseExpiring.
  explicit SessionWatchers(double warning_fraction) : warning_fraction_(warning_fraction) {}

  // Starts watching `session` as it is now: the listener hears kWatching at once, and
  // kDraining at once after it if the drain has begun.
  std::unique_ptr<Watch> Add(const Session& session, Listener listener);

  // The session ended: its watchers hear kSessionEnded, their last event.
  void EndSession(const Handle& session, SessionEvent::EndReason reason, int64_t arrays_freed);
  // The server drains: every watcher hears kDraining, its last event, and so does every later
  // one as soon as it starts.
  void Drain();
  // Warns, once per lease, the watchers of each session whose lease has run past the warning
  // fraction since its last renewal (`sessions` tells); returns how many were warned.
  int64_t WarnExpiring(const SessionManager& sessions, Clock::time_point now);

  int64_t size() const;

 private:
  const double warning_fraction_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<const Entry*, std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mutex_);
  bool draining_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace arrayhub
