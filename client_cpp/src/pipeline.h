// The pipeline: a client's launch queue, as CUDA queues kernel launches. An op that a Batch
// can hold is recorded here and its Array returned at once; the queue goes to the server as
// one Batch RPC when the caller needs a value back (a download, a shape, a call that a Batch
// cannot hold, Client::Synchronize), when it holds kMaxOps ops, before an op issued on another
// device than its ops (a Batch runs on one device), and after an idle time (a thread of its
// own), so the server never waits on a quiet client. One Batch is in flight at a time; results are
// named within a batch by their op index and across batches by the handle the reply of the earlier
// one gave. See the README, "Pipelining".
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "arrayhub/array.h"
#include "arrayhub/error.h"
#include "arrayhub/v1/compute.pb.h"

namespace arrayhub::client::detail {

struct Connection;

// One op's result, shared by its Array and the pipeline.
struct Result {
  enum class State {
    kQueued,  // In the queue being built, as op `index`.
    kSent,    // In the batch in flight; its reply gives the handle.
    kReady,   // `info` holds the server's description.
    kFailed,  // `error` says why there is no array.
  };
  // Fields are written under the pipeline's mutex and `state` last, so a reader that sees
  // kReady or kFailed may read the others without the mutex: they no longer change.
  std::atomic<State> state{State::kQueued};
  int32_t index = 0;
  ArrayInfo info;
  std::optional<Error> error;

  static std::shared_ptr<Result> Ready(ArrayInfo info);
};

// What the client's internals read of an Array.
struct ArrayAccess {
  static const std::shared_ptr<Result>& ResultOf(const Array& array) { return array.result_; }
  static const Connection* ConnectionOf(const Array& array) { return array.connection_.get(); }
  static const std::shared_ptr<Connection>& SharedConnectionOf(const Array& array) {
    return array.connection_;
  }
};

// How an op names `array` on the wire: its handle, or the index of its op in the queue being
// built (a kQueued result; only the pipeline builds ops then, under its lock). Throws the
// error of a failed array.
std::variant<std::string, int32_t> WireName(const Array& array);

// Builds an op, under the pipeline's lock when the op is queued (its operands' indices are
// those of the queue it joins).
struct OpBuilder {
  std::function<v1::BatchRequest::Op()> build;
};

class Pipeline {
 public:
  // Past this many ops the queue is sent without waiting for idle (the server takes 1024).
  static constexpr int kMaxOps = 256;
  // Most frees one batch carries (the server takes --max-list-entries, 65536 by default); the
  // rest wait for the next.
  static constexpr size_t kMaxFrees = 4096;

  Pipeline(Connection& connection, bool sync, std::chrono::microseconds idle_flush);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Sync mode: every op is its own blocking RPC and nothing is queued.
  bool sync() const { return sync_.load(std::memory_order_relaxed); }
  // Turning sync mode on runs the queue first (Synchronize).
  void SetSync(bool sync);

  // Queues the op `op` builds, which reads the arrays `inputs`: first waits until none of
  // them is in the batch in flight (its handle is needed) and throws the error of a failed
  // one. Returns the op's result when it makes an array (null otherwise). While an error of
  // an earlier batch has not been raised, the op is discarded: its result fails with it.
  std::shared_ptr<Result> Record(std::span<const Array* const> inputs, const OpBuilder& op,
                                 bool makes_array);
  // Runs everything queued, frees included, and raises an error not raised yet.
  void Synchronize();
  // Until `result` is ready; throws its error (or, first, one not raised yet).
  void Wait(const std::shared_ptr<Result>& result);
  // A result still queued is sent with its batch's `read`, so its data (C order) comes back in
  // the same round trip; nullopt when it was no longer queued or the data was too large to come
  // inline (then `result` is ready: download it).
  std::optional<std::string> ReadInline(const std::shared_ptr<Result>& result);
  // The milliseconds from event `start_id` to `end_id`, asked with the queue's batch once its
  // ops have run, so that a timing loop's end record and its reading are one round trip;
  // nullopt when nothing is queued, in sync mode, or from a server that answers no such
  // question in a batch (then ask EventElapsedTime). Throws its refusal as that RPC would.
  std::optional<double> ElapsedWithQueue(uint64_t start_id, uint64_t end_id);
  // A dropped array: its handle is freed with the next batch.
  void Drop(std::string handle);
  // Runs what is queued (errors ignored, the wait bounded) and ends the idle thread; for the
  // Client's destructor. The session is closed next, so pending frees are dropped.
  void Stop() noexcept;

 private:
  // A batch taken from the queue: in flight from then on.
  struct Sealed {
    v1::BatchRequest request;
    // The results the request keeps, in `keep` order.
    std::vector<std::weak_ptr<Result>> kept;
  };

  bool HasWork() const { return request_.ops_size() > 0 || !frees_.empty(); }
  // Takes the queue and the frees as the batch in flight; `read`: the op read back inline.
  Sealed Seal(std::optional<int32_t> read = std::nullopt);
  // Sends `sealed` (the lock released meanwhile) and applies its reply.
  v1::BatchResponse Send(std::unique_lock<std::mutex>& lock, Sealed sealed,
                         std::optional<std::chrono::system_clock::time_point> deadline = {});
  // Fails `sealed`'s results but the first `made` (which its failing op did not affect, made
  // again), and every op queued since, with `error`, which the next wait raises.
  void Fail(const Sealed& sealed, size_t made, const Error& error);
  // Throws the error of a failed batch not raised yet, once.
  void RaisePending();
  // The idle thread: sends what Record sealed at kMaxOps, and the queue once idle.
  void FlushWhenIdle();

  Connection& connection_;
  std::atomic<bool> sync_;
  const std::chrono::microseconds idle_flush_;

  std::mutex mutex_;
  std::condition_variable changed_;            // Any change of the state below.
  v1::BatchRequest request_;                   // The queue: ops (and frees) not sent yet.
  int32_t queue_device_ = 0;                   // The device its ops were issued on.
  std::vector<std::weak_ptr<Result>> queued_;  // Per queued op: its result (empty if none).
  std::vector<std::string> frees_;
  std::chrono::steady_clock::time_point last_change_;  // Of the queue, for the idle flush.
  bool in_flight_ = false;
  std::optional<Sealed> outbox_;  // Sealed at kMaxOps, for the idle thread to send.
  std::optional<Error> pending_;  // A batch failed; raised at the next wait.
  bool stopping_ = false;
  std::thread idle_thread_;
};

}  // namespace arrayhub::client::detail
