// Memory, arrays and sessions per tenant, as operators see them (metrics, `arrayhub top`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/core/array_table.h"

namespace arrayhub {

struct TenantUsage {
  // Backend memory of the tenant's arrays. Views share their base's buffer, so each buffer
  // counts once per tenant, however many handles refer to it.
  int64_t bytes = 0;
  int64_t arrays = 0;    // Live handles the tenant owns.
  int64_t sessions = 0;  // Open sessions.
};

// Usage of every tenant that owns an array or holds a session, keyed by tenant (ordered, so
// listings are stable). Records are charged to their `owner`.
std::map<std::string, TenantUsage> TallyUsage(
    const std::vector<ArrayTable::RecordPtr>& records,
    const absl::flat_hash_map<std::string, int64_t>& sessions_by_tenant);

}  // namespace arrayhub
