// Spilling (docs/operations.md, "Spilling"): when the device runs short, or a tenant's resident
// memory passes --tenant-soft-bytes, the memory of arrays that no bound call uses moves, least
// recently used first, to host memory (--spill-host-bytes, pinned on the CUDA backend) and then
// to files under the data directory, and comes back when a call next uses it.
//
// Residency is restored at the one gateway every call already passes to reach an array's
// bytes: UseResident, which core calls where a backend's Use would be called. It pins the
// buffer for the calling thread's PinScope (every Engine::Binding holds one, as do the
// per-chunk bindings of uploads and downloads), and only unpinned buffers spill: a call never
// sees a spilled buffer, and the spiller never races a call. Memory that outlives one bound
// call (a CUDA IPC export) is kept resident for good (Keep). Only the memory of registered
// arrays spills (Track); scratch and temporary copies never do.
//
// A spilled buffer's data() is null, so a path that reached an array's memory without
// UseResident crashes in tests (and the sanitizer builds report the race) instead of reading
// whatever memory the stale pointer meets.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/backend.h"
#include "server/core/tenants.h"

namespace arrayhub {

struct SpillOptions {
  // Where spill files go (the data directory's "spill" folder; removed at start); empty: no
  // disk tier.
  std::string directory;
  // Host memory spilled arrays may take, all tenants together (--spill-host-bytes). The CPU
  // backend has none: its device memory is host memory already.
  int64_t host_bytes = 0;
  // Bytes of spill files, all tenants together (--spill-disk-bytes). A tenant's spilled bytes
  // are counted in its --tenant-max-bytes already, so they are not in its disk quota.
  int64_t disk_bytes = TenantQuota::kUnlimited;
  // A tenant whose resident bytes pass this has its own least recently used arrays spilled
  // (--tenant-soft-bytes).
  int64_t tenant_soft_bytes = TenantQuota::kUnlimited;
  // Hears what an operator should know: a spill that failed (a full or broken disk), with
  // its reason. The array stays where it was; the request that needed room is refused.
  std::function<void(const std::string&)> log = {};
};

// Spilled bytes of one tenant by tier.
struct TenantSpill {
  int64_t host_bytes = 0;
  int64_t disk_bytes = 0;
  // Seconds calls have waited for the tenant's arrays to come back, since the daemon started
  // (what a client's profiler shows of spilling).
  double return_seconds = 0;
  int64_t total() const { return host_bytes + disk_bytes; }
};

struct SpillStats {
  absl::flat_hash_map<std::string, TenantSpill> by_tenant;
  int64_t spills = 0;
  int64_t returns = 0;
  double spill_seconds = 0;   // Moving memory out.
  double return_seconds = 0;  // Calls waiting for memory to come back.
};

class SpillableBuffer;

// The buffers the calling thread's bound calls use, pinned until the outermost scope ends
// (inner scopes, as nested Engine::Bindings make, add to the outermost one).
class PinScope {
 public:
  PinScope();
  ~PinScope();
  PinScope(const PinScope&) = delete;
  PinScope& operator=(const PinScope&) = delete;

 private:
  friend class Spiller;
  static PinScope* Current();
  bool outermost_ = false;
  std::vector<std::shared_ptr<SpillableBuffer>> pinned_;
};

class Spiller : public std::enable_shared_from_this<Spiller> {
 public:
  // `ledger`: what each tenant is charged (resident and spilled), for the soft limit.
  explicit Spiller(std::shared_ptr<TenantLedger> ledger) : ledger_(std::move(ledger)) {}

  // Before any memory is allocated: sets the tiers and limits, and removes
  // `options.directory` with what an earlier run left there (it is made, mode 0700, at the
  // first spill to disk).
  absl::Status Configure(SpillOptions options);

  // `nbytes` of `device` memory on `queue` (DeviceMemory::Allocate), charged to `tenant`,
  // pinned in the current scope (the call making it uses it). When the device is out of memory,
  // unpinned arrays spill (the tenant's own and those of tenants past their soft limit first, then
  // the least recently used) and the allocation is tried again. RESOURCE_EXHAUSTED as
  // DeviceMemory::Allocate, or as the tenant's quota refuses (the memory is then freed).
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(Backend& device, QueueBinding& queue,
                                                   const std::string& tenant, int64_t nbytes);
  // `buffer` (one Allocate made) is a registered array's memory: it may spill from now on.
  void Track(const std::shared_ptr<Buffer>& buffer);
  // Brings `buffer` back if spilled and never spills it again (memory another process maps).
  absl::Status Keep(const std::shared_ptr<Buffer>& buffer);
  // Spills `tenant`'s least recently used arrays until its resident bytes are within the
  // soft limit, or none is left to spill.
  void EnforceSoftLimit(const std::string& tenant);

