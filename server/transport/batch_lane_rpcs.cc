// OpenBatchLane, and the lanes it opens (batch_lanes.h; the protocol is in compute.proto, at
// OpenBatchLaneResponse): each runs a session's batches from a connection to the descriptor
// socket, as BatchStream runs them from a stream.
#include <fmt/format.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "server/common/status_macros.h"
#include "server/transport/batch_rpcs.h"
#include "server/transport/code_name.h"
#include "server/transport/convert.h"
#include "server/transport/lane_spin.h"
#include "server/transport/metrics.h"
#include "server/transport/request_bounds.h"
#include "server/transport/service.h"

namespace arrayhub {
namespace {

// The stop signal of a lane's batch: the drain's deadline, and whether its client hung up,
// asked of the connection at most once a millisecond (as CallStopSignal asks gRPC).
class LaneStopSignal final : public StopSignal {
 public:
  // All three must outlive the signal.
  LaneStopSignal(int connection, const DrainDeadline& drain, const BatchLanes& lanes)
      : connection_(connection), drain_(drain), lanes_(lanes) {}

  absl::Status Check() const override {
    if (drain_.Passed()) {
      return absl::UnavailableError(
          "the server is shutting down: the batch was stopped when its drain time "
          "(--drain-seconds) ran out");
    }
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    // The drain shuts the lanes for reading, which poll reports as a hang-up: a batch running
    // then goes on until the drain's deadline, as a BatchStream's does.
    if (!hung_up_.load(std::memory_order_relaxed) && !lanes_.draining() &&
        now.count() >= next_poll_.load(std::memory_order_relaxed)) {
      next_poll_.store((now + kPollInterval).count(), std::memory_order_relaxed);
      pollfd connection{.fd = connection_, .events = POLLRDHUP, .revents = 0};
      if (poll(&connection, 1, 0) > 0 &&
          (connection.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
        hung_up_.store(true, std::memory_order_relaxed);
      }
    }
    if (hung_up_.load(std::memory_order_relaxed)) {
      return absl::CancelledError(
          "the batch lane's client went away (or its session ended); the batch was stopped");
    }
    return absl::OkStatus();
  }

 private:
  static constexpr std::chrono::steady_clock::duration kPollInterval = std::chrono::milliseconds(1);

  const int connection_;
  const DrainDeadline& drain_;
  const BatchLanes& lanes_;
  mutable std::atomic<std::chrono::steady_clock::duration::rep> next_poll_{0};
  mutable std::atomic<bool> hung_up_{false};
};

// Reads exactly `size` bytes; false at the end of the connection, or when it fails or is shut.
bool ReadAll(int connection, char* data, size_t size) {
  while (size > 0) {
    const ssize_t got = recv(connection, data, size, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    data += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

bool WriteAll(int connection, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t sent = send(connection, data, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    data += sent;
    size -= static_cast<size_t>(sent);
  }
  return true;
}

constexpr size_t kLengthBytes = 4;

// How arrayhub_requests_total names a batch on a lane.
constexpr char kLaneService[] = "arrayhub.v1.ArrayHub";
constexpr char kLaneMethod[] = "BatchLane";

uint32_t LengthOf(const std::array<char, kLengthBytes>& bytes) {
  uint32_t length = 0;
  for (size_t i = 0; i < kLengthBytes; ++i) {
    length |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  return length;
}

// `message` serialized behind its little-endian length, into `frame`.
void Frame(const google::protobuf::Message& message, std::string* frame) {
  const size_t size = message.ByteSizeLong();
  frame->resize(kLengthBytes + size);
  for (size_t i = 0; i < kLengthBytes; ++i)
    (*frame)[i] = static_cast<char>((size >> (8 * i)) & 0xff);
  message.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(frame->data() + kLengthBytes));
}

}  // namespace

grpc::Status ArrayHubService::OpenBatchLane(grpc::ServerContext* context,
                                            const v1::OpenBatchLaneRequest* request,
                                            v1::OpenBatchLaneResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    if (!engine_.limits().batch_lanes) {
      return absl::FailedPreconditionError(
          "batch lanes are switched off on this daemon (--batch-lanes=false): send the batches "
          "on BatchStream");
    }
    AH_ASSIGN_OR_RETURN(std::string socket_path, IpcSocketPath());
    AH_ASSIGN_OR_RETURN(BatchLanes::Grant grant,
                        batch_lanes_.Issue({.tenant = caller.tenant,
                                            .session = caller.session.ToString(),
                                            .device = caller.device}));
    response->set_socket_path(std::move(socket_path));
    response->set_ticket(std::move(grant.ticket));
    response->set_proof(std::move(grant.proof));
    return absl::OkStatus();
  }());
}

absl::Status ArrayHubService::OpenLane(std::string_view ticket, OwnedFd& connection) {
  return batch_lanes_.Open(
      ticket, connection,
      [this](const BatchLanes::Holder& holder, int fd) -> absl::StatusOr<BatchLanes::Serve> {
        AH_ASSIGN_OR_RETURN(Caller opener,
                            engine_.ResolveSession(holder.tenant, holder.session, holder.device));
        // A lane holds a thread of the server, so it takes a transfer slot; it waits for its
        // client's next batch for as long as the session lives, so it is kept from the idle
        // cancel, and the session's end (CloseSession, lease expiry) shuts it.
        AH_ASSIGN_OR_RETURN(std::unique_ptr<TransferRegistry::Ticket> slot,
                            engine_.BeginTransfer(opener, [fd] { shutdown(fd, SHUT_RDWR); }));
        slot->KeepFromIdleCancel();
        // The slot goes with the Serve, which the lane's thread destroys when the lane ends.
        std::shared_ptr<TransferRegistry::Ticket> held = std::move(slot);
        return [this, held](const BatchLanes::Holder& lane_holder, int lane_connection,
                            const std::string& proof) {
          ServeLane(lane_holder, lane_connection, proof);
        };
      });
}

void ArrayHubService::ServeLane(const BatchLanes::Holder& holder, int connection,
                                const std::string& proof) {
  const std::string hello = fmt::format("OK {}\n", proof);
  if (!WriteAll(connection, hello.data(), hello.size())) return;
  const auto stop = std::make_shared<const LaneStopSignal>(connection, drain_, batch_lanes_);
  const auto max_frame = static_cast<uint64_t>(engine_.limits().max_message_bytes);
  std::array<char, kLengthBytes> length_bytes{};
  std::string frame;
  v1::BatchRequest request;
  v1::BatchStreamResponse answer;
  LaneSpin spin(engine_.limits().lane_spin, lane_spin_slots_);
  for (;;) {
    spin.AwaitFrame(connection);
    if (!ReadAll(connection, length_bytes.data(), length_bytes.size())) return;
    spin.NoteArrived();
    const uint32_t length = LengthOf(length_bytes);
    // A frame the lane cannot take ends it: after it the stream of frames has lost its place.
    if (length > max_frame) {
      spdlog::debug("batch lane of tenant {} ended: a frame of {} bytes, over {}", holder.tenant,
                    length, max_frame);
      return;
    }
    frame.resize(length);
    if (!ReadAll(connection, frame.data(), length)) return;
    if (!request.ParseFromString(frame)) {
      spdlog::debug("batch lane of tenant {} ended: a frame that is not a BatchRequest",
                    holder.tenant);
      return;
    }
    // As a BatchStream's: a batch that arrives once the drain has begun is not run.
    if (batch_lanes_.draining()) return;
    // The session is looked up for every batch, as for every Batch call: it may have ended.
    absl::StatusOr<Caller> caller =
        engine_.ResolveSession(holder.tenant, holder.session, holder.device);
    if (caller.ok()) {
      caller->stop = stop;
      if (absl::Status bounded = CheckListLengths(request, engine_.limits()); !bounded.ok()) {
        caller = bounded;
      }
    }
    const auto started = std::chrono::steady_clock::now();
    const absl::Status ran =
        AnswerStreamedBatch(*this, caller, request, "a lane", holder.tenant, &answer);
    // As a call: a Batch on a stream is one with its stream, but a lane's have no call.
    if (metrics_ != nullptr) {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
      metrics_->CountRequest(kLaneService, kLaneMethod,
                             CodeName(static_cast<grpc::StatusCode>(ran.code())), elapsed.count());
    }
    Frame(answer, &frame);
    if (!WriteAll(connection, frame.data(), frame.size())) return;  // The client went.
    spin.NoteAnswered();
  }
}

}  // namespace arrayhub
