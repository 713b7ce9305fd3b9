// The wire form of the messages that carry array bytes: UploadRequest and DownloadResponse,
// whose `bytes chunk = 2` is the array's data. Both ends read and write these messages as raw
// gRPC byte buffers, so that a chunk goes between gRPC's slices and its place (a staging
// buffer, the caller's memory) in one copy, never through a protobuf string. Every other
// message of the two streams (the upload header, the download info) goes through protobuf.
#pragma once

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace google::protobuf {
class MessageLite;
}

namespace arrayhub::wire {

// A protobuf message as one slice.
grpc::ByteBuffer Serialize(const google::protobuf::MessageLite& message);
// Parses `slices` into `message`; false when they are not a valid one.
bool Parse(const std::vector<grpc::Slice>& slices, google::protobuf::MessageLite& message);

// A message whose only field is chunk = `data`. Referencing: the buffer points at `data`, which
// must outlive the call that sends it. Copying: the buffer holds a copy.
grpc::ByteBuffer ReferencingChunkMessage(std::span<const std::byte> data);
grpc::ByteBuffer CopyingChunkMessage(std::span<const std::byte> data);

// Where the chunk lies in `slices` when they are a message holding nothing but a chunk.
struct ChunkLocation {
  size_t offset = 0;  // Bytes before the chunk (its tag and length).
  size_t size = 0;
};
// nullopt for any other message (a header or info, an empty message, a malformed one): the
// caller parses those with protobuf.
std::optional<ChunkLocation> FindChunk(const std::vector<grpc::Slice>& slices);

// Copies the chunk at `chunk` out of `slices` to `destination` (chunk.size bytes).
void CopyChunk(const std::vector<grpc::Slice>& slices, ChunkLocation chunk, std::byte* destination);

}  // namespace arrayhub::wire
