#include "server/core/spiller.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

#include "server/common/status_macros.h"
#include "server/core/durable_store.h"
#include "server/core/file_io.h"
#include "server/core/handle.h"

namespace arrayhub {

namespace {

// How much of a spill file moves through host memory at once.
constexpr int64_t kFileChunkBytes = int64_t{8} << 20;

thread_local PinScope* current_scope = nullptr;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// The memory of one array as core sees it: the backend's buffer while resident, a host copy
// or a file while spilled, and the tenant's charge all along (a spilled array still counts
// against --tenant-max-bytes). Fields below `charge_` are guarded by the spiller's mutex;
// `inner_`, `host_copy_` and `file_` change only in the state kMoving, by the one thread that
// moves the memory, or under the mutex.
class SpillableBuffer final : public Buffer, public std::enable_shared_from_this<SpillableBuffer> {
 public:
  SpillableBuffer(std::shared_ptr<Spiller> spiller, Backend& device, std::string tenant,
                  std::shared_ptr<Buffer> inner, TenantCharge charge)
      : Buffer(inner->data(), inner->size()),
        spiller_(std::move(spiller)),
        device_(device),
        tenant_(std::move(tenant)),
        inner_(std::move(inner)),
        charge_(std::move(charge)) {}
  ~SpillableBuffer() override { spiller_->Forget(*this); }

  const Buffer& backend_buffer() const override { return inner_->backend_buffer(); }

 private:
  friend class Spiller;
  friend class PinScope;
  friend absl::Status UseResident(Backend& device, QueueBinding& queue,
                                  const std::shared_ptr<Buffer>& buffer);
  enum class State { kResident, kMoving, kSpilled };

