#include "server/core/session_watchers.h"

#include <chrono>

namespace arrayhub {

struct SessionWatchers::Entry {
  Handle session;
  std::string tenant;
  Listener listener;
  bool done = false;  // It heard its last event.
  // The expiry it was warned about: a KeepAlive moves the expiry, and with it the next warning.
  Clock::time_point warned_for{};

  void Hear(const SessionEvent& event) {
    if (done) return;
    done = event.last();
    listener(event);
  }
};

SessionWatchers::Watch::~Watch() {
  std::shared_ptr<Entry> entry;
  {
    absl::MutexLock lock(&watchers_.mutex_);
    auto it = watchers_.entries_.find(entry_);
    entry = std::move(it->second);
    watchers_.entries_.erase(it);
  }
  // The listener (and what it holds) goes outside the lock.
}

std::unique_ptr<SessionWatchers::Watch> SessionWatchers::Add(const Session& session,
                                                             Listener listener) {
  auto entry = std::make_shared<Entry>();
  entry->session = session.id;
  entry->tenant = session.tenant;
  entry->listener = std::move(listener);
  const Entry* key = entry.get();
  absl::MutexLock lock(&mutex_);
  Entry& added = *entries_.emplace(key, std::move(entry)).first->second;
  added.Hear({.kind = SessionEvent::Kind::kWatching, .lease_expires_at = session.expires_at});
  if (draining_) added.Hear({.kind = SessionEvent::Kind::kDraining});
  return std::unique_ptr<Watch>(new Watch(*this, key));
}

void SessionWatchers::EndSession(const Handle& session, SessionEvent::EndReason reason,
                                 int64_t arrays_freed) {
  absl::MutexLock lock(&mutex_);
  for (auto& [key, entry] : entries_) {
    if (entry->session != session) continue;
    entry->Hear({.kind = SessionEvent::Kind::kSessionEnded,
                 .reason = reason,
                 .arrays_freed = arrays_freed});
  }
}

void SessionWatchers::Drain() {
  absl::MutexLock lock(&mutex_);
  draining_ = true;
  for (auto& [key, entry] : entries_) entry->Hear({.kind = SessionEvent::Kind::kDraining});
}

int64_t SessionWatchers::WarnExpiring(const SessionManager& sessions, Clock::time_point now) {
  int64_t warned = 0;
  absl::MutexLock lock(&mutex_);
  for (auto& [key, entry] : entries_) {
    if (entry->done) continue;
    absl::StatusOr<Session> session = sessions.Find(entry->tenant, entry->session);
    if (!session.ok() || session->expires_at == entry->warned_for) continue;
    const auto left = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(session->lease) * (1 - warning_fraction_));
    if (now < session->expires_at - left) continue;
    entry->warned_for = session->expires_at;
    entry->Hear(
        {.kind = SessionEvent::Kind::kLeaseExpiring, .lease_expires_at = session->expires_at});
    ++warned;
  }
  return warned;
}

int64_t SessionWatchers::size() const {
  absl::MutexLock lock(&mutex_);
  return static_cast<int64_t>(entries_.size());
}

}  // namespace arrayhub
