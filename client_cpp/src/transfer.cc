// Uploads and downloads of array bytes: through shared memory when the server is on this
// host (shared_memory.h), else client-streamed and server-streamed.
#include <algorithm>
#include <optional>
#include <string>

#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"

namespace arrayhub::client {
namespace {

std::string ShapeString(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  }
  return text + "]";
}

// Checked here so that a wrong size fails before any of the (possibly gigabytes of) data is
// sent; the server checks again.
void CheckUploadSize(std::span<const std::byte> data, DType dtype, const Shape& shape) {
  int64_t expected = ElementCount(shape) * ItemSize(dtype);
  if (static_cast<int64_t>(data.size()) != expected) {
    throw Error(StatusCode::kInvalidArgument, std::to_string(data.size()) + " bytes given, but a " +
                                                  std::string(DTypeName(dtype)) +
                                                  " array of shape " + ShapeString(shape) +
                                                  " has " + std::to_string(expected));
  }
}

}  // namespace

Array Client::Upload(const std::vector<bool>& data, const Shape& shape) {
  std::vector<std::byte> bytes(data.size());
  std::transform(data.begin(), data.end(), bytes.begin(),
                 [](bool value) { return std::byte{value}; });
  return UploadBytes(bytes, DType::kBool, shape);
}

Array Client::UploadBytes(std::span<const std::byte> data, DType dtype, const Shape& shape) {
  CheckUploadSize(data, dtype, shape);
  detail::Connection& conn = connection();
  if (conn.shared_memory != nullptr) {
    if (std::optional<v1::ArrayInfo> info = conn.shared_memory->Upload(conn, data, dtype, shape)) {
      return Adopt(detail::FromProto(*info));
    }
  }
  grpc::ClientContext context;
  conn.Prepare(context);
  v1::UploadResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::UploadRequest>> writer =
      conn.stub->Upload(&context, &response);

  v1::UploadRequest message;
  message.mutable_header()->set_dtype(detail::ToProto(dtype));
  message.mutable_header()->mutable_shape()->Add(shape.begin(), shape.end());
  // A failed Write means the server ended the call (it rejected the header, say); Finish
  // then carries its reason.
  bool sent = writer->Write(message);
  const size_t chunk_bytes = static_cast<size_t>(conn.options.chunk_bytes);
  for (size_t offset = 0; sent && offset < data.size(); offset += chunk_bytes) {
    size_t size = std::min(chunk_bytes, data.size() - offset);
    message.set_chunk(data.data() + offset, size);
    sent = writer->Write(message);
  }
  if (sent) writer->WritesDone();
  detail::Check(writer->Finish());
  if (!sent) {
    throw Error(StatusCode::kDataLoss, "upload stream closed before all data was sent");
  }
  return Adopt(detail::FromProto(response.array()));
}

std::vector<std::byte> Client::DownloadBytes(const Array& array) {
  std::vector<std::byte> bytes(static_cast<size_t>(array.nbytes()));
  DownloadInto(array, bytes);
  return bytes;
}

void Client::DownloadInto(const Array& array, std::span<std::byte> destination) {
  if (static_cast<int64_t>(destination.size()) != array.nbytes()) {
    throw Error(StatusCode::kInvalidArgument,
                "destination holds " + std::to_string(destination.size()) + " bytes, array " +
                    array.handle() + " has " + std::to_string(array.nbytes()));
  }
  detail::Connection& conn = connection();
  if (conn.shared_memory != nullptr &&
      conn.shared_memory->Download(conn, array.handle(), destination)) {
    return;
  }
  grpc::ClientContext context;
  conn.Prepare(context);
  v1::DownloadRequest request;
  request.set_handle(array.handle());
  request.set_chunk_bytes(conn.options.chunk_bytes);
  std::unique_ptr<grpc::ClientReader<v1::DownloadResponse>> reader =
      conn.stub->Download(&context, request);

  // Ends the call before throwing: the stream must be drained and finished, not abandoned.
  auto fail = [&](const std::string& what) {
    context.TryCancel();
    v1::DownloadResponse ignored;
    while (reader->Read(&ignored)) {
    }
    (void)reader->Finish();
    return Error(StatusCode::kDataLoss, "download of " + array.handle() + ": " + what);
  };

  v1::DownloadResponse message;
  bool have_info = false;
  size_t received = 0;
  while (reader->Read(&message)) {
    if (message.has_info()) {
      if (have_info) throw fail("a second info message arrived");
      if (message.info().nbytes() != array.nbytes()) {
        throw fail("server announced " + std::to_string(message.info().nbytes()) +
                   " bytes, expected " + std::to_string(array.nbytes()));
      }
      have_info = true;
    } else {
      const std::string& chunk = message.chunk();
      if (!have_info) throw fail("a chunk arrived before the info message");
      if (chunk.size() > destination.size() - received) throw fail("more bytes than announced");
      std::ranges::copy(std::as_bytes(std::span(chunk)), destination.begin() + received);
      received += chunk.size();
    }
  }
  detail::Check(reader->Finish());
  if (!have_info || received != destination.size()) {
    throw Error(StatusCode::kDataLoss, "download of " + array.handle() + " ended after " +
                                           std::to_string(received) + " of " +
                                           std::to_string(destination.size()) + " bytes");
  }
}

}  // namespace arrayhub::client
