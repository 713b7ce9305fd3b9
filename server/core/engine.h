// The server's core facade: every RPC's work after decoding, with no gRPC in sight. It owns
// the handle table, the sessions and the backend, validates each request completely before
// allocating anything, and answers with core types or an absl::Status.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "server/backend/backend.h"
#include "server/core/array_table.h"
#include "server/core/byte_range.h"
#include "server/core/call_context.h"
#include "server/core/capabilities.h"
#include "server/core/collective_rules.h"
#include "server/core/compute_specs.h"
#include "server/core/creation.h"
#include "server/core/descriptor_budget.h"
#include "server/core/download.h"
#include "server/core/durable_store.h"
#include "server/core/fft_rules.h"
#include "server/core/ipc_leases.h"
#include "server/core/limits.h"
#include "server/core/linalg_specs.h"
#include "server/core/manipulation_specs.h"
#include "server/core/parked_descriptors.h"
#include "server/core/publications.h"
#include "server/core/raw_kernel_rules.h"
#include "server/core/session_events.h"
#include "server/core/session_manager.h"
#include "server/core/session_watchers.h"
#include "server/core/shared_memory_object.h"
#include "server/core/shared_memory_regions.h"
#include "server/core/shared_memory_specs.h"
#include "server/core/spiller.h"
#include "server/core/tenant_usage.h"
#include "server/core/tenants.h"
#include "server/core/transfers.h"
#include "server/core/ufunc_rules.h"
#include "server/core/upload.h"
#include "server/core/user_kernel_cache.h"
#include "server/core/user_kernel_rules.h"
#include "server/core/view_rules.h"

namespace arrayhub {

// The whole of an array's data as a backend view.
ArrayView ViewOf(const ArrayRecord& record);

// An array exported for CUDA IPC: what a client on the host needs to map it.
struct IpcExport {
  ArrayTable::RecordPtr array;
  ExportedMemory memory;
  std::string lease;        // Keeps the memory alive until ReleaseIpc or the session's end.
  std::string pool_ticket;  // One use: the pool's descriptor from the IPC socket.
};

// A pool's file descriptor for a client, with the pool's id.
struct PoolDescriptor {
  std::string pool_id;
  OwnedFd fd;
};

// One op of an elementwise chain: a run of a Batch's elementwise ops (engine_chain.cc).
struct ChainOp {
  int64_t batch_op = 0;    // Its index in the Batch, for messages.
  std::string_view label;  // How messages name it ("elementwise add").
  ElementwiseSpec spec;    // Without `out`.
  bool keep = false;       // Its result becomes an array (the Batch keeps it or reads it later).
};

// A reduction that ends an elementwise chain: the Batch op after the chain reduces one of its
// ops' results, which the chain can fold as it computes it instead of writing it out first.
struct ChainReduction {
  int64_t batch_op = 0;    // Its index in the Batch, for messages.
  std::string_view label;  // How messages name it ("reduce sum").
  int64_t value = 0;       // The chain op whose result it reduces.
  ReduceSpec spec;         // Its input is that result (spec.input is not read); no `out`.
};

// What a Checkpoint queued.
struct CheckpointResult {
  int64_t publications = 0;  // Written (or queued to be).
  int64_t bytes = 0;         // Of their arrays.
};

struct EngineStats {
  int64_t bytes_in_use = 0;  // Backend memory held by live buffers.
  int64_t buffers = 0;       // Live backend buffers.
  int64_t arrays = 0;        // Live handles.
  int64_t sessions = 0;      // Open sessions.
  // Descriptors of clients' shared-memory objects: registered regions and parked ones.
  int64_t shared_memory_descriptors = 0;
  int64_t session_watches = 0;  // Open WatchSession streams.
};

class Engine {
 public:
  // `devices` (at least one): the daemon's devices, each a backend of its own; an array lives
  // on one of them and each call runs on one (docs/devices.md).
  Engine(std::vector<std::unique_ptr<Backend>> devices, Limits limits,
         SessionOptions session_options, TenantQuota quota = {});
  // One device.
  Engine(std::unique_ptr<Backend> backend, Limits limits, SessionOptions session_options,
         TenantQuota quota = {});

