// Uploads and downloads of array bytes: when the server is on this host, straight from or into
// a pinned buffer holding the data, else through the session's transfer region
// (shared_memory.h); otherwise client-streamed and server-streamed.
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/sync_stream.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"
#include "pipeline.h"
#include "proto/wire/chunk_messages.h"
#include "requests.h"

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

// How many bytes `conn`'s server takes inline (Connection::inline_create_bytes): one
// GetServerInfo, at the first small upload only.
int64_t InlineCreateBytes(detail::Connection& conn) {
  int64_t known = conn.inline_create_bytes.load(std::memory_order_relaxed);
  if (known < 0) {
    known = std::min(conn.ReadServerInfo().limits().max_inline_create_bytes(),
                     conn.options.inline_upload_bytes);
    conn.inline_create_bytes.store(known, std::memory_order_relaxed);
  }
  return known;
}

// The Upload and Download streams are opened raw (grpc::ByteBuffer messages, through the
// factories generated stubs use; proto/wire/chunk_messages.h), so that array bytes go between
// the caller's memory and gRPC's slices directly: an upload chunk is referenced, not copied,
// and a download chunk is copied once, to its place (Arrow Flight sends its bodies the same
// way).
constexpr char kUploadMethod[] = "/arrayhub.v1.ArrayHub/Upload";
constexpr char kDownloadMethod[] = "/arrayhub.v1.ArrayHub/Download";

// The channel of a striped transfer's stream `stream` (0: the connection's own).
const std::shared_ptr<grpc::Channel>& StreamChannel(const detail::Connection& conn, int stream) {
  return stream == 0 ? conn.channel : conn.stripe_channels[static_cast<size_t>(stream - 1)];
}

// One Upload stream on stream channel `stream`: a new array of `data` when `target` is empty,
// else `data` written at byte `offset` of the existing array `target`.
v1::ArrayInfo UploadStream(detail::Connection& conn, int stream, std::span<const std::byte> data,
                           DType dtype, const Shape& shape, const std::string& target = "",
                           int64_t offset = 0) {
  const std::shared_ptr<grpc::Channel>& channel = StreamChannel(conn, stream);
  grpc::ClientContext context;
  conn.Prepare(context);
  v1::UploadResponse response;
  const grpc::internal::RpcMethod method(kUploadMethod, grpc::internal::RpcMethod::CLIENT_STREAMING,
                                         channel);
  std::unique_ptr<grpc::ClientWriter<grpc::ByteBuffer>> writer(
      grpc::internal::ClientWriterFactory<grpc::ByteBuffer>::Create(channel.get(), method, &context,
                                                                    &response));
  v1::UploadRequest header;
  v1::UploadHeader& fields = *header.mutable_header();
  fields.set_dtype(detail::ToProto(dtype));
  fields.mutable_shape()->Add(shape.begin(), shape.end());
  if (!target.empty()) {
    fields.set_target_handle(target);
    fields.set_offset_bytes(offset);
    fields.set_length_bytes(static_cast<int64_t>(data.size()));
  }
  // A failed Write means the server ended the call (it rejected the header, say); Finish
  // then carries its reason.
  bool sent = writer->Write(wire::Serialize(header));
  const size_t chunk_bytes = static_cast<size_t>(conn.options.chunk_bytes);
  for (size_t at = 0; sent && at < data.size(); at += chunk_bytes) {
    sent = writer->Write(
        wire::ReferencingChunkMessage(data.subspan(at, std::min(chunk_bytes, data.size() - at))));
  }
  if (sent) writer->WritesDone();
  detail::Check(writer->Finish());
  if (!sent) {
    throw Error(StatusCode::kDataLoss, "upload stream closed before all data was sent");
  }
  return response.array();
}

