#include "server/core/capabilities.h"

#include <fmt/format.h>

#include <optional>

#include "server/core/handle.h"

namespace arrayhub {

absl::StatusOr<std::string> CapabilityStore::Issue(const std::string& tenant,
                                                   std::shared_ptr<const ArrayRecord> record,
                                                   std::chrono::seconds lifetime,
                                                   Clock::time_point now) {
  if (lifetime.count() < 0 || lifetime > kMaxLifetime) {
    return absl::InvalidArgumentError(
        fmt::format("lifetime_seconds must be between 0 and {}, got {}", kMaxLifetime.count(),
                    lifetime.count()));
  }
  if (lifetime.count() == 0) lifetime = kDefaultLifetime;
  std::vector<std::shared_ptr<const ArrayRecord>> expired;  // Freed after the lock.
  absl::MutexLock lock(&mutex_);
  expired = DropExpired(now);
  int64_t& held = per_tenant_[tenant];
  if (held >= kMaxPerTenant) {
    return absl::ResourceExhaustedError(fmt::format(
        "tenant '{}' holds {} unused capabilities, the most the server allows; each keeps an "
        "array's memory until it is used or expires",
        tenant, held));
  }
  std::string capability = Handle::Random().ToString();
  grants_[capability] = {
      .tenant = tenant, .record = std::move(record), .expires_at = now + lifetime};
  ++held;
  return capability;
}

absl::StatusOr<CapabilityStore::Grant> CapabilityStore::Redeem(std::string_view capability,
                                                               std::string_view tenant, DType dtype,
                                                               const Shape& shape,
                                                               Clock::time_point now) {
  std::optional<Grant> grant;
  std::vector<std::shared_ptr<const ArrayRecord>> expired;  // Freed after the lock.
  {
    absl::MutexLock lock(&mutex_);
    expired = DropExpired(now);
    auto found = grants_.find(std::string(capability));
    if (found != grants_.end() && found->second.tenant == tenant &&
        found->second.record->dtype == dtype && found->second.record->shape == shape) {
      if (--per_tenant_[found->second.tenant] == 0) per_tenant_.erase(found->second.tenant);
      grant = std::move(found->second);
      grants_.erase(found);
    }
  }
  if (!grant.has_value()) {
    // One answer for every refusal: whoever holds a guess learns nothing from it.
    return absl::NotFoundError(
        "unknown, used or expired capability, or one for another tenant, dtype or shape");
  }
  return *std::move(grant);
}

void CapabilityStore::Reinstate(std::string_view capability, Grant grant) {
  absl::MutexLock lock(&mutex_);
  ++per_tenant_[grant.tenant];
  grants_[std::string(capability)] = std::move(grant);
}

bool CapabilityStore::Holds(std::string_view capability) const {
  absl::MutexLock lock(&mutex_);
  return grants_.contains(std::string(capability));
}

int64_t CapabilityStore::size() const {
  absl::MutexLock lock(&mutex_);
  return static_cast<int64_t>(grants_.size());
}

std::vector<std::shared_ptr<const ArrayRecord>> CapabilityStore::DropExpired(
    Clock::time_point now) {
  std::vector<std::shared_ptr<const ArrayRecord>> expired;
  absl::erase_if(grants_, [&](auto& entry) {
    if (entry.second.expires_at > now) return false;
    if (--per_tenant_[entry.second.tenant] == 0) per_tenant_.erase(entry.second.tenant);
    expired.push_back(std::move(entry.second.record));
    return true;
  });
  return expired;
}

}  // namespace arrayhub