  const Limits& limits() const { return limits_; }
  int device_count() const { return static_cast<int>(devices_.size()); }
  // For the composition root (main.cc) and tests; transport asks the queries below instead.
  Backend& backend(int device = 0) { return *devices_.at(device); }
  // The backend as GetServerInfo, ArrayInfo and the metrics describe it.
  std::string_view backend_name() const { return devices_.front()->name(); }
  // Every device, in index order (what ServerInfo.devices lists).
  std::vector<DeviceDescription> Devices() const;
  std::string DeviceName(int device) const { return devices_.at(device)->DeviceName(); }
  // Array memory and open sessions on each device, in index order.
  struct DeviceUsage {
    int64_t bytes_in_use = 0;
    int64_t sessions = 0;
  };
  std::vector<DeviceUsage> UsageByDevice() const;
  // Called once when a device is lost for good (device_health.h); null: nobody.
  void SetDeviceLostListener(DeviceHealth::Listener listener);

  // Sessions. Opening fails (RESOURCE_EXHAUSTED) past the tenant's session quota. `device`:
  // the session's device, where its calls run unless they name another; none: the device with
  // the least array memory in use, then the fewest sessions (the first of those tied).
  absl::StatusOr<Session> OpenSession(const std::string& tenant, const std::string& client_name,
                                      std::chrono::seconds lease,
                                      std::optional<int> device = std::nullopt);
  // The caller for a session id sent by a client (NOT_FOUND / INVALID_ARGUMENT otherwise),
  // running on `device` (none: the session's device).
  absl::StatusOr<Caller> ResolveSession(const std::string& tenant, std::string_view session_id,
                                        std::optional<int> device = std::nullopt);
  // The caller's call moved to `device` (INVALID_ARGUMENT naming `field` when there is no such
  // device): a Batch that names its device.
  absl::StatusOr<Caller> CallerOnDevice(const Caller& caller, int device,
                                        std::string_view field) const;
  // The caller's session's queue on `device` and that device (no check: a known device).
  static Caller OnDevice(Caller caller, int device);
  absl::StatusOr<Session> KeepAlive(const Caller& caller);
  // Closes the session and frees its arrays; returns how many.
  absl::StatusOr<int64_t> CloseSession(const Caller& caller);
  // Closes every session whose lease has run out; returns how many.
  int64_t ReapExpiredSessions();

  // Watches (session_watchers.h): `listener` hears the caller's session's events until the
  // watch goes. NOT_FOUND when the session closed meanwhile. The transport takes a transfer
  // slot (BeginTransfer) for each watch first, which bounds them per tenant.
  absl::StatusOr<std::unique_ptr<SessionWatchers::Watch>> WatchSession(
      const Caller& caller, SessionWatchers::Listener listener);
  // Warns the watchers of the sessions whose leases are about to run out; returns how many.
  int64_t WarnExpiringLeases();
  // Tells every watcher, now and later, that the server drains.
  void AnnounceDrain() { watchers_.Drain(); }

  // Streamed transfers (transfers.h): an upload or download holds a ticket from before its
  // first message to its end, and `cancel` stops its call. RESOURCE_EXHAUSTED past the tenant's
  // transfer quota; NOT_FOUND when the session closed meanwhile. Closing or reaping the session
  // cancels its transfers.
  absl::StatusOr<std::unique_ptr<TransferRegistry::Ticket>> BeginTransfer(
      const Caller& caller, std::function<void()> cancel);
  // Cancels the transfers idle for limits().transfer_idle_timeout; returns how many.
  int64_t CancelIdleTransfers();

