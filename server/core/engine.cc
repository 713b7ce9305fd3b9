#include "server/core/engine.h"

#include <fmt/format.h>

#include <stdexcept>

#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

std::vector<std::unique_ptr<Backend>> OneDevice(std::unique_ptr<Backend> backend) {
  std::vector<std::unique_ptr<Backend>> devices;
  devices.push_back(std::move(backend));
  return devices;
}

// "add (tenant 'lab')": appended, not formatted, since every op of a Batch makes one.
std::string LabelOf(std::string_view label, std::string_view tenant) {
  std::string text;
  text.reserve(label.size() + tenant.size() + 11);
  text.append(label).append(" (tenant '").append(tenant).append("')");
  return text;
}

}  // namespace

Engine::Engine(std::vector<std::unique_ptr<Backend>> devices, Limits limits,
               SessionOptions session_options, TenantQuota quota)
    : devices_(std::move(devices)),
      limits_(limits),
      sessions_([&] {
        session_options.max_per_tenant = quota.max_sessions;
        return session_options;
      }()),
      ledger_(std::make_shared<TenantLedger>(quota)),
      spiller_(std::make_shared<Spiller>(ledger_)),
      transfers_(quota.max_transfers),
      watchers_(session_options.lease_warning_fraction) {
  if (devices_.empty()) throw std::invalid_argument("an engine needs at least one device");
}

Engine::Engine(std::unique_ptr<Backend> backend, Limits limits, SessionOptions session_options,
               TenantQuota quota)
    : Engine(OneDevice(std::move(backend)), limits, session_options, quota) {}

std::vector<DeviceDescription> Engine::Devices() const {
  std::vector<DeviceDescription> all;
  for (const std::unique_ptr<Backend>& device : devices_) {
    for (DeviceDescription& description : device->Devices()) all.push_back(std::move(description));
  }
  return all;
}

std::vector<Engine::DeviceUsage> Engine::UsageByDevice() const {
  const std::vector<int64_t> sessions = sessions_.CountByDevice(device_count());
  std::vector<DeviceUsage> usage;
  for (size_t i = 0; i < devices_.size(); ++i) {
    usage.push_back({.bytes_in_use = devices_[i]->Memory().bytes_in_use, .sessions = sessions[i]});
  }
  return usage;
}

void Engine::SetDeviceLostListener(DeviceHealth::Listener listener) {
  for (const std::unique_ptr<Backend>& device : devices_) {
    device->device_health().SetListener(listener);
  }
}

absl::Status Engine::CheckDevice(int device, std::string_view field) const {
  if (device >= 0 && device < device_count()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("{} {} is not a device of this daemon, which has {} (0 to {})", field, device,
                  device_count(), device_count() - 1));
}

absl::StatusOr<Session> Engine::OpenSession(const std::string& tenant,
                                            const std::string& client_name,
                                            std::chrono::seconds lease, std::optional<int> device) {
  if (device.has_value()) {
    AH_RETURN_IF_ERROR(CheckDevice(*device, "device"));
  } else {
    // The least loaded device by memory, then by sessions (many opened before any has
    // allocated still spread): sessions that name none spread over the node.
    const std::vector<DeviceUsage> usage = UsageByDevice();
    device = 0;
    for (int i = 1; i < device_count(); ++i) {
      const DeviceUsage& best = usage[*device];
      if (usage[i].bytes_in_use < best.bytes_in_use ||
          (usage[i].bytes_in_use == best.bytes_in_use && usage[i].sessions < best.sessions)) {
        device = i;
      }
    }
  }
  // A queue on every device up front: a call on any device finds its order ready.
  auto queues = std::make_shared<std::vector<std::shared_ptr<WorkQueue>>>();
  for (const std::unique_ptr<Backend>& backend : devices_) {
    AH_ASSIGN_OR_RETURN(std::shared_ptr<WorkQueue> queue, backend->queues().NewQueue(tenant));
    queues->push_back(std::move(queue));
  }
  return sessions_.Open(tenant, client_name, lease, Clock::now(), *device, std::move(queues));
}

