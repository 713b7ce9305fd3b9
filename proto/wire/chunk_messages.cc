#include "proto/wire/chunk_messages.h"

#include <google/protobuf/message_lite.h>
#include <grpc/slice.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

namespace arrayhub::wire {
namespace {

// The tag of field 2, length-delimited (wire type 2).
constexpr uint8_t kChunkTag = (2 << 3) | 2;
// A tag and a varint of up to 10 bytes.
constexpr size_t kMaxPrefixBytes = 11;

// The chunk's tag and length, as they precede its bytes.
std::string ChunkPrefix(size_t size) {
  std::string prefix(1, static_cast<char>(kChunkTag));
  for (uint64_t rest = size;; rest >>= 7) {
    prefix += static_cast<char>(rest < 0x80 ? rest : (rest & 0x7f) | 0x80);
    if (rest < 0x80) break;
  }
  return prefix;
}

}  // namespace

grpc::ByteBuffer Serialize(const google::protobuf::MessageLite& message) {
  const grpc::Slice slice(message.SerializeAsString());
  return grpc::ByteBuffer(&slice, 1);
}

bool Parse(const std::vector<grpc::Slice>& slices, google::protobuf::MessageLite& message) {
  std::string flat;
  for (const grpc::Slice& slice : slices) {
    flat.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return message.ParseFromString(flat);
}

grpc::ByteBuffer ReferencingChunkMessage(std::span<const std::byte> data) {
  const grpc::Slice slices[2] = {grpc::Slice(ChunkPrefix(data.size())),
                                 grpc::Slice(data.data(), data.size(), grpc::Slice::STATIC_SLICE)};
  return grpc::ByteBuffer(slices, 2);
}

grpc::ByteBuffer CopyingChunkMessage(std::span<const std::byte> data) {
  const std::string prefix = ChunkPrefix(data.size());
  grpc_slice raw = grpc_slice_malloc(prefix.size() + data.size());
  uint8_t* out = GRPC_SLICE_START_PTR(raw);
  std::memcpy(out, prefix.data(), prefix.size());
  if (!data.empty()) std::memcpy(out + prefix.size(), data.data(), data.size());
  const grpc::Slice slice(raw, grpc::Slice::STEAL_REF);
  return grpc::ByteBuffer(&slice, 1);
}

std::optional<ChunkLocation> FindChunk(const std::vector<grpc::Slice>& slices) {
  size_t total = 0;
  for (const grpc::Slice& slice : slices) total += slice.size();
  std::array<uint8_t, kMaxPrefixBytes> head{};
  size_t have = 0;
  for (const grpc::Slice& slice : slices) {
    const size_t n = std::min(slice.size(), head.size() - have);
    std::memcpy(head.data() + have, slice.begin(), n);
    have += n;
    if (have == head.size()) break;
  }
  if (have < 2 || head[0] != kChunkTag) return std::nullopt;
  uint64_t size = 0;
  for (size_t i = 1; i < have; ++i) {
    size |= static_cast<uint64_t>(head[i] & 0x7f) << (7 * (i - 1));
    if ((head[i] & 0x80) == 0) {
      // Anything after the chunk (a second field) makes it a message to parse in full.
      if (size != total - (i + 1)) return std::nullopt;
      return ChunkLocation{i + 1, static_cast<size_t>(size)};
    }
  }
  return std::nullopt;
}

void CopyChunk(const std::vector<grpc::Slice>& slices, ChunkLocation chunk,
               std::byte* destination) {
  size_t offset = chunk.offset;
  size_t size = chunk.size;
  for (const grpc::Slice& slice : slices) {
    if (size == 0) return;
    if (offset >= slice.size()) {
      offset -= slice.size();
      continue;
    }
    const size_t n = std::min(slice.size() - offset, size);
    std::memcpy(destination, slice.begin() + offset, n);
    destination += n;
    size -= n;
    offset = 0;
  }
}

}  // namespace arrayhub::wire
