#include "server/transport/call_tags.h"

#include <atomic>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace arrayhub::call_tags {
namespace {

struct Tags {
  std::string tenant;
};

struct Registry {
  absl::Mutex mutex;
  absl::flat_hash_map<const grpc::ServerContextBase*, Tags> calls ABSL_GUARDED_BY(mutex);
  std::atomic<int64_t> open{0};
};

Registry& TheRegistry() {
  static Registry* registry = new Registry();  // Never destroyed: calls may end during exit.
  return *registry;
}

}  // namespace

void Open(const grpc::ServerContextBase* call) {
  Registry& registry = TheRegistry();
  absl::MutexLock lock(&registry.mutex);
  if (registry.calls.try_emplace(call).second) registry.open += 1;
}

void Close(const grpc::ServerContextBase* call) {
  Registry& registry = TheRegistry();
  absl::MutexLock lock(&registry.mutex);
  if (registry.calls.erase(call) > 0) registry.open -= 1;
}

void SetTenant(const grpc::ServerContextBase* call, std::string_view tenant) {
  Registry& registry = TheRegistry();
  if (registry.open.load(std::memory_order_relaxed) == 0) return;
  absl::MutexLock lock(&registry.mutex);
  auto it = registry.calls.find(call);
  if (it != registry.calls.end()) it->second.tenant = tenant;
}

std::string Tenant(const grpc::ServerContextBase* call) {
  Registry& registry = TheRegistry();
  absl::MutexLock lock(&registry.mutex);
  auto it = registry.calls.find(call);
  return it == registry.calls.end() ? std::string() : it->second.tenant;
}

}  // namespace arrayhub::call_tags
