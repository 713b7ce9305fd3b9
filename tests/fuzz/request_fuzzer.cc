// Feeds arbitrary bytes to a real in-process server as every request type: the first byte
// picks the RPC and the rest is its request (request_driver.h). The request goes through
// gRPC, the transport's decoding and the core's validation to the CPU backend.
//
// Each input runs in a fresh session holding four arrays (float64 (3, 4), int32 (5,),
// complex64 (2, 2), bool (3,)); any string field that is exactly "0" to "3" is replaced by
// the handle of that array, so that the fuzzer reaches the code behind a valid handle. The
// input fails (aborts) when the server answers UNKNOWN, INTERNAL or DATA_LOSS, whose messages
// would not say what was wrong, or when anything it made is still there once its session is
// closed and its names are withdrawn.
#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/transport/service.h"
#include "tests/fuzz/fuzz_server.h"
#include "tests/fuzz/request_driver.h"

namespace arrayhub {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

constexpr std::string_view kFuzzer = "request_fuzzer";

class Harness {
 public:
  Harness() {
    ServerOptions options;
    options.quotas = {.max_bytes = 1 << 20, .max_arrays = 64, .max_sessions = 8};
    server_ = fuzz::StartFuzzServer(kFuzzer, std::move(options));
    stub_ = v1::ArrayHub::NewStub(
        grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
    baseline_ = server_->engine().Stats();
  }

  void Run(uint8_t kind, std::string_view payload) {
    Begin();
    fuzz::SendRequest(*this, kind, payload);
    End();
  }

  // The Client of fuzz::SendRequest.
  v1::ArrayHub::Stub& stub() { return *stub_; }

  std::unique_ptr<grpc::ClientContext> Context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata(kSessionMetadataKey, caller_.session.ToString());
    return context;
  }

  // Replaces every string field that reads "0".."3" by the handle of that array.
  bool Prepare(std::string_view, Message& request) const {
    fuzz::SubstituteStrings(request, [&](const FieldDescriptor& field, const std::string& value) {
      std::optional<std::string> handle;
      if (field.type() == FieldDescriptor::TYPE_STRING && value.size() == 1 && value[0] >= '0' &&
          value[0] < '0' + int(handles_.size())) {
        handle = handles_[value[0] - '0'];
      }
      return handle;
    });
    return true;
  }

  void Answered(std::string_view rpc, const grpc::Status& status, const Message* request,
                const Message*) {
    if (fuzz::IsUnclear(status.error_code())) {
      fuzz::Finding(kFuzzer,
                    std::string(rpc) + " answered an unclear status: " + status.error_message());
    }
    if (rpc == "Publish" && status.ok()) {
      published_.push_back(static_cast<const v1::PublishRequest&>(*request).name());
    }
  }

  // Opens a second session and closes it again.
  void OpenSession(std::string_view payload) {
    v1::OpenSessionRequest request;
    if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return;
    Prepare("OpenSession", request);
    grpc::ClientContext context;
    v1::OpenSessionResponse response;
    const grpc::Status status = stub_->OpenSession(&context, request, &response);
    Answered("OpenSession", status, &request, &response);
    if (!status.ok()) return;
    grpc::ClientContext close_context;
    close_context.AddMetadata(kSessionMetadataKey, response.session_id());
    v1::CloseSessionResponse closed;
    Answered("CloseSession", stub_->CloseSession(&close_context, {}, &closed), nullptr, &closed);
  }

 private:
  void Begin() {
    Engine& engine = server_->engine();
    const Session session = engine.OpenSession(kAnonymousTenant, "fuzz", {}).value();
    caller_ = {.tenant = kAnonymousTenant, .session = session.id};
    handles_.clear();
    for (const CreateSpec& spec : fuzz::PremadeArrays()) {
      handles_.push_back(engine.Create(caller_, spec).value()->handle.ToString());
    }
  }

  void End() {
    Engine& engine = server_->engine();
    for (const std::string& name : published_) (void)engine.Unpublish(caller_, name);
    published_.clear();
    (void)engine.CloseSession(caller_);
    const EngineStats now = server_->engine().Stats();
    if (now.arrays != baseline_.arrays || now.bytes_in_use != baseline_.bytes_in_use ||
        now.buffers != baseline_.buffers || now.sessions != baseline_.sessions) {
      fuzz::Finding(kFuzzer, "the input left arrays, memory or sessions behind");
    }
  }

  std::unique_ptr<ArrayHubServer> server_;
  std::unique_ptr<v1::ArrayHub::Stub> stub_;
  EngineStats baseline_;
  Caller caller_;
  std::vector<std::string> handles_;
  std::vector<std::string> published_;
};

}  // namespace
}  // namespace arrayhub

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto* harness = new arrayhub::Harness();  // One server for the whole run.
  if (size == 0) return 0;
  harness->Run(data[0], std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  return 0;
}
