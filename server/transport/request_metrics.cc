#include "server/transport/request_metrics.h"

#include <google/protobuf/descriptor.h>

#include <chrono>
#include <string_view>

#include "arrayhub/v1/arrays.pb.h"
#include "server/transport/code_name.h"

namespace arrayhub {
namespace {

constexpr char kUploadMethod[] = "/arrayhub.v1.ArrayHub/Upload";
constexpr char kDownloadMethod[] = "/arrayhub.v1.ArrayHub/Download";

class RequestMetrics final : public grpc::experimental::Interceptor {
 public:
  RequestMetrics(ServerMetrics& metrics, std::string_view service, std::string_view method,
                 bool upload, bool download)
      : metrics_(metrics),
        service_(service),
        method_(method),
        upload_(upload),
        download_(download),
        start_(std::chrono::steady_clock::now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    // The interceptor knows the message types of these two methods, so the casts are exact.
    if (upload_ && methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE)) {
      if (const auto* message = static_cast<const v1::UploadRequest*>(methods->GetRecvMessage())) {
        metrics_.CountTransfer(ServerMetrics::Direction::kUpload,
                               static_cast<int64_t>(message->chunk().size()));
      }
    }
    if (download_ &&
        methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      if (const auto* message =
              static_cast<const v1::DownloadResponse*>(methods->GetSendMessage())) {
        metrics_.CountTransfer(ServerMetrics::Direction::kDownload,
                               static_cast<int64_t>(message->chunk().size()));
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
  const bool upload_;
  const bool download_;
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
    return new RequestMetrics(metrics_, "unknown", "unknown", false, false);
  }
  // "/service/method", split at the last slash.
  const std::string_view full = *known;
  const size_t slash = full.rfind('/');
  return new RequestMetrics(metrics_, full.substr(1, slash - 1), full.substr(slash + 1),
                            full == kUploadMethod, full == kDownloadMethod);
}

}  // namespace arrayhub
