// Feeds arbitrary bytes to a real in-process server as every request type: the first byte
// picks the RPC and the rest is its request in protobuf wire format (for Upload, a sequence of
// messages, each preceded by its length as two little-endian bytes). The request goes through
// gRPC, the transport's decoding and the core's validation to the CPU backend.
//
// Each input runs in a fresh session holding four arrays (float64 (3, 4), int32 (5,),
// complex64 (2, 2), bool (3,)); any string field that is exactly "0" to "3" is replaced by
// the handle of that array, so that the fuzzer reaches the code behind a valid handle. The
// input fails (aborts) when the server answers UNKNOWN, INTERNAL or DATA_LOSS, whose messages
// would not say what was wrong, or when anything it made is still there once its session is
// closed and its names are withdrawn.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/stubs/logging.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "server/backend/backend_factory.h"
#include "server/transport/server.h"
#include "server/transport/service.h"

namespace arrayhub {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

constexpr int kMaxUploadMessages = 64;

// Replaces every string field (at any depth) that reads "0".."3" by handles[digit].
void SubstituteHandles(Message& message, const std::vector<std::string>& handles) {
  const auto* descriptor = message.GetDescriptor();
  const auto* reflection = message.GetReflection();
  auto replacement = [&](const std::string& value) -> const std::string* {
    if (value.size() != 1 || value[0] < '0' || value[0] >= '0' + int(handles.size())) {
      return nullptr;
    }
    return &handles[value[0] - '0'];
  };
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->type() == FieldDescriptor::TYPE_STRING) {
      if (field->is_repeated()) {
        for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
          const std::string* handle = replacement(reflection->GetRepeatedString(message, field, j));
          if (handle != nullptr) reflection->SetRepeatedString(&message, field, j, *handle);
        }
      } else if (const std::string* handle = replacement(reflection->GetString(message, field))) {
        reflection->SetString(&message, field, *handle);
      }
    } else if (field->type() == FieldDescriptor::TYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
          SubstituteHandles(*reflection->MutableRepeatedMessage(&message, field, j), handles);
        }
      } else if (reflection->HasField(message, field)) {
        SubstituteHandles(*reflection->MutableMessage(&message, field), handles);
      }
    }
  }
}

[[noreturn]] void Finding(const std::string& what) {
  std::fprintf(stderr, "request_fuzzer: %s\n", what.c_str());
  std::abort();
}

void CheckStatus(const grpc::Status& status, std::string_view rpc) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::DATA_LOSS:
      Finding(std::string(rpc) + " answered an unclear status: " + status.error_message());
    default:
      return;
  }
}

class Harness {
 public:
  Harness() {
    spdlog::set_level(spdlog::level::off);
    // Protobuf logs every string field of invalid UTF-8 it parses; such inputs are expected.
    google::protobuf::SetLogHandler(nullptr);
    ServerOptions options;
    options.listen_address = "127.0.0.1:0";
    // Small limits keep each input fast (linear algebra on at most 64 KiB).
    options.limits.max_array_bytes = 64 << 10;
    options.limits.max_array_elements = 16 << 10;
    options.limits.max_chunk_bytes = 4096;
    options.limits.default_chunk_bytes = 1024;
    options.quotas = {.max_bytes = 1 << 20, .max_arrays = 64, .max_sessions = 8};
    auto server = ArrayHubServer::Start(options, CreateBackend(BackendChoice::kCpu).value());
    if (!server.ok()) Finding("cannot start the server: " + server.status().ToString());
    server_ = *std::move(server);
    stub_ = v1::ArrayHub::NewStub(
        grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
    baseline_ = server_->engine().Stats();
  }

  void Run(uint8_t kind, std::string_view payload) {
    Begin();
    Dispatch(kind, payload);
    End();
  }

 private:
  void Begin() {
    Engine& engine = server_->engine();
    const Session session = engine.OpenSession(kAnonymousTenant, "fuzz", {}).value();
    caller_ = {.tenant = kAnonymousTenant, .session = session.id};
    handles_.clear();
    const CreateSpec premade[] = {
        {.dtype = DType::kFloat64, .shape = {3, 4}, .kind = OnesKind{}},
        {.dtype = DType::kInt32,
         .shape = {},
         .kind = ArangeKind{.start = Scalar::Int(0), .stop = Scalar::Int(5), .step = {}}},
        {.dtype = DType::kComplex64, .shape = {2, 2}, .kind = OnesKind{}},
        {.dtype = DType::kBool, .shape = {3}, .kind = ZerosKind{}},
    };
    for (const CreateSpec& spec : premade) {
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
      Finding("the input left arrays, memory or sessions behind");
    }
  }

  std::unique_ptr<grpc::ClientContext> Context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("x-arrayhub-session", caller_.session.ToString());
    return context;
  }

