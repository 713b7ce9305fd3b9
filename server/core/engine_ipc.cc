// CUDA IPC export (docs/ipc.md): leases on arrays' memory for processes on the server's host,
// and the pool descriptors they import it through.
#include <fmt/format.h>

#include "server/common/status_macros.h"
#include "server/core/engine.h"

namespace arrayhub {

absl::StatusOr<IpcExport> Engine::ExportIpc(const Caller& caller, std::string_view handle) {
  if (!limits_.cuda_ipc) {
    return absl::FailedPreconditionError("CUDA IPC is switched off on this server (--cuda-ipc)");
  }
  // No queue is bound: the backend waits for the memory's own queue, which every other queue
  // that wrote it was made to wait for when its work ended (docs/execution.md).
  AH_ASSIGN_OR_RETURN(Located found, FindOnItsDevice(caller, handle));
  ArrayTable::RecordPtr array = std::move(found.array);
  // Another process maps the memory from now on: it stays on the device for good (back in
  // its owner's memory if it was spilled).
  AH_RETURN_IF_ERROR(spiller_->Keep(array->buffer));
  AH_ASSIGN_OR_RETURN(
      ExportedMemory memory,
      backend(found.caller).host_exchange().ExportMemory(*array->buffer, caller.tenant));
  AH_ASSIGN_OR_RETURN(std::string lease, ipc_.Grant(caller.session, array->buffer));
  // A session closed since Find would never see this lease again.
  if (absl::StatusOr<Session> open = sessions_.Find(caller.tenant, caller.session); !open.ok()) {
    (void)ipc_.Release(caller.session, lease);
    return open.status();
  }
  std::string ticket = ipc_.IssueTicket(memory.pool_id, Clock::now());
  return IpcExport{.array = std::move(array),
                   .memory = std::move(memory),
                   .lease = std::move(lease),
                   .pool_ticket = std::move(ticket)};
}

absl::Status Engine::ReleaseIpc(const Caller& caller, std::string_view lease) {
  return ipc_.Release(caller.session, lease);
}

absl::StatusOr<PoolDescriptor> Engine::RedeemPoolTicket(std::string_view ticket) {
  AH_ASSIGN_OR_RETURN(std::string pool_id, ipc_.RedeemTicket(ticket, Clock::now()));
  // Pool ids are unique in the process: the device that made the pool answers.
  absl::StatusOr<int> fd = absl::NotFoundError(fmt::format("no exportable pool '{}'", pool_id));
  for (const std::unique_ptr<Backend>& device : devices_) {
    fd = device->host_exchange().ExportPoolDescriptor(pool_id);
    if (!absl::IsNotFound(fd.status())) break;
  }
  AH_RETURN_IF_ERROR(fd.status());
  return PoolDescriptor{.pool_id = std::move(pool_id), .fd = OwnedFd(*fd)};
}

}  // namespace arrayhub
