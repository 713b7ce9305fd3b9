// What the server knows about one array handle: its layout, its memory, who owns it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "server/backend/buffer.h"
#include "server/common/dtype.h"
#include "server/common/shape.h"
#include "server/core/handle.h"

namespace arrayhub {

struct ArrayRecord {
  Handle handle;
  DType dtype = DType::kFloat32;
  Shape shape;
  Strides strides;  // In elements.
  int64_t offset_bytes = 0;
  // Shared by every view of the same data; the memory goes when the last holder does.
  std::shared_ptr<Buffer> buffer;
  int device = 0;      // Index of the engine's device that holds `buffer`.
  std::string owner;   // Tenant charged for the memory.
  std::string holder;  // Tenant whose handle this is: the owner, or a tenant that attached it.
  Handle session;      // Session the handle belongs to.
  Handle base;         // Array this one is a view of; null for arrays that own their data.
  std::string name;    // Published name, empty when unpublished.
  // False for views NumPy makes read-only (broadcast_to, diagonal) and views of such arrays.
  bool writable = true;
  // True for a handle attached to a publication that does not let the holder write, and for
  // views of it: writing answers PERMISSION_DENIED.
  bool shared_read_only = false;

  int64_t size() const;    // Number of elements.
  int64_t nbytes() const;  // size() * itemsize.
  bool c_contiguous() const { return IsCContiguous(shape, strides); }
  bool owns_data() const { return base.IsNull(); }
};

}  // namespace arrayhub
