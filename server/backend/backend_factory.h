// Chooses and constructs the backend named by --backend.
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/backend/backend.h"

namespace arrayhub {

enum class BackendChoice { kAuto, kCuda, kCpu };

// "auto", "cuda" or "cpu"; INVALID_ARGUMENT otherwise.
absl::StatusOr<BackendChoice> ParseBackendChoice(std::string_view text);

// kAuto takes CUDA device 0 when this build has the CUDA backend and a device is visible, the
// CPU otherwise. kCuda fails (FAILED_PRECONDITION) without a usable device. `cuda_ipc`: the
// CUDA backend keeps each tenant's memory in an exportable pool of its own (CreateCudaBackend).
absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(BackendChoice choice, bool cuda_ipc = true);

}  // namespace arrayhub
