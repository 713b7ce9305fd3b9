#include "connection.h"

#include <string>

namespace arrayhub::client::detail {

void Connection::Prepare(grpc::ClientContext& context, bool with_session, bool with_device) const {
  if (!options.token.empty()) context.AddMetadata("authorization", "Bearer " + options.token);
  if (with_session) context.AddMetadata("x-arrayhub-session", session_id);
  const int32_t device = call_device.load(std::memory_order_relaxed);
  if (with_device && device != session_device) {
    context.AddMetadata("x-arrayhub-device", std::to_string(device));
  }
}

v1::ServerInfo Connection::ReadServerInfo(bool with_device) const {
  grpc::ClientContext context;
  Prepare(context, /*with_session=*/false, with_device);
  v1::ServerInfo info;
  Check(stub->GetServerInfo(&context, v1::ServerInfoRequest(), &info));
  return info;
}

void Connection::Free(const std::string& handle, bool cleanup) {
  grpc::ClientContext context;
  Prepare(context);
  if (cleanup) context.set_deadline(std::chrono::system_clock::now() + kCleanupTimeout);
  v1::FreeRequest request;
  request.add_handles(handle);
  v1::FreeResponse response;
  Check(stub->Free(&context, request, &response));
}

v1::ArrayInfo CallOp(Connection& connection, const v1::BatchRequest::Op& op) {
  using Op = v1::BatchRequest::Op;
  using Stub = v1::ArrayHub::Stub;
  switch (op.op_case()) {
    case Op::kElementwise:
      return Call(connection, &Stub::Elementwise, op.elementwise());
    case Op::kMatmul:
      return Call(connection, &Stub::Matmul, op.matmul());
    case Op::kReduce:
      return Call(connection, &Stub::Reduce, op.reduce());
    case Op::kView:
      return Call(connection, &Stub::View, op.view());
    case Op::kArrayOp:
      // Only ops giving one array are pipelined (Client::ArrayOp).
      return Call(connection, &Stub::ArrayOp, op.array_op()).results(0);
    case Op::kCreate:
      return Call(connection, &Stub::Create, op.create());
    case Op::kGetItem:
      return Call(connection, &Stub::GetItem, op.get_item());
    case Op::kTensorProduct:
      return Call(connection, &Stub::TensorProduct, op.tensor_product());
    case Op::kLinalg:
      // Only routines giving one array are pipelined (Linalg).
      return Call(connection, &Stub::Linalg, op.linalg()).results(0);
    case Op::kFft:
      return Call(connection, &Stub::Fft, op.fft());
    case Op::kRunKernel:  // A kernel giving one array.
      return Call(connection, &Stub::RunKernel, op.run_kernel()).outputs(0);
    case Op::kCopyToDevice:
      return Call(connection, &Stub::CopyToDevice, op.copy_to_device());
    case Op::kRecordEvent: {  // A Batch op only; it gives no array.
      v1::BatchRequest request;
      *request.add_ops() = op;
      Call(connection, &Stub::Batch, request);
      return {};
    }
    case Op::OP_NOT_SET:
      break;
  }
  throw Error(StatusCode::kInternal, "an op with no op set");
}

void Check(const grpc::Status& status) {
  if (status.ok()) return;
  int code = static_cast<int>(status.error_code());
  // The numbers are gRPC's canonical ones; anything else a peer might send is UNKNOWN.
  bool canonical = code > 0 && code <= static_cast<int>(StatusCode::kUnauthenticated);
  throw Error(canonical ? static_cast<StatusCode>(code) : StatusCode::kUnknown,
              status.error_message());
}

}  // namespace arrayhub::client::detail
