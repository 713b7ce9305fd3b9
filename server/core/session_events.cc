#include "server/core/session_events.h"

#include <fmt/format.h>

#include <utility>

namespace arrayhub {

absl::Status SessionEvents::CheckRoom(const Handle& session, uint64_t id) const {
  absl::ReaderMutexLock lock(&mutex_);
  return CheckRoomLocked(session, id);
}

absl::Status SessionEvents::CheckRoomLocked(const Handle& session, uint64_t id) const {
  if (id == 0) {
    return absl::InvalidArgumentError("event_id must be positive (0 names no event)");
  }
  auto found = events_.find(session);
  if (found == events_.end()) {
    if (max_per_session_ > 0) return absl::OkStatus();
  } else if (found->second.contains(id) ||
             static_cast<int64_t>(found->second.size()) < max_per_session_) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(fmt::format(
      "the session holds {} events, the most the server allows (--max-session-events); record "
      "into an id it holds already, or open another session",
      found == events_.end() ? 0 : found->second.size()));
}

absl::Status SessionEvents::Put(const Handle& session, uint64_t id, RecordedEvent event) {
  // The timestamp replaced, if any, is destroyed after the lock is let go.
  RecordedEvent replaced;
  absl::MutexLock lock(&mutex_);
  if (absl::Status room = CheckRoomLocked(session, id); !room.ok()) return room;
  replaced = std::exchange(events_[session][id], std::move(event));
  return absl::OkStatus();
}

absl::StatusOr<RecordedEvent> SessionEvents::Find(const Handle& session, uint64_t id,
                                                  std::string_view field) const {
  absl::ReaderMutexLock lock(&mutex_);
  if (auto found = events_.find(session); found != events_.end()) {
    if (auto event = found->second.find(id); event != found->second.end()) return event->second;
  }
  return absl::NotFoundError(
      fmt::format("{} = {}: no event of that id was recorded in this session", field, id));
}

void SessionEvents::EraseSession(const Handle& session) {
  absl::flat_hash_map<uint64_t, RecordedEvent> erased;  // Destroyed unlocked.
  absl::MutexLock lock(&mutex_);
  if (auto found = events_.find(session); found != events_.end()) {
    erased = std::move(found->second);
    events_.erase(found);
  }
}

int64_t SessionEvents::CountOf(const Handle& session) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto found = events_.find(session);
  return found == events_.end() ? 0 : static_cast<int64_t>(found->second.size());
}

}  // namespace arrayhub
