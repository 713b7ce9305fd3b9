// Upload (client-streamed) and Download (server-streamed).
#include <fmt/format.h>

#include <functional>
#include <string>
#include <thread>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "server/core/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

namespace {

// Runs one task at a time on a thread of its own, for the length of one upload: a thread per
// chunk would cost a thread's creation (system calls) for every megabyte.
class CopyThread {
 public:
  CopyThread() : thread_([this] { Run(); }) {}
  ~CopyThread() {
    {
      absl::MutexLock lock(&mutex_);
      stopping_ = true;
    }
    thread_.join();
  }

  // Waits for the task before and returns its status; starts `task` if that one succeeded.
  absl::Status Then(std::function<absl::Status()> task) {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(this, &CopyThread::Idle));
    absl::Status previous = std::exchange(status_, absl::OkStatus());
    if (previous.ok()) task_ = std::move(task);
    return previous;
  }
  // Waits for the last task and returns its status.
  absl::Status Wait() {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(this, &CopyThread::Idle));
    return std::exchange(status_, absl::OkStatus());
  }

 private:
  bool Idle() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return task_ == nullptr; }
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return task_ != nullptr || stopping_;
  }
  void Run() {
    absl::MutexLock lock(&mutex_);
    for (;;) {
      mutex_.Await(absl::Condition(this, &CopyThread::HasWork));
      if (task_ == nullptr) return;  // Stopping, nothing left.
      std::function<absl::Status()> task = task_;
      mutex_.Unlock();
      absl::Status status = task();
      mutex_.Lock();
      status_.Update(status);
      task_ = nullptr;
    }
  }

  absl::Mutex mutex_;
  std::function<absl::Status()> task_ ABSL_GUARDED_BY(mutex_);
  absl::Status status_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;  // Last: started once the state above exists.
};

// Copies an upload's chunks into the array while the next one is being received: the copy of
// chunk k (to the device, from pageable memory) runs on a second thread while gRPC reads and
// parses chunk k + 1 on this one, so an upload costs about the receive alone. Two chunks at
// most are held; a failed copy ends the upload at the next chunk.
absl::Status ReceiveChunks(grpc::ServerReader<v1::UploadRequest>& reader, PendingUpload& upload) {
  std::string chunks[2];  // The chunk being copied, and the one just received.
  int slot = 0;
  // Declared after `chunks`: destroyed first, it finishes the copy in flight, which reads them.
  CopyThread copier;
  v1::UploadRequest message;
  while (reader.Read(&message)) {
    if (message.part_case() != v1::UploadRequest::kChunk) {
      return absl::InvalidArgumentError(fmt::format(
          "upload message after {} bytes is not a chunk; only the first message may be a header",
          upload.received()));
    }
    // Takes the bytes out of the message without copying them.
    chunks[slot].swap(*message.mutable_chunk());
    const std::string& chunk = chunks[slot];
    AH_RETURN_IF_ERROR(copier.Then([&upload, &chunk] {
      return upload.Append(
          std::span(reinterpret_cast<const std::byte*>(chunk.data()), chunk.size()));
    }));
    slot ^= 1;
  }
  return copier.Wait();
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
