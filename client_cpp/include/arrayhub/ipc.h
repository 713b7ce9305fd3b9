// CUDA IPC exports (docs/ipc.md): what a process on the server's host needs to map an array's
// device memory in place. The client library does not link CUDA; these are the arguments of
// cudaMemPoolImportFromShareableHandle and cudaMemPoolImportPointer.
#pragma once

#include <cstdint>
#include <string>

#include "arrayhub/array.h"

namespace arrayhub::client {

struct IpcExport {
  std::string lease;                // For Client::ReleaseIpc.
  std::string pointer_export_data;  // cudaMemPoolPtrExportData's 64 bytes.
  int64_t offset_bytes = 0;         // The array's first element, from the imported pointer.
  std::string pool_id;              // Import each pool once per process.
  std::string pool_ticket;          // One use, within 60 s: FetchPoolDescriptor.
  std::string socket_path;          // Where the ticket is redeemed ("@...": abstract).
  std::string device_uuid;          // "GPU-...": find the device's ordinal in this process.
  int device_ordinal = 0;           // The device's ordinal in the server's process.
  ArrayInfo array;                  // Shape, strides (elements) and dtype.
};

// The pool's file descriptor, fetched with `exported.pool_ticket` over the server's IPC
// socket; the caller owns it (close it once imported). Throws Error: kUnavailable when the
// socket cannot be reached, kNotFound for a used or expired ticket, kDataLoss for a reply
// without a descriptor or for another pool's.
int FetchPoolDescriptor(const IpcExport& exported);

}  // namespace arrayhub::client
