#include "server/core/array_table.h"

#include <fmt/format.h>

#include <algorithm>

namespace arrayhub {

QueueBinding& CallerQueue::binding() const {
  static auto* const unbound = new QueueBinding;  // Never destroyed: it has no state.
  return binding_ != nullptr ? *binding_ : *unbound;
}

bool ArrayTable::Visible(const Caller& caller, const ArrayRecord& record) {
  return record.holder == caller.tenant;
}

void ArrayTable::Forget(const ArrayRecord& record) {
  auto it = held_.find(record.holder);
  if (--it->second == 0) held_.erase(it);
}

void ArrayTable::Insert(RecordPtr record) {
  absl::MutexLock lock(&mutex_);
  const Handle handle = record->handle;
  ++held_[record->holder];
  records_.emplace(handle, std::move(record));
}

absl::StatusOr<ArrayTable::RecordPtr> ArrayTable::Find(const Caller& caller,
                                                       const Handle& handle) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = records_.find(handle);
  if (it == records_.end() || !Visible(caller, *it->second)) {
    return absl::NotFoundError(fmt::format("array {} not found", handle.ToString()));
  }
  return it->second;
}

absl::StatusOr<int64_t> ArrayTable::Erase(const Caller& caller,
                                          const std::vector<Handle>& handles) {
  std::vector<RecordPtr> dropped;  // Released after the lock: freeing memory can be slow.
  {
    absl::MutexLock lock(&mutex_);
    for (const Handle& handle : handles) {
      auto it = records_.find(handle);
      if (it == records_.end() || !Visible(caller, *it->second)) {
        return absl::NotFoundError(fmt::format("array {} not found", handle.ToString()));
      }
    }
    for (const Handle& handle : handles) {
      auto it = records_.find(handle);
      if (it == records_.end()) continue;  // Named twice in one request.
      Forget(*it->second);
      dropped.push_back(std::move(it->second));
      records_.erase(it);
    }
  }
  return static_cast<int64_t>(dropped.size());
}

int64_t ArrayTable::EraseSession(const Handle& session) {
  std::vector<RecordPtr> dropped;
  {
    absl::MutexLock lock(&mutex_);
    for (auto it = records_.begin(); it != records_.end();) {
      if (it->second->session == session) {
        Forget(*it->second);
        dropped.push_back(std::move(it->second));
        records_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  return static_cast<int64_t>(dropped.size());
}

std::vector<ArrayTable::RecordPtr> ArrayTable::List(const Caller& caller, bool all_sessions) const {
  std::vector<RecordPtr> result;
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [handle, record] : records_) {
    if (Visible(caller, *record) && (all_sessions || record->session == caller.session)) {
      result.push_back(record);
    }
  }
  return result;
}

int64_t ArrayTable::CountHeldBy(const std::string& tenant) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = held_.find(tenant);
  return it == held_.end() ? 0 : it->second;
}

int64_t ArrayTable::size() const {
  absl::ReaderMutexLock lock(&mutex_);
  return static_cast<int64_t>(records_.size());
}

std::vector<ArrayTable::RecordPtr> ArrayTable::All() const {
  std::vector<RecordPtr> result;
  absl::ReaderMutexLock lock(&mutex_);
  result.reserve(records_.size());
  for (const auto& [handle, record] : records_) result.push_back(record);
  return result;
}

}  // namespace arrayhub
