#include "server/transport/service.h"

#include <fmt/format.h>

#include "server/transport/call_tags.h"
#include "server/transport/convert.h"

namespace arrayhub {

std::string ArrayHubService::TenantOf(const grpc::ServerContext& context) const {
  call_tags::SetTenant(&context, kAnonymousTenant);
  return kAnonymousTenant;
}

absl::StatusOr<Caller> ArrayHubService::CallerOf(const grpc::ServerContext& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kSessionMetadataKey);
  if (it == metadata.end()) {
    return absl::InvalidArgumentError(fmt::format(
        "missing {} metadata: call OpenSession first and send its session_id on every call",
        kSessionMetadataKey));
  }
  return engine_.ResolveSession(TenantOf(context),
                                std::string_view(it->second.data(), it->second.size()));
}

void ArrayHubService::FillInfo(const ArrayRecord& record, v1::ArrayInfo* info) const {
  ArrayInfoToProto(record, engine_.backend().DeviceName(), info);
}

}  // namespace arrayhub
