#include "server/core/user_kernel_cache.h"

namespace arrayhub {

absl::StatusOr<CachedUserKernel> UserKernelCache::Get(const std::string& key, int64_t entry_bytes,
                                                      const Compile& compile) {
  std::shared_ptr<InFlight> flight;
  {
    absl::MutexLock lock(&mutex_);
    if (auto found = entries_.find(key); found != entries_.end()) {
      recency_.splice(recency_.begin(), recency_, found->second.recency);
      return found->second.kernel;
    }
    if (auto running = in_flight_.find(key); running != in_flight_.end()) {
      std::shared_ptr<InFlight> waited = running->second;
      while (!waited->done) compiled_.Wait(&mutex_);
      return waited->result;
    }
    flight = std::make_shared<InFlight>();
    in_flight_.emplace(key, flight);
  }
  // Compiled outside the lock: other keys are looked up and compiled meanwhile.
  absl::StatusOr<CachedUserKernel> result = compile();
  absl::MutexLock lock(&mutex_);
  in_flight_.erase(key);
  if (result.ok()) {
    ++compilations_;
    InsertLocked(key, *result, static_cast<int64_t>(key.size()) + entry_bytes);
  }
  flight->result = result;
  flight->done = true;
  compiled_.SignalAll();
  return result;
}

void UserKernelCache::InsertLocked(const std::string& key, const CachedUserKernel& kernel,
                                   int64_t bytes) {
  if (bytes > max_bytes_ || max_entries_ <= 0) return;  // Used once, never kept.
  while (!recency_.empty() &&
         (static_cast<int64_t>(entries_.size()) >= max_entries_ || bytes_ + bytes > max_bytes_)) {
    auto oldest = entries_.find(recency_.back());
    bytes_ -= oldest->second.bytes;
    entries_.erase(oldest);
    recency_.pop_back();
  }
  recency_.push_front(key);
  entries_.emplace(key, Entry{.kernel = kernel, .bytes = bytes, .recency = recency_.begin()});
  bytes_ += bytes;
}

int64_t UserKernelCache::compilations() const {
  absl::MutexLock lock(&mutex_);
  return compilations_;
}

int64_t UserKernelCache::entries() const {
  absl::MutexLock lock(&mutex_);
  return static_cast<int64_t>(entries_.size());
}

int64_t UserKernelCache::bytes() const {
  absl::MutexLock lock(&mutex_);
  return bytes_;
}

}  // namespace arrayhub
