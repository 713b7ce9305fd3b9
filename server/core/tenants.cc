#include "server/core/tenants.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "server/common/status_macros.h"

namespace arrayhub {

TenantCharge::TenantCharge(TenantCharge&& other) noexcept
    : ledger_(std::move(other.ledger_)),
      tenant_(std::move(other.tenant_)),
      bytes_(std::exchange(other.bytes_, 0)) {}

TenantCharge& TenantCharge::operator=(TenantCharge&& other) noexcept {
  if (this != &other) {
    TenantCharge released(std::move(*this));
    ledger_ = std::move(other.ledger_);
    tenant_ = std::move(other.tenant_);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

TenantCharge::~TenantCharge() {
  if (ledger_ != nullptr) ledger_->Release(tenant_, bytes_);
}

absl::Status ValidateTenantName(std::string_view tenant, std::string_view field) {
  const bool valid_chars = std::all_of(tenant.begin(), tenant.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
  if (tenant.empty() || tenant.size() > 64 || !valid_chars) {
    return absl::InvalidArgumentError(fmt::format(
        "{} must be 1 to 64 characters of [A-Za-z0-9._-] (a tenant name), got {} characters", field,
        tenant.size()));
  }
  return absl::OkStatus();
}

absl::Status TenantLedger::RoomFor(const std::string& tenant, int64_t nbytes) const {
  auto it = bytes_.find(tenant);
  const int64_t used = it == bytes_.end() ? 0 : it->second;
  if (nbytes > quota_.max_bytes - used) {
    return absl::ResourceExhaustedError(fmt::format(
        "tenant '{}' {} quota exceeded ({} {}): the request needs {} bytes and the tenant "
        "already uses {} bytes",
        tenant, resource_, flag_, quota_.max_bytes, nbytes, used));
  }
  return absl::OkStatus();
}

absl::Status TenantLedger::CheckRoom(const std::string& tenant, int64_t nbytes) const {
  // Asked for every new array: without a quota there is nothing to refuse, nor to lock for.
  if (quota_.max_bytes == TenantQuota::kUnlimited) return absl::OkStatus();
  absl::ReaderMutexLock lock(&mutex_);
  return RoomFor(tenant, nbytes);
}

absl::StatusOr<TenantCharge> TenantLedger::Reserve(const std::string& tenant, int64_t nbytes) {
  {
    absl::MutexLock lock(&mutex_);
    if (absl::Status room = RoomFor(tenant, nbytes); !room.ok()) return room;
    if (nbytes > 0) bytes_[tenant] += nbytes;
  }
  return TenantCharge(shared_from_this(), tenant, nbytes);
}

TenantCharge TenantLedger::Adopt(const std::string& tenant, int64_t nbytes) {
  if (nbytes > 0) {
    absl::MutexLock lock(&mutex_);
    bytes_[tenant] += nbytes;
  }
  return TenantCharge(shared_from_this(), tenant, nbytes);
}

void TenantLedger::Release(const std::string& tenant, int64_t nbytes) {
  if (nbytes == 0) return;  // Empty charges are never entered (see Reserve).
  absl::MutexLock lock(&mutex_);
  auto it = bytes_.find(tenant);
  it->second -= nbytes;
  if (it->second == 0) bytes_.erase(it);
}

int64_t TenantLedger::BytesInUse(const std::string& tenant) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = bytes_.find(tenant);
  return it == bytes_.end() ? 0 : it->second;
}

absl::flat_hash_map<std::string, int64_t> TenantLedger::BytesByTenant() const {
  absl::ReaderMutexLock lock(&mutex_);
  return bytes_;
}

namespace {

class ChargedScratch final : public ScratchReceipt {
 public:
  explicit ChargedScratch(TenantCharge charge) : charge_(std::move(charge)) {}

 private:
  TenantCharge charge_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ScratchReceipt>> TenantScratchPayer::Pay(int64_t bytes) const {
  AH_ASSIGN_OR_RETURN(TenantCharge charge, ledger_.Reserve(tenant_, bytes));
  return std::make_unique<ChargedScratch>(std::move(charge));
}

}  // namespace arrayhub
