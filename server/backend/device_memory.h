// A backend's memory: allocation, fills, and copies to and from the host and other devices.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/backend/buffer.h"
#include "server/backend/work_queue.h"
#include "server/common/dtype.h"

namespace arrayhub {

// Values start + i * step for i in [0, count), written as `dtype` from byte 0 of a buffer.
// This is numpy.arange's fill (and numpy.linspace's, with `float64_math`).
struct AffineFill {
  DType dtype = DType::kFloat64;
  int64_t count = 0;
  // Integer dtypes: start and step as int64, arithmetic wrapping modulo 2^64 and then
  // truncated to the dtype's width.
  int64_t int_start = 0;
  int64_t int_step = 0;
  // Floating and complex dtypes.
  std::complex<double> start{};
  std::complex<double> step{};
  // false: arange semantics; the arithmetic is done in the dtype's own precision (float32 for
  //   float16/float32/complex64, as NumPy's fill does).
  // true: linspace semantics; computed in float64 (complex128) and then rounded to the dtype;
  //   integer dtypes take the floor of the float64 value.
  bool float64_math = false;
};

class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;

  // Uninitialised memory of `nbytes` (may be 0), belonging to `queue`'s queue (see
  // Queues::Use) and, where tenants' memory is kept apart, its tenant's. RESOURCE_EXHAUSTED
  // when the device is full.
  virtual absl::StatusOr<std::shared_ptr<Buffer>> Allocate(QueueBinding& queue, int64_t nbytes) = 0;

  // Writes `pattern` (one element's bytes, 1..16 of them) `count` times, the first at byte
  // `offset` and each next one `stride_bytes` further (stride_bytes >= pattern.size()).
  virtual absl::Status FillPattern(QueueBinding& queue, Buffer& buffer, int64_t offset,
                                   int64_t count, int64_t stride_bytes,
                                   std::span<const std::byte> pattern) = 0;

  // Writes an arithmetic sequence (see AffineFill) from byte 0 of `buffer`.
  virtual absl::Status FillAffine(QueueBinding& queue, Buffer& buffer, const AffineFill& fill) = 0;

  // Copies between host memory and a buffer; [offset, offset + size) lies inside the buffer.
  // CopyFromHost may return before the copy is done (the source may go at once); CopyToHost
  // returns when the destination holds the data, after all the work enqueued before it.
  virtual absl::Status CopyFromHost(QueueBinding& queue, Buffer& buffer, int64_t offset,
                                    std::span<const std::byte> source) = 0;
  virtual absl::Status CopyToHost(QueueBinding& queue, const Buffer& buffer, int64_t offset,
                                  std::span<std::byte> destination) = 0;

  // Copies `nbytes` from byte `source_offset` of `source` to byte `target_offset` of
  // `target`, device to device: `source` may be a buffer of another backend of this process
  // (another device of the daemon; peer to peer between GPUs, never through the host), which
  // `queue`'s calls have Use()d, so the copy is ordered after its writers and before its free.
  virtual absl::Status CopyFromDevice(QueueBinding& queue, Buffer& target, int64_t target_offset,
                                      const Buffer& source, int64_t source_offset,
                                      int64_t nbytes) = 0;
};

}  // namespace arrayhub
