// Sharing arrays by name: Publish, Unpublish, Attach, and listing what others shared.
#include <fmt/format.h>

#include <optional>

#include "server/common/status_macros.h"
#include "server/core/engine.h"

namespace arrayhub {

absl::StatusOr<ArrayTable::RecordPtr> Engine::Publish(const Caller& caller,
                                                      const PublishSpec& spec) {
  AH_RETURN_IF_ERROR(ValidatePublicationName(spec.name));
  if (static_cast<int64_t>(spec.reader_tenants.size()) > kMaxReaderTenants) {
    return absl::InvalidArgumentError(
        fmt::format("reader_tenants names {} tenants; at most {} are allowed",
                    spec.reader_tenants.size(), kMaxReaderTenants));
  }
  for (size_t i = 0; i < spec.reader_tenants.size(); ++i) {
    AH_RETURN_IF_ERROR(
        ValidateTenantName(spec.reader_tenants[i], fmt::format("reader_tenants[{}]", i)));
  }
  // Any device: publishing moves nothing.
  AH_ASSIGN_OR_RETURN(Located found, FindOnItsDevice(caller, spec.handle));
  ArrayTable::RecordPtr array = std::move(found.array);
  if (array->owner != caller.tenant) {
    return absl::PermissionDeniedError(
        fmt::format("handle {} was attached from tenant '{}'; only the owner may publish it",
                    spec.handle, array->owner));
  }

  // Before anything is published: a refusal (a quota) leaves nothing behind.
  std::optional<DurableWrite> durable;
  if (spec.durable) {
    AH_ASSIGN_OR_RETURN(durable, PrepareDurableWrite(caller, *array));
  }

  // The publication keeps its own record: one that no session holds, so closing the
  // publisher's session frees the handle but not the data.
  auto published = std::make_shared<ArrayRecord>(*array);
  published->name = spec.name;
  published->session = Handle();
  Publication publication{.owner = caller.tenant,
                          .name = spec.name,
                          .record = published,
                          .readers = {spec.reader_tenants.begin(), spec.reader_tenants.end()},
                          .all_tenants = spec.all_tenants,
                          .writable = spec.writable};
  std::shared_future<absl::Status> written;
  {
    absl::MutexLock durable_lock(&durable_mutex_);  // Unpublish cannot come in between.
    if (ledger_->quota().max_arrays == TenantQuota::kUnlimited) {
      AH_RETURN_IF_ERROR(publications_.Add(publication));
    } else {
      absl::MutexLock lock(&handle_quota_mutex_);  // A name counts as a handle does.
      AH_RETURN_IF_ERROR(CheckArrayQuota(caller.tenant));
      AH_RETURN_IF_ERROR(publications_.Add(publication));
    }
    if (durable.has_value()) {
      written = EnqueueDurableWrite(caller, publication, *std::move(durable));
    }
  }
  // Published whatever the write's outcome: a failed write answers its error, and a later
  // Checkpoint tries again.
  if (spec.wait && written.valid()) AH_RETURN_IF_ERROR(written.get());
  return published;
}

absl::Status Engine::Unpublish(const Caller& caller, const std::string& name) {
  AH_RETURN_IF_ERROR(ValidatePublicationName(name));
  // The removed publication (and, if nothing else holds it, the memory) goes here, after the
  // registry's lock.
  absl::StatusOr<Publication> removed;
  absl::MutexLock lock(&durable_mutex_);
  removed = publications_.Remove(caller.tenant, name);
  // Its files too (none unless durable): a restart must not bring it back.
  if (removed.ok() && durable_ != nullptr) durable_->Remove(caller.tenant, name);
  return removed.status();
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::Attach(const Caller& caller, const std::string& name,
                                                     const std::string& owner) {
  AH_RETURN_IF_ERROR(ValidatePublicationName(name));
  const std::string& publisher = owner.empty() ? caller.tenant : owner;
  AH_RETURN_IF_ERROR(ValidateTenantName(publisher, "owner"));
  AH_ASSIGN_OR_RETURN(Publication publication, publications_.Find(caller.tenant, publisher, name));
  // Restored from the data directory and not loaded yet (only a reader gets this far).
  if (publication.record->buffer == nullptr) {
    AH_ASSIGN_OR_RETURN(publication, LoadRestored(caller, std::move(publication)));
  }
  ArrayRecord attached = *publication.record;
  attached.handle = Handle::Random();
  attached.holder = caller.tenant;
  attached.session = caller.session;
  attached.shared_read_only = publisher != caller.tenant && !publication.writable;
  // The base of a published view is a handle of the publisher's: another tenant's handle
  // roots its own views instead (RegisterView), so it never learns one of the owner's.
  if (publisher != caller.tenant) attached.base = Handle();
  return Register(std::move(attached));
}

std::vector<ArrayTable::RecordPtr> Engine::ListShared(const Caller& caller) const {
  std::vector<ArrayTable::RecordPtr> shared;
  for (const Publication& publication : publications_.AttachableBy(caller.tenant)) {
    auto listed = std::make_shared<ArrayRecord>(*publication.record);
    // Another tenant's handles mean nothing here and must not leak; the publisher's own may
    // have gone with its session (the publication outlives it): attach by name.
    listed->handle = Handle();
    listed->base = Handle();
    listed->shared_read_only = publication.owner != caller.tenant && !publication.writable;
    shared.push_back(std::move(listed));
  }
  return shared;
}

}  // namespace arrayhub