  const std::shared_ptr<Spiller> spiller_;
  Backend& device_;
  const std::string tenant_;
  std::shared_ptr<Buffer> inner_;  // Null while spilled.
  TenantCharge charge_;
  State state_ = State::kResident;
  int64_t pins_ = 0;                          // PinScopes holding it (and a Use bringing it back).
  int64_t last_use_ = 0;                      // Spiller::clock_ at the last Use.
  bool tracked_ = false;                      // A registered array's memory (Track).
  bool kept_ = false;                         // Never spilled (Keep).
  std::unique_ptr<StagingBuffer> host_copy_;  // Spilled to host memory.
  std::string file_;                          // Spilled to this file.
};

PinScope::PinScope() {
  if (current_scope == nullptr) {
    current_scope = this;
    outermost_ = true;
  }
}

PinScope::~PinScope() {
  if (!outermost_) return;
  current_scope = nullptr;
  for (const std::shared_ptr<SpillableBuffer>& buffer : pinned_) {
    absl::MutexLock lock(&buffer->spiller_->mutex_);
    --buffer->pins_;
  }
  // The buffers are let go after every lock is released: the last owner's destructor takes
  // the spiller's mutex.
  pinned_.clear();
}

PinScope* PinScope::Current() { return current_scope; }

absl::Status Spiller::Configure(SpillOptions options) {
  if (!options.directory.empty()) {
    // What a daemon that was killed left: its arrays are gone with it. The folder is made
    // again at the first spill (MakeDirectory).
    std::error_code error;
    std::filesystem::remove_all(options.directory, error);
    if (error) {
      return absl::InternalError(fmt::format("cannot empty the spill directory {}: {}",
                                             options.directory, error.message()));
    }
  }
  absl::MutexLock lock(&mutex_);
  options_ = std::move(options);
  return absl::OkStatus();
}

absl::Status Spiller::MakeDirectory(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return ErrnoError("cannot make the spill directory", path);
  }
  FileDescriptor directory(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (directory.get() < 0) return ErrnoError("cannot open the spill directory", path);
  // Other users may not even list the files.
  if (::fchmod(directory.get(), 0700) != 0) {
    return ErrnoError("cannot make the spill directory private (mode 0700)", path);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Buffer>> Spiller::AllocateResident(Backend& device,
                                                                  QueueBinding& queue,
                                                                  const std::string& tenant,
                                                                  int64_t nbytes) {
  while (true) {
    int64_t spills_seen = 0;
    {
      absl::MutexLock lock(&mutex_);
      spills_seen = spills_done_;
    }
    absl::StatusOr<std::shared_ptr<Buffer>> allocated = device.memory().Allocate(queue, nbytes);
    // Only the device's own refusal makes room: the tenant's quota was checked before.
    if (allocated.ok() || !absl::IsResourceExhausted(allocated.status())) return allocated;
    int64_t freed = 0;
    while (freed < nbytes) {
      const int64_t one = SpillOne(&device, tenant, Prefer::kTenantOrOverSoftLimit);
      if (one == 0) break;
      freed += one;
    }
    if (freed > 0) continue;
    // Nothing this thread could spill. Other threads' spills, finished since the allocation
    // was tried or still under way, free memory too: try again once one has ended. The
    // refusal stands only when none ended and none is under way.
    absl::MutexLock lock(&mutex_);
    while (spills_done_ == spills_seen && spills_in_flight_ > 0) moved_.Wait(&mutex_);
    if (spills_done_ == spills_seen) return allocated.status();
  }
}

absl::StatusOr<std::shared_ptr<Buffer>> Spiller::Allocate(Backend& device, QueueBinding& queue,
                                                          const std::string& tenant,
                                                          int64_t nbytes) {
  AH_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> inner,
                      AllocateResident(device, queue, tenant, nbytes));
  AH_ASSIGN_OR_RETURN(TenantCharge charge, ledger_->Reserve(tenant, nbytes));
  auto buffer = std::make_shared<SpillableBuffer>(shared_from_this(), device, tenant,
                                                  std::move(inner), std::move(charge));
  if (PinScope* scope = PinScope::Current(); scope != nullptr) {
    absl::MutexLock lock(&mutex_);
    ++buffer->pins_;
    buffer->last_use_ = ++clock_;
    scope->pinned_.push_back(buffer);
  }
  return buffer;
}

void Spiller::Track(const std::shared_ptr<Buffer>& buffer) {
  auto* spillable = dynamic_cast<SpillableBuffer*>(buffer.get());
  if (spillable == nullptr) return;
  absl::MutexLock lock(&mutex_);
  if (spillable->tracked_) return;
  spillable->tracked_ = true;
  tracked_.insert(spillable);
}

absl::Status Spiller::Keep(const std::shared_ptr<Buffer>& buffer) {
  auto* spillable = dynamic_cast<SpillableBuffer*>(buffer.get());
  if (spillable == nullptr) return absl::OkStatus();
  return Use(*spillable, /*keep=*/true);
}

absl::Status UseResident(Backend& device, QueueBinding& queue,
                         const std::shared_ptr<Buffer>& buffer) {
  // Without a scope nothing is pinned: a lookup outside any bound call (Engine::Find in a
  // test) reads no memory. A path that did would meet a null data() once it spilled.
  auto* spillable = dynamic_cast<SpillableBuffer*>(buffer.get());
  if (spillable != nullptr && current_scope != nullptr) {
    AH_RETURN_IF_ERROR(spillable->spiller_->Use(*spillable, /*keep=*/false));
  }
  return device.queues().Use(queue, buffer);
}

absl::Status Spiller::Use(SpillableBuffer& buffer, bool keep) {
  PinScope* scope = PinScope::Current();
  std::shared_ptr<SpillableBuffer> held = buffer.shared_from_this();
  bool bring_back = false;
  {
    absl::MutexLock lock(&mutex_);
    // Another thread moving it out or back: its memory is where that thread leaves it.
    while (buffer.state_ == SpillableBuffer::State::kMoving) moved_.Wait(&mutex_);
    ++buffer.pins_;  // Not a candidate from here on, even while it comes back.
    buffer.last_use_ = ++clock_;
    bring_back = buffer.state_ == SpillableBuffer::State::kSpilled;
    if (bring_back) buffer.state_ = SpillableBuffer::State::kMoving;
  }
  const auto start = std::chrono::steady_clock::now();
  const absl::Status returned = bring_back ? MoveIn(buffer) : absl::OkStatus();
  {
    absl::MutexLock lock(&mutex_);
    if (bring_back) {
      buffer.state_ =
          returned.ok() ? SpillableBuffer::State::kResident : SpillableBuffer::State::kSpilled;
      moved_.SignalAll();
      if (returned.ok()) {
        const double seconds = SecondsSince(start);
        ++stats_.returns;
        stats_.return_seconds += seconds;
        stats_.by_tenant[buffer.tenant_].return_seconds += seconds;
      }
    }
    if (!returned.ok() || keep) --buffer.pins_;
    if (!returned.ok()) return returned;
    if (keep) {
      buffer.kept_ = true;
    } else {
      scope->pinned_.push_back(std::move(held));
    }
  }
  // Memory that came back is the tenant's resident memory again.
  if (bring_back) EnforceSoftLimit(buffer.tenant_);
  return absl::OkStatus();
}

bool Spiller::OverSoftLimit(const std::string& tenant) const {
  if (options_.tenant_soft_bytes == TenantQuota::kUnlimited) return false;
  auto it = stats_.by_tenant.find(tenant);
  const int64_t spilled = it == stats_.by_tenant.end() ? 0 : it->second.total();
  return ledger_->BytesInUse(tenant) - spilled > options_.tenant_soft_bytes;
}

std::shared_ptr<SpillableBuffer> Spiller::PickVictim(const Backend* device,
                                                     const std::string& tenant, Prefer prefer) {
  const int64_t host_room = options_.host_bytes - host_used_;
  const int64_t disk_room = options_.directory.empty() ? 0 : options_.disk_bytes - disk_used_;
  absl::flat_hash_set<SpillableBuffer*> going;  // Whose last owner is letting go right now.
  while (true) {
    SpillableBuffer* best = nullptr;
    int best_rank = 0;
    for (SpillableBuffer* candidate : tracked_) {
      if (candidate->state_ != SpillableBuffer::State::kResident || candidate->pins_ > 0 ||
          candidate->kept_ || candidate->size() == 0 || going.contains(candidate)) {
        continue;
      }
      if (device != nullptr && &candidate->device_ != device) continue;
      if (candidate->size() > host_room && candidate->size() > disk_room) continue;
      int rank = 0;
      if (prefer == Prefer::kTenantOnly && candidate->tenant_ != tenant) continue;
      if (prefer == Prefer::kTenantOrOverSoftLimit && candidate->tenant_ != tenant &&
          !OverSoftLimit(candidate->tenant_)) {
        rank = 1;
      }
      if (best == nullptr || rank < best_rank ||
          (rank == best_rank && candidate->last_use_ < best->last_use_)) {
        best = candidate;
        best_rank = rank;
      }
    }
    if (best == nullptr) return nullptr;
    // Never dropped under the mutex: a last owner's destructor takes it.
    if (std::shared_ptr<SpillableBuffer> held = best->weak_from_this().lock()) return held;
    going.insert(best);
  }
}

int64_t Spiller::SpillOne(const Backend* device, const std::string& tenant, Prefer prefer) {
  std::shared_ptr<SpillableBuffer> victim;
  std::shared_ptr<Buffer> freed;  // Let go after the lock.
  bool to_host = false;
  int64_t size = 0;
  {
    absl::MutexLock lock(&mutex_);
    victim = PickVictim(device, tenant, prefer);
    if (victim == nullptr) return 0;
    size = victim->size();
    to_host = size <= options_.host_bytes - host_used_;
    (to_host ? host_used_ : disk_used_) += size;  // Reserved before the copy.
    victim->state_ = SpillableBuffer::State::kMoving;
    ++spills_in_flight_;
  }
  const auto start = std::chrono::steady_clock::now();
  const absl::Status moved = MoveOut(*victim, to_host);
  std::function<void(const std::string&)> log;  // Set where the move failed; called unlocked.
  {
    absl::MutexLock lock(&mutex_);
    if (moved.ok()) {
      freed = std::move(victim->inner_);
      victim->set_data(nullptr);
      TenantSpill& spilled = stats_.by_tenant[victim->tenant_];
      (to_host ? spilled.host_bytes : spilled.disk_bytes) += size;
      ++stats_.spills;
      stats_.spill_seconds += SecondsSince(start);
    } else {
      (to_host ? host_used_ : disk_used_) -= size;
      log = options_.log;
    }
    victim->state_ =
        moved.ok() ? SpillableBuffer::State::kSpilled : SpillableBuffer::State::kResident;
    moved_.SignalAll();  // The Uses waiting for this buffer check again once the lock goes.
  }
  if (log) {
    log(fmt::format("spilling {} bytes of tenant '{}' to {} failed: {}", size, victim->tenant_,
                    to_host ? "host memory" : "disk", moved.ToString()));
  }
  // The memory goes back to the device before the allocations waiting for room hear of it.
  freed.reset();
  {
    absl::MutexLock lock(&mutex_);
    --spills_in_flight_;
    ++spills_done_;
    moved_.SignalAll();
  }
  // A failed move (a full disk) leaves the array where it was; the caller's request answers
  // the refusal it would have without spilling.
  return moved.ok() ? size : 0;
}

absl::Status Spiller::MoveOut(SpillableBuffer& buffer, bool to_host) {
  Backend& device = buffer.device_;
  const std::shared_ptr<Buffer>& inner = buffer.inner_;
  const int64_t size = buffer.size();
  // On the backend's own queue, after the work queued on the memory so far (whichever
  // session queued it); the memory's free then comes after the copy in its owner's order.
  const std::unique_ptr<QueueBinding> bound = device.queues().Bind(nullptr, "spill");
  AH_RETURN_IF_ERROR(device.queues().Use(*bound, inner));
  if (to_host) {
    int64_t tier_bytes = 0;
    {
      absl::MutexLock lock(&mutex_);
      tier_bytes = options_.host_bytes;
    }
    // One copy of the whole buffer into the tier's pinned memory; where the tier's blocks
    // (rounded up to whole MiB) leave no room for this one, ordinary host memory, slower.
    absl::StatusOr<std::unique_ptr<StagingBuffer>> pinned =
        device.host_exchange().AllocateHostTier(size, tier_bytes);
    if (!pinned.ok() && pinned.status().code() != absl::StatusCode::kResourceExhausted) {
      return pinned.status();
    }
    std::unique_ptr<StagingBuffer> copy;
    if (pinned.ok()) {
      copy = *std::move(pinned);
    } else {
      AH_ASSIGN_OR_RETURN(copy, device.host_exchange().AllocateStaging(size));
    }
    AH_RETURN_IF_ERROR(copy->CopyFrom(*bound, *inner, 0, size));
    AH_RETURN_IF_ERROR(copy->Wait());
    buffer.host_copy_ = std::move(copy);
    return absl::OkStatus();
  }
  std::string directory;
  {
    absl::MutexLock lock(&mutex_);
    directory = options_.directory;
  }
  AH_RETURN_IF_ERROR(MakeDirectory(directory));
  // A random name, never a tenant's string.
  const std::string path = fmt::format("{}/{}.spill", directory, Handle::Random().ToString());
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd.get() < 0) return ErrnoError("cannot create the spill file", path);
  std::vector<std::byte> chunk(static_cast<size_t>(std::min(size, kFileChunkBytes)));
  absl::Status written;
  for (int64_t offset = 0; offset < size && written.ok(); offset += kFileChunkBytes) {
    const auto part =
        std::span(chunk).first(static_cast<size_t>(std::min(kFileChunkBytes, size - offset)));
    written = device.memory().CopyToHost(*bound, *inner, offset, part);
    if (written.ok()) {
      written =
          WriteAll(fd.get(),
                   std::string_view(reinterpret_cast<const char*>(part.data()), part.size()), path);
    }
  }
  if (!written.ok()) {
    ::unlink(path.c_str());
    return written;
  }
  buffer.file_ = path;
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<WorkQueue>> Spiller::ReturnQueue(Backend& device,
                                                                const std::string& tenant) {
  {
    absl::MutexLock lock(&mutex_);
    if (auto it = return_queues_.find(std::pair{&device, tenant}); it != return_queues_.end()) {
      return it->second;
    }
  }
  AH_ASSIGN_OR_RETURN(std::shared_ptr<WorkQueue> queue, device.queues().NewQueue(tenant));
  absl::MutexLock lock(&mutex_);
  // Another return may have made one meanwhile: the first stays, this one goes.
  return return_queues_.try_emplace(std::pair{&device, tenant}, std::move(queue)).first->second;
}

absl::Status Spiller::MoveIn(SpillableBuffer& buffer) {
  Backend& device = buffer.device_;
  const int64_t size = buffer.size();
  // On a queue of the owner's (ReturnQueue), never the caller's: memory allocated while a queue is
  // bound is that queue's tenant's (on the CUDA backend, in the pool that tenant may map
  // whole through IPC), and the caller may be another tenant using a publication. The
  // caller's calls are ordered after this queue's copy by their Use of the buffer.
  AH_ASSIGN_OR_RETURN(std::shared_ptr<WorkQueue> queue, ReturnQueue(device, buffer.tenant_));
  const std::unique_ptr<QueueBinding> bound = device.queues().Bind(
      std::move(queue), fmt::format("return from spill (tenant '{}')", buffer.tenant_));
  AH_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> inner,
                      AllocateResident(device, *bound, buffer.tenant_, size));
  if (buffer.host_copy_ != nullptr) {
    AH_RETURN_IF_ERROR(buffer.host_copy_->CopyTo(*bound, *inner, 0, size));
    AH_RETURN_IF_ERROR(buffer.host_copy_->Wait());
  } else {
    const std::string& path = buffer.file_;
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return ErrnoError("cannot open the spill file", path);
    std::vector<std::byte> chunk(static_cast<size_t>(std::min(size, kFileChunkBytes)));
    for (int64_t offset = 0; offset < size;) {
      const ssize_t got =
          ::pread(fd.get(), chunk.data(),
                  static_cast<size_t>(std::min<int64_t>(chunk.size(), size - offset)), offset);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return ErrnoError("cannot read the spill file", path);
      if (got == 0) return absl::DataLossError(fmt::format("spill file {} ends early", path));
      AH_RETURN_IF_ERROR(device.memory().CopyFromHost(
          *bound, *inner, offset, std::span(chunk).first(static_cast<size_t>(got))));
      offset += got;
    }
  }
  SpilledCopy copy;
  {
    absl::MutexLock lock(&mutex_);
    buffer.inner_ = std::move(inner);
    buffer.set_data(buffer.inner_->data());
    copy = TakeSpilledCopy(buffer);
  }
  return absl::OkStatus();
}

Spiller::SpilledCopy::~SpilledCopy() {
  if (!file.empty()) ::unlink(file.c_str());
}

Spiller::SpilledCopy Spiller::TakeSpilledCopy(SpillableBuffer& buffer) {
  SpilledCopy copy;
  copy.host = std::move(buffer.host_copy_);
  copy.file = std::exchange(buffer.file_, {});
  const int64_t size = buffer.size();
  TenantSpill& spilled = stats_.by_tenant[buffer.tenant_];
  (copy.host != nullptr ? host_used_ : disk_used_) -= size;
  (copy.host != nullptr ? spilled.host_bytes : spilled.disk_bytes) -= size;
  if (spilled.total() == 0 && spilled.return_seconds == 0) stats_.by_tenant.erase(buffer.tenant_);
  return copy;
}

void Spiller::EnforceSoftLimit(const std::string& tenant) {
  while (true) {
    {
      absl::MutexLock lock(&mutex_);
      if (!OverSoftLimit(tenant)) return;
    }
    if (SpillOne(nullptr, tenant, Prefer::kTenantOnly) == 0) return;
  }
}

void Spiller::Forget(SpillableBuffer& buffer) {
  SpilledCopy copy;  // Its file is deleted after the lock.
  absl::MutexLock lock(&mutex_);
  tracked_.erase(&buffer);
  if (buffer.state_ == SpillableBuffer::State::kSpilled) copy = TakeSpilledCopy(buffer);
}

TenantSpill Spiller::Spilled(const std::string& tenant) const {
  absl::MutexLock lock(&mutex_);
  auto it = stats_.by_tenant.find(tenant);
  return it == stats_.by_tenant.end() ? TenantSpill{} : it->second;
}

SpillStats Spiller::Stats() const {
  absl::MutexLock lock(&mutex_);
  return stats_;
}

}  // namespace arrayhub
