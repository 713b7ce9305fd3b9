// CopyToDevice, Free, Describe, List, GetServerInfo.
#include <spdlog/spdlog.h>

#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::Free(grpc::ServerContext* context, const v1::FreeRequest* request,
                                   v1::FreeResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    const std::vector<std::string> handles(request->handles().begin(), request->handles().end());
    AH_ASSIGN_OR_RETURN(int64_t freed, engine_.Free(caller, handles));
    response->set_freed(freed);
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::CopyToDevice(grpc::ServerContext* context,
                                           const v1::CopyToDeviceRequest* request,
                                           v1::ArrayInfo* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(std::string handle, CopyToDeviceHandleFromProto(*request, nullptr));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr copy,
                        engine_.CopyToDevice(caller, handle, request->device()));
    FillInfo(*copy, response);
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::Describe(grpc::ServerContext* context,
                                       const v1::DescribeRequest* request,
                                       v1::ArrayInfo* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    AH_ASSIGN_OR_RETURN(Engine::Located found, engine_.FindOnItsDevice(caller, request->handle()));
    FillInfo(*found.array, response);
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::List(grpc::ServerContext* context, const v1::ListRequest* request,
                                   v1::ListResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    for (const auto& array : engine_.List(caller, request->all_sessions())) {
      FillInfo(*array, response->add_arrays());
    }
    if (request->include_shared()) {
      for (const auto& array : engine_.ListShared(caller)) {
        FillInfo(*array, response->add_arrays());
      }
    }
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::GetServerInfo(grpc::ServerContext* context,
                                            const v1::ServerInfoRequest*,
                                            v1::ServerInfo* response) {
  absl::StatusOr<std::string> tenant = TenantOf(*context);
  if (!tenant.ok()) return ToGrpcStatus(tenant.status());
  const EngineStats stats = engine_.Stats();
  response->set_version(ARRAYHUB_VERSION);
  response->set_backend(std::string(engine_.backend_name()));
  const std::vector<Engine::DeviceUsage> usage = engine_.UsageByDevice();
  const std::vector<DeviceDescription> devices = engine_.Devices();
  for (size_t i = 0; i < devices.size(); ++i) {
    v1::DeviceInfo* info = response->add_devices();
    info->set_name(devices[i].name);
    info->set_description(devices[i].description);
    info->set_total_memory_bytes(devices[i].total_memory_bytes);
    info->set_free_memory_bytes(devices[i].free_memory_bytes);
    if (i < usage.size()) {
      info->set_bytes_in_use(usage[i].bytes_in_use);
      info->set_sessions(usage[i].sessions);
    }
  }
  response->set_bytes_in_use(stats.bytes_in_use);
  response->set_arrays(stats.arrays);
  response->set_sessions(stats.sessions);
  counters_.Fill(response->mutable_transfers());
  const Limits& limits = engine_.limits();
  v1::ServerLimits* out = response->mutable_limits();
  out->set_max_rank(limits.max_rank);
  out->set_max_array_bytes(limits.max_array_bytes);
  out->set_max_chunk_bytes(limits.max_chunk_bytes);
  out->set_default_chunk_bytes(limits.default_chunk_bytes);
  out->set_max_message_bytes(limits.max_message_bytes);
  out->set_max_inline_read_bytes(limits.max_inline_read_bytes);
  out->set_max_inline_create_bytes(limits.max_inline_create_bytes);
  out->set_max_batch_ops(limits.max_batch_ops);
  out->set_batch_stream(true);
  out->set_batch_lane(limits.batch_lanes);
  response->set_tenant(*tenant);
  response->set_tenant_bytes_in_use(engine_.TenantBytesInUse(*tenant));
  response->set_tenant_disk_bytes(engine_.TenantDiskBytes(*tenant));
  const TenantSpill spilled = engine_.TenantSpilled(*tenant);
  response->set_tenant_spilled_host_bytes(spilled.host_bytes);
  response->set_tenant_spilled_disk_bytes(spilled.disk_bytes);
  response->set_tenant_spill_wait_seconds(spilled.return_seconds);
  response->set_kernel_compilations(engine_.KernelCompilations());
  if (limits.shared_memory) {
    // A socket that cannot start leaves the field empty: clients then stream, and the rest of
    // the answer stands.
    absl::StatusOr<std::string> socket_path = IpcSocketPath();
    if (socket_path.ok()) {
      response->set_shared_memory_socket(*socket_path);
    } else {
      spdlog::warn("shared memory unavailable: {}", socket_path.status().ToString());
    }
  }
  return grpc::Status::OK;
}

}  // namespace arrayhub
