// Upload (client-streamed) and Download (server-streamed), as callback methods on raw byte
// buffers: a chunk goes from gRPC's slices into a staging buffer, and from a staging buffer
// into a slice, in one copy, without a protobuf string or a thread of its own
// (proto/wire/chunk_messages.h). The staging buffers are pinned on the CUDA backend, and the
// DMA of one chunk runs while the next is received or sent (core/upload.h, core/download.h).
//
// Reactions run on gRPC's threads and must not block for long: the longest wait here is for
// the DMA of the chunk before last, which is done long before the next chunk has arrived.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "proto/wire/chunk_messages.h"
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/request_bounds.h"
#include "server/transport/service.h"

namespace arrayhub {
namespace {

class UploadReactor final : public grpc::ServerReadReactor<grpc::ByteBuffer> {
 public:
  UploadReactor(ArrayHubService& service, grpc::CallbackServerContext& context,
                grpc::ByteBuffer& response)
      : service_(service), context_(context), response_(response) {
    // Authentication first, before anything of the stream is read.
    absl::StatusOr<Caller> caller = service_.CallerOf(context_);
    if (!caller.ok()) {
      Finish(ToGrpcStatus(caller.status()));
      return;
    }
    caller_ = *std::move(caller);
    // Counted from before the header, so that a stream that sends nothing also ends.
    absl::StatusOr<std::unique_ptr<TransferRegistry::Ticket>> ticket =
        service_.engine().BeginTransfer(caller_, [&context] { context.TryCancel(); });
    if (!ticket.ok()) {
      Finish(ToGrpcStatus(ticket.status()));
      return;
    }
    ticket_ = *std::move(ticket);
    StartRead(&message_);
  }

  void OnReadDone(bool ok) override {
    if (ok) ticket_->Touch();
    absl::Status status = ok ? Receive() : Complete();
    if (status.ok() && ok) {
      StartRead(&message_);
      return;
    }
    // Before answering: a client may look for the memory of a failed upload as soon as it has
    // the answer.
    upload_.reset();
    Finish(ToGrpcStatus(status));
  }

  void OnDone() override { delete this; }

 private:
  absl::Status Receive() {
    std::vector<grpc::Slice> slices;
    if (!message_.Dump(&slices).ok()) {
      return absl::InternalError("an upload message could not be read from gRPC's buffers");
    }
    if (upload_ == nullptr) return Begin(slices);
    if (const std::optional<wire::ChunkLocation> chunk = wire::FindChunk(slices)) {
      return upload_->Append(static_cast<int64_t>(chunk->size),
                             [&](std::span<std::byte> destination) {
                               wire::CopyChunk(slices, *chunk, destination.data());
                             });
    }
    // Not a bare chunk: a header, another field beside a chunk, or no valid message at all.
    v1::UploadRequest message;
    if (!wire::Parse(slices, message)) {
      return absl::InvalidArgumentError(fmt::format(
          "upload message after {} bytes is not a valid UploadRequest", upload_->received()));
    }
    if (message.part_case() != v1::UploadRequest::kChunk) {
      return absl::InvalidArgumentError(fmt::format(
          "upload message after {} bytes is not a chunk; only the first message may be a header",
          upload_->received()));
    }
    return upload_->Append(std::as_bytes(std::span(message.chunk())));
  }

  // The first message: the header.
  absl::Status Begin(const std::vector<grpc::Slice>& slices) {
    v1::UploadRequest message;
    if (!wire::Parse(slices, message)) {
      return absl::InvalidArgumentError("the first upload message is not a valid UploadRequest");
    }
    if (!message.has_header()) {
      return absl::InvalidArgumentError("the first upload message must be a header, got a chunk");
    }
    AH_RETURN_IF_ERROR(CheckListLengths(message, service_.engine().limits()));
    const v1::UploadHeader& header = message.header();
    AH_ASSIGN_OR_RETURN(DType dtype, RequiredDType(header.dtype(), "header.dtype"));
    const Shape shape = ShapeFromProto(header.shape());
    if (!header.target_handle().empty()) {
      AH_ASSIGN_OR_RETURN(
          upload_, service_.engine().BeginUploadInto(caller_, header.target_handle(), dtype, shape,
                                                     header.offset_bytes(), header.length_bytes()));
      return absl::OkStatus();
    }
    if (header.offset_bytes() != 0 || header.length_bytes() != 0) {
      return absl::InvalidArgumentError(
          "header.offset_bytes and header.length_bytes need a header.target_handle: a new array "
          "is uploaded whole");
    }
    // The memory is reserved now and released when `upload_` goes with the reactor, whatever
    // ends the stream, so a broken one leaves nothing behind.
    AH_ASSIGN_OR_RETURN(upload_, service_.engine().BeginUpload(caller_, dtype, shape));
    return absl::OkStatus();
  }

