// The interface every compute backend implements, composed of one interface per family of
// calls. A backend computes what core has already validated: it trusts offsets, counts and
// dtypes it is given, and reports only failures of its own (out of memory, device errors).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/backend/collectives.h"
#include "server/backend/compute.h"
#include "server/backend/device_health.h"
#include "server/backend/device_memory.h"
#include "server/backend/fft.h"
#include "server/backend/host_exchange.h"
#include "server/backend/indexing.h"
#include "server/backend/linalg.h"
#include "server/backend/memory_counters.h"
#include "server/backend/raw_kernel.h"
#include "server/backend/user_kernel.h"
#include "server/backend/work_queue.h"

namespace arrayhub {

struct DeviceDescription {
  std::string name;         // "cpu", "cuda:0"
  std::string description;  // Model and capability, for humans.
  int64_t total_memory_bytes = 0;
  int64_t free_memory_bytes = 0;
};

// The parts a backend is made of, one per family of calls; each is an interface of its own
// header, so that code that needs one family depends on that family only. Members are
// destroyed last to first, and a part may hold a reference to one declared above it (the CPU
// compute and exchange parts use `memory`): keep that order.
struct BackendParts {
  std::unique_ptr<Queues> queues;
  std::unique_ptr<DeviceMemory> memory;
  std::unique_ptr<HostExchange> host_exchange;
  std::unique_ptr<Collectives> collectives;
  std::unique_ptr<ComputeKernels> compute;
  std::unique_ptr<LinalgKernels> linalg;
  std::unique_ptr<FftKernels> fft;
  std::unique_ptr<IndexingKernels> indexing;
  std::unique_ptr<UserKernels> user_kernels;
  std::unique_ptr<RawKernels> raw_kernels;
};

// One device: what it is, and its parts.
//
// Every call that enqueues work or touches buffers is handed the caller's QueueBinding
// (Queues::Bind) as its first argument: its work is ordered on that queue. Calls that compute
// may return before the device is done, and what they report is what was found while
// enqueueing it. A failure the device finds later surfaces at the next call that waits for the
// queue (CopyToHost, CountNonzero, Nonzero, the bounds checks of Gather and Scatter, the
// linear-algebra calls that read LAPACK's info), naming the calls enqueued since the queue last
// waited.
class Backend {
 public:
  virtual ~Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // "cpu" or "cuda".
  virtual std::string_view name() const = 0;
  virtual std::vector<DeviceDescription> Devices() const = 0;
  // Device name recorded in ArrayInfo ("cpu", "cuda:0").
  virtual std::string DeviceName() const = 0;
  virtual MemoryStats Memory() const = 0;
  // Where the backend reports that its device is lost for good, and the server hears of it.
  DeviceHealth& device_health() { return device_health_; }

  Queues& queues() { return *parts_.queues; }
  DeviceMemory& memory() { return *parts_.memory; }
  HostExchange& host_exchange() { return *parts_.host_exchange; }
  Collectives& collectives() { return *parts_.collectives; }
  ComputeKernels& compute() { return *parts_.compute; }
  LinalgKernels& linalg() { return *parts_.linalg; }
  FftKernels& fft() { return *parts_.fft; }
  IndexingKernels& indexing() { return *parts_.indexing; }
  UserKernels& user_kernels() { return *parts_.user_kernels; }
  RawKernels& raw_kernels() { return *parts_.raw_kernels; }

 protected:
  // Every part is set.
  explicit Backend(BackendParts parts) : parts_(std::move(parts)) {}

 private:
  DeviceHealth device_health_;
  BackendParts parts_;
};

}  // namespace arrayhub