Caller Engine::OnDevice(Caller caller, int device) {
  caller.device = device;
  caller.queue = caller.queues == nullptr ? nullptr : (*caller.queues)[device];
  return caller;
}

absl::StatusOr<Caller> Engine::ResolveSession(const std::string& tenant,
                                              std::string_view session_id,
                                              std::optional<int> device) {
  AH_ASSIGN_OR_RETURN(Handle id, Handle::Parse(session_id, "session id"));
  AH_ASSIGN_OR_RETURN(Session session, sessions_.Find(tenant, id));
  if (device.has_value()) AH_RETURN_IF_ERROR(CheckDevice(*device, "x-arrayhub-device"));
  return OnDevice(Caller{.tenant = session.tenant, .session = session.id, .queues = session.queues},
                  device.value_or(session.device));
}

absl::StatusOr<Caller> Engine::CallerOnDevice(const Caller& caller, int device,
                                              std::string_view field) const {
  AH_RETURN_IF_ERROR(CheckDevice(device, field));
  return OnDevice(caller, device);
}

absl::StatusOr<Session> Engine::KeepAlive(const Caller& caller) {
  return sessions_.Renew(caller.tenant, caller.session, Clock::now());
}

absl::StatusOr<int64_t> Engine::CloseSession(const Caller& caller) {
  AH_RETURN_IF_ERROR(sessions_.Close(caller.tenant, caller.session));
  return EndSession(caller.session, SessionEvent::EndReason::kClosed);
}

int64_t Engine::ReapExpiredSessions() {
  const std::vector<Session> expired = sessions_.TakeExpired(Clock::now());
  parked_descriptors_.DropExpired(Clock::now());
  for (const Session& session : expired) {
    EndSession(session.id, SessionEvent::EndReason::kLeaseExpired);
  }
  return static_cast<int64_t>(expired.size());
}

int64_t Engine::EndSession(const Handle& session, SessionEvent::EndReason reason) {
  const int64_t freed = table_.EraseSession(session);
  // Before the transfers are cancelled: a watch holds a transfer slot, and its cancel ends
  // its stream once the watch's last event, queued here, has gone out.
  watchers_.EndSession(session, reason, freed);
  transfers_.CancelSession(session);
  regions_.EraseSession(session);
  ipc_.EraseSession(session);
  events_.EraseSession(session);
  return freed;
}

absl::StatusOr<std::unique_ptr<SessionWatchers::Watch>> Engine::WatchSession(
    const Caller& caller, SessionWatchers::Listener listener) {
  AH_ASSIGN_OR_RETURN(Session session, sessions_.Find(caller.tenant, caller.session));
  std::unique_ptr<SessionWatchers::Watch> watch = watchers_.Add(session, std::move(listener));
  // As in BeginTransfer: sessions are removed before their watchers hear the end, so either
  // that end reaches this watch, or this check sees the session gone.
  if (!sessions_.IsOpen(caller.session)) {
    return absl::NotFoundError(
        fmt::format("session {} closed before the watch began", caller.session.ToString()));
  }
  return watch;
}

int64_t Engine::WarnExpiringLeases() { return watchers_.WarnExpiring(sessions_, Clock::now()); }

absl::StatusOr<std::unique_ptr<TransferRegistry::Ticket>> Engine::BeginTransfer(
    const Caller& caller, std::function<void()> cancel) {
  AH_ASSIGN_OR_RETURN(std::unique_ptr<TransferRegistry::Ticket> ticket,
                      transfers_.Begin(caller, std::move(cancel)));
  // As in RegisterAll: sessions are removed before their transfers are cancelled, so either
  // that cancel sees this one, or this check sees the session gone.
  if (!sessions_.IsOpen(caller.session)) {
    return absl::NotFoundError(
        fmt::format("session {} closed before the transfer began", caller.session.ToString()));
  }
  return ticket;
}

int64_t Engine::CancelIdleTransfers() {
  return transfers_.CancelIdle(Clock::now() - limits_.transfer_idle_timeout);
}

