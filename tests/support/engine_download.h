// Reads an array's bytes the way the Download RPC does (Engine::BeginDownload), for core tests.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "server/common/status_macros.h"
#include "server/core/engine.h"

namespace arrayhub::testing {

// `array`'s bytes in C order, gathered from chunks of `chunk_bytes` (0: the default).
inline absl::StatusOr<std::vector<std::byte>> DownloadBytes(Engine& engine, const Caller& caller,
                                                            const ArrayRecord& array,
                                                            int64_t chunk_bytes = 0) {
  AH_ASSIGN_OR_RETURN(std::unique_ptr<PendingDownload> download,
                      engine.BeginDownload(caller, array.handle.ToString(), chunk_bytes));
  std::vector<std::byte> bytes;
  for (;;) {
    AH_ASSIGN_OR_RETURN(std::span<const std::byte> chunk, download->Next());
    if (chunk.empty()) return bytes;
    bytes.insert(bytes.end(), chunk.begin(), chunk.end());
  }
}

}  // namespace arrayhub::testing
