// Copies between the daemon's devices (docs/devices.md).
#include <fmt/format.h>

#include "server/common/status_macros.h"
#include "server/core/engine.h"

namespace arrayhub {

absl::StatusOr<ArrayRecord> Engine::CopyAcross(const Caller& caller, ArrayTable::RecordPtr source,
                                               bool temporary) {
  // C-contiguous where it lives first, so that one range of bytes crosses.
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr contiguous,
                      ContiguousForReading(OnDevice(caller, source->device), source));
  const auto bound = Bind(caller, "copy to device");
  // After the source's writers, and its memory kept until the copy is done.
  AH_RETURN_IF_ERROR(backend(caller).Use(contiguous->buffer));
  const int64_t nbytes = contiguous->nbytes();
  AH_ASSIGN_OR_RETURN(ArrayRecord copy,
                      NewArray(caller, source->dtype, source->shape, nbytes, temporary));
  AH_RETURN_IF_ERROR(backend(caller).CopyFromDevice(*copy.buffer, 0, *contiguous->buffer,
                                                    contiguous->offset_bytes, nbytes));
  return copy;
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::CopyToDevice(const Caller& caller,
                                                           std::string_view handle, int device) {
  AH_RETURN_IF_ERROR(CheckDevice(device, "device"));
  AH_ASSIGN_OR_RETURN(Located found, FindOnItsDevice(caller, handle));
  AH_ASSIGN_OR_RETURN(ArrayRecord copy, CopyAcross(OnDevice(caller, device), found.array));
  return Register(std::move(copy));
}

}  // namespace arrayhub
