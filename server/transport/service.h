// The ArrayHub gRPC service: decodes requests, asks the Engine, encodes answers. The RPCs are
// defined by group in *_rpcs.cc.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "arrayhub/v1/service.grpc.pb.h"
#include "server/common/status_macros.h"
#include "server/core/engine.h"
#include "server/transport/auth.h"
#include "server/transport/batch_lanes.h"
#include "server/transport/batch_streams.h"
#include "server/transport/call_stop.h"
#include "server/transport/convert.h"
#include "server/transport/ipc_socket.h"
#include "server/transport/lane_spin.h"
#include "server/transport/peer_client.h"
#include "server/transport/transfer_counters.h"

namespace arrayhub {

class ServerMetrics;

// Metadata key carrying the session id on every call after OpenSession.
inline constexpr char kSessionMetadataKey[] = "x-arrayhub-session";
// The device a call runs on (an index of ServerInfo.devices); absent: the session's device.
inline constexpr char kDeviceMetadataKey[] = "x-arrayhub-device";
// Tenant of every caller when authentication is off.
inline constexpr char kAnonymousTenant[] = "anonymous";

// Upload and Download are callback methods on raw byte buffers (transfer_rpcs.cc says why),
// WatchSession one on messages (watch_rpcs.cc); every other method is synchronous.
using ArrayHubServiceBase =
    v1::ArrayHub::WithRawCallbackMethod_Upload<v1::ArrayHub::WithRawCallbackMethod_Download<
        v1::ArrayHub::WithCallbackMethod_WatchSession<v1::ArrayHub::Service>>>;

class ArrayHubService final : public ArrayHubServiceBase {
 public:
  // `tokens` null: authentication is off and every caller is kAnonymousTenant.
  // `ipc_socket_path`: where the descriptor socket listens once the first export or
  // shared-memory client needs it (see IpcSocket::Start; "" picks an abstract name).
  // `peer`: how this daemon pulls from others (null: plaintext); `advertise_address`: the
  // address it tells clients other daemons reach it at (PeerOptions).
  // `metrics`: where the batches of lanes are counted, which no interceptor sees (null: not
  // counted).
  explicit ArrayHubService(Engine& engine, std::shared_ptr<const TokenTable> tokens = nullptr,
                           std::string ipc_socket_path = "",
                           std::unique_ptr<PeerClient> peer = nullptr,
                           std::string advertise_address = "", ServerMetrics* metrics = nullptr)
      : engine_(engine),
        metrics_(metrics),
        tokens_(std::move(tokens)),
        ipc_socket_path_(std::move(ipc_socket_path)),
        peer_(peer != nullptr ? std::move(peer) : *PeerClient::Create({}, {})),
        advertise_address_(std::move(advertise_address)),
        batch_lanes_(engine.limits().max_batch_lanes) {}
  // The descriptor socket first, which hands connections to the batch lanes; then the lanes.
  ~ArrayHubService();

  // Sessions (session_rpcs.cc).
  grpc::Status OpenSession(grpc::ServerContext* context, const v1::OpenSessionRequest* request,
                           v1::OpenSessionResponse* response) override;
  grpc::Status KeepAlive(grpc::ServerContext* context, const v1::KeepAliveRequest* request,
                         v1::KeepAliveResponse* response) override;
  grpc::Status CloseSession(grpc::ServerContext* context, const v1::CloseSessionRequest* request,
                            v1::CloseSessionResponse* response) override;

  // Creation (create_rpcs.cc).
  grpc::Status Create(grpc::ServerContext* context, const v1::CreateRequest* request,
                      v1::ArrayInfo* response) override;

  // Computation (compute_rpcs.cc).
  grpc::Status Elementwise(grpc::ServerContext* context, const v1::ElementwiseRequest* request,
                           v1::ArrayInfo* response) override;
  grpc::Status Reduce(grpc::ServerContext* context, const v1::ReduceRequest* request,
                      v1::ArrayInfo* response) override;

  // Linear algebra (linalg_rpcs.cc).
  grpc::Status Matmul(grpc::ServerContext* context, const v1::MatmulRequest* request,
                      v1::ArrayInfo* response) override;
  grpc::Status TensorProduct(grpc::ServerContext* context, const v1::TensorProductRequest* request,
                             v1::ArrayInfo* response) override;
  grpc::Status Linalg(grpc::ServerContext* context, const v1::LinalgRequest* request,
                      v1::LinalgResponse* response) override;

  // numpy.fft (fft_rpcs.cc).
  grpc::Status Fft(grpc::ServerContext* context, const v1::FftRequest* request,
                   v1::ArrayInfo* response) override;

  // User kernels (kernel_rpcs.cc).
  grpc::Status RunKernel(grpc::ServerContext* context, const v1::RunKernelRequest* request,
                         v1::RunKernelResponse* response) override;
  grpc::Status RunRawKernel(grpc::ServerContext* context, const v1::RunRawKernelRequest* request,
                            v1::RunRawKernelResponse* response) override;

