// Streamed transfers in flight (uploads and downloads), counted per tenant and tied to their
// session. Each holds chunks in server memory and, for an upload into a new array, the whole
// array: so a tenant may run only so many at once, one that moves nothing for too long is
// cancelled, and all of a session's go with it when it is closed or reaped.
//
// Core knows no RPCs: a transfer hands in how to cancel it (the transport cancels its call),
// and its reactor ends it, freeing what it holds, as for any cancelled call.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/core/array_table.h"
#include "server/core/session_manager.h"

namespace arrayhub {

class TransferRegistry {
 public:
  struct Entry;

  // Held by a transfer while it runs; ends it in the registry when it goes.
  class Ticket {
   public:
    ~Ticket();
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    // The transfer moved a chunk: its idle time starts again.
    void Touch();
    // From now on CancelIdle leaves it alone (a Batch stream, which waits for its client's
    // next batch without being stalled).
    void KeepFromIdleCancel();

   private:
    friend class TransferRegistry;
    Ticket(TransferRegistry& registry, std::shared_ptr<Entry> entry)
        : registry_(registry), entry_(std::move(entry)) {}
    TransferRegistry& registry_;
    std::shared_ptr<Entry> entry_;
  };

  explicit TransferRegistry(int64_t max_per_tenant) : max_per_tenant_(max_per_tenant) {}

  // Registers a transfer of the caller's session, which `cancel` stops (it may be called from
  // another thread, at most once, and never after the ticket went). RESOURCE_EXHAUSTED when the
  // tenant has max_per_tenant in flight already.
  absl::StatusOr<std::unique_ptr<Ticket>> Begin(const Caller& caller, std::function<void()> cancel);

  // Cancels every transfer of `session`; returns how many.
  int64_t CancelSession(const Handle& session);
  // Cancels the transfers that moved nothing since `idle_since`; returns how many.
  int64_t CancelIdle(Clock::time_point idle_since);

  int64_t size() const;

 private:
  // Cancels each of `entries` that is still running, outside the registry's lock.
  static int64_t CancelAll(const std::vector<std::shared_ptr<Entry>>& entries);
  void End(const Entry& entry);

  const int64_t max_per_tenant_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<const Entry*, std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, int64_t> per_tenant_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