  TenantSpill Spilled(const std::string& tenant) const;
  SpillStats Stats() const;

 private:
  friend class SpillableBuffer;
  friend class PinScope;
  friend absl::Status UseResident(Backend& device, QueueBinding& queue,
                                  const std::shared_ptr<Buffer>& buffer);
  enum class Prefer { kLeastRecentlyUsed, kTenantOrOverSoftLimit, kTenantOnly };

  absl::Status Use(SpillableBuffer& buffer, bool keep);
  // Moves one unpinned array's memory out; its bytes, or 0 when no array can go.
  int64_t SpillOne(const Backend* device, const std::string& tenant, Prefer prefer);
  std::shared_ptr<SpillableBuffer> PickVictim(const Backend* device, const std::string& tenant,
                                              Prefer prefer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool OverSoftLimit(const std::string& tenant) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  absl::StatusOr<std::shared_ptr<Buffer>> AllocateResident(Backend& device, QueueBinding& queue,
                                                           const std::string& tenant,
                                                           int64_t nbytes);
  static absl::Status MakeDirectory(const std::string& path);
  // Copies the memory of `buffer` (kMoving) to the host tier or a new file.
  absl::Status MoveOut(SpillableBuffer& buffer, bool to_host);
  // Allocates device memory for `buffer` (kMoving), on a queue of its owner's, and copies its
  // spilled copy back.
  absl::Status MoveIn(SpillableBuffer& buffer);
  // A spilled buffer's copy, taken out of it; the file is deleted when this goes.
  struct SpilledCopy {
    SpilledCopy() = default;
    SpilledCopy(SpilledCopy&& other) noexcept
        : host(std::move(other.host)), file(std::exchange(other.file, {})) {}
    SpilledCopy& operator=(SpilledCopy&& other) noexcept {
      host = std::move(other.host);
      file = std::exchange(other.file, {});
      return *this;
    }
    ~SpilledCopy();
    std::unique_ptr<StagingBuffer> host;
    std::string file;
  };
  SpilledCopy TakeSpilledCopy(SpillableBuffer& buffer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The queue `tenant`'s returns on `device` run on, made at the first (a queue is a stream
  // on a GPU, which every buffer allocated on it keeps: one per return would pile them up).
  absl::StatusOr<std::shared_ptr<WorkQueue>> ReturnQueue(Backend& device,
                                                         const std::string& tenant);
  // From the destructor of `buffer`.
  void Forget(SpillableBuffer& buffer);

  const std::shared_ptr<TenantLedger> ledger_;
  mutable absl::Mutex mutex_;
  // Spills under way, and ended (moved or not) since start: an allocation the device refused
  // waits for one under way to end before it gives up (AllocateResident).
  int64_t spills_in_flight_ ABSL_GUARDED_BY(mutex_) = 0;
  int64_t spills_done_ ABSL_GUARDED_BY(mutex_) = 0;
  // Signalled whenever a buffer leaves the state kMoving. (A CondVar, not Mutex::Await: TSan
  // builds annotate CondVar::Wait, whereas Await's condition runs inside Debian's
  // uninstrumented abseil.)
  absl::CondVar moved_;
  SpillOptions options_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_set<SpillableBuffer*> tracked_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::pair<const Backend*, std::string>, std::shared_ptr<WorkQueue>>
      return_queues_ ABSL_GUARDED_BY(mutex_);
  int64_t clock_ ABSL_GUARDED_BY(mutex_) = 0;  // Ticks of Use, for least recently used.
  int64_t host_used_ ABSL_GUARDED_BY(mutex_) = 0;
  int64_t disk_used_ ABSL_GUARDED_BY(mutex_) = 0;
  SpillStats stats_ ABSL_GUARDED_BY(mutex_);
};

// What core calls instead of Queues::Use: brings `buffer` back if it was spilled (waiting
// for it), pins it for the calling thread's PinScope, then calls `device`'s Use with `queue`;
// without a PinScope (no bound call: nothing reads the memory) only the latter. A failed return (a
// disk error, no device memory even after spilling others) answers its status and changes nothing.
absl::Status UseResident(Backend& device, QueueBinding& queue,
                         const std::shared_ptr<Buffer>& buffer);

}  // namespace arrayhub
