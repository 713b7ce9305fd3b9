#include "server/core/tenant_usage.h"

#include <unordered_set>

namespace arrayhub {

std::map<std::string, TenantUsage> TallyUsage(
    const std::vector<ArrayTable::RecordPtr>& records,
    const absl::flat_hash_map<std::string, int64_t>& sessions_by_tenant) {
  std::map<std::string, TenantUsage> usage;
  absl::flat_hash_map<std::string, std::unordered_set<const Buffer*>> counted;
  for (const ArrayTable::RecordPtr& record : records) {
    TenantUsage& tenant = usage[record->owner];
    tenant.arrays += 1;
    if (counted[record->owner].insert(record->buffer.get()).second) {
      tenant.bytes += record->buffer->size();
    }
  }
  for (const auto& [tenant, sessions] : sessions_by_tenant) usage[tenant].sessions = sessions;
  return usage;
}

}  // namespace arrayhub
