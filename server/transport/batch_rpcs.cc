// Batch: the request's ops decoded one by one and run by the batch runner
// (server/core/batch_runner.h: the order, the elementwise chains, the frees of results no later
// op reads; server/core/batch_plan.h has the rules); only the results the client keeps are
// answered. One result may come back inline (`read`), an elapsed time between two events may
// be asked (`elapsed_time`), and the handles the client dropped (`free`) go after the ops, so
// that a pipelined client's flush is one round trip.
#include "server/transport/batch_rpcs.h"

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
#include "server/core/batch_runner.h"
#include "server/transport/batch_ops.h"
#include "server/transport/code_name.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {
namespace {

// The request's ops as the batch runner asks for them: each decoded as its own RPC's request
// is, when its turn comes.
class RequestOps final : public BatchOps {
 public:
  explicit RequestOps(const v1::BatchRequest& request) : request_(request) {}

  bool Chainable(int64_t op) const override { return arrayhub::Chainable(Op(op)); }
  bool WritesIntoOut(int64_t op) const override { return arrayhub::WritesIntoOut(Op(op)); }
  std::optional<int64_t> ReducedResult(int64_t op) const override {
    return arrayhub::ReducedResult(Op(op));
  }
  absl::StatusOr<ElementwiseSpec> ChainSpec(int64_t op,
                                            const BatchResults& results) const override {
    return ElementwiseSpecFromProto(Op(op).elementwise(), &results);
  }
  absl::StatusOr<BatchOpSpec> Decode(int64_t op, const BatchResults& results) const override {
    return BatchOpSpecFromProto(Op(op), results);
  }

 private:
  const BatchOp& Op(int64_t op) const { return request_.ops(static_cast<int>(op)); }

  const v1::BatchRequest& request_;
};

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

// Answers `elapsed_time` in the response, its failure included (as EventElapsedTime would have
// failed): it is a question about the session's events, asked after the ops, and fails none of
// them.
void AnswerElapsed(Engine& engine, const Caller& caller, const v1::EventElapsedTimeRequest& asked,
                   v1::BatchResponse* response) {
  const absl::StatusOr<double> milliseconds =
      engine.EventElapsedMilliseconds(caller, asked.start_event_id(), asked.end_event_id());
  if (milliseconds.ok()) {
    response->set_elapsed_milliseconds(*milliseconds);
    return;
  }
  response->mutable_elapsed_error()->set_code(static_cast<int32_t>(milliseconds.status().code()));
  response->mutable_elapsed_error()->set_message(std::string(milliseconds.status().message()));
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
    BatchRunner runner(engine, caller, steps, plan);
    AH_RETURN_IF_ERROR(runner.Run(RequestOps(request)));
    if (read) {
      const absl::Status done =
          ReadBack(service, caller, runner.Of(*read), plan.kept[*read], response);
      if (!done.ok()) {
        return absl::Status(done.code(),
                            fmt::format("read = {}: {}", *read, std::string(done.message())));
      }
    }
    for (int32_t op : keep) {
      service.FillInfo(runner.Of(op), response->add_results());
      runner.Keep(plan.array_of[op]);
    }
    if (request.has_elapsed_time()) AnswerElapsed(engine, caller, request.elapsed_time(), response);
    return absl::OkStatus();
  }();
  FreeEach(engine, caller, frees);
  return ran;
}

}  // namespace

absl::Status AnswerStreamedBatch(ArrayHubService& service, const absl::StatusOr<Caller>& caller,
                                 const v1::BatchRequest& request, std::string_view where,
                                 std::string_view tenant, v1::BatchStreamResponse* answer) {
  const auto started = std::chrono::steady_clock::now();
  answer->Clear();
  const absl::Status ran = caller.ok()
                               ? RunBatch(service, *caller, request, answer->mutable_response())
                               : caller.status();
  if (!ran.ok()) {
    answer->mutable_error()->set_code(static_cast<int32_t>(ran.code()));
    answer->mutable_error()->set_message(std::string(ran.message()));
  }
  // As the request log's line per call, without the session (a credential of sorts).
  spdlog::debug("batch on {}: {} ops {} {} us tenant={}", where, request.ops_size(),
                CodeName(static_cast<grpc::StatusCode>(ran.code())),
                std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::steady_clock::now() - started)
                    .count(),
                tenant);
  return ran;
}

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
      // The session is looked up for every batch, as for every Batch call: it may have ended.
      // The stream's call is counted (request metrics) when it ends, not each batch.
      (void)AnswerStreamedBatch(*this, CallerOf(*context, request), request, "a stream",
                                opener.tenant, &answer);
      if (!stream->Write(answer)) break;  // The client went.
      if (!batch_streams_.Idle(context)) return absl::UnavailableError("the server is draining");
    }
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
