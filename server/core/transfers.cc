#include "server/core/transfers.h"

#include <fmt/format.h>

#include <limits>
#include <thread>
#include <utility>
#include <vector>

namespace arrayhub {

struct TransferRegistry::Entry {
  std::string tenant;
  Handle session;
  std::atomic<Clock::rep> last_progress;  // Clock::time_point's count.
  absl::Mutex mutex;
  // Cleared when it is called or the ticket goes, so that a call never runs for a finished
  // transfer. It runs without the lock (it may end the transfer on the same thread), and the
  // ticket waits for it to return.
  std::function<void()> cancel ABSL_GUARDED_BY(mutex);
  bool cancelling ABSL_GUARDED_BY(mutex) = false;
  std::thread::id canceller ABSL_GUARDED_BY(mutex);
  absl::CondVar cancel_returned;  // Signalled when `cancelling` goes back to false.
};

TransferRegistry::Ticket::~Ticket() {
  {
    absl::MutexLock lock(&entry_->mutex);
    entry_->cancel = nullptr;
    // A cancel on another thread may still use what the transfer handed in; one on this thread
    // is what ends the transfer, further up this very stack.
    // (A CondVar, not Mutex::Await: TSan builds annotate CondVar::Wait, whereas Await's
    // condition runs inside Debian's uninstrumented abseil; tests/support/tsan_absl_mutex.cc.)
    if (entry_->canceller != std::this_thread::get_id()) {
      while (entry_->cancelling) entry_->cancel_returned.Wait(&entry_->mutex);
    }
  }
  registry_.End(*entry_);
}

void TransferRegistry::Ticket::Touch() {
  entry_->last_progress.store(Clock::now().time_since_epoch().count());
}

void TransferRegistry::Ticket::KeepFromIdleCancel() {
  entry_->last_progress.store(std::numeric_limits<Clock::rep>::max());
}

absl::StatusOr<std::unique_ptr<TransferRegistry::Ticket>> TransferRegistry::Begin(
    const Caller& caller, std::function<void()> cancel) {
  auto entry = std::make_shared<Entry>();
  entry->tenant = caller.tenant;
  entry->session = caller.session;
  entry->last_progress.store(Clock::now().time_since_epoch().count());
  entry->cancel = std::move(cancel);
  absl::MutexLock lock(&mutex_);
  int64_t& running = per_tenant_[caller.tenant];
  if (running >= max_per_tenant_) {
    const int64_t held = running;
    if (running == 0) per_tenant_.erase(caller.tenant);
    return absl::ResourceExhaustedError(
        fmt::format("tenant '{}' transfer quota exceeded (--tenant-max-transfers {}): {} uploads, "
                    "downloads, Batch streams and session watches are in flight",
                    caller.tenant, max_per_tenant_, held));
  }
  ++running;
  entries_.emplace(entry.get(), entry);
  return std::unique_ptr<Ticket>(new Ticket(*this, std::move(entry)));
}

void TransferRegistry::End(const Entry& entry) {
  absl::MutexLock lock(&mutex_);
  entries_.erase(&entry);
  auto count = per_tenant_.find(entry.tenant);
  if (--count->second == 0) per_tenant_.erase(count);
}

int64_t TransferRegistry::CancelAll(const std::vector<std::shared_ptr<Entry>>& entries) {
  int64_t cancelled = 0;
  for (const std::shared_ptr<Entry>& entry : entries) {
    std::function<void()> cancel;
    {
      absl::MutexLock lock(&entry->mutex);
      if (!entry->cancel) continue;  // Ended, or cancelled already.
      cancel = std::exchange(entry->cancel, nullptr);
      entry->cancelling = true;
      entry->canceller = std::this_thread::get_id();
    }
    cancel();
    ++cancelled;
    absl::MutexLock lock(&entry->mutex);
    entry->cancelling = false;
    entry->canceller = std::thread::id();
    entry->cancel_returned.SignalAll();
  }
  return cancelled;
}

int64_t TransferRegistry::CancelSession(const Handle& session) {
  std::vector<std::shared_ptr<Entry>> found;
  {
    absl::MutexLock lock(&mutex_);
    for (const auto& [key, entry] : entries_) {
      if (entry->session == session) found.push_back(entry);
    }
  }
  return CancelAll(found);
}

int64_t TransferRegistry::CancelIdle(Clock::time_point idle_since) {
  const Clock::rep since = idle_since.time_since_epoch().count();
  std::vector<std::shared_ptr<Entry>> found;
  {
    absl::MutexLock lock(&mutex_);
    for (const auto& [key, entry] : entries_) {
      if (entry->last_progress.load() < since) found.push_back(entry);
    }
  }
  return CancelAll(found);
}

int64_t TransferRegistry::size() const {
  absl::MutexLock lock(&mutex_);
  return static_cast<int64_t>(entries_.size());
}

}  // namespace arrayhub
