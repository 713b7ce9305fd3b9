#include "server/transport/request_log.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <chrono>
#include <string>
#include <string_view>

#include "server/core/entropy.h"
#include "server/transport/call_tags.h"
#include "server/transport/code_name.h"

namespace arrayhub {
namespace {

// A client's id is used only if it cannot forge log structure: 1..64 characters of
// [A-Za-z0-9._:-].
bool AcceptableRequestId(grpc::string_ref id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string RequestIdOf(const std::multimap<grpc::string_ref, grpc::string_ref>& metadata) {
  auto it = metadata.find(kRequestIdMetadataKey);
  if (it != metadata.end() && AcceptableRequestId(it->second)) {
    return std::string(it->second.data(), it->second.size());
  }
  std::array<std::byte, 8> bytes;
  FillWithEntropy(bytes);
  std::string id;
  for (std::byte b : bytes) id += fmt::format("{:02x}", static_cast<unsigned>(b));
  return id;
}

class RequestLog final : public grpc::experimental::Interceptor {
 public:
  RequestLog(const grpc::ServerContextBase* call, const char* method)
      : call_(call), method_(method), start_(std::chrono::steady_clock::now()) {
    call_tags::Open(call_);
  }
  ~RequestLog() override { call_tags::Close(call_); }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      request_id_ = RequestIdOf(*methods->GetRecvInitialMetadata());
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      Log(methods->GetSendStatus());
    }
    methods->Proceed();
  }

 private:
  void Log(const grpc::Status& status) const {
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now() - start_)
                            .count();
    const std::string recorded = call_tags::Tenant(call_);
    // "-": the call ended before its credentials were read.
    const std::string_view tenant = recorded.empty() ? std::string_view("-") : recorded;
    if (status.ok()) {
      spdlog::debug("rpc {} OK {} us request={} tenant={}", method_, micros, request_id_, tenant);
    } else {
      spdlog::debug("rpc {} {} {} us request={} tenant={}: {}", method_,
                    CodeName(status.error_code()), micros, request_id_, tenant,
                    status.error_message());
    }
  }

  const grpc::ServerContextBase* call_;
  std::string method_;
  std::chrono::steady_clock::time_point start_;
  std::string request_id_ = "-";
};

}  // namespace

grpc::experimental::Interceptor* RequestLogFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  if (!spdlog::should_log(spdlog::level::debug)) return nullptr;
  return new RequestLog(info->server_context(), info->method());
}

}  // namespace arrayhub
