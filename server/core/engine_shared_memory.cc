// Client shared-memory regions: registration (a descriptor the client handed over, limits),
// and uploads and downloads that are one copy between a region and an array's memory.
#include <fmt/format.h>

#include "server/common/status_macros.h"
#include "server/core/engine.h"
#include "server/core/shared_memory_object.h"

namespace arrayhub {
namespace {

// The one answer to every registration whose ticket or object is refused, whatever the reason:
// nothing about a descriptor or a ticket that is not the caller's can be learnt from it.
constexpr char kRegistrationRefused[] =
    "descriptor_ticket refused: a ticket is good once, within 10 s of handing the descriptor "
    "to the daemon's socket, and the descriptor must be a memfd of the sending process's user, "
    "open for reading and writing, sealed against shrinking (F_SEAL_SHRINK) but not against "
    "writing, of at least byte_size bytes";

// INVALID_ARGUMENT unless [offset, offset + nbytes) lies in the region. No sum is formed, so
// no value a client sends can overflow.
absl::Status CheckSpan(const SharedMemoryRegion& region, int64_t offset, int64_t nbytes) {
  if (offset < 0) {
    return absl::InvalidArgumentError(
        fmt::format("offset_bytes must not be negative, got {}", offset));
  }
  if (offset > region.byte_size || nbytes > region.byte_size - offset) {
    return absl::InvalidArgumentError(
        fmt::format("offset_bytes {} plus the array's {} bytes exceeds region '{}' of {} bytes",
                    offset, nbytes, region.name, region.byte_size));
  }
  return absl::OkStatus();
}

// With a handle, the request's dtype and shape may be left unset or must be the array's.
absl::Status CheckMatches(const SharedMemoryCopySpec& spec, const ArrayRecord& array) {
  if (spec.dtype.has_value() && *spec.dtype != array.dtype) {
    return absl::InvalidArgumentError(fmt::format("dtype {} does not match array {}, which is {}",
                                                  DTypeName(*spec.dtype), spec.handle,
                                                  DTypeName(array.dtype)));
  }
  if (!spec.shape.empty() && spec.shape != array.shape) {
    return absl::InvalidArgumentError(
        fmt::format("shape {} does not match array {}, whose shape is {}", FormatShape(spec.shape),
                    spec.handle, FormatShape(array.shape)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Engine::CheckSharedMemoryOn() const {
  if (!limits_.shared_memory) {
    return absl::FailedPreconditionError("shared memory is switched off on this server");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Engine::ParkSharedMemoryDescriptor(uid_t sender, OwnedFd fd) {
  AH_RETURN_IF_ERROR(CheckSharedMemoryOn());
  AH_ASSIGN_OR_RETURN(DescriptorCharge charge, shared_memory_descriptors_.Take());
  return parked_descriptors_.Park(sender, std::move(fd), std::move(charge), Clock::now());
}

absl::Status Engine::RegisterSharedMemory(const Caller& caller,
                                          const SharedMemoryRegistration& registration) {
  AH_RETURN_IF_ERROR(CheckSharedMemoryOn());
  // Used up by this call whatever it answers, so that a refused registration keeps no
  // descriptor waiting.
  absl::StatusOr<ParkedDescriptor> parked =
      parked_descriptors_.Redeem(registration.descriptor_ticket, Clock::now());
  AH_RETURN_IF_ERROR(ValidateRegionName(registration.region_name));
  if (registration.byte_size < 1) {
    return absl::InvalidArgumentError(
        fmt::format("byte_size must be positive, got {}", registration.byte_size));
  }
  if (registration.byte_size > limits_.max_shared_memory_bytes) {
    return absl::ResourceExhaustedError(fmt::format(
        "byte_size {} exceeds the largest shared-memory region the server allows, {} bytes "
        "(--max-shared-memory-bytes)",
        registration.byte_size, limits_.max_shared_memory_bytes));
  }
  AH_RETURN_IF_ERROR(regions_.CheckRoom(caller.tenant, caller.session, registration.region_name));
  if (!parked.ok() ||
      !IsRegistrableObject(parked->fd.get(), parked->sender, registration.byte_size)) {
    return absl::PermissionDeniedError(kRegistrationRefused);
  }
  AH_ASSIGN_OR_RETURN(
      std::unique_ptr<HostRegion> host,
      backend(caller).host_exchange().OpenHostRegion(parked->fd.get(), registration.byte_size));
  AH_RETURN_IF_ERROR(regions_.Add(caller.tenant, caller.session,
                                  std::make_shared<const SharedMemoryRegion>(SharedMemoryRegion{
                                      .charge = std::move(parked->charge),
                                      .name = registration.region_name,
                                      .byte_size = registration.byte_size,
                                      .host = std::move(host),
                                  })));
  // As in Register: a session closed while this call ran must not keep the region.
  if (!sessions_.IsOpen(caller.session)) regions_.EraseSession(caller.session);
  return absl::OkStatus();
}

absl::Status Engine::UnregisterSharedMemory(const Caller& caller, const std::string& region_name) {
  AH_RETURN_IF_ERROR(CheckSharedMemoryOn());
  return regions_.Remove(caller.session, region_name);
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::CopyFromSharedMemory(
    const Caller& caller, const SharedMemoryCopySpec& spec) {
  AH_RETURN_IF_ERROR(CheckSharedMemoryOn());
  AH_ASSIGN_OR_RETURN(SharedMemoryRegistry::RegionPtr region,
                      regions_.Find(caller.session, spec.region_name));
  if (spec.handle.empty()) {
    const auto bound = Bind(caller, "upload from shared memory");
    if (!spec.dtype.has_value()) {
      return absl::InvalidArgumentError("dtype must be set for an upload into a new array");
    }
    AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(spec.shape, *spec.dtype, limits_));
    AH_RETURN_IF_ERROR(CheckSpan(*region, spec.offset_bytes, nbytes));
    AH_ASSIGN_OR_RETURN(ArrayRecord record,
                        NewArray(bound.caller(), *spec.dtype, spec.shape, nbytes));
    AH_RETURN_IF_ERROR(region->host->CopyIn(QueueOf(bound.caller()), spec.offset_bytes,
                                            *record.buffer, 0, nbytes));
    return Register(std::move(record));
  }

  // Written where the array lives, whatever the call's device.
  AH_ASSIGN_OR_RETURN(Located found, FindOnItsDevice(caller, spec.handle));
  const Caller& on = found.caller;
  const ArrayTable::RecordPtr& target = found.array;
  AH_RETURN_IF_ERROR(CheckWritable(on, *target, "handle", "assignment destination is read-only"));
  const auto bound = Bind(on, "upload from shared memory");
  AH_RETURN_IF_ERROR(UseBuffer(bound.caller(), target->buffer));
  AH_RETURN_IF_ERROR(CheckMatches(spec, *target));
  const int64_t nbytes = target->nbytes();
  AH_RETURN_IF_ERROR(CheckSpan(*region, spec.offset_bytes, nbytes));
  // All or nothing, by validating everything first: the span lies in the region, and the
  // object can never become shorter than the region (its F_SEAL_SHRINK seal was checked at
  // registration), so the copy below cannot stop part-way for anything a client does.
  if (target->c_contiguous()) {
    AH_RETURN_IF_ERROR(region->host->CopyIn(QueueOf(bound.caller()), spec.offset_bytes,
                                            *target->buffer, target->offset_bytes, nbytes));
    return target;
  }
  // A strided view is written through, as NumPy's view[...] = data: the C-order bytes land in
  // a temporary first, never straight into memory the view's gaps belong to other elements of.
  AH_ASSIGN_OR_RETURN(ArrayRecord staged,
                      NewArray(bound.caller(), target->dtype, target->shape, nbytes,
                               /*temporary=*/true));
  AH_RETURN_IF_ERROR(
      region->host->CopyIn(QueueOf(bound.caller()), spec.offset_bytes, *staged.buffer, 0, nbytes));
  AH_RETURN_IF_ERROR(CopyInto(bound.caller(), ViewOf(staged), ViewOf(*target)));
  return target;
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::CopyToSharedMemory(const Caller& caller,
                                                                 const SharedMemoryCopySpec& spec) {
  AH_RETURN_IF_ERROR(CheckSharedMemoryOn());
  AH_ASSIGN_OR_RETURN(SharedMemoryRegistry::RegionPtr region,
                      regions_.Find(caller.session, spec.region_name));
  if (spec.dtype.has_value() || !spec.shape.empty()) {
    return absl::InvalidArgumentError(
        "dtype and shape must be left unset for a copy to shared memory: the array's are used");
  }
  // Read where the array lives, whatever the call's device.
  AH_ASSIGN_OR_RETURN(Located located, FindOnItsDevice(caller, spec.handle));
  const Caller& on = located.caller;
  const ArrayTable::RecordPtr& found = located.array;
  const auto bound = Bind(on, "download to shared memory");
  AH_RETURN_IF_ERROR(UseBuffer(bound.caller(), found->buffer));
  AH_RETURN_IF_ERROR(CheckSpan(*region, spec.offset_bytes, found->nbytes()));
  // A view with gaps or another order is read from a C-contiguous copy, as Download does.
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, ContiguousForReading(bound.caller(), found));
  AH_RETURN_IF_ERROR(region->host->CopyOut(QueueOf(bound.caller()), *array->buffer,
                                           array->offset_bytes, spec.offset_bytes,
                                           array->nbytes()));
  return found;
}

}  // namespace arrayhub
