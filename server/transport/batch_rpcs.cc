// Batch: ops run in order, each reading earlier results through the internal handles that the
// batch gives them; only the results the client keeps are answered, the rest are freed as soon
// as no later op reads them (server/core/batch_plan.h has the rules). A run of elementwise ops
// that make new arrays runs as one chain (Engine::ElementwiseChain): its results that nothing
// after the run reads and the client does not keep never become arrays. One result may come
// back inline (`read`), and the handles the client dropped (`free`) go after the ops, so that
// a pipelined client's flush is one round trip.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "server/common/status_macros.h"
#include "server/core/batch_plan.h"
#include "server/transport/batch_ops.h"
#include "server/transport/code_name.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {
namespace {

using Records = std::vector<ArrayTable::RecordPtr>;

// The arrays of a running batch, by op. Those the batch created (not an `out` array an op
// wrote into) are freed by Free, or when the batch ends, unless Keep handed them to the caller:
// a failed batch leaves none behind.
class BatchArrays final : public BatchResults {
 public:
  BatchArrays(Engine& engine, const Caller& caller, size_t ops)
      : engine_(engine), caller_(caller), arrays_(ops), created_(ops) {}
  ~BatchArrays() override {
    for (size_t op = 0; op < arrays_.size(); ++op) Free(static_cast<int64_t>(op));
  }
  BatchArrays(const BatchArrays&) = delete;
  BatchArrays& operator=(const BatchArrays&) = delete;

  void Set(int64_t op, Records arrays, bool created) {
    arrays_[op] = std::move(arrays);
    created_[op] = created;
  }
  // The single array of an op that PlanBatch let later ops read or the client keep.
  const ArrayRecord& Of(int64_t op) const { return *arrays_[op].front(); }
  std::string HandleOf(int64_t op) const override { return Of(op).handle.ToString(); }
  void Keep(int64_t op) { created_[op] = false; }
  void Free(int64_t op) {
    if (created_[op]) {
      for (const ArrayTable::RecordPtr& array : arrays_[op]) {
        // NOT_FOUND only when the session closed during the call and took its arrays along.
        engine_.Free(caller_, std::vector<Handle>{array->handle}).IgnoreError();
      }
    }
    arrays_[op].clear();
    created_[op] = false;
  }

 private:
  Engine& engine_;
  const Caller& caller_;
  std::vector<Records> arrays_;
  std::vector<bool> created_;
};

// Inside a run of elementwise ops [start, ...): results of the run are chain values, earlier
// ones arrays.
class ChainOperands final : public BatchResults {
 public:
  ChainOperands(const BatchResults& before, int64_t start) : before_(before), start_(start) {}
  std::string HandleOf(int64_t op) const override { return before_.HandleOf(op); }
  OperandSpec OperandOf(int64_t op) const override {
    if (op < start_) return before_.OperandOf(op);
    return OperandSpec{.handle = std::nullopt, .scalar = std::nullopt, .chain_value = op - start_};
  }