  template <typename Request>
  bool Parse(std::string_view payload, Request& request) const {
    if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return false;
    SubstituteHandles(request, handles_);
    return true;
  }

  template <typename Request, typename Response>
  void Unary(grpc::Status (v1::ArrayHub::Stub::*method)(grpc::ClientContext*, const Request&,
                                                        Response*),
             std::string_view payload, std::string_view rpc) {
    Request request;
    if (!Parse(payload, request)) return;
    Response response;
    const grpc::Status status = (stub_.get()->*method)(Context().get(), request, &response);
    CheckStatus(status, rpc);
    if constexpr (std::is_same_v<Request, v1::PublishRequest>) {
      if (status.ok()) published_.push_back(request.name());
    }
  }

  void Upload(std::string_view payload) {
    auto context = Context();
    v1::UploadResponse response;
    auto writer = stub_->Upload(context.get(), &response);
    for (int sent = 0; payload.size() >= 2 && sent < kMaxUploadMessages; ++sent) {
      const size_t length = std::min<size_t>(
          payload.size() - 2, uint8_t(payload[0]) | size_t{uint8_t(payload[1])} << 8);
      v1::UploadRequest message;
      const bool parsed = Parse(payload.substr(2, length), message);
      payload.remove_prefix(2 + length);
      if (parsed && !writer->Write(message)) break;
    }
    writer->WritesDone();
    CheckStatus(writer->Finish(), "Upload");
  }

  void Download(std::string_view payload) {
    v1::DownloadRequest request;
    if (!Parse(payload, request)) return;
    auto context = Context();
    auto reader = stub_->Download(context.get(), request);
    for (v1::DownloadResponse message; reader->Read(&message);) {
    }
    CheckStatus(reader->Finish(), "Download");
  }

  void OpenAndCloseSession(std::string_view payload) {
    v1::OpenSessionRequest request;
    if (!Parse(payload, request)) return;
    grpc::ClientContext context;
    v1::OpenSessionResponse response;
    const grpc::Status status = stub_->OpenSession(&context, request, &response);
    CheckStatus(status, "OpenSession");
    if (!status.ok()) return;
    grpc::ClientContext close_context;
    close_context.AddMetadata("x-arrayhub-session", response.session_id());
    v1::CloseSessionResponse closed;
    CheckStatus(stub_->CloseSession(&close_context, {}, &closed), "CloseSession");
  }

  void Dispatch(uint8_t kind, std::string_view payload) {
    using Stub = v1::ArrayHub::Stub;
    switch (kind % 26) {
      case 0:
        return Unary(&Stub::Create, payload, "Create");
      case 1:
        return Unary(&Stub::Elementwise, payload, "Elementwise");
      case 2:
        return Unary(&Stub::Reduce, payload, "Reduce");
      case 3:
        return Unary(&Stub::Matmul, payload, "Matmul");
      case 4:
        return Unary(&Stub::TensorProduct, payload, "TensorProduct");
      case 5:
        return Unary(&Stub::Linalg, payload, "Linalg");
      case 6:
        return Upload(payload);
      case 7:
        return Download(payload);
      case 8:
        return Unary(&Stub::Free, payload, "Free");
      case 9:
        return Unary(&Stub::Describe, payload, "Describe");
      case 10:
        return Unary(&Stub::List, payload, "List");
      case 11:
        return Unary(&Stub::Publish, payload, "Publish");
      case 12:
        return Unary(&Stub::Unpublish, payload, "Unpublish");
      case 13:
        return Unary(&Stub::Attach, payload, "Attach");
      case 14:
        return OpenAndCloseSession(payload);
      case 15:
        return Unary(&Stub::View, payload, "View");
      case 16:
        return Unary(&Stub::GetItem, payload, "GetItem");
      case 17:
        return Unary(&Stub::SetItem, payload, "SetItem");
      case 18:
        return Unary(&Stub::ArrayOp, payload, "ArrayOp");
      case 19:
        return Unary(&Stub::Batch, payload, "Batch");
      case 20:
        return Unary(&Stub::RegisterSharedMemory, payload, "RegisterSharedMemory");
      case 21:
        return Unary(&Stub::UnregisterSharedMemory, payload, "UnregisterSharedMemory");
      case 22:
        return Unary(&Stub::CopyFromSharedMemory, payload, "CopyFromSharedMemory");
      case 23:
        return Unary(&Stub::CopyToSharedMemory, payload, "CopyToSharedMemory");
      case 24:
        return Unary(&Stub::ExportIpc, payload, "ExportIpc");
      default:
        return Unary(&Stub::ReleaseIpc, payload, "ReleaseIpc");
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