absl::Status Engine::CheckArrayQuota(const std::string& tenant, int64_t needed) const {
  const int64_t max = ledger_->quota().max_arrays;
  const int64_t held = table_.CountHeldBy(tenant), published = publications_.CountOf(tenant);
  if (needed > max - held - published) {
    return absl::ResourceExhaustedError(fmt::format(
        "tenant '{}' array quota exceeded (--tenant-max-arrays {}): the request needs {} more "
        "and the tenant holds {} handles and {} published names",
        tenant, max, needed, held, published));
  }
  return absl::OkStatus();
}

absl::StatusOr<ArrayRecord> Engine::NewArray(const Caller& caller, DType dtype, const Shape& shape,
                                             int64_t nbytes, bool temporary) {
  // Before allocating: Register is the exact check.
  if (!temporary && ledger_->quota().max_arrays != TenantQuota::kUnlimited) {
    AH_RETURN_IF_ERROR(CheckArrayQuota(caller.tenant));
  }
  AH_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buffer,
                      AllocateCharged(backend(caller), QueueOf(caller), caller.tenant, nbytes));
  return ArrayRecord{.handle = Handle::Random(),
                     .dtype = dtype,
                     .shape = shape,
                     .strides = ContiguousStrides(shape),
                     .offset_bytes = 0,
                     .buffer = std::move(buffer),
                     .device = caller.device,
                     .owner = caller.tenant,
                     .holder = caller.tenant,
                     .session = caller.session,
                     .base = Handle(),
                     .name = "",
                     .writable = true};
}

absl::StatusOr<std::shared_ptr<Buffer>> Engine::AllocateCharged(Backend& device,
                                                                QueueBinding& queue,
                                                                const std::string& tenant,
                                                                int64_t nbytes) {
  // Refused before allocating, so that an over-quota request cannot push the device into
  // out-of-memory; Charge below is the exact check.
  // Counted whether resident or spilled: spilling never lets a tenant hold more than this.
  AH_RETURN_IF_ERROR(ledger_->CheckRoom(tenant, nbytes));
  AH_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> allocated,
                      spiller_->Allocate(device, queue, tenant, nbytes));
  spiller_->EnforceSoftLimit(tenant);
  return allocated;
}

absl::StatusOr<ArrayView> Engine::NewScratch(const Caller& caller, DType dtype, const Shape& shape,
                                             std::vector<std::shared_ptr<Buffer>>& keep) {
  AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(shape, dtype, limits_));
  AH_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buffer,
                      AllocateCharged(backend(caller), QueueOf(caller), caller.tenant, nbytes));
  keep.push_back(buffer);
  return ArrayView{.buffer = buffer.get(),
                   .offset_bytes = 0,
                   .dtype = dtype,
                   .shape = shape,
                   .strides = ContiguousStrides(shape)};
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::Register(ArrayRecord record) {
  std::vector<ArrayRecord> one;
  one.push_back(std::move(record));
  AH_ASSIGN_OR_RETURN(std::vector<ArrayTable::RecordPtr> registered, RegisterAll(std::move(one)));
  return registered.front();
}

absl::StatusOr<std::vector<ArrayTable::RecordPtr>> Engine::RegisterAll(
    std::vector<ArrayRecord> records) {
  std::vector<ArrayTable::RecordPtr> shared;
  shared.reserve(records.size());
  for (ArrayRecord& record : records) {
    shared.push_back(std::make_shared<const ArrayRecord>(std::move(record)));
  }
  if (shared.empty()) return shared;
  // An array's memory may spill once the call that made it has ended (Engine::Binding).
  for (const ArrayTable::RecordPtr& record : shared) spiller_->Track(record->buffer);
  const std::string& holder = shared.front()->holder;  // The caller: one tenant per request.
  if (ledger_->quota().max_arrays == TenantQuota::kUnlimited) {
    for (const ArrayTable::RecordPtr& record : shared) table_.Insert(record);
  } else {
    absl::MutexLock lock(&handle_quota_mutex_);
    AH_RETURN_IF_ERROR(CheckArrayQuota(holder, static_cast<int64_t>(shared.size())));
    for (const ArrayTable::RecordPtr& record : shared) table_.Insert(record);
  }
  // A call that outlives its session (closed, or reaped when the client died mid-call) must
  // not leave its results behind in a session nobody will close. Sessions are removed before
  // their arrays are erased, so either that erase sees these records, or this check sees the
  // session gone.
  const Handle& session = shared.front()->session;
  if (!session.IsNull() && !sessions_.IsOpen(session)) {
    table_.EraseSession(session);
    return absl::NotFoundError(
        fmt::format("session {} was closed while the call ran (by its client, or because its "
                    "lease ran out); the result was freed",
                    session.ToString()));
  }
  return shared;
}

