// Requests on client shared-memory regions, decoded but not yet validated (the engine does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "server/common/dtype.h"
#include "server/common/shape.h"

namespace arrayhub {

struct SharedMemoryRegistration {
  std::string region_name;
  int64_t byte_size = 0;
  // Names the object's descriptor, which the client handed over the daemon's Unix socket
  // (ParkedDescriptors).
  std::string descriptor_ticket;
};

// A copy between a region and an array's C-order bytes at [offset_bytes, + nbytes).
struct SharedMemoryCopySpec {
  std::string region_name;
  int64_t offset_bytes = 0;
  std::string handle;          // Empty: an upload creating a new array of dtype and shape.
  std::optional<DType> dtype;  // Unset on the wire: nullopt.
  Shape shape;
};

}  // namespace arrayhub
