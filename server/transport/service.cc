#include "server/transport/service.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "absl/strings/escaping.h"
#include "server/common/status_macros.h"
#include "server/transport/call_tags.h"
#include "server/transport/convert.h"
#include "server/transport/request_bounds.h"

namespace arrayhub {

absl::StatusOr<std::string> ArrayHubService::TenantOf(
    const grpc::ServerContextBase& context) const {
  absl::StatusOr<std::string> tenant = AuthenticateCall(context, tokens_.get());
  if (tenant.ok()) call_tags::SetTenant(&context, *tenant);
  return tenant;
}

namespace {

// The `x-arrayhub-device` metadata's device index, if sent (range-checked by the engine).
absl::StatusOr<std::optional<int>> DeviceOf(
    const std::multimap<grpc::string_ref, grpc::string_ref>& metadata) {
  auto it = metadata.find(kDeviceMetadataKey);
  if (it == metadata.end()) return std::nullopt;
  const std::string_view text(it->second.data(), it->second.size());
  int device = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), device);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{} metadata must be a device index (a decimal number), got \"{}\"", kDeviceMetadataKey,
        absl::CHexEscape(absl::string_view(text.data(), std::min<size_t>(text.size(), 64)))));
  }
  return device;
}

}  // namespace

absl::StatusOr<Caller> ArrayHubService::CallerOf(const grpc::ServerContextBase& context) {
  // Authentication first, so that an unauthenticated caller learns nothing about sessions.
  AH_ASSIGN_OR_RETURN(std::string tenant, TenantOf(context));
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kSessionMetadataKey);
  if (it == metadata.end()) {
    return absl::InvalidArgumentError(fmt::format(
        "missing {} metadata: call OpenSession first and send its session_id on every call",
        kSessionMetadataKey));
  }
  AH_ASSIGN_OR_RETURN(std::optional<int> device, DeviceOf(metadata));
  AH_ASSIGN_OR_RETURN(Caller caller,
                      engine_.ResolveSession(
                          tenant, std::string_view(it->second.data(), it->second.size()), device));
  caller.stop = std::make_shared<const CallStopSignal>(context, drain_);
  return caller;
}

absl::StatusOr<Caller> ArrayHubService::CallerOf(const grpc::ServerContextBase& context,
                                                 const google::protobuf::Message& request) {
  AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(context));
  AH_RETURN_IF_ERROR(CheckListLengths(request, engine_.limits()));
  return caller;
}

void ArrayHubService::FillInfo(const ArrayRecord& record, v1::ArrayInfo* info) const {
  ArrayInfoToProto(record, engine_.DeviceName(record.device), info);
}

}  // namespace arrayhub