  // Arrays.
  absl::StatusOr<ArrayTable::RecordPtr> Create(const Caller& caller, const CreateSpec& spec);
  absl::StatusOr<std::unique_ptr<PendingUpload>> BeginUpload(const Caller& caller, DType dtype,
                                                             const Shape& shape);
  // Starts an upload into bytes [offset_bytes, offset_bytes + length_bytes) (length 0: through
  // the end) of the existing array `handle`, which must be writable, C-contiguous and of
  // `dtype` and `shape`. Several may run at once, from any of the tenant's sessions.
  absl::StatusOr<std::unique_ptr<PendingUpload>> BeginUploadInto(const Caller& caller,
                                                                 std::string_view handle,
                                                                 DType dtype, const Shape& shape,
                                                                 int64_t offset_bytes,
                                                                 int64_t length_bytes);
  // `field` names the handle in error messages ("handle", "operands[1]", ...). Inside an
  // operation the work enqueued next is ordered after the array's (Queues::Use). The array
  // must be on the caller's device (INVALID_ARGUMENT naming both devices otherwise): an
  // operation reads its operands where it runs.
  absl::StatusOr<ArrayTable::RecordPtr> Find(const Caller& caller, std::string_view handle,
                                             std::string_view field = "handle");
  // The bound caller's next work on its device is ordered after `buffer`'s, whose memory stays
  // on the device until the call ends (UseResident, with the caller's backend and binding).
  absl::Status UseBuffer(const Caller& caller, const std::shared_ptr<Buffer>& buffer);
  // As Find, for an array on any device, with the caller moved to that device: what views,
  // reads and sharing take, wherever the array lives. Not ordered yet: bind the moved caller,
  // then UseBuffer the array's buffer.
  struct Located {
    ArrayTable::RecordPtr array;
    Caller caller;  // On the array's device.
  };
  absl::StatusOr<Located> FindOnItsDevice(const Caller& caller, std::string_view handle,
                                          std::string_view field = "handle");
  // The array an operation writes (out=, a[...] = v): as Find, then PERMISSION_DENIED when it
  // is shared read-only with the caller, INVALID_ARGUMENT `read_only_message` when it is a
  // read-only view.
  absl::StatusOr<ArrayTable::RecordPtr> FindWritable(
      const Caller& caller, std::string_view handle, std::string_view field,
      std::string_view read_only_message = "output array is read-only");
  // PERMISSION_DENIED / INVALID_ARGUMENT as FindWritable, for an array found already.
  static absl::Status CheckWritable(const Caller& caller, const ArrayRecord& record,
                                    std::string_view field, std::string_view read_only_message);
  // The array itself when it is C-contiguous, else a C-contiguous copy of it (no handle): what
  // a download reads.
  absl::StatusOr<ArrayTable::RecordPtr> ContiguousForReading(const Caller& caller,
                                                             ArrayTable::RecordPtr array);
  // Starts streaming bytes [offset_bytes, offset_bytes + length_bytes) (length 0: through
  // the end) of the array `handle`'s C-order data to the host, in chunks of `chunk_bytes` (0:
  // the default; capped at the limit), whatever its layout.
  absl::StatusOr<std::unique_ptr<PendingDownload>> BeginDownload(const Caller& caller,
                                                                 std::string_view handle,
                                                                 int64_t chunk_bytes,
                                                                 int64_t offset_bytes = 0,
                                                                 int64_t length_bytes = 0);
  // Computation (engine_compute.cc). The result is a new array of the caller's session, or
  // the `out` array when the spec names one.
  absl::StatusOr<ArrayTable::RecordPtr> Elementwise(const Caller& caller,
                                                    const ElementwiseSpec& spec);
  absl::StatusOr<ArrayTable::RecordPtr> Reduce(const Caller& caller, const ReduceSpec& spec);
  // Runs a chain of elementwise ops with as few backend calls as it can: ops of one shape in a
  // row are one FusedElementwiseCall (on the GPU one kernel whose intermediate values never
  // reach memory), and only results marked `keep` and those a later part of the chain reads
  // are written. A `reduction` after the chain is folded in the last group's pass when it
  // reduces every axis of a value of that group with a fusable op (FusableReduction), else
  // run as Reduce on the value, written out for it. Results equal running the ops one by one
  // (a fused sum adds in another order); errors name the failing op as a Batch does. Answers
  // each op's array, null where `keep` is false, then the reduction's (registered) if any; on
  // failure none is left.
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> ElementwiseChain(
      const Caller& caller, std::span<const ChainOp> ops,
      const ChainReduction* reduction = nullptr);
  // Linear algebra (engine_linalg.cc): numpy.matmul, the tensor products built on it, and
  // numpy.linalg.<op>, whose results come in NumPy's order (svd: U, S, Vh).
  absl::StatusOr<ArrayTable::RecordPtr> Matmul(const Caller& caller, const MatmulSpec& spec);
  absl::StatusOr<ArrayTable::RecordPtr> TensorProduct(const Caller& caller,
                                                      const TensorProductSpec& spec);
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> Linalg(const Caller& caller,
                                                            const LinalgSpec& spec);
  // numpy.fft's transforms (engine_fft.cc).
  absl::StatusOr<ArrayTable::RecordPtr> Fft(const Caller& caller, const FftSpec& spec);
  // User kernels (engine_user_kernel.cc): the outputs in out_params order.
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> RunKernel(const Caller& caller,
                                                               const RunKernelSpec& spec);
  // Raw CUDA kernels (engine_raw_kernel.cc): PERMISSION_DENIED without --allow-raw-kernels.
  absl::Status RunRawKernel(const Caller& caller, const RunRawKernelSpec& spec);
  // User kernels checked and compiled since start (ServerInfo.kernel_compilations).
  int64_t KernelCompilations() const { return kernels_.compilations(); }