Engine::Binding::Binding(const Caller& caller, TenantLedger& ledger, Backend& backend,
                         std::string_view label)
    : stop_(caller.stop.get()), payer_(ledger, caller.tenant), scratch_(&payer_), caller_(caller) {
  // A call made inside another bound call of the same caller (a step of a batch or a chain)
  // goes on with the outer binding, and with the buffers it borrowed: the outer call may hand
  // it arrays it found.
  if (caller.bound.held()) {
    caller_.bound.Hold(caller.bound.binding());
    return;
  }
  // The tenant too: a device error the work causes is logged with the label (the session's
  // own reports name only its own tenant).
  queue_ = backend.queues().Bind(caller.queue, LabelOf(label, caller.tenant));
  caller_.bound.Hold(*queue_);
}

Engine::Binding Engine::Bind(const Caller& caller, std::string_view label) {
  return Binding(caller, *ledger_, backend(caller), label);
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::Create(const Caller& caller, const CreateSpec& spec) {
  AH_ASSIGN_OR_RETURN(CreationPlan plan, PlanCreation(spec, limits_));
  const auto bound = Bind(caller, "create");
  AH_ASSIGN_OR_RETURN(ArrayRecord record,
                      NewArray(bound.caller(), plan.dtype, plan.shape, plan.nbytes));
  for (const FillStep& step : plan.steps) {
    if (const auto* pattern = std::get_if<PatternFill>(&step)) {
      AH_RETURN_IF_ERROR(backend(bound.caller())
                             .memory()
                             .FillPattern(QueueOf(bound.caller()), *record.buffer, pattern->offset,
                                          pattern->count, pattern->stride_bytes,
                                          std::span(pattern->pattern.data(),
                                                    static_cast<size_t>(pattern->pattern_size))));
    } else if (const auto* affine = std::get_if<AffineFill>(&step)) {
      AH_RETURN_IF_ERROR(backend(bound.caller())
                             .memory()
                             .FillAffine(QueueOf(bound.caller()), *record.buffer, *affine));
    } else if (const auto* host = std::get_if<HostBytesFill>(&step)) {
      AH_RETURN_IF_ERROR(
          backend(bound.caller())
              .memory()
              .CopyFromHost(QueueOf(bound.caller()), *record.buffer, 0, host->bytes));
    } else {
      RandomCall call = std::get<RandomFill>(step).call;
      call.output = ViewOf(record);
      AH_RETURN_IF_ERROR(
          backend(bound.caller()).compute().FillRandom(QueueOf(bound.caller()), call));
    }
  }
  return Register(std::move(record));
}

absl::StatusOr<std::unique_ptr<PendingUpload>> Engine::BeginUpload(const Caller& caller,
                                                                   DType dtype,
                                                                   const Shape& shape) {
  AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(shape, dtype, limits_));
  const auto bound = Bind(caller, "upload");
  AH_ASSIGN_OR_RETURN(ArrayRecord record, NewArray(bound.caller(), dtype, shape, nbytes));
  std::string description =
      fmt::format("{} array of shape {}", DTypeName(dtype), FormatShape(shape));
  return std::make_unique<PendingUpload>(
      backend(bound.caller()), bound.caller().queue, std::move(record), 0, nbytes,
      std::move(description), limits_.max_chunk_bytes,
      [this](ArrayRecord done) { return Register(std::move(done)); });
}

