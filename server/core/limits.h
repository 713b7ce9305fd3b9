// Server-wide limits applied to every request (per-tenant quotas are separate).
#pragma once

#include <cstdint>

namespace arrayhub {

struct Limits {
  int64_t max_rank = 64;                           // NumPy 2's maximum number of dimensions.
  int64_t max_array_bytes = int64_t{64} << 30;     // Largest single array.
  int64_t max_array_elements = int64_t{64} << 30;  // Most elements of one array.
  int64_t max_chunk_bytes = int64_t{2} << 20;      // Largest upload chunk / download chunk.
  int64_t default_chunk_bytes = int64_t{1} << 20;
  int64_t max_message_bytes = int64_t{4} << 20;  // gRPC receive limit.
  int64_t max_batch_ops = 1024;                  // Most ops in one Batch request.
};

}  // namespace arrayhub
