// Events: timestamps the backend takes in a session's order (docs/execution.md, "Events"),
// kept per session under ids its client chose (session_events.h).
#include <fmt/format.h>

#include "server/common/status_macros.h"
#include "server/core/engine.h"

namespace arrayhub {

absl::Status Engine::RecordEvent(const Caller& caller, uint64_t event_id) {
  // Refused before anything is recorded; Put checks again for a racing thread of the session.
  AH_RETURN_IF_ERROR(events_.CheckRoom(caller.session, event_id));
  const auto bound = Bind(caller, "record_event");
  AH_ASSIGN_OR_RETURN(std::shared_ptr<Timestamp> timestamp,
                      backend(bound.caller()).queues().RecordTimestamp(QueueOf(bound.caller())));
  AH_RETURN_IF_ERROR(events_.Put(
      bound.caller().session, event_id,
      RecordedEvent{.timestamp = std::move(timestamp), .device = bound.caller().device}));
  // As in RegisterAll: sessions are removed before their events are, so either that erase
  // saw this event, or this check sees the session gone.
  if (!sessions_.IsOpen(bound.caller().session)) {
    events_.EraseSession(bound.caller().session);
    return absl::NotFoundError(fmt::format("session {} closed while the event was recorded",
                                           bound.caller().session.ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Engine::QueryEvent(const Caller& caller, uint64_t event_id, bool wait) {
  AH_ASSIGN_OR_RETURN(RecordedEvent event, events_.Find(caller.session, event_id, "event_id"));
  if (!wait) return event.timestamp->Reached();
  AH_RETURN_IF_ERROR(event.timestamp->Wait());
  return true;
}

absl::StatusOr<double> Engine::EventElapsedMilliseconds(const Caller& caller, uint64_t start_id,
                                                        uint64_t end_id) {
  AH_ASSIGN_OR_RETURN(RecordedEvent start,
                      events_.Find(caller.session, start_id, "start_event_id"));
  AH_ASSIGN_OR_RETURN(RecordedEvent end, events_.Find(caller.session, end_id, "end_event_id"));
  if (start.device != end.device) {
    // Devices keep clocks of their own (cudaEventElapsedTime refuses events of two GPUs).
    return absl::InvalidArgumentError(fmt::format(
        "start_event_id {} was recorded on device {} and end_event_id {} on device {}: elapsed "
        "time is measured between events of one device",
        start_id, start.device, end_id, end.device));
  }
  // Held here, the timestamps outlive a re-record of their ids or the session's end meanwhile.
  return devices_[start.device]->queues().ElapsedMilliseconds(*start.timestamp, *end.timestamp);
}

}  // namespace arrayhub
