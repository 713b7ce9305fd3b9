// Who pays for the scratch memory a backend call allocates for its own use (sort buffers, FFT
// work areas, solver workspaces, reduction staging): core charges it to the calling tenant's
// byte quota as it charges the tenant's arrays, and refuses it past the quota before the
// memory is allocated. Engine::Bind installs the payer for the thread of a tenant's call;
// backends ask PayForScratch before they allocate. Core and the backends share only this.
#pragma once

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"

namespace arrayhub {

// Kept as long as the scratch memory it paid for: the charge is refunded when it goes.
class ScratchReceipt {
 public:
  virtual ~ScratchReceipt() = default;
};

class ScratchPayer {
 public:
  virtual ~ScratchPayer() = default;
  // A receipt for `bytes` more, or RESOURCE_EXHAUSTED (naming the quota) when there is no room.
  virtual absl::StatusOr<std::unique_ptr<ScratchReceipt>> Pay(int64_t bytes) const = 0;
};

// While alive, `payer` (null: none; it must outlive the scope) pays for the calling thread's
// scratch. Scopes nest; the previous payer is the thread's again when this one ends.
class ScopedScratchPayer {
 public:
  explicit ScopedScratchPayer(const ScratchPayer* payer);
  ~ScopedScratchPayer();
  ScopedScratchPayer(const ScopedScratchPayer&) = delete;
  ScopedScratchPayer& operator=(const ScopedScratchPayer&) = delete;

 private:
  const ScratchPayer* previous_;
};

// Pays for `bytes` of scratch with the calling thread's payer: the receipt to keep with the
// memory, or null when no payer is installed (work no tenant asked for: the backends' own
// tests, the server's housekeeping).
absl::StatusOr<std::unique_ptr<ScratchReceipt>> PayForScratch(int64_t bytes);

}  // namespace arrayhub
