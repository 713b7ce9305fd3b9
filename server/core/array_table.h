// The thread-safe table of live array handles.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/work_queue.h"
#include "server/common/stop_signal.h"
#include "server/core/array_record.h"

namespace arrayhub {

// A caller's hold on its queue while one of its calls runs (Engine::Bind): the binding its
// backend calls are handed. A copy holds none, so that no copy (a Caller made for another
// device, or kept by another thread) outlives the binding it would name: it binds its own.
class CallerQueue {
 public:
  CallerQueue() = default;
  CallerQueue(const CallerQueue&) {}
  CallerQueue& operator=(const CallerQueue&) {
    binding_ = nullptr;
    return *this;
  }

  // Engine::Binding's, for the Caller it holds.
  void Hold(QueueBinding& binding) { binding_ = &binding; }

  // The binding. Outside a bound call, a QueueBinding of no backend's, which every backend
  // call refuses (INTERNAL, work_queue.h): a call that forgot to bind fails, and runs
  // nothing out of its session's order.
  QueueBinding& binding() const;
  // Whether this Caller is an Engine::Binding's, inside a bound call.
  bool held() const { return binding_ != nullptr; }

 private:
  QueueBinding* binding_ = nullptr;
};

// Who is asking: the tenant the credentials map to and the session of the call, with the
// session's queue, where its work goes, and the call's stop signal.
struct Caller {
  std::string tenant;
  Handle session;
  // The device the call runs on (an index of the engine's devices): its new arrays go there,
  // and its operands must be there.
  int device = 0;
  std::shared_ptr<WorkQueue> queue = nullptr;  // The session's on `device`; null: the default.
  // The session's queue on each device, by index (null: the default queues).
  std::shared_ptr<const std::vector<std::shared_ptr<WorkQueue>>> queues = nullptr;
  std::shared_ptr<const StopSignal> stop = nullptr;  // Null: the work always runs to its end.
  CallerQueue bound{};  // Set in the Caller of an Engine::Binding only.
};

// The binding of `caller`'s queue that its backend calls are handed (CallerQueue::binding).
inline QueueBinding& QueueOf(const Caller& caller) { return caller.bound.binding(); }

class ArrayTable {
 public:
  using RecordPtr = std::shared_ptr<const ArrayRecord>;

  // Adds a record under its (fresh, random) handle.
  void Insert(RecordPtr record);

  // The record if `caller` may see it: a handle its tenant holds. An array of another tenant
  // answers NOT_FOUND exactly as a handle that never existed, so handles cannot be probed.
  absl::StatusOr<RecordPtr> Find(const Caller& caller, const Handle& handle) const;

  // Drops handles the caller may see; all or nothing: if one is not found, none is dropped.
  absl::StatusOr<int64_t> Erase(const Caller& caller, const std::vector<Handle>& handles);

  // Drops every handle of a session (closed or expired); returns how many.
  int64_t EraseSession(const Handle& session);

  // The caller's arrays: of its session, or of its whole tenant.
  std::vector<RecordPtr> List(const Caller& caller, bool all_sessions) const;

  int64_t size() const;
  // Handles `tenant` holds (made or attached), in all its sessions.
  int64_t CountHeldBy(const std::string& tenant) const;

  // Every live record, of every tenant: for operators' statistics, never for a caller.
  std::vector<RecordPtr> All() const;

 private:
  static bool Visible(const Caller& caller, const ArrayRecord& record);
  void Forget(const ArrayRecord& record) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  mutable absl::Mutex mutex_;
  absl::flat_hash_map<Handle, RecordPtr> records_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, int64_t> held_ ABSL_GUARDED_BY(mutex_);  // By holder.
};

}  // namespace arrayhub