  // A C-contiguous copy of the array `handle` (on any device) on `device`, in the caller's
  // session (engine_devices.cc): peer to peer between devices.
  absl::StatusOr<ArrayTable::RecordPtr> CopyToDevice(const Caller& caller, std::string_view handle,
                                                     int device);
  // A collective across devices (engine_devices.cc; CollectiveRequest's rules): the results, new
  // arrays of the caller's session, one per rank in rank order (kReduce: the root's only).
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> Collective(const Caller& caller,
                                                                const CollectiveSpec& spec);

  // Views and indexing (engine_views.cc): View and basic indexing give views sharing the
  // array's memory (a reshape the strides cannot express copies, as NumPy); index arrays give
  // copies (gathers). SetItem writes through the index, the value broadcast and cast.
  absl::StatusOr<ArrayTable::RecordPtr> View(const Caller& caller, const ViewSpec& spec);
  absl::StatusOr<ArrayTable::RecordPtr> GetItem(const Caller& caller, const GetItemSpec& spec);
  absl::Status SetItem(const Caller& caller, const SetItemSpec& spec);
  // Copy-making manipulations (engine_array_ops.cc): concatenate, sort, cumsum, unique, ...
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> ArrayOp(const Caller& caller,
                                                             const ArrayOpSpec& spec);

  // Events (engine_events.cc): CUDA's events on either backend, a point in the caller's
  // session's order whose time the backend takes when the session's work reaches it. Recording
  // waits for nothing; recording into an id the session holds re-records it (cudaEventRecord).
  // Ids belong to the session: another session's are NOT_FOUND, as unknown ones are.
  absl::Status RecordEvent(const Caller& caller, uint64_t event_id);
  // Whether the session's work has reached the event; with `wait`, once it has.
  absl::StatusOr<bool> QueryEvent(const Caller& caller, uint64_t event_id, bool wait);
  // Milliseconds from the event `start_id` to `end_id` of the caller's session, once its work
  // has reached both (negative when `end_id` came first); INVALID_ARGUMENT for events of two
  // devices.
  absl::StatusOr<double> EventElapsedMilliseconds(const Caller& caller, uint64_t start_id,
                                                  uint64_t end_id);

  absl::StatusOr<int64_t> Free(const Caller& caller, const std::vector<std::string>& handles);
  // As above, for handles the server holds already (a Batch's intermediates): nothing to parse.
  absl::StatusOr<int64_t> Free(const Caller& caller, const std::vector<Handle>& handles);
  std::vector<ArrayTable::RecordPtr> List(const Caller& caller, bool all_sessions) const;

  // Sharing by name (engine_sharing.cc). Publish answers the array with its name set.
  absl::StatusOr<ArrayTable::RecordPtr> Publish(const Caller& caller, const PublishSpec& spec);
  absl::Status Unpublish(const Caller& caller, const std::string& name);
  // A new handle in the caller's session to the array `owner` (empty: the caller's tenant)
  // published as `name`; writable only for the owner or where the publication allows it.
  absl::StatusOr<ArrayTable::RecordPtr> Attach(const Caller& caller, const std::string& name,
                                               const std::string& owner);
  // The publications the caller may attach to (its tenant's own, whatever session made them,
  // and those other tenants shared with it), as records with a null handle.
  std::vector<ArrayTable::RecordPtr> ListShared(const Caller& caller) const;

