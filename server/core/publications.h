// Arrays published under a name, and who may attach to them.
//
// A publication holds its array's data (by the record's shared buffer) until it is withdrawn,
// whatever happens to the session that made the array; every attached handle holds the data
// too, so it lives while any holder does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/core/array_record.h"

namespace arrayhub {

// Most tenants one publication may name as readers.
inline constexpr int64_t kMaxReaderTenants = 1024;

// What PublishRequest asks for, decoded.
struct PublishSpec {
  std::string handle;
  std::string name;
  std::vector<std::string> reader_tenants = {};
  bool all_tenants = false;
  bool writable = false;
  // Also written to the data directory (--data-dir; engine_durable.cc), and restored at start.
  bool durable = false;
  // With `durable`, the call returns once the data is on disk rather than once queued.
  bool wait = false;
};

struct Publication {
  std::string owner;  // The publishing tenant, which pays for the memory.
  std::string name;
  std::shared_ptr<const ArrayRecord> record;  // Its name set; belongs to no session.
  absl::flat_hash_set<std::string> readers;
  bool all_tenants = false;
  bool writable = false;  // Whether tenants other than the owner may write.

  bool ReadableBy(const std::string& tenant) const {
    return tenant == owner || all_tenants || readers.contains(tenant);
  }
};

// INVALID_ARGUMENT unless `name` is 1-128 characters of [A-Za-z0-9._/-].
absl::Status ValidatePublicationName(std::string_view name);

class PublicationRegistry {
 public:
  // ALREADY_EXISTS when the owner has published the name already.
  absl::Status Add(Publication publication);

  // The publication `owner` made as `name`, if `reader` may attach to it. One the reader may
  // not see answers NOT_FOUND exactly as a name never published.
  absl::StatusOr<Publication> Find(const std::string& reader, const std::string& owner,
                                   const std::string& name) const;

  // Withdraws `owner`'s publication; returns it (so that the caller drops the data outside
  // the lock). NOT_FOUND when there is none.
  absl::StatusOr<Publication> Remove(const std::string& owner, const std::string& name);

  // Publications that `reader` may attach to: its own tenant's and those others shared with it.
  std::vector<Publication> AttachableBy(const std::string& reader) const;

  // Publications made by `owner`.
  std::vector<Publication> OwnedBy(const std::string& owner) const;

  // Whether `owner`'s publication `name` still has `record` (was not withdrawn or replaced).
  bool Holds(const std::string& owner, const std::string& name, const ArrayRecord* record) const;

  // If `owner`'s publication `name` still has the record `expected`, gives it `record` (a
  // restored publication's, once loaded) or, for null, withdraws it; false otherwise.
  bool Replace(const std::string& owner, const std::string& name, const ArrayRecord* expected,
               std::shared_ptr<const ArrayRecord> record);

  // Publications made by `owner`.
  int64_t CountOf(const std::string& owner) const;

 private:
  using Key = std::pair<std::string, std::string>;  // (owner, name)
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<Key, Publication> publications_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
