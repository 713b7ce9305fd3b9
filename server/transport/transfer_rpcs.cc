// Upload (client-streamed) and Download (server-streamed).
#include <fmt/format.h>

#include <future>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "server/core/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

namespace {

// Copies an upload's chunks into the array while the next one is being received: the copy of
// chunk k (to the device, from pageable memory) runs on a second thread while gRPC reads and
// parses chunk k + 1 on this one, so an upload costs about the receive alone. Two chunks at
// most are held; a failed copy ends the upload at the next chunk.
absl::Status ReceiveChunks(grpc::ServerReader<v1::UploadRequest>& reader, PendingUpload& upload) {
  std::string chunks[2];  // The chunk being copied, and the one just received.
  int slot = 0;
  std::future<absl::Status> copying;
  // Every way out waits for the copy in flight: it reads `chunks` and `upload`.
  absl::Cleanup wait_for_copy = [&] {
    if (copying.valid()) copying.wait();
  };
  v1::UploadRequest message;
  while (reader.Read(&message)) {
    if (message.part_case() != v1::UploadRequest::kChunk) {
      return absl::InvalidArgumentError(fmt::format(
          "upload message after {} bytes is not a chunk; only the first message may be a header",
          upload.received()));
    }
    // Takes the bytes out of the message without copying them.
    chunks[slot].swap(*message.mutable_chunk());
    if (copying.valid()) AH_RETURN_IF_ERROR(copying.get());
    const std::string& chunk = chunks[slot];
    copying = std::async(std::launch::async, [&upload, &chunk] {
      return upload.Append(
          std::span(reinterpret_cast<const std::byte*>(chunk.data()), chunk.size()));
    });
    slot ^= 1;
  }
  return copying.valid() ? copying.get() : absl::OkStatus();
}

}  // namespace

grpc::Status ArrayHubService::Upload(grpc::ServerContext* context,
                                     grpc::ServerReader<v1::UploadRequest>* reader,
                                     v1::UploadResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    v1::UploadRequest message;
    if (!reader->Read(&message)) {
      return absl::InvalidArgumentError(
          "upload stream ended before its header: the first message must be a header");
    }
    if (!message.has_header()) {
      return absl::InvalidArgumentError("the first upload message must be a header, got a chunk");
    }
    const v1::UploadHeader& header = message.header();
    if (!header.target_handle().empty()) {
      return absl::UnimplementedError(
          "upload into an existing array (target_handle) is not implemented by this server yet");
    }
    AH_ASSIGN_OR_RETURN(DType dtype, RequiredDType(header.dtype(), "header.dtype"));
    // The memory is reserved now and released by `upload`'s destructor on every early return
    // below, so a broken stream leaves nothing behind.
    AH_ASSIGN_OR_RETURN(std::unique_ptr<PendingUpload> upload,
                        engine_.BeginUpload(caller, dtype, ShapeFromProto(header.shape())));
    AH_RETURN_IF_ERROR(ReceiveChunks(*reader, *upload));
    if (context->IsCancelled()) {
      return absl::CancelledError(
          fmt::format("upload cancelled by the client after {} of {} bytes; nothing was created",
                      upload->received(), upload->expected()));
    }
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr record, upload->Finish());
    FillInfo(*record, response->mutable_array());
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::Download(grpc::ServerContext* context,
                                       const v1::DownloadRequest* request,
                                       grpc::ServerWriter<v1::DownloadResponse>* writer) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    if (request->chunk_bytes() < 0) {
      return absl::InvalidArgumentError(
          fmt::format("chunk_bytes must not be negative, got {}", request->chunk_bytes()));
    }
    const Limits& limits = engine_.limits();
    const int64_t chunk_bytes = request->chunk_bytes() == 0
                                    ? limits.default_chunk_bytes
                                    : std::min(request->chunk_bytes(), limits.max_chunk_bytes);
    // The record holds the memory alive until the download ends, even if the handle is freed
    // meanwhile.
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr found, engine_.Find(caller, request->handle()));
    // A view with gaps or another order streams from a C-contiguous copy, made once.
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, engine_.ContiguousForReading(caller, found));

    v1::DownloadResponse message;
    FillInfo(*found, message.mutable_info());
    if (!writer->Write(message)) return absl::CancelledError("client went away");
    const int64_t total = array->nbytes();
    for (int64_t offset = 0; offset < total; offset += chunk_bytes) {
      const int64_t size = std::min(chunk_bytes, total - offset);
      std::string* chunk = message.mutable_chunk();
      chunk->resize(static_cast<size_t>(size));
      AH_RETURN_IF_ERROR(
          engine_.ReadBytes(caller, *array, offset,
                            std::span(reinterpret_cast<std::byte*>(chunk->data()), chunk->size())));
      if (!writer->Write(message)) {
        return absl::CancelledError(
            fmt::format("client went away after {} of {} bytes", offset, total));
      }
    }
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