  // Durable publications (engine_durable.cc, docs/operations.md). Opens the data directory
  // and restores the publications found there (metadata now; each one's data at its first
  // Attach). Called once, before serving; `log` hears what an operator should know.
  absl::Status OpenDataDirectory(const std::string& path, DurableStore::Log log);
  // Writes every publication of the caller's tenant to the data directory as its next version
  // and makes it durable; with `wait`, returns once all are on disk. FAILED_PRECONDITION
  // without a data directory; refused as a whole (memory or disk quota) or queued as a whole.
  absl::StatusOr<CheckpointResult> Checkpoint(const Caller& caller, bool wait);
  // Returns once every queued write is on disk: the drain's last step.
  void FinishDurableWrites();
  // Spilling (spiller.h, docs/operations.md): sets its tiers and limits (the CPU backend has
  // no host tier). Called once, before serving, after OpenDataDirectory.
  absl::Status ConfigureSpilling(SpillOptions options);
  // Bytes of `tenant`'s arrays spilled out of device memory now, by tier.
  TenantSpill TenantSpilled(const std::string& tenant) const;
  // Spilled bytes per tenant and tier, and the spills and returns so far (metrics).
  SpillStats SpillStatistics() const;
  // Disk bytes charged to `tenant` for its durable publications; 0 without a data directory.
  int64_t TenantDiskBytes(const std::string& tenant) const;
  // Every tenant's disk bytes, for operators (metrics); empty without a data directory.
  absl::flat_hash_map<std::string, int64_t> DiskBytesByTenant() const;

  // Client shared-memory regions (engine_shared_memory.cc), each belonging to the session that
  // registered it. Every call answers FAILED_PRECONDITION when limits().shared_memory is off.
  // For the daemon's Unix socket: keeps the descriptor a process of user `sender` handed over
  // and answers the one-use ticket that RegisterSharedMemory redeems.
  absl::StatusOr<std::string> ParkSharedMemoryDescriptor(uid_t sender, OwnedFd fd);
  absl::Status RegisterSharedMemory(const Caller& caller,
                                    const SharedMemoryRegistration& registration);
  absl::Status UnregisterSharedMemory(const Caller& caller, const std::string& region_name);
  // Upload: into a new array (no handle) or over the array `handle`; answers that array.
  absl::StatusOr<ArrayTable::RecordPtr> CopyFromSharedMemory(const Caller& caller,
                                                             const SharedMemoryCopySpec& spec);
  // Download: the array `handle`'s elements in C order into the region; answers the array.
  absl::StatusOr<ArrayTable::RecordPtr> CopyToSharedMemory(const Caller& caller,
                                                           const SharedMemoryCopySpec& spec);

  // CUDA IPC (engine_ipc.cc, docs/ipc.md): FAILED_PRECONDITION when limits().cuda_ipc is off
  // or the backend cannot export the array's memory (only a tenant's own memory is exported).
  absl::StatusOr<IpcExport> ExportIpc(const Caller& caller, std::string_view handle);
  absl::Status ReleaseIpc(const Caller& caller, std::string_view lease);
  // For the IPC socket: uses up `ticket` and answers a new descriptor of the pool it names.
  absl::StatusOr<PoolDescriptor> RedeemPoolTicket(std::string_view ticket);

  // Daemon-to-daemon transfer (engine_peer.cc, proto/arrayhub/v1/peer.proto). A capability
  // for one of the caller's own arrays (PERMISSION_DENIED for an attached one), which keeps
  // the array's memory until used or expired.
  absl::StatusOr<std::string> IssueCapability(const Caller& caller, std::string_view handle,
                                              std::chrono::seconds lifetime);
  // Whether `capability` is one of this daemon's, unused: a pull needs no peer.
  bool HoldsCapability(std::string_view capability) const;
  // Uses up one of this daemon's capabilities: a new read-only handle in the caller's session
  // sharing the memory (nothing copied). NOT_FOUND as CapabilityStore::Redeem; a failure
  // leaves the capability unused.
  absl::StatusOr<ArrayTable::RecordPtr> RedeemCapability(const Caller& caller,
                                                         std::string_view capability, DType dtype,
                                                         const Shape& shape);
  // For another daemon's read of a capability: a session of `tenant` for the read
  // (RESOURCE_EXHAUSTED past the tenant's session quota), to close after it.
  absl::StatusOr<Caller> OpenPeerReadSession(const std::string& tenant);
  // In that session: uses up the capability and starts streaming its array, as BeginDownload
  // does. A failure leaves the capability unused.
  absl::StatusOr<std::unique_ptr<PendingDownload>> BeginCapabilityRead(const Caller& caller,
                                                                       std::string_view capability,
                                                                       DType dtype,
                                                                       const Shape& shape,
                                                                       int64_t chunk_bytes);

  EngineStats Stats() const;
  // Per tenant, for operators (metrics); never shown to a tenant other than its own.
  std::map<std::string, TenantUsage> UsageByTenant() const;
  // Backend memory charged to `tenant` (arrays it made, including published ones).
  int64_t TenantBytesInUse(const std::string& tenant) const;