 private:
  const BatchResults& before_;
  int64_t start_;
};

// Runs the ops in order, runs of elementwise ops as chains, freeing each result the plan says
// after its last reader.
absl::Status RunOps(Engine& engine, const Caller& caller, const v1::BatchRequest& request,
                    std::span<const BatchStep> steps, const BatchPlan& plan, BatchArrays& arrays) {
  const int ops = request.ops_size();
  for (int i = 0; i < ops;) {
    // A caller that went away, or a drain that ran out, ends the batch here; `arrays` frees
    // what it made.
    if (absl::Status stop = CheckStop(caller.stop.get()); !stop.ok()) {
      return absl::Status(
          stop.code(), fmt::format("{} (before ops[{}] ({}) of {})", std::string(stop.message()), i,
                                   steps[i].label, ops));
    }
    // A run of two or more elementwise ops goes to the engine whole, as a chain.
    int end = i;
    while (engine.limits().fuse_batches && end < ops && Chainable(request.ops(end))) ++end;
    if (end - i >= 2) {
      const ChainOperands operands(arrays, i);
      std::vector<ChainOp> chain;
      for (int j = i; j < end; ++j) {
        absl::StatusOr<ElementwiseSpec> spec =
            ElementwiseSpecFromProto(request.ops(j).elementwise(), &operands);
        if (!spec.ok()) return InBatchOp(spec.status(), j, steps[j].label);
        chain.push_back({.batch_op = j,
                         .label = steps[j].label,
                         .spec = *std::move(spec),
                         .keep = plan.kept[j] || plan.last_use[j] >= end});
      }
      AH_ASSIGN_OR_RETURN(Records results, engine.ElementwiseChain(caller, chain));
      for (int j = i; j < end; ++j) {
        if (results[j - i]) arrays.Set(j, {results[j - i]}, /*created=*/true);
      }
      for (int j = i; j < end; ++j) {
        for (int64_t done : plan.free_after[j]) arrays.Free(done);
      }
      i = end;
      continue;
    }
    const BatchOp& op = request.ops(i);
    absl::StatusOr<Records> results = RunBatchOp(engine, caller, op, arrays);
    if (!results.ok()) return InBatchOp(results.status(), i, steps[i].label);
    arrays.Set(i, *std::move(results), !WritesIntoOut(op));
    for (int64_t done : plan.free_after[i]) arrays.Free(done);
    ++i;
  }
  return absl::OkStatus();
}

// The `free` entries, every one parsed before any op runs.
absl::StatusOr<std::vector<Handle>> FreesOf(
    const google::protobuf::RepeatedPtrField<std::string>& free) {
  std::vector<Handle> handles;
  handles.reserve(free.size());
  for (int k = 0; k < free.size(); ++k) {
    AH_ASSIGN_OR_RETURN(Handle handle, Handle::Parse(free[k], fmt::format("free[{}]", k)));
    handles.push_back(handle);
  }
  return handles;
}

// Frees each handle on its own. The only failure is NOT_FOUND, for a handle already gone or
// one the caller may not see (the same answer, so nothing can be probed): it is skipped.
void FreeEach(Engine& engine, const Caller& caller, const std::vector<Handle>& handles) {
  for (const Handle& handle : handles) {
    engine.Free(caller, std::vector<Handle>{handle}).IgnoreError();
  }
}

// Puts `array`, op `read`'s result, in the response: its info, its handle only if it outlives
// the batch, and its C-order bytes when they fit the inline limit (else data_omitted). The
// bytes are read as a Download reads them (Engine::BeginDownload): after the session's queued
// work on the array, a view copied to C order first (that copy charged to the tenant).
absl::Status ReadBack(ArrayHubService& service, const Caller& caller, const ArrayRecord& array,
                      bool outlives_batch, v1::BatchResponse* response) {
  service.FillInfo(array, response->mutable_read_info());
  if (!outlives_batch) response->mutable_read_info()->clear_handle();
  if (array.nbytes() > service.engine().limits().max_inline_read_bytes) {
    response->set_data_omitted(true);
    return absl::OkStatus();
  }
  AH_ASSIGN_OR_RETURN(
      std::unique_ptr<PendingDownload> download,
      service.engine().BeginDownload(caller, array.handle.ToString(), array.nbytes()));
  std::string& data = *response->mutable_data();
  data.reserve(array.nbytes());
  for (;;) {
    AH_ASSIGN_OR_RETURN(std::span<const std::byte> chunk, download->Next());
    if (chunk.empty()) {
      service.transfer_counters().client_download_bytes += static_cast<int64_t>(data.size());
      return absl::OkStatus();
    }
    data.append(reinterpret_cast<const char*>(chunk.data()), chunk.size());
  }
}

// Runs one BatchRequest for `caller` into `response`: what Batch answers, and each batch of a
// BatchStream.
absl::Status RunBatch(ArrayHubService& service, const Caller& call, const v1::BatchRequest& request,
                      v1::BatchResponse* response) {
  Engine& engine = service.engine();
  // The batch's own device, where it names one, over the call's.
  AH_ASSIGN_OR_RETURN(const Caller caller,
                      request.has_device() ? engine.CallerOnDevice(call, request.device(), "device")
                                           : absl::StatusOr<Caller>(call));
  AH_RETURN_IF_ERROR(CheckBatchSize(request.ops_size(), engine.limits().max_batch_ops));
  std::vector<BatchStep> steps;
  steps.reserve(request.ops_size());
  for (const BatchOp& op : request.ops()) steps.push_back(StepOf(op));
  const std::span<const int32_t> keep(request.keep().data(), request.keep().size());
  const std::optional<int64_t> read =
      request.has_read() ? std::optional<int64_t>(request.read()) : std::nullopt;
  AH_ASSIGN_OR_RETURN(BatchPlan plan, PlanBatch(steps, keep, read));
  AH_ASSIGN_OR_RETURN(std::vector<Handle> frees, FreesOf(request.free()));
  // The read is not a transfer (no --tenant-max-transfers slot): it is one message of at
  // most --max-inline-read-bytes, which a view's C-order copy, charged, is too.

  // From here on the frees are made whatever happens to the ops.
  const absl::Status ran = [&]() -> absl::Status {
    BatchArrays arrays(engine, caller, steps.size());
    AH_RETURN_IF_ERROR(RunOps(engine, caller, request, steps, plan, arrays));
    if (read) {
      const absl::Status done =
          ReadBack(service, caller, arrays.Of(*read), plan.kept[*read], response);
      if (!done.ok()) {
        return absl::Status(done.code(),
                            fmt::format("read = {}: {}", *read, std::string(done.message())));
      }
    }
    for (int32_t op : keep) {
      service.FillInfo(arrays.Of(op), response->add_results());
      arrays.Keep(plan.array_of[op]);
    }
    return absl::OkStatus();
  }();
  FreeEach(engine, caller, frees);
  return ran;
}

}  // namespace

