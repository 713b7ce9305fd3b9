#include "server/transport/request_metrics.h"

#include <google/protobuf/descriptor.h>
#include <grpcpp/support/byte_buffer.h>

#include <chrono>
#include <optional>
#include <string_view>
#include <vector>

#include "arrayhub/v1/arrays.pb.h"
#include "proto/wire/chunk_messages.h"
#include "server/transport/code_name.h"

namespace arrayhub {
namespace {

constexpr char kUploadMethod[] = "/arrayhub.v1.ArrayHub/Upload";
constexpr char kDownloadMethod[] = "/arrayhub.v1.ArrayHub/Download";
constexpr char kCopyFromSharedMemoryMethod[] = "/arrayhub.v1.ArrayHub/CopyFromSharedMemory";
constexpr char kCopyToSharedMemoryMethod[] = "/arrayhub.v1.ArrayHub/CopyToSharedMemory";

// Which array bytes a method moves, and so counts into arrayhub_transfer_bytes_total.
enum class Transfer {
  kNone,
  kUploadChunks,         // Upload: each chunk received.
  kDownloadChunks,       // Download: each chunk sent.
  kSharedMemoryUpload,   // CopyFromSharedMemory: the array written, once it succeeded.
  kSharedMemoryDownload  // CopyToSharedMemory: the array read, once it succeeded.
};

// The array bytes an Upload or Download message carries: its chunk's size, 0 for the upload
// header or the download info.
int64_t ChunkBytes(const grpc::ByteBuffer& message) {
  std::vector<grpc::Slice> slices;
  if (!message.Dump(&slices).ok()) return 0;
  const std::optional<wire::ChunkLocation> chunk = wire::FindChunk(slices);
  return chunk.has_value() ? static_cast<int64_t>(chunk->size) : 0;
}

Transfer TransferOf(std::string_view method) {
  if (method == kUploadMethod) return Transfer::kUploadChunks;
  if (method == kDownloadMethod) return Transfer::kDownloadChunks;
  if (method == kCopyFromSharedMemoryMethod) return Transfer::kSharedMemoryUpload;
  if (method == kCopyToSharedMemoryMethod) return Transfer::kSharedMemoryDownload;
  return Transfer::kNone;
}

class RequestMetrics final : public grpc::experimental::Interceptor {
 public:
  RequestMetrics(ServerMetrics& metrics, std::string_view service, std::string_view method,
                 Transfer transfer)
      : metrics_(metrics),
        service_(service),
        method_(method),
        transfer_(transfer),
        start_(std::chrono::steady_clock::now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    using Direction = ServerMetrics::Direction;
    // The interceptor knows the message types of these methods, so the casts are exact: Upload
    // and Download are raw (transfer_rpcs.cc), their messages serialized byte buffers.
    if (transfer_ == Transfer::kUploadChunks &&
        methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE)) {
      if (const auto* message = static_cast<const grpc::ByteBuffer*>(methods->GetRecvMessage())) {
        metrics_.CountTransfer(Direction::kUpload, ChunkBytes(*message));
      }
    }
    if (transfer_ == Transfer::kDownloadChunks &&
        methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      if (const auto* message = static_cast<const grpc::ByteBuffer*>(methods->GetSendMessage())) {
        metrics_.CountTransfer(Direction::kDownload, ChunkBytes(*message));
      }
    }
    if ((transfer_ == Transfer::kSharedMemoryUpload ||
         transfer_ == Transfer::kSharedMemoryDownload) &&
        methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      if (const auto* message =
              static_cast<const v1::SharedMemoryCopyResponse*>(methods->GetSendMessage())) {
        // A unary response is sent only when the call succeeded.
        metrics_.CountTransfer(
            transfer_ == Transfer::kSharedMemoryUpload ? Direction::kUpload : Direction::kDownload,
            message->array().nbytes());
      }
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
      metrics_.CountRequest(service_, method_, CodeName(methods->GetSendStatus().error_code()),
                            elapsed.count());
    }
    methods->Proceed();
  }

 private:
  ServerMetrics& metrics_;
  std::string_view service_;  // Point into the factory's known_methods_, or at "unknown".
  std::string_view method_;
  const Transfer transfer_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

RequestMetricsFactory::RequestMetricsFactory(ServerMetrics& metrics) : metrics_(metrics) {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName("arrayhub.v1.ArrayHub");
  for (int i = 0; service != nullptr && i < service->method_count(); ++i) {
    known_methods_.insert("/" + service->full_name() + "/" + service->method(i)->name());
  }
  // The standard services the server also runs (their C++ code is not protobuf-generated).
  known_methods_.insert("/grpc.health.v1.Health/Check");
  known_methods_.insert("/grpc.health.v1.Health/Watch");
  known_methods_.insert("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo");
}

grpc::experimental::Interceptor* RequestMetricsFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  auto known = known_methods_.find(info->method() != nullptr ? info->method() : "");
  if (known == known_methods_.end()) {
    return new RequestMetrics(metrics_, "unknown", "unknown", Transfer::kNone);
  }
  // "/service/method", split at the last slash.
  const std::string_view full = *known;
  const size_t slash = full.rfind('/');
  return new RequestMetrics(metrics_, full.substr(1, slash - 1), full.substr(slash + 1),
                            TransferOf(full));
}

}  // namespace arrayhub