 private:
  // The op families' view of one call: its steps forward to the private ones below.
  friend class CallContext;

  // A record for a new array of the caller's session, memory allocated (and charged to its
  // tenant), contents undefined. A `temporary` array never gets a handle (a copy made for a
  // download), so it is not held to the array quota.
  absl::StatusOr<ArrayRecord> NewArray(const Caller& caller, DType dtype, const Shape& shape,
                                       int64_t nbytes, bool temporary = false);
  // Gives records their handles: the one place that enforces the array quota, for every
  // handle however it was made (arrays, views, split parts, attachments, Batch results).
  // RegisterAll registers all of one request's results or, over the quota, none. NOT_FOUND,
  // the records freed, when the session was closed or reaped while the call ran: its client
  // would get handles that no longer exist.
  absl::StatusOr<ArrayTable::RecordPtr> Register(ArrayRecord record);
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> RegisterAll(std::vector<ArrayRecord> records);
  // The rest of the caller's operation on this thread: its backend calls go to its session's
  // queue, handed the binding that caller() holds (QueueOf), and its long backend loops poll
  // its stop signal. Every public method that computes holds one from before its first Find,
  // and goes on as bound.caller().
  // The scratch its backend calls allocate is charged to its tenant too (scratch_payer.h).
  class Binding {
   public:
    Binding(const Caller& caller, TenantLedger& ledger, Backend& backend, std::string_view label);
    Binding(const Binding&) = delete;
    Binding& operator=(const Binding&) = delete;

    // The caller, holding this binding of its queue.
    const Caller& caller() const { return caller_; }

   private:
    // Ends last, after the queue's binding: the arrays it used may spill from then on.
    PinScope pins_;
    ScopedStopSignal stop_;  // First: a backend that waits in Bind can poll it.
    TenantScratchPayer payer_;
    ScopedScratchPayer scratch_;
    std::unique_ptr<QueueBinding> queue_;  // None when it goes on with an outer binding.
    Caller caller_;
  };
  Binding Bind(const Caller& caller, std::string_view label);
  // The binding's payer refers to the caller's tenant: a caller that dies first cannot bind.
  Binding Bind(const Caller&& caller, std::string_view label) = delete;
  // RESOURCE_EXHAUSTED when `needed` more handles or publications would take the tenant past
  // max_arrays. Exact under handle_quota_mutex_; without it, a refusal before the work.
  absl::Status CheckArrayQuota(const std::string& tenant, int64_t needed = 1) const;
  // Reduce when no axis is reduced (axis=() or a 0-d input).
  // Reduce with its input found: `spec.input` is not read.
  absl::StatusOr<ArrayTable::RecordPtr> ReduceArray(const Caller& caller, const ReduceSpec& spec,
                                                    const ArrayTable::RecordPtr& input);
  absl::Status ReduceNothing(const Caller& caller, const ReduceSpec& spec, const ArrayRecord& input,
                             const ArrayView& target);
  // Backend memory of `nbytes` on `queue`, charged to `tenant`: refused before it is
  // allocated when the tenant has no room (what NewArray and NewScratch allocate with).
  absl::StatusOr<std::shared_ptr<Buffer>> AllocateCharged(Backend& device, QueueBinding& queue,
                                                          const std::string& tenant,
                                                          int64_t nbytes);
  // Scratch for the rest of the caller's request: a C-contiguous `shape` of `dtype` that
  // `keep` holds, held to the server's array limits and charged to the caller's tenant as its
  // arrays are.
  absl::StatusOr<ArrayView> NewScratch(const Caller& caller, DType dtype, const Shape& shape,
                                       std::vector<std::shared_ptr<Buffer>>& keep);
  // A copy with conversion from `source` to `target` (same shape, or one `source` broadcasts
  // to). The two may share memory: an overlapping source is first copied aside, as scratch of
  // the caller's.
  absl::Status CopyInto(const Caller& caller, const ArrayView& source, const ArrayView& target);
  // A C-contiguous copy of `source` in scratch that `keep` holds for the caller: the input of
  // an operation that would otherwise read bytes it writes.
  absl::StatusOr<ArrayView> CopyAside(const Caller& caller, const ArrayView& source,
                                      std::vector<std::shared_ptr<Buffer>>& keep);
  // A new array of the caller's session holding `source` converted to `dtype`, C-contiguous, or
  // for MemoryOrder::kF with its elements in Fortran order (F-contiguous).
  absl::StatusOr<ArrayRecord> CopyToNewArray(const Caller& caller, const ArrayView& source,
                                             DType dtype, MemoryOrder order = MemoryOrder::kC,
                                             bool temporary = false);
  // A C-contiguous copy of `source` (on any device) on the caller's device, made peer to peer
  // (engine_devices.cc); a `temporary` one is not held to the array quota, as NewArray's.
  absl::StatusOr<ArrayRecord> CopyAcross(const Caller& caller, ArrayTable::RecordPtr source,
                                         bool temporary = false);
  // A record for `layout` of `base`'s memory (a view), writable if `writable` and base is;
  // RegisterView gives it a handle.
  static ArrayRecord ViewRecord(const Caller& caller, const ArrayRecord& base, const Layout& layout,
                                bool writable = true);
  // `dtype`, when given, replaces base's (a view of its bytes as another dtype).
  absl::StatusOr<ArrayTable::RecordPtr> RegisterView(const Caller& caller, const ArrayRecord& base,
                                                     const Layout& layout, bool writable = true,
                                                     std::optional<DType> dtype = std::nullopt);
  // A durable write of `array` prepared: disk charged, and a private C-contiguous copy taken
  // in the caller's queue order (charged as scratch is), so that the write sees one moment.
  struct DurableWrite {
    TenantCharge disk;
    std::shared_ptr<const ArrayRecord> snapshot;
  };
  absl::StatusOr<DurableWrite> PrepareDurableWrite(const Caller& caller, const ArrayRecord& array);
  // Queues a prepared write of `publication` (under durable_mutex_, the publication checked).
  std::shared_future<absl::Status> EnqueueDurableWrite(const Caller& caller,
                                                       const Publication& publication,
                                                       DurableWrite write)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(durable_mutex_);
  // The data of a restored publication, read from its file, checked and copied to the device
  // (charged to its owner); a file that fails a check is set aside and the publication
  // withdrawn (DATA_LOSS).
  absl::StatusOr<Publication> LoadRestored(const Caller& caller, Publication publication);
  absl::StatusOr<std::shared_ptr<const ArrayRecord>> ReadDataFile(DurableStore::DataFile& file,
                                                                  const ArrayRecord& described);
  // FAILED_PRECONDITION when the operator switched shared memory off.
  absl::Status CheckSharedMemoryOn() const;
  // What ending a session (closed, or its lease ran out; sessions_ has dropped it) frees:
  // its arrays, its watchers told how many, then its transfers, regions, IPC leases and events.
  int64_t EndSession(const Handle& session, SessionEvent::EndReason reason);