  // The stream ended: the client sent its last message, or went away.
  absl::Status Complete() {
    if (upload_ == nullptr) {
      return absl::InvalidArgumentError(
          "upload stream ended before its header: the first message must be a header");
    }
    if (context_.IsCancelled()) {
      return absl::CancelledError(
          fmt::format("upload cancelled (by the client, its session's end, or after "
                      "--transfer-idle-seconds without a chunk) after {} of {} bytes",
                      upload_->received(), upload_->expected()));
    }
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr record, upload_->Finish());
    service_.transfer_counters().client_upload_bytes += upload_->received();
    v1::UploadResponse response;
    service_.FillInfo(*record, response.mutable_array());
    response_ = wire::Serialize(response);
    return absl::OkStatus();
  }

  ArrayHubService& service_;
  grpc::CallbackServerContext& context_;
  grpc::ByteBuffer& response_;
  Caller caller_;
  grpc::ByteBuffer message_;  // The message being read.
  std::unique_ptr<PendingUpload> upload_;
  // Declared last, so destroyed first: no cancel reaches the call once the reactor goes.
  std::unique_ptr<TransferRegistry::Ticket> ticket_;
};

// Keeps one chunk ready beside the one being sent: when the send of chunk k completes, chunk
// k + 1 is already in its message and goes at once, and the next one is prepared (its DMA
// started one step earlier) while k + 1 is on its way. The writes' completions may come on
// another thread while a chunk is prepared, hence the mutex.
//
// That is the flow control: a write completes only once HTTP/2's window lets the transport
// take it, so a download holds at most four chunks (two staging buffers, the message in flight
// and the one ready) however slowly its client reads, and the tenant's transfer quota bounds
// how many downloads it runs; one whose client reads nothing is cancelled after
// --transfer-idle-seconds.
class DownloadReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  DownloadReactor(ArrayHubService& service, grpc::CallbackServerContext& context,
                  const grpc::ByteBuffer& request)
      : service_(service) {
    absl::MutexLock lock(&mutex_);
    if (absl::Status started = Start(context, request); !started.ok()) {
      Finish(ToGrpcStatus(started));
      return;
    }
    PrepareNext();
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mutex_);
    if (ok) ticket_->Touch();
    if (!ok) {
      End(absl::CancelledError(fmt::format("client went away after {} of {} bytes",
                                           download_->sent(), download_->total())));
      return;
    }
    if (!next_.has_value()) {
      End(failure_);  // Done, or a chunk failed.
      return;
    }
    sending_ = *std::move(next_);
    next_.reset();
    StartWrite(&sending_);
    PrepareNext();
  }

  void OnDone() override { delete this; }

 private:
  // Checks the request, starts the download and sends the array's info.
  absl::Status Start(grpc::CallbackServerContext& context, const grpc::ByteBuffer& request)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    AH_ASSIGN_OR_RETURN(Caller caller, service_.CallerOf(context));
    AH_ASSIGN_OR_RETURN(
        ticket_, service_.engine().BeginTransfer(caller, [&context] { context.TryCancel(); }));
    std::vector<grpc::Slice> slices;
    v1::DownloadRequest parsed;
    if (!request.Dump(&slices).ok() || !wire::Parse(slices, parsed)) {
      return absl::InvalidArgumentError("the request is not a valid DownloadRequest");
    }
    AH_ASSIGN_OR_RETURN(
        download_, service_.engine().BeginDownload(caller, parsed.handle(), parsed.chunk_bytes(),
                                                   parsed.offset_bytes(), parsed.length_bytes()));
    v1::DownloadResponse info;
    service_.FillInfo(download_->described(), info.mutable_info());
    sending_ = wire::Serialize(info);
    StartWrite(&sending_);
    return absl::OkStatus();
  }

  // Lets go of the array (which may have been freed meanwhile) before the answer, then answers.
  void End(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (status.ok()) service_.transfer_counters().client_download_bytes += download_->sent();
    download_.reset();
    Finish(ToGrpcStatus(status));
  }

  // Puts the next chunk in `next_`; leaves it empty at the end, or on a failure (`failure_`).
  void PrepareNext() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    absl::StatusOr<std::span<const std::byte>> chunk = download_->Next();
    if (!chunk.ok()) {
      failure_ = chunk.status();
    } else if (!chunk->empty()) {
      next_ = wire::CopyingChunkMessage(*chunk);
    }
  }

  ArrayHubService& service_;
  absl::Mutex mutex_;
  std::unique_ptr<PendingDownload> download_ ABSL_GUARDED_BY(mutex_);
  grpc::ByteBuffer sending_ ABSL_GUARDED_BY(mutex_);  // Held until its write completes.
  std::optional<grpc::ByteBuffer> next_ ABSL_GUARDED_BY(mutex_);
  absl::Status failure_ ABSL_GUARDED_BY(mutex_);
  // Declared last, so destroyed first: no cancel reaches the call once the reactor goes.
  std::unique_ptr<TransferRegistry::Ticket> ticket_;
};

}  // namespace

grpc::ServerReadReactor<grpc::ByteBuffer>* ArrayHubService::Upload(
    grpc::CallbackServerContext* context, grpc::ByteBuffer* response) {
  return new UploadReactor(*this, *context, *response);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* ArrayHubService::Download(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
  return new DownloadReactor(*this, *context, *request);
}

}  // namespace arrayhub
