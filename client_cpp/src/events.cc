// RecordEvent and ElapsedMilliseconds: the session's events on the server (docs/execution.md,
// "Events"). A record is a Batch op, queued with the ops it times; the elapsed time between two
// rides with the queue when there is one.
#include <optional>

#include "arrayhub/client.h"
#include "connection.h"
#include "pipeline.h"

namespace arrayhub::client {

void Client::RecordEvent(uint64_t event_id) {
  IssueOut({}, detail::OpBuilder{.build = [event_id] {
             v1::BatchRequest::Op op;
             op.mutable_record_event()->set_event_id(event_id);
             return op;
           }});
}

double Client::ElapsedMilliseconds(uint64_t start_id, uint64_t end_id) {
  if (const std::optional<double> asked =
          connection().pipeline->ElapsedWithQueue(start_id, end_id)) {
    return *asked;
  }
  v1::EventElapsedTimeRequest request;
  request.set_start_event_id(start_id);
  request.set_end_event_id(end_id);
  return detail::Call(Synced(), &v1::ArrayHub::Stub::EventElapsedTime, request).milliseconds();
}

}  // namespace arrayhub::client