// One Download stream on stream channel `stream`: bytes [offset, offset + destination.size())
// of the array `handle`, of `nbytes` bytes in all, into `destination`.
void DownloadStream(detail::Connection& conn, int stream, const std::string& handle, int64_t nbytes,
                    std::span<std::byte> destination, int64_t offset = 0) {
  const std::shared_ptr<grpc::Channel>& channel = StreamChannel(conn, stream);
  grpc::ClientContext context;
  conn.Prepare(context);
  v1::DownloadRequest request;
  request.set_handle(handle);
  request.set_chunk_bytes(conn.options.chunk_bytes);
  if (static_cast<int64_t>(destination.size()) != nbytes) {
    request.set_offset_bytes(offset);
    request.set_length_bytes(static_cast<int64_t>(destination.size()));
  }
  const grpc::internal::RpcMethod method(kDownloadMethod,
                                         grpc::internal::RpcMethod::SERVER_STREAMING, channel);
  std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader(
      grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(channel.get(), method, &context,
                                                                    request));

  // Ends the call before throwing: the stream must be drained and finished, not abandoned.
  auto fail = [&](const std::string& what) {
    context.TryCancel();
    grpc::ByteBuffer ignored;
    while (reader->Read(&ignored)) {
    }
    (void)reader->Finish();
    return Error(StatusCode::kDataLoss, "download of " + handle + ": " + what);
  };

  grpc::ByteBuffer buffer;
  std::vector<grpc::Slice> slices;
  bool have_info = false;
  size_t received = 0;
  while (reader->Read(&buffer)) {
    slices.clear();
    if (!buffer.Dump(&slices).ok()) throw fail("a message could not be read");
    if (const std::optional<wire::ChunkLocation> chunk = wire::FindChunk(slices)) {
      if (!have_info) throw fail("a chunk arrived before the info message");
      if (chunk->size > destination.size() - received) throw fail("more bytes than announced");
      wire::CopyChunk(slices, *chunk, destination.data() + received);
      received += chunk->size;
      continue;
    }
    v1::DownloadResponse message;
    if (!wire::Parse(slices, message) || !message.has_info()) {
      throw fail("a message is neither the info nor a chunk");
    }
    if (have_info) throw fail("a second info message arrived");
    if (message.info().nbytes() != nbytes) {
      throw fail("server announced " + std::to_string(message.info().nbytes()) +
                 " bytes, expected " + std::to_string(nbytes));
    }
    have_info = true;
  }
  detail::Check(reader->Finish());
  if (!have_info || received != destination.size()) {
    throw Error(StatusCode::kDataLoss, "download of " + handle + " ended after " +
                                           std::to_string(received) + " of " +
                                           std::to_string(destination.size()) + " bytes");
  }
}

// Whether a streamed transfer of `size` bytes goes as several streams.
bool Striped(const detail::Connection& conn, size_t size) {
  return !conn.stripe_channels.empty() &&
         static_cast<int64_t>(size) >= conn.options.stripe_min_bytes;
}