  // Transfer (transfer_rpcs.cc): serialized UploadRequest / UploadResponse, DownloadRequest /
  // DownloadResponse.
  grpc::ServerReadReactor<grpc::ByteBuffer>* Upload(grpc::CallbackServerContext* context,
                                                    grpc::ByteBuffer* response) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* Download(grpc::CallbackServerContext* context,
                                                       const grpc::ByteBuffer* request) override;

  // Bookkeeping (bookkeeping_rpcs.cc).
  grpc::Status CopyToDevice(grpc::ServerContext* context, const v1::CopyToDeviceRequest* request,
                            v1::ArrayInfo* response) override;
  // Devices (collective_rpcs.cc).
  grpc::Status Collective(grpc::ServerContext* context, const v1::CollectiveRequest* request,
                          v1::CollectiveResponse* response) override;
  grpc::Status Free(grpc::ServerContext* context, const v1::FreeRequest* request,
                    v1::FreeResponse* response) override;
  grpc::Status Describe(grpc::ServerContext* context, const v1::DescribeRequest* request,
                        v1::ArrayInfo* response) override;
  grpc::Status List(grpc::ServerContext* context, const v1::ListRequest* request,
                    v1::ListResponse* response) override;
  grpc::Status GetServerInfo(grpc::ServerContext* context, const v1::ServerInfoRequest* request,
                             v1::ServerInfo* response) override;

  // Sharing by name (sharing_rpcs.cc).
  grpc::Status Publish(grpc::ServerContext* context, const v1::PublishRequest* request,
                       v1::PublishResponse* response) override;
  grpc::Status Unpublish(grpc::ServerContext* context, const v1::UnpublishRequest* request,
                         v1::UnpublishResponse* response) override;
  grpc::Status Checkpoint(grpc::ServerContext* context, const v1::CheckpointRequest* request,
                          v1::CheckpointResponse* response) override;
  grpc::Status Attach(grpc::ServerContext* context, const v1::AttachRequest* request,
                      v1::AttachResponse* response) override;

  // Same-host transfers through client shared memory (shared_memory_rpcs.cc).
  grpc::Status RegisterSharedMemory(grpc::ServerContext* context,
                                    const v1::RegisterSharedMemoryRequest* request,
                                    v1::RegisterSharedMemoryResponse* response) override;
  grpc::Status UnregisterSharedMemory(grpc::ServerContext* context,
                                      const v1::UnregisterSharedMemoryRequest* request,
                                      v1::UnregisterSharedMemoryResponse* response) override;
  grpc::Status CopyFromSharedMemory(grpc::ServerContext* context,
                                    const v1::SharedMemoryCopyRequest* request,
                                    v1::SharedMemoryCopyResponse* response) override;
  grpc::Status CopyToSharedMemory(grpc::ServerContext* context,
                                  const v1::SharedMemoryCopyRequest* request,
                                  v1::SharedMemoryCopyResponse* response) override;

  // Views, indexing and manipulation (view_rpcs.cc).
  grpc::Status View(grpc::ServerContext* context, const v1::ViewRequest* request,
                    v1::ArrayInfo* response) override;
  grpc::Status GetItem(grpc::ServerContext* context, const v1::GetItemRequest* request,
                       v1::ArrayInfo* response) override;
  grpc::Status SetItem(grpc::ServerContext* context, const v1::SetItemRequest* request,
                       v1::SetItemResponse* response) override;
  grpc::Status ArrayOp(grpc::ServerContext* context, const v1::ArrayOpRequest* request,
                       v1::ArrayOpResponse* response) override;

  // Batches of the above (batch_rpcs.cc).
  grpc::Status Batch(grpc::ServerContext* context, const v1::BatchRequest* request,
                     v1::BatchResponse* response) override;
  grpc::Status BatchStream(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::BatchStreamResponse, v1::BatchRequest>* stream) override;
  // Batch lanes (batch_lane_rpcs.cc, batch_lanes.h).
  grpc::Status OpenBatchLane(grpc::ServerContext* context, const v1::OpenBatchLaneRequest* request,
                             v1::OpenBatchLaneResponse* response) override;

  // The session's events (event_rpcs.cc; Batch records them).
  grpc::Status QueryEvent(grpc::ServerContext* context, const v1::QueryEventRequest* request,
                          v1::QueryEventResponse* response) override;
  grpc::Status EventElapsedTime(grpc::ServerContext* context,
                                const v1::EventElapsedTimeRequest* request,
                                v1::EventElapsedTimeResponse* response) override;