  // The backend of the device the caller's call runs on.
  Backend& backend(const Caller& caller) { return *devices_[caller.device]; }
  // INVALID_ARGUMENT naming `field` unless `device` is one of the daemon's.
  absl::Status CheckDevice(int device, std::string_view field) const;

  std::vector<std::unique_ptr<Backend>> devices_;
  Limits limits_;
  ArrayTable table_;
  SessionManager sessions_;
  std::shared_ptr<TenantLedger> ledger_;
  // Allocates every array's memory and moves it out of the device and back (spiller.h).
  std::shared_ptr<Spiller> spiller_;
  TransferRegistry transfers_;
  SessionWatchers watchers_;
  PublicationRegistry publications_;
  // Held while a limited array quota is checked and the handles or publication it admits are
  // added, so that concurrent requests of one tenant cannot pass it together.
  absl::Mutex handle_quota_mutex_;
  DescriptorBudget shared_memory_descriptors_{limits_.max_shared_memory_descriptors};
  ParkedDescriptors parked_descriptors_;
  SharedMemoryRegistry regions_{limits_.max_shared_memory_regions,
                                limits_.tenant_max_shared_memory_regions};
  IpcLeases ipc_{limits_.max_ipc_leases};
  SessionEvents events_{limits_.max_session_events};
  CapabilityStore capabilities_;
  UserKernelCache kernels_{limits_.kernel_cache_entries, limits_.kernel_cache_bytes};
  // Null without --data-dir. Destroyed before the backend: its writer thread uses it.
  std::unique_ptr<DurableStore> durable_;
  // Held while a durable publication is added, checkpointed or withdrawn, so that the store
  // never writes a name that is no longer published.
  absl::Mutex durable_mutex_;
  // Held while a restored publication is loaded, so that two attaches load it once.
  absl::Mutex restore_mutex_;
};

}  // namespace arrayhub
