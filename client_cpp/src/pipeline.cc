#include "pipeline.h"

#include <algorithm>
#include <utility>

#include "connection.h"
#include "convert.h"

namespace arrayhub::client::detail {
namespace {

using State = Result::State;

State StateOf(const Result& result) { return result.state.load(std::memory_order_acquire); }

// One Batch call's outcome: the kept results' descriptions, or the call's error.
struct Reply {
  v1::BatchResponse response;
  std::vector<ArrayInfo> kept;
  std::optional<Error> error;
};

Reply CallBatch(Connection& connection, const v1::BatchRequest& request,
                std::optional<std::chrono::system_clock::time_point> deadline) {
  Reply reply;
  try {
    std::optional<v1::BatchStreamResponse> answer;
    if (connection.lane != nullptr) answer = connection.lane->Call(connection, request, deadline);
    if (answer && answer->has_error()) {
      Check(grpc::Status(static_cast<grpc::StatusCode>(answer->error().code()),
                         answer->error().message()));
    } else if (answer) {
      reply.response = std::move(*answer->mutable_response());
    } else {
      grpc::ClientContext context;
      // The batch names its device itself when it is not the session's (Pipeline::Seal): the
      // client's current device may have changed since its ops were queued.
      connection.Prepare(context, /*with_session=*/true, /*with_device=*/false);
      if (deadline) context.set_deadline(*deadline);
      Check(connection.stub->Batch(&context, request, &reply.response));
    }
    for (const v1::ArrayInfo& info : reply.response.results())
      reply.kept.push_back(FromProto(info));
  } catch (const Error& error) {
    reply.error = error;
  }
  return reply;
}

// Frees alone: a Batch needs at least one op, and Free takes many handles.
void CallFree(Connection& connection, google::protobuf::RepeatedPtrField<std::string> handles,
              std::optional<std::chrono::system_clock::time_point> deadline) {
  grpc::ClientContext context;
  connection.Prepare(context);
  if (deadline) context.set_deadline(*deadline);
  v1::FreeRequest request;
  *request.mutable_handles() = std::move(handles);
  v1::FreeResponse ignored;
  // A handle already gone (its session reaped) is nothing to report.
  (void)connection.stub->Free(&context, request, &ignored);
}

// The op a failed batch's error names ("ops[3] (matmul): ..."; docs/semantics.md, "Batches").
std::optional<int> FailedOp(const Error& error) {
  const std::string& message = error.message();
  const size_t close = message.find("] (");
  if (!message.starts_with("ops[") || close == std::string::npos) return std::nullopt;
  try {
    return std::stoi(message.substr(4, close - 4));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Whether `op` writes into an existing array (out= by handle).
bool WritesExisting(const v1::BatchRequest::Op& op) {
  switch (op.op_case()) {
    case v1::BatchRequest::Op::kElementwise:
      return op.elementwise().out_array_case() == v1::ElementwiseRequest::kOut;
    case v1::BatchRequest::Op::kMatmul:
      return op.matmul().out_array_case() == v1::MatmulRequest::kOut;
    case v1::BatchRequest::Op::kReduce:
      return op.reduce().out_array_case() == v1::ReduceRequest::kOut;
    default:
      return false;
  }
}

// A failed batch leaves no array behind, but the ops before the failing one had succeeded, and
// without pipelining their arrays would exist: the prefix runs again to make them. Not when one
// of them wrote into an existing array (that write stays; a second run would repeat it).
// Returns the prefix's kept results, the first of `request`'s (its `keep` ascends).
std::vector<ArrayInfo> Recover(Connection& connection, const v1::BatchRequest& request,
                               const Error& error,
                               std::optional<std::chrono::system_clock::time_point> deadline) {
  const std::optional<int> failed = FailedOp(error);
  if (!failed || *failed <= 0 || *failed > request.ops_size()) return {};
  v1::BatchRequest prefix;
  if (request.has_device()) prefix.set_device(request.device());
  for (int op = 0; op < *failed; ++op) {
    if (WritesExisting(request.ops(op))) return {};
    *prefix.add_ops() = request.ops(op);
  }
  for (int32_t op : request.keep()) {
    if (op < *failed) prefix.add_keep(op);
  }
  if (prefix.keep_size() == 0) return {};
  Reply again = CallBatch(connection, prefix, deadline);
  return again.error ? std::vector<ArrayInfo>() : std::move(again.kept);
}

}  // namespace

std::shared_ptr<Result> Result::Ready(ArrayInfo info) {
  auto result = std::make_shared<Result>();
  result->info = std::move(info);
  result->state.store(State::kReady, std::memory_order_release);
  return result;
}

std::variant<std::string, int32_t> WireName(const Array& array) {
  const Result* result = ArrayAccess::ResultOf(array).get();
  if (result == nullptr) return std::string();  // An empty Array: the server says what is wrong.
  switch (StateOf(*result)) {
    case State::kQueued:
      return result->index;
    case State::kReady:
      return result->info.handle;
    case State::kFailed:
      throw *result->error;
    case State::kSent:
      break;
  }
  // Record waits for its inputs' batch to come back before it builds the op.
  throw Error(StatusCode::kInternal, "an op named an array whose batch is in flight");
}

Pipeline::Pipeline(Connection& connection, bool sync, std::chrono::microseconds idle_flush)
    : connection_(connection), sync_(sync), idle_flush_(idle_flush) {
  idle_thread_ = std::thread([this] { FlushWhenIdle(); });
}

Pipeline::~Pipeline() { Stop(); }

void Pipeline::SetSync(bool sync) {
  if (sync) Synchronize();
  sync_.store(sync, std::memory_order_relaxed);
}

std::shared_ptr<Result> Pipeline::Record(std::span<const Array* const> inputs, const OpBuilder& op,
                                         bool makes_array) {
  const int32_t device = connection_.call_device.load(std::memory_order_relaxed);
  std::unique_lock lock(mutex_);
  auto in_flight = [&inputs] {
    return std::any_of(inputs.begin(), inputs.end(), [](const Array* array) {
      const Result* result = ArrayAccess::ResultOf(*array).get();
      return result != nullptr && StateOf(*result) == State::kSent;
    });
  };
  for (;;) {
    // Full, or queued on another device (a batch runs on one): the queue goes as soon as the
    // batch before it has come back (at most one in flight).
    if (request_.ops_size() >= kMaxOps || (request_.ops_size() > 0 && queue_device_ != device)) {
      if (in_flight_) {
        changed_.wait(lock);
        continue;
      }
      outbox_ = Seal();
      changed_.notify_all();
    }
    if (!in_flight()) break;
    changed_.wait(lock);
  }
  if (pending_) {
    if (!makes_array) return nullptr;
    auto discarded = std::make_shared<Result>();
    discarded->error = pending_;
    discarded->state.store(State::kFailed, std::memory_order_release);
    return discarded;
  }
  for (const Array* array : inputs) {
    const Result* result = ArrayAccess::ResultOf(*array).get();
    if (result != nullptr && StateOf(*result) == State::kFailed) throw *result->error;
  }
  v1::BatchRequest::Op built = op.build();  // May throw: then nothing is queued.
  if (request_.ops_size() == 0) queue_device_ = device;
  *request_.add_ops() = std::move(built);
  std::shared_ptr<Result> result;
  if (makes_array) {
    result = std::make_shared<Result>();
    result->index = request_.ops_size() - 1;
  }
  queued_.push_back(result);
  if (request_.ops_size() == 1 && frees_.empty()) changed_.notify_all();  // Wakes the idle thread.
  last_change_ = std::chrono::steady_clock::now();
  return result;
}

void Pipeline::Synchronize() {
  std::unique_lock lock(mutex_);
  // Whatever was issued before this call, frees past one batch's share included; not what
  // other threads issue meanwhile.
  for (size_t batches = 1 + frees_.size() / kMaxFrees; batches > 0; --batches) {
    changed_.wait(lock, [this] { return !in_flight_; });
    if (!HasWork()) break;
    Send(lock, Seal());
  }
  RaisePending();
}

void Pipeline::Wait(const std::shared_ptr<Result>& result) {
  std::unique_lock lock(mutex_);
  for (;;) {
    const State state = StateOf(*result);
    if (state == State::kReady || state == State::kFailed) break;
    if (state == State::kQueued && !in_flight_) {
      Send(lock, Seal());
    } else {
      changed_.wait(lock);
    }
  }
  RaisePending();
  if (StateOf(*result) == State::kFailed) throw *result->error;
}

std::optional<std::string> Pipeline::ReadInline(const std::shared_ptr<Result>& result) {
  if (sync() || StateOf(*result) == State::kReady) return std::nullopt;
  std::unique_lock lock(mutex_);
  std::optional<std::string> read;
  for (;;) {
    const State state = StateOf(*result);
    if (state == State::kReady || state == State::kFailed) break;
    if (state == State::kQueued && !in_flight_) {
      v1::BatchResponse response = Send(lock, Seal(result->index));
      if (response.has_read_info() && !response.data_omitted()) {
        read = std::move(*response.mutable_data());
      }
    } else {
      changed_.wait(lock);
    }
  }
  RaisePending();
  if (StateOf(*result) == State::kFailed) throw *result->error;
  return read;
}

std::optional<double> Pipeline::ElapsedWithQueue(uint64_t start_id, uint64_t end_id) {
  if (sync()) return std::nullopt;
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !in_flight_; });
  if (request_.ops_size() == 0) return std::nullopt;
  Sealed sealed = Seal();
  sealed.request.mutable_elapsed_time()->set_start_event_id(start_id);
  sealed.request.mutable_elapsed_time()->set_end_event_id(end_id);
  const v1::BatchResponse response = Send(lock, std::move(sealed));
  RaisePending();
  switch (response.elapsed_case()) {
    case v1::BatchResponse::kElapsedMilliseconds:
      return response.elapsed_milliseconds();
    case v1::BatchResponse::kElapsedError:
      Check(grpc::Status(static_cast<grpc::StatusCode>(response.elapsed_error().code()),
                         response.elapsed_error().message()));
      [[fallthrough]];  // Check threw: the code is never OK.
    default:
      return std::nullopt;
  }
}

void Pipeline::Drop(std::string handle) {
  std::lock_guard lock(mutex_);
  if (!HasWork()) changed_.notify_all();  // Wakes the idle thread.
  frees_.push_back(std::move(handle));
  last_change_ = std::chrono::steady_clock::now();
}

void Pipeline::Stop() noexcept {
  {
    std::unique_lock lock(mutex_);
    if (stopping_) return;
    changed_.wait(lock, [this] { return !in_flight_; });
    frees_.clear();
    if (request_.ops_size() > 0) {
      try {
        Send(lock, Seal(), std::chrono::system_clock::now() + kCleanupTimeout);
      } catch (...) {
        // A failed batch is left in pending_, which nobody raises now (the session closes
        // next); nothing else (memory) may escape a destructor.
      }
    }
    stopping_ = true;
    changed_.notify_all();
  }
  idle_thread_.join();
}

Pipeline::Sealed Pipeline::Seal(std::optional<int32_t> read) {
  Sealed sealed;
  sealed.request = std::exchange(request_, {});
  const size_t frees = std::min(frees_.size(), kMaxFrees);
  for (size_t k = 0; k < frees; ++k) sealed.request.add_free(std::move(frees_[k]));
  frees_.erase(frees_.begin(), frees_.begin() + static_cast<ptrdiff_t>(frees));
  for (size_t op = 0; op < queued_.size(); ++op) {
    // Only results whose Array is still alive are kept; the server frees the rest as soon as
    // no later op reads them.
    if (std::shared_ptr<Result> result = queued_[op].lock()) {
      sealed.request.add_keep(static_cast<int32_t>(op));
      result->state.store(State::kSent, std::memory_order_release);
      sealed.kept.push_back(std::move(result));
    }
  }
  queued_.clear();
  if (read) sealed.request.set_read(*read);
  if (sealed.request.ops_size() > 0 && queue_device_ != connection_.session_device) {
    sealed.request.set_device(queue_device_);
  }
  in_flight_ = true;
  return sealed;
}

v1::BatchResponse Pipeline::Send(std::unique_lock<std::mutex>& lock, Sealed sealed,
                                 std::optional<std::chrono::system_clock::time_point> deadline) {
  lock.unlock();
  Reply reply;
  if (sealed.request.ops_size() == 0) {
    CallFree(connection_, std::move(*sealed.request.mutable_free()), deadline);
  } else {
    reply = CallBatch(connection_, sealed.request, deadline);
    if (reply.error) reply.kept = Recover(connection_, sealed.request, *reply.error, deadline);
  }
  lock.lock();
  in_flight_ = false;
  changed_.notify_all();
  for (size_t k = 0; k < reply.kept.size(); ++k) {
    if (std::shared_ptr<Result> result = sealed.kept[k].lock()) {
      result->info = std::move(reply.kept[k]);
      result->state.store(State::kReady, std::memory_order_release);
    } else {
      // Dropped while in flight: its handle came back all the same.
      if (!HasWork()) last_change_ = std::chrono::steady_clock::now();
      frees_.push_back(reply.kept[k].handle);
    }
  }
  if (reply.error) Fail(sealed, reply.kept.size(), *reply.error);
  return std::move(reply.response);
}

void Pipeline::Fail(const Sealed& sealed, size_t made, const Error& error) {
  auto fail = [&error](const std::weak_ptr<Result>& weak) {
    if (std::shared_ptr<Result> result = weak.lock()) {
      result->error = error;
      result->state.store(State::kFailed, std::memory_order_release);
    }
  };
  std::for_each(sealed.kept.begin() + static_cast<ptrdiff_t>(made), sealed.kept.end(), fail);
  // What was queued after the failing op is discarded: it may build on what failed.
  std::for_each(queued_.begin(), queued_.end(), fail);
  queued_.clear();
  request_.clear_ops();
  pending_ = error;
}

void Pipeline::RaisePending() {
  if (pending_) throw *std::exchange(pending_, std::nullopt);
}

void Pipeline::FlushWhenIdle() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (outbox_) {
      Send(lock, *std::exchange(outbox_, std::nullopt));
    } else if (!HasWork() || in_flight_) {
      // An open lane is closed once idle (BatchLane::kIdleClose). Only Send uses the lane,
      // with in_flight_ set: asked otherwise, it answers at once.
      const std::optional<std::chrono::steady_clock::time_point> idle =
          connection_.lane != nullptr && !in_flight_ ? connection_.lane->IdleDeadline()
                                                     : std::nullopt;
      if (!idle) {
        changed_.wait(lock);
      } else if (changed_.wait_until(lock, *idle) == std::cv_status::timeout) {
        connection_.lane->CloseIfIdle();
      }
    } else if (std::chrono::steady_clock::now() >= last_change_ + idle_flush_) {
      Send(lock, Seal());
    } else {
      changed_.wait_until(lock, last_change_ + idle_flush_);
    }
  }
}

}  // namespace arrayhub::client::detail