grpc::Status ArrayHubService::Batch(grpc::ServerContext* context, const v1::BatchRequest* request,
                                    v1::BatchResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    return RunBatch(*this, caller, *request, response);
  }());
}

grpc::Status ArrayHubService::BatchStream(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::BatchStreamResponse, v1::BatchRequest>* stream) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller opener, CallerOf(*context));
    // An open stream holds a thread of the server, so it takes a transfer slot; it waits for
    // its client's next batch for as long as the session lives, so it is kept from the
    // idle cancel, and ends with its session (CloseSession, lease expiry) or the client.
    AH_ASSIGN_OR_RETURN(std::unique_ptr<TransferRegistry::Ticket> ticket,
                        engine_.BeginTransfer(opener, [context] { context->TryCancel(); }));
    ticket->KeepFromIdleCancel();
    // A drain ends the stream while it waits for a batch, or once it has answered one.
    if (!batch_streams_.Open(context)) return absl::UnavailableError("the server is draining");
    absl::Cleanup closed = [&] { batch_streams_.Close(context); };
    v1::BatchRequest request;
    v1::BatchStreamResponse answer;
    while (stream->Read(&request)) {
      if (!batch_streams_.Begin(context)) return absl::UnavailableError("the server is draining");
      const auto started = std::chrono::steady_clock::now();
      answer.Clear();
      // The session is looked up for every batch, as for every Batch call: it may have ended.
      const absl::Status ran = [&]() -> absl::Status {
        AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, request));
        return RunBatch(*this, caller, request, answer.mutable_response());
      }();
      if (!ran.ok()) {
        answer.mutable_error()->set_code(static_cast<int32_t>(ran.code()));
        answer.mutable_error()->set_message(std::string(ran.message()));
      }
      // As the request log's line per call, without the session (a credential of sorts).
      spdlog::debug("batch on a stream: {} ops {} {} us tenant={}", request.ops_size(),
                    CodeName(static_cast<grpc::StatusCode>(ran.code())),
                    std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now() - started)
                        .count(),
                    opener.tenant);
      if (!stream->Write(answer)) break;  // The client went.
      if (!batch_streams_.Idle(context)) return absl::UnavailableError("the server is draining");
    }
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