// Splits `size` bytes into one range per stream (whole chunks, but the last) and calls
// `move(stream, offset, length)` for each, every stream on a thread of its own but the first,
// which runs on the caller's. Rethrows the first failure once all have ended.
void RunStriped(const detail::Connection& conn, size_t size,
                const std::function<void(int, size_t, size_t)>& move) {
  const auto chunk = static_cast<size_t>(conn.options.chunk_bytes);
  const size_t streams = conn.stripe_channels.size() + 1;
  // A stream's share rounded up, then to whole chunks: the ranges cover all `size` bytes.
  const size_t share = (size + streams - 1) / streams;
  const size_t stripe = (share + chunk - 1) / chunk * chunk;
  std::vector<std::exception_ptr> failures(streams);
  auto run = [&](size_t stream) {
    const size_t offset = std::min(size, stream * stripe);
    const size_t length = std::min(stripe, size - offset);
    if (length == 0) return;
    try {
      move(static_cast<int>(stream), offset, length);
    } catch (...) {
      failures[stream] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (size_t stream = 1; stream < streams; ++stream) threads.emplace_back(run, stream);
  run(0);
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
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
  const auto size = static_cast<int64_t>(data.size());
  detail::Connection& queued = connection();
  // A small upload is queued as a create that carries its bytes (CreateRequest.data), so that
  // it returns at once as other ops do.
  const int64_t inline_bytes =
      !queued.pipeline->sync() && size <= queued.options.inline_upload_bytes
          ? InlineCreateBytes(queued)
          : 0;
  if (inline_bytes > 0 && size <= inline_bytes) {
    // The op is built (the bytes copied) before Issue returns: the caller may reuse `data`.
    return Issue({}, {[&] {
                   v1::CreateRequest request = detail::CreateRequestFor(shape, dtype);
                   request.mutable_data()->set_values(data.data(), data.size());
                   return detail::AsOp(std::move(request));
                 }});
  }
  detail::Connection& conn = Synced();
  if (conn.shared_memory != nullptr) {
    if (std::optional<detail::PinnedLocation> pinned = conn.shared_memory->Locate(data)) {
      v1::SharedMemoryCopyRequest request;
      request.set_region_name(pinned->region_name);
      request.set_offset_bytes(pinned->offset);
      request.set_dtype(detail::ToProto(dtype));
      request.mutable_shape()->Add(shape.begin(), shape.end());
      return Adopt(detail::FromProto(
          detail::Call(conn, &v1::ArrayHub::Stub::CopyFromSharedMemory, request).array()));
    }
    if (std::optional<v1::ArrayInfo> info = conn.shared_memory->Upload(conn, data, dtype, shape)) {
      return Adopt(detail::FromProto(*info));
    }
  }
  if (!Striped(conn, data.size())) {
    return Adopt(detail::FromProto(UploadStream(conn, 0, data, dtype, shape)));
  }
  // The array first, then its ranges in parallel; a failure frees it with `array`.
  Array array = Empty(shape, dtype);
  RunStriped(conn, data.size(), [&](int stream, size_t offset, size_t length) {
    UploadStream(conn, stream, data.subspan(offset, length), dtype, shape, array.handle(),
                 static_cast<int64_t>(offset));
  });
  return array;
}

std::vector<std::byte> Client::DownloadBytes(const Array& array) {
  std::vector<std::byte> bytes;
  Fetch(array, std::nullopt, [&bytes](int64_t nbytes) {
    bytes.resize(static_cast<size_t>(nbytes));
    return std::span<std::byte>(bytes);
  });
  return bytes;
}

void Client::DownloadInto(const Array& array, std::span<std::byte> destination) {
  Fetch(array, std::nullopt, [&](int64_t nbytes) {
    if (static_cast<int64_t>(destination.size()) != nbytes) {
      throw Error(StatusCode::kInvalidArgument,
                  "destination holds " + std::to_string(destination.size()) + " bytes, array " +
                      array.handle() + " has " + std::to_string(nbytes));
    }
    return destination;
  });
}

void Client::Fetch(const Array& array, std::optional<DType> expected,
                   const std::function<std::span<std::byte>(int64_t nbytes)>& destination) {
  detail::Connection& conn = connection();
  // The array's own client computes it (a Client may download another's arrays).
  if (const detail::Connection* owner = detail::ArrayAccess::ConnectionOf(array)) {
    const std::shared_ptr<detail::Result>& result = detail::ArrayAccess::ResultOf(array);
    if (std::optional<std::string> data = owner->pipeline->ReadInline(result)) {
      if (expected) RequireDType(array, *expected);
      std::span<std::byte> out = destination(static_cast<int64_t>(data->size()));
      if (!data->empty()) std::memcpy(out.data(), data->data(), data->size());  // Not from null.
      return;
    }
  }
  Synced();  // Queued ops may write into `array`.
  if (expected) RequireDType(array, *expected);
  const std::span<std::byte> out = destination(array.nbytes());
  if (conn.shared_memory != nullptr) {
    if (std::optional<detail::PinnedLocation> pinned = conn.shared_memory->Locate(out)) {
      v1::SharedMemoryCopyRequest request;
      request.set_region_name(pinned->region_name);
      request.set_offset_bytes(pinned->offset);
      request.set_handle(array.handle());
      detail::Call(conn, &v1::ArrayHub::Stub::CopyToSharedMemory, request);
      return;
    }
    if (conn.shared_memory->Download(conn, array.handle(), out)) return;
  }
  if (!Striped(conn, out.size())) {
    DownloadStream(conn, 0, array.handle(), array.nbytes(), out);
    return;
  }
  RunStriped(conn, out.size(), [&](int stream, size_t offset, size_t length) {
    DownloadStream(conn, stream, array.handle(), array.nbytes(), out.subspan(offset, length),
                   static_cast<int64_t>(offset));
  });
}

}  // namespace arrayhub::client
