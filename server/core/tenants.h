// Per-tenant quotas and the ledger that charges device memory to tenants.
//
// Memory is charged when a buffer is allocated and released when the buffer itself goes, so a
// tenant keeps paying for an array it published while any other tenant still holds it, and
// a charge can never leak: it lives and dies with the memory it stands for.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/buffer.h"
#include "server/common/scratch_payer.h"

namespace arrayhub {

// Limits every tenant is held to (the same for all tenants). Handles and sessions are finite
// by default: each costs the server memory (a record, a session's queue) that no byte quota
// counts, so one tenant could otherwise grow the daemon without bound.
struct TenantQuota {
  static constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();
  int64_t max_bytes = kUnlimited;       // Backend memory of the arrays the tenant pays for.
  int64_t max_arrays = 100'000;         // Handles the tenant holds plus names it publishes.
  int64_t max_sessions = 1024;          // Sessions open at once.
  int64_t max_transfers = 32;           // Uploads and downloads in flight at once (transfers.h).
  int64_t max_disk_bytes = kUnlimited;  // Bytes of durable publications' files (durable_store.h).
};

// INVALID_ARGUMENT unless `tenant` is 1-64 characters of [A-Za-z0-9._-]; `field` names it.
absl::Status ValidateTenantName(std::string_view tenant, std::string_view field);

class TenantLedger;

// Bytes charged to a tenant for as long as this lives (host memory a request holds for a
// while); move-only, released when it goes. Empty when default-constructed.
class TenantCharge {
 public:
  TenantCharge() = default;
  TenantCharge(TenantCharge&& other) noexcept;
  TenantCharge& operator=(TenantCharge&& other) noexcept;
  ~TenantCharge();

  int64_t bytes() const { return bytes_; }

 private:
  friend class TenantLedger;
  TenantCharge(std::shared_ptr<TenantLedger> ledger, std::string tenant, int64_t bytes)
      : ledger_(std::move(ledger)), tenant_(std::move(tenant)), bytes_(bytes) {}

  std::shared_ptr<TenantLedger> ledger_;
  std::string tenant_;
  int64_t bytes_ = 0;
};

class TenantLedger : public std::enable_shared_from_this<TenantLedger> {
 public:
  // `resource` and `flag` name the quota in refusals; a ledger of disk bytes passes its own
  // (with the disk quota as `quota.max_bytes`).
  explicit TenantLedger(TenantQuota quota, std::string_view resource = "memory",
                        std::string_view flag = "--tenant-max-bytes")
      : quota_(quota), resource_(resource), flag_(flag) {}

  const TenantQuota& quota() const { return quota_; }

  // Charges `nbytes` to `tenant` for as long as the charge lives (a buffer's, Spiller::Allocate,
  // or host memory a request holds). RESOURCE_EXHAUSTED, naming the quota, the request and
  // the usage, when the tenant would exceed its bytes.
  absl::StatusOr<TenantCharge> Reserve(const std::string& tenant, int64_t nbytes);

  // Charges `nbytes` that exist already whatever the quota (files found at start, which the
  // operator may have made smaller since): they are there, and later requests pay for them.
  TenantCharge Adopt(const std::string& tenant, int64_t nbytes);

  // Fails like Reserve would for `nbytes` more, without charging: lets a request be refused
  // before it allocates anything.
  absl::Status CheckRoom(const std::string& tenant, int64_t nbytes) const;

  int64_t BytesInUse(const std::string& tenant) const;
  // Every tenant that pays for memory now, with its bytes.
  absl::flat_hash_map<std::string, int64_t> BytesByTenant() const;

 private:
  friend class TenantCharge;
  absl::Status RoomFor(const std::string& tenant, int64_t nbytes) const
      ABSL_SHARED_LOCKS_REQUIRED(mutex_);
  void Release(const std::string& tenant, int64_t nbytes);

  const TenantQuota quota_;
  const std::string resource_;
  const std::string flag_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<std::string, int64_t> bytes_ ABSL_GUARDED_BY(mutex_);
};

// Charges the scratch memory of a tenant's backend calls to its byte quota (scratch_payer.h):
// each receipt holds a TenantCharge. Lives for one call on its thread (Engine::Bind), so it
// only points at the ledger and the tenant's name.
class TenantScratchPayer final : public ScratchPayer {
 public:
  TenantScratchPayer(TenantLedger& ledger, const std::string& tenant)
      : ledger_(ledger), tenant_(tenant) {}
  absl::StatusOr<std::unique_ptr<ScratchReceipt>> Pay(int64_t bytes) const override;

 private:
  TenantLedger& ledger_;
  const std::string& tenant_;
};

}  // namespace arrayhub