absl::StatusOr<std::unique_ptr<PendingUpload>> Engine::BeginUploadInto(
    const Caller& caller, std::string_view handle, DType dtype, const Shape& shape,
    int64_t offset_bytes, int64_t length_bytes) {
  AH_ASSIGN_OR_RETURN(Located found, FindOnItsDevice(caller, handle, "header.target_handle"));
  AH_RETURN_IF_ERROR(CheckWritable(found.caller, *found.array, "header.target_handle",
                                   "the upload target is a read-only view"));
  const ArrayTable::RecordPtr& target = found.array;
  if (target->dtype != dtype || target->shape != shape) {
    return absl::InvalidArgumentError(
        fmt::format("the header says {} of shape {}, but the target {} is {} of shape {}",
                    DTypeName(dtype), FormatShape(shape), target->handle.ToString(),
                    DTypeName(target->dtype), FormatShape(target->shape)));
  }
  if (!target->c_contiguous()) {
    return absl::InvalidArgumentError(fmt::format(
        "the upload target {} is not C-contiguous; upload into a contiguous array and copy",
        target->handle.ToString()));
  }
  AH_ASSIGN_OR_RETURN(const ByteRange range,
                      ResolveByteRange(offset_bytes, length_bytes, target->nbytes(), "header."));
  std::string description = fmt::format("range [{}, {}) of {}", range.offset,
                                        range.offset + range.length, target->handle.ToString());
  return std::make_unique<PendingUpload>(
      backend(found.caller), found.caller.queue, *target, range.offset, range.length,
      std::move(description), limits_.max_chunk_bytes,
      [target](ArrayRecord /*written*/) -> absl::StatusOr<ArrayTable::RecordPtr> {
        return target;
      });
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::Find(const Caller& caller, std::string_view handle,
                                                   std::string_view field) {
  AH_ASSIGN_OR_RETURN(Handle parsed, Handle::Parse(handle, field));
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr record, table_.Find(caller, parsed));
  if (record->device != caller.device) {
    return absl::InvalidArgumentError(fmt::format(
        "{} {} is on device {} ({}), but the call runs on device {} ({}): copy it there "
        "(CopyToDevice) or run the call on device {}",
        field, record->handle.ToString(), record->device, DeviceName(record->device), caller.device,
        DeviceName(caller.device), record->device));
  }
  // Within an operation (a queue bound), its work is ordered after the array's last writer,
  // and its memory is on the device until the operation ends. A lookup outside one (of an
  // array's metadata) reads no memory.
  if (caller.bound.held()) {
    AH_RETURN_IF_ERROR(UseBuffer(caller, record->buffer));
  }
  return record;
}

absl::Status Engine::UseBuffer(const Caller& caller, const std::shared_ptr<Buffer>& buffer) {
  return UseResident(backend(caller), QueueOf(caller), buffer);
}

absl::StatusOr<Engine::Located> Engine::FindOnItsDevice(const Caller& caller,
                                                        std::string_view handle,
                                                        std::string_view field) {
  AH_ASSIGN_OR_RETURN(Handle parsed, Handle::Parse(handle, field));
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr record, table_.Find(caller, parsed));
  const int device = record->device;
  return Located{.array = std::move(record), .caller = OnDevice(caller, device)};
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::FindWritable(const Caller& caller,
                                                           std::string_view handle,
                                                           std::string_view field,
                                                           std::string_view read_only_message) {
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr record, Find(caller, handle, field));
  AH_RETURN_IF_ERROR(CheckWritable(caller, *record, field, read_only_message));
  return record;
}

