// Daemon-to-daemon transfer (proto/arrayhub/v1/peer.proto): IssueCapability and PullArray for
// clients, ReadCapability for the daemons that pull.
#include <fmt/format.h>

#include <span>

#include "absl/cleanup/cleanup.h"
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/request_bounds.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::IssueCapability(grpc::ServerContext* context,
                                              const v1::IssueCapabilityRequest* request,
                                              v1::IssueCapabilityResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    const std::chrono::seconds lifetime(request->lifetime_seconds());
    AH_ASSIGN_OR_RETURN(std::string capability,
                        engine_.IssueCapability(caller, request->handle(), lifetime));
    response->set_capability(std::move(capability));
    response->set_lifetime_seconds(lifetime.count() == 0 ? CapabilityStore::kDefaultLifetime.count()
                                                         : lifetime.count());
    response->set_origin(advertise_address_);
    ++counters_.capabilities_issued;
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::PullArray(grpc::ServerContext* context,
                                        const v1::PullArrayRequest* request,
                                        v1::PullArrayResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(DType dtype, RequiredDType(request->dtype(), "dtype"));
    const Shape shape = ShapeFromProto(request->shape());
    if (engine_.HoldsCapability(request->capability())) {
      // Issued here: the new handle shares the memory, whatever `origin` says.
      AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr shared,
                          engine_.RedeemCapability(caller, request->capability(), dtype, shape));
      FillInfo(*shared, response->mutable_array());
      response->set_shared(true);
      ++counters_.shared_pulls;
      return absl::OkStatus();
    }
    if (request->origin().empty()) {
      return absl::InvalidArgumentError(
          "origin is empty and the capability is not this daemon's: name the daemon that "
          "issued it (host:port)");
    }
    // Before anything is reserved or dialled: the caller names where this daemon connects.
    AH_ASSIGN_OR_RETURN(PeerAddress origin, peer_->allowlist().Admit(request->origin()));
    // Ends with the client's call (or its session, or the drain): so does the pull.
    std::unique_ptr<grpc::ClientContext> pull = grpc::ClientContext::FromServerContext(*context);
    AH_ASSIGN_OR_RETURN(std::unique_ptr<TransferRegistry::Ticket> ticket,
                        engine_.BeginTransfer(caller, [&pull] { pull->TryCancel(); }));
    // Reserved and charged before the first byte comes; dropped if the pull fails.
    AH_ASSIGN_OR_RETURN(std::unique_ptr<PendingUpload> upload,
                        engine_.BeginUpload(caller, dtype, shape));
    v1::ReadCapabilityRequest read;
    read.set_capability(request->capability());
    read.set_tenant(caller.tenant);
    read.set_dtype(request->dtype());
    *read.mutable_shape() = request->shape();
    read.set_chunk_bytes(engine_.limits().max_chunk_bytes);
    AH_ASSIGN_OR_RETURN(int64_t bytes, peer_->Read(origin, read, *pull, *upload, *ticket));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr pulled, upload->Finish());
    FillInfo(*pulled, response->mutable_array());
    ++counters_.pulled_arrays;
    counters_.pulled_bytes += bytes;
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::ReadCapability(grpc::ServerContext* context,
                                             const v1::ReadCapabilityRequest* request,
                                             grpc::ServerWriter<v1::DownloadResponse>* writer) {
  return ToGrpcStatus([&]() -> absl::Status {
    // No bearer token or session: the capability is the credential (peer.proto).
    AH_RETURN_IF_ERROR(CheckListLengths(*request, engine_.limits()));
    AH_ASSIGN_OR_RETURN(DType dtype, RequiredDType(request->dtype(), "dtype"));
    AH_ASSIGN_OR_RETURN(Caller caller, engine_.OpenPeerReadSession(request->tenant()));
    absl::Cleanup close = [&] { engine_.CloseSession(caller).IgnoreError(); };
    caller.stop = std::make_shared<const CallStopSignal>(*context, drain_);
    AH_ASSIGN_OR_RETURN(std::unique_ptr<TransferRegistry::Ticket> ticket,
                        engine_.BeginTransfer(caller, [context] { context->TryCancel(); }));
    // Used up from here; a refusal until here leaves it for another try. Broken off after
    // this, the pull fails and the capability is gone (its memory with it).
    AH_ASSIGN_OR_RETURN(
        std::unique_ptr<PendingDownload> download,
        engine_.BeginCapabilityRead(caller, request->capability(), dtype,
                                    ShapeFromProto(request->shape()), request->chunk_bytes()));
    v1::DownloadResponse message;
    FillInfo(download->described(), message.mutable_info());
    while (writer->Write(message)) {
      ticket->Touch();
      if (message.part_case() == v1::DownloadResponse::kChunk) {
        counters_.served_bytes += static_cast<int64_t>(message.chunk().size());
      }
      AH_ASSIGN_OR_RETURN(std::span<const std::byte> chunk, download->Next());
      if (chunk.empty()) return absl::OkStatus();
      message.set_chunk(chunk.data(), chunk.size());
    }
    return absl::CancelledError(fmt::format("the pulling daemon went away after {} of {} bytes",
                                            download->sent(), download->total()));
  }());
}

}  // namespace arrayhub
