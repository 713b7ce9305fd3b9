// Turns fuzz bytes into requests of every RPC and sends them. A request is a kind (one byte,
// modulo kRpcKinds, picks the RPC) and a payload: the request in protobuf wire format, or for
// Upload a sequence of messages, each preceded by its length as two little-endian bytes.
//
// What varies between fuzz targets is left to a Client, which provides:
//   v1::ArrayHub::Stub& stub();
//   std::unique_ptr<grpc::ClientContext> Context();        // metadata of the next call
//   bool Prepare(std::string_view rpc, Message& request);  // after parsing; false: not sent
//   void Answered(std::string_view rpc, const grpc::Status& status,
//                 const Message* request, const Message* response);
//   void OpenSession(std::string_view payload);            // kind kOpenSessionKind
// Answered gets the request of a unary call (null for a stream) and the response: the single
// message of a unary call or an Upload, the first message (the array's info) of a Download.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "arrayhub/v1/service.grpc.pb.h"

namespace arrayhub::fuzz {

inline constexpr int kRpcKinds = 32;
inline constexpr int kOpenSessionKind = 14;
inline constexpr int kMaxUploadMessages = 64;

// The new value of a string or bytes field, or nullopt to keep it.
using Replacer = std::function<std::optional<std::string>(
    const google::protobuf::FieldDescriptor& field, const std::string& value)>;

// Applies `replace` to every string and bytes field of `message`, at any depth. This is how the
// targets put real handles where the fuzzer wrote a short code: random bytes never form one.
inline void SubstituteStrings(google::protobuf::Message& message, const Replacer& replace) {
  using google::protobuf::FieldDescriptor;
  const auto* descriptor = message.GetDescriptor();
  const auto* reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      if (field->is_repeated()) {
        for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
          std::optional<std::string> value =
              replace(*field, reflection->GetRepeatedString(message, field, j));
          if (value) reflection->SetRepeatedString(&message, field, j, *std::move(value));
        }
      } else if (reflection->HasField(message, field)) {  // Never switches a oneof.
        std::optional<std::string> value = replace(*field, reflection->GetString(message, field));
        if (value) reflection->SetString(&message, field, *std::move(value));
      }
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
          SubstituteStrings(*reflection->MutableRepeatedMessage(&message, field, j), replace);
        }
      } else if (reflection->HasField(message, field)) {
        SubstituteStrings(*reflection->MutableMessage(&message, field), replace);
      }
    }
  }
}

template <typename Client, typename Request, typename Response>
void SendUnary(Client& client,
               grpc::Status (v1::ArrayHub::Stub::*method)(grpc::ClientContext*, const Request&,
                                                          Response*),
               std::string_view payload, std::string_view rpc) {
  Request request;
  if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return;
  if (!client.Prepare(rpc, request)) return;
  Response response;
  const grpc::Status status = (client.stub().*method)(client.Context().get(), request, &response);
  client.Answered(rpc, status, &request, &response);
}

template <typename Client>
void SendUpload(Client& client, std::string_view payload) {
  auto context = client.Context();
  v1::UploadResponse response;
  auto writer = client.stub().Upload(context.get(), &response);
  for (int sent = 0; payload.size() >= 2 && sent < kMaxUploadMessages; ++sent) {
    const size_t length = std::min<size_t>(payload.size() - 2,
                                           uint8_t(payload[0]) | size_t{uint8_t(payload[1])} << 8);
    v1::UploadRequest message;
    const bool parsed = message.ParseFromArray(payload.data() + 2, static_cast<int>(length)) &&
                        client.Prepare("Upload", message);
    payload.remove_prefix(2 + length);
    if (parsed && !writer->Write(message)) break;
  }
  writer->WritesDone();
  const grpc::Status status = writer->Finish();
  client.Answered("Upload", status, nullptr, &response);
}

template <typename Client>
void SendDownload(Client& client, std::string_view payload) {
  v1::DownloadRequest request;
  if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return;
  if (!client.Prepare("Download", request)) return;
  auto context = client.Context();
  auto reader = client.stub().Download(context.get(), request);
  v1::DownloadResponse first;
  if (reader->Read(&first)) {
    for (v1::DownloadResponse message; reader->Read(&message);) {
    }
  }
  const grpc::Status status = reader->Finish();
  client.Answered("Download", status, nullptr, &first);
}

// Sends `payload` as a request of the RPC that `kind` picks.
template <typename Client>
void SendRequest(Client& client, uint8_t kind, std::string_view payload) {
  using Stub = v1::ArrayHub::Stub;
  switch (kind % kRpcKinds) {
    case 0:
      return SendUnary(client, &Stub::Create, payload, "Create");
    case 1:
      return SendUnary(client, &Stub::Elementwise, payload, "Elementwise");
    case 2:
      return SendUnary(client, &Stub::Reduce, payload, "Reduce");
    case 3:
      return SendUnary(client, &Stub::Matmul, payload, "Matmul");
    case 4:
      return SendUnary(client, &Stub::TensorProduct, payload, "TensorProduct");
    case 5:
      return SendUnary(client, &Stub::Linalg, payload, "Linalg");
    case 6:
      return SendUpload(client, payload);
    case 7:
      return SendDownload(client, payload);
    case 8:
      return SendUnary(client, &Stub::Free, payload, "Free");
    case 9:
      return SendUnary(client, &Stub::Describe, payload, "Describe");
    case 10:
      return SendUnary(client, &Stub::List, payload, "List");
    case 11:
      return SendUnary(client, &Stub::Publish, payload, "Publish");
    case 12:
      return SendUnary(client, &Stub::Unpublish, payload, "Unpublish");
    case 13:
      return SendUnary(client, &Stub::Attach, payload, "Attach");
    case kOpenSessionKind:
      return client.OpenSession(payload);
    case 15:
      return SendUnary(client, &Stub::View, payload, "View");
    case 16:
      return SendUnary(client, &Stub::GetItem, payload, "GetItem");
    case 17:
      return SendUnary(client, &Stub::SetItem, payload, "SetItem");
    case 18:
      return SendUnary(client, &Stub::ArrayOp, payload, "ArrayOp");
    case 19:
      return SendUnary(client, &Stub::Batch, payload, "Batch");
    case 20:
      return SendUnary(client, &Stub::RegisterSharedMemory, payload, "RegisterSharedMemory");
    case 21:
      return SendUnary(client, &Stub::UnregisterSharedMemory, payload, "UnregisterSharedMemory");
    case 22:
      return SendUnary(client, &Stub::CopyFromSharedMemory, payload, "CopyFromSharedMemory");
    case 23:
      return SendUnary(client, &Stub::CopyToSharedMemory, payload, "CopyToSharedMemory");
    case 24:
      return SendUnary(client, &Stub::ExportIpc, payload, "ExportIpc");
    case 25:
      return SendUnary(client, &Stub::ReleaseIpc, payload, "ReleaseIpc");
    case 26:
      return SendUnary(client, &Stub::Fft, payload, "Fft");
    case 27:
      return SendUnary(client, &Stub::RunKernel, payload, "RunKernel");
    case 28:
      return SendUnary(client, &Stub::QueryEvent, payload, "QueryEvent");
    case 29:
      return SendUnary(client, &Stub::EventElapsedTime, payload, "EventElapsedTime");
    case 30:
      return SendUnary(client, &Stub::CopyToDevice, payload, "CopyToDevice");
    default:
      return SendUnary(client, &Stub::Collective, payload, "Collective");
  }
}

}  // namespace arrayhub::fuzz
