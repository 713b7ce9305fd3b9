// The file descriptors the daemon may hold for clients' shared-memory objects, all tenants
// together: a share of its RLIMIT_NOFILE, so that the descriptors clients hand it can never
// starve new connections.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"

namespace arrayhub {

// One descriptor counted against a DescriptorBudget until this goes (moved, it goes with the
// descriptor it stands for).
class DescriptorCharge {
 public:
  DescriptorCharge(DescriptorCharge&& other) noexcept = default;
  DescriptorCharge& operator=(DescriptorCharge&&) = delete;
  ~DescriptorCharge();

 private:
  friend class DescriptorBudget;
  explicit DescriptorCharge(std::shared_ptr<std::atomic<int64_t>> held) : held_(std::move(held)) {}
  std::shared_ptr<std::atomic<int64_t>> held_;  // Null once moved from.
};

class DescriptorBudget {
 public:
  explicit DescriptorBudget(int64_t max) : max_(max) {}

  // A charge for one more descriptor; RESOURCE_EXHAUSTED when `max` are held already.
  absl::StatusOr<DescriptorCharge> Take();
  // Descriptors charged now.
  int64_t held() const { return held_->load(); }

 private:
  const int64_t max_;
  // Shared with the charges, which may outlive the budget's owner by a moment.
  std::shared_ptr<std::atomic<int64_t>> held_ = std::make_shared<std::atomic<int64_t>>(0);
};

}  // namespace arrayhub
