// Daemon-to-daemon transfer: capabilities issued, redeemed here (same daemon) or read by a
// peer daemon (proto/arrayhub/v1/peer.proto).
#include <fmt/format.h>

#include "server/common/status_macros.h"
#include "server/core/engine.h"

namespace arrayhub {
namespace {

// `record` as a new read-only handle of `caller`'s session: the same memory, as Attach does.
ArrayRecord HandleFor(const Caller& caller, const ArrayRecord& record) {
  ArrayRecord held = record;
  held.handle = Handle::Random();
  held.holder = caller.tenant;
  held.session = caller.session;
  held.name.clear();
  // A chunk is not written once sent; a write through either handle would reach the other.
  held.writable = false;
  return held;
}

}  // namespace

absl::StatusOr<std::string> Engine::IssueCapability(const Caller& caller, std::string_view handle,
                                                    std::chrono::seconds lifetime) {
  AH_ASSIGN_OR_RETURN(Located found, FindOnItsDevice(caller, handle));
  ArrayTable::RecordPtr array = std::move(found.array);
  if (array->owner != caller.tenant) {
    return absl::PermissionDeniedError(
        fmt::format("handle {} was attached from tenant '{}'; only the owner may issue a "
                    "capability for it",
                    handle, array->owner));
  }
  return capabilities_.Issue(caller.tenant, std::move(array), lifetime, Clock::now());
}

bool Engine::HoldsCapability(std::string_view capability) const {
  return capabilities_.Holds(capability);
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::RedeemCapability(const Caller& caller,
                                                               std::string_view capability,
                                                               DType dtype, const Shape& shape) {
  AH_ASSIGN_OR_RETURN(CapabilityStore::Grant grant,
                      capabilities_.Redeem(capability, caller.tenant, dtype, shape, Clock::now()));
  absl::StatusOr<ArrayTable::RecordPtr> held = Register(HandleFor(caller, *grant.record));
  if (!held.ok()) capabilities_.Reinstate(capability, std::move(grant));  // The array quota.
  return held;
}

absl::StatusOr<Caller> Engine::OpenPeerReadSession(const std::string& tenant) {
  AH_RETURN_IF_ERROR(ValidateTenantName(tenant, "tenant"));
  AH_ASSIGN_OR_RETURN(Session session, OpenSession(tenant, "peer read", std::chrono::seconds(0)));
  return OnDevice(Caller{.tenant = session.tenant, .session = session.id, .queues = session.queues},
                  session.device);
}

absl::StatusOr<std::unique_ptr<PendingDownload>> Engine::BeginCapabilityRead(
    const Caller& caller, std::string_view capability, DType dtype, const Shape& shape,
    int64_t chunk_bytes) {
  AH_ASSIGN_OR_RETURN(CapabilityStore::Grant grant,
                      capabilities_.Redeem(capability, caller.tenant, dtype, shape, Clock::now()));
  absl::StatusOr<std::unique_ptr<PendingDownload>> download =
      [&]() -> absl::StatusOr<std::unique_ptr<PendingDownload>> {
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr held, Register(HandleFor(caller, *grant.record)));
    return BeginDownload(caller, held->handle.ToString(), chunk_bytes);
  }();
  if (!download.ok()) capabilities_.Reinstate(capability, std::move(grant));
  return download;
}

}  // namespace arrayhub