absl::Status Engine::CheckWritable(const Caller& caller, const ArrayRecord& record,
                                   std::string_view field, std::string_view read_only_message) {
  if (record.shared_read_only) {
    return absl::PermissionDeniedError(
        fmt::format("{} {} is shared read-only with tenant '{}' (published as '{}' by '{}')", field,
                    record.handle.ToString(), caller.tenant, record.name, record.owner));
  }
  if (!record.writable) return absl::InvalidArgumentError(std::string(read_only_message));
  return absl::OkStatus();
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::ContiguousForReading(const Caller& caller,
                                                                   ArrayTable::RecordPtr array) {
  if (array->c_contiguous()) return array;
  const auto bound = Bind(caller, "copy for reading");
  AH_RETURN_IF_ERROR(UseBuffer(bound.caller(), array->buffer));
  AH_ASSIGN_OR_RETURN(ArrayRecord copy, CopyToNewArray(bound.caller(), ViewOf(*array), array->dtype,
                                                       MemoryOrder::kC, /*temporary=*/true));
  return std::make_shared<const ArrayRecord>(std::move(copy));
}

absl::StatusOr<std::unique_ptr<PendingDownload>> Engine::BeginDownload(const Caller& caller,
                                                                       std::string_view handle,
                                                                       int64_t chunk_bytes,
                                                                       int64_t offset_bytes,
                                                                       int64_t length_bytes) {
  if (chunk_bytes < 0) {
    return absl::InvalidArgumentError(
        fmt::format("chunk_bytes must not be negative, got {}", chunk_bytes));
  }
  chunk_bytes = chunk_bytes == 0 ? limits_.default_chunk_bytes
                                 : std::min(chunk_bytes, limits_.max_chunk_bytes);
  AH_ASSIGN_OR_RETURN(Located found, FindOnItsDevice(caller, handle));
  AH_ASSIGN_OR_RETURN(const ByteRange range,
                      ResolveByteRange(offset_bytes, length_bytes, found.array->nbytes(), ""));
  // A view with gaps or another order streams from a C-contiguous copy, made once.
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr contiguous,
                      ContiguousForReading(found.caller, found.array));
  const Caller& on = found.caller;
  return std::make_unique<PendingDownload>(backend(on), on.queue, std::move(found.array),
                                           std::move(contiguous), range.offset, range.length,
                                           chunk_bytes);
}

absl::StatusOr<int64_t> Engine::Free(const Caller& caller,
                                     const std::vector<std::string>& handles) {
  std::vector<Handle> parsed;
  parsed.reserve(handles.size());
  for (size_t i = 0; i < handles.size(); ++i) {
    AH_ASSIGN_OR_RETURN(Handle h, Handle::Parse(handles[i], fmt::format("handles[{}]", i)));
    parsed.push_back(h);
  }
  return Free(caller, parsed);
}

absl::StatusOr<int64_t> Engine::Free(const Caller& caller, const std::vector<Handle>& handles) {
  return table_.Erase(caller, handles);
}

std::vector<ArrayTable::RecordPtr> Engine::List(const Caller& caller, bool all_sessions) const {
  return table_.List(caller, all_sessions);
}

EngineStats Engine::Stats() const {
  MemoryStats memory;
  for (const std::unique_ptr<Backend>& device : devices_) {
    const MemoryStats one = device->Memory();
    memory.bytes_in_use += one.bytes_in_use;
    memory.buffers_in_use += one.buffers_in_use;
  }
  return {.bytes_in_use = memory.bytes_in_use,
          .buffers = memory.buffers_in_use,
          .arrays = table_.size(),
          .sessions = sessions_.size(),
          .shared_memory_descriptors = shared_memory_descriptors_.held(),
          .session_watches = watchers_.size()};
}

std::map<std::string, TenantUsage> Engine::UsageByTenant() const {
  std::map<std::string, TenantUsage> usage = TallyUsage(table_.All(), sessions_.CountByTenant());
  // Memory as the quotas count it: every buffer a tenant pays for, once, including those only
  // a publication or another tenant's attached handle still holds.
  for (auto& [tenant, entry] : usage) entry.bytes = ledger_->BytesInUse(tenant);
  for (const auto& [tenant, bytes] : ledger_->BytesByTenant()) usage[tenant].bytes = bytes;
  return usage;
}

int64_t Engine::TenantBytesInUse(const std::string& tenant) const {
  return ledger_->BytesInUse(tenant);
}

absl::Status Engine::ConfigureSpilling(SpillOptions options) {
  // The CPU backend's device memory is host memory: spilling there only goes to disk.
  if (devices_.front()->name() == "cpu") options.host_bytes = 0;
  return spiller_->Configure(std::move(options));
}

TenantSpill Engine::TenantSpilled(const std::string& tenant) const {
  return spiller_->Spilled(tenant);
}

SpillStats Engine::SpillStatistics() const { return spiller_->Stats(); }

}  // namespace arrayhub
