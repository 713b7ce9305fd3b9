#include "server/core/descriptor_budget.h"

#include <fmt/format.h>

namespace arrayhub {

DescriptorCharge::~DescriptorCharge() {
  if (held_ != nullptr) held_->fetch_sub(1);
}

absl::StatusOr<DescriptorCharge> DescriptorBudget::Take() {
  // Reserved before the check, so that concurrent takers can never overshoot together.
  if (held_->fetch_add(1) >= max_) {
    held_->fetch_sub(1);
    return absl::ResourceExhaustedError(fmt::format(
        "the server holds {} descriptors of shared-memory objects, the most its descriptor "
        "limit leaves room for; unregister regions or stream instead",
        max_));
  }
  return DescriptorCharge(held_);
}

}  // namespace arrayhub