  // CUDA IPC export (ipc_rpcs.cc).
  grpc::Status ExportIpc(grpc::ServerContext* context, const v1::ExportIpcRequest* request,
                         v1::ExportIpcResponse* response) override;
  grpc::Status ReleaseIpc(grpc::ServerContext* context, const v1::ReleaseIpcRequest* request,
                          v1::ReleaseIpcResponse* response) override;

  // Daemon-to-daemon transfer (peer_rpcs.cc, proto/arrayhub/v1/peer.proto).
  grpc::Status IssueCapability(grpc::ServerContext* context,
                               const v1::IssueCapabilityRequest* request,
                               v1::IssueCapabilityResponse* response) override;
  grpc::Status PullArray(grpc::ServerContext* context, const v1::PullArrayRequest* request,
                         v1::PullArrayResponse* response) override;
  grpc::Status ReadCapability(grpc::ServerContext* context,
                              const v1::ReadCapabilityRequest* request,
                              grpc::ServerWriter<v1::DownloadResponse>* writer) override;

  // The session's events (watch_rpcs.cc).
  grpc::ServerWriteReactor<v1::SessionEvent>* WatchSession(
      grpc::CallbackServerContext* context, const v1::WatchSessionRequest* request) override;

  // From `deadline` on, the calls in flight stop at their next check with UNAVAILABLE
  // (ArrayHubServer::Shutdown's drain). Session watches end at once, after their DRAINING
  // event, and Batch streams waiting for their client's next batch are cancelled: they would
  // only hold the drain up.
  void Drain(std::chrono::steady_clock::time_point deadline) {
    drain_.Set(deadline);
    engine_.AnnounceDrain();
    batch_streams_.Drain();
    batch_lanes_.Drain();
  }

  // Public for the transfer reactors (transfer_rpcs.cc), classes of their own.
  // Tenant plus the session named by the call's metadata, and the call's stop signal.
  absl::StatusOr<Caller> CallerOf(const grpc::ServerContextBase& context);
  // The same, once every list of `request` is within its bound (request_bounds.h): what
  // every handler with a request to read starts with.
  absl::StatusOr<Caller> CallerOf(const grpc::ServerContextBase& context,
                                  const google::protobuf::Message& request);
  Engine& engine() { return engine_; }
  TransferCounters& transfer_counters() { return counters_; }
  void FillInfo(const ArrayRecord& record, v1::ArrayInfo* info) const;

 private:
  // The handlers whose request decodes to one spec (`decode`, from convert.h) and whose answer
  // is the one array the Engine makes of it (`run`).
  template <typename Request, typename Spec>
  grpc::Status AnswerArray(grpc::ServerContext& context, const Request& request,
                           v1::ArrayInfo* response,
                           absl::StatusOr<Spec> (*decode)(const Request&, const BatchResults*),
                           absl::StatusOr<ArrayTable::RecordPtr> (Engine::*run)(const Caller&,
                                                                                const Spec&)) {
    return ToGrpcStatus([&]() -> absl::Status {
      AH_ASSIGN_OR_RETURN(const Caller caller, CallerOf(context, request));
      AH_ASSIGN_OR_RETURN(const Spec spec, decode(request, nullptr));
      AH_ASSIGN_OR_RETURN(const ArrayTable::RecordPtr result, (engine_.*run)(caller, spec));
      FillInfo(*result, response);
      return absl::OkStatus();
    }());
  }

  // The tenant the call's credentials map to; UNAUTHENTICATED without valid ones.
  absl::StatusOr<std::string> TenantOf(const grpc::ServerContextBase& context) const;
  // The descriptor socket's path, started on first use (a server that nobody exports from and
  // no client on its host asks about has none).
  absl::StatusOr<std::string> IpcSocketPath();
  // The descriptor socket's "BATCHES <ticket>": `connection` becomes a lane (moved out of it)
  // or is left for the error line.
  absl::Status OpenLane(std::string_view ticket, OwnedFd& connection);
  // A lane's thread: the proof, then the holder's batches one by one until the lane ends.
  void ServeLane(const BatchLanes::Holder& holder, int connection, const std::string& proof);

  Engine& engine_;
  ServerMetrics* const metrics_;
  DrainDeadline drain_;
  BatchStreams batch_streams_;  // Open BatchStream calls (batch_rpcs.cc), for the drain.
  std::shared_ptr<const TokenTable> tokens_;
  const std::string ipc_socket_path_;
  absl::Mutex ipc_socket_mutex_;
  std::unique_ptr<IpcSocket> ipc_socket_ ABSL_GUARDED_BY(ipc_socket_mutex_);
  std::unique_ptr<PeerClient> peer_;
  const std::string advertise_address_;
  TransferCounters counters_;
  LaneSpinSlots lane_spin_slots_{LaneSpinSlots::DefaultSlots()};
  // Last, so that the lanes, which use everything above, end first.
  BatchLanes batch_lanes_;
};

}  // namespace arrayhub
