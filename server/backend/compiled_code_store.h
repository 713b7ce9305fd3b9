// Compiled device code kept on disk, so that a restarted daemon loads what an earlier one
// compiled instead of compiling it again (NVRTC takes hundreds of milliseconds per kernel).
// The CUDA backend's kernel cache (cuda/kernel_cache.h) is its user; the store itself knows
// nothing of CUDA, so that CPU-only builds test it.
//
// One file per entry, named by its key. A file is written whole under a temporary name, synced
// and renamed into place, so a reader sees a complete entry or none; each file carries its key
// and a SHA-256 of its contents, checked on every load, so a torn, truncated or otherwise
// damaged file is logged, removed and reported missing (its code is compiled again), never
// loaded. Several daemons (processes of one user) may share a directory: the filesystem's
// atomic rename is their only coordination, and a file another process removes while this one
// reads it stays readable until closed. The directory holds at most `max_bytes`: each store
// removes the least recently used entries beyond it (a load counts as a use).
//
// What the files hold runs on the GPU with the daemon's rights over all of its memory, so the
// directory must be the daemon user's own: Open refuses one owned by another user or writable
// by group or others.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace arrayhub {

class CompiledCodeStore {
 public:
  // The store in `directory`, created (mode 0700, parents included) if missing.
  // FAILED_PRECONDITION when it cannot be created or used, or is not the effective user's own
  // with no write permission for group or others; INVALID_ARGUMENT for an empty path or a
  // max_bytes below 1.
  static absl::StatusOr<std::unique_ptr<CompiledCodeStore>> Open(std::string directory,
                                                                 int64_t max_bytes);

  // The key naming what `parts` describe (for compiled code: its source, entry, target,
  // compiler version and options): the hex SHA-256 of the parts, each preceded by its length so
  // that no two different lists hash the same bytes.
  static std::string KeyOf(std::initializer_list<std::string_view> parts);

  // The code stored under `key` (a KeyOf result), or nullopt when there is none or the entry is
  // unusable: unusable files are logged and removed.
  std::optional<std::string> Load(std::string_view key) const;

  // Stores `code` under `key`, replacing any entry there, then evicts least recently used
  // entries until the directory holds at most max_bytes. INVALID_ARGUMENT for a key KeyOf
  // cannot give; RESOURCE_EXHAUSTED for code larger than max_bytes or a full disk; INTERNAL for
  // other I/O errors (nothing is left behind: the temporary file is removed).
  absl::Status Store(std::string_view key, std::string_view code) const;

  const std::string& directory() const { return directory_; }
  int64_t max_bytes() const { return max_bytes_; }

 private:
  CompiledCodeStore(std::string directory, int64_t max_bytes)
      : directory_(std::move(directory)), max_bytes_(max_bytes) {}
  std::string PathOf(std::string_view key) const;
  void Evict() const;

  const std::string directory_;
  const int64_t max_bytes_;
};

}  // namespace arrayhub
