// The events each session has recorded (Engine::RecordEvent): timestamps in the session's
// order, named by ids the client chooses, so that a pipelined client names an event without a
// round trip. Ids belong to one session: another session's (or tenant's) ids are not found, as
// ids never recorded are not. A session holds at most a bounded number of distinct ids; the
// rest go with the session.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/timestamp.h"
#include "server/core/handle.h"

namespace arrayhub {

// One recorded event: the backend's timestamp, and the device whose queue took it (elapsed
// time is measured between two events of one device).
struct RecordedEvent {
  std::shared_ptr<Timestamp> timestamp;
  int device = 0;
};

class SessionEvents {
 public:
  explicit SessionEvents(int64_t max_per_session) : max_per_session_(max_per_session) {}

  // INVALID_ARGUMENT for id 0 (unset on the wire); RESOURCE_EXHAUSTED when `id` is new to the
  // session and it holds the most ids already. Recording over an id it holds is always room.
  absl::Status CheckRoom(const Handle& session, uint64_t id) const;
  // Makes `timestamp` the session's event `id`, over the one recorded before under that id (as
  // cudaEventRecord re-records an event); fails as CheckRoom, checked again here.
  absl::Status Put(const Handle& session, uint64_t id, RecordedEvent event);
  // The session's event `id`; NOT_FOUND, naming `field`, when it recorded none under that id.
  absl::StatusOr<RecordedEvent> Find(const Handle& session, uint64_t id,
                                     std::string_view field) const;
  // Drops every event of the session (closed or expired).
  void EraseSession(const Handle& session);
  int64_t CountOf(const Handle& session) const;

 private:
  absl::Status CheckRoomLocked(const Handle& session, uint64_t id) const
      ABSL_SHARED_LOCKS_REQUIRED(mutex_);

  const int64_t max_per_session_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<Handle, absl::flat_hash_map<uint64_t, RecordedEvent>> events_
      ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
