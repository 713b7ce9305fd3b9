// CudaCollectives::Collective: NCCL on the ranks' session streams (collectives.h), one rank per
// device of a communicator made once per set of devices (nccl_communicators.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/nccl_communicators.h"
#include "server/common/name_table.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

// NCCL's element type for a dtype, and how many of them make one element: a complex value is a
// pair of reals, which sum and average as a pair (core lets complex reach nothing else), and a
// bool is a byte, whose min and max are and/or.
struct NcclType {
  ncclDataType_t type;
  size_t per_element;
};

// No 16-bit integers: NCCL has none.
constexpr std::pair<DType, NcclType> kNcclTypes[] = {
    {DType::kBool, {ncclUint8, 1}},        {DType::kUInt8, {ncclUint8, 1}},
    {DType::kInt8, {ncclInt8, 1}},         {DType::kInt32, {ncclInt32, 1}},
    {DType::kUInt32, {ncclUint32, 1}},     {DType::kInt64, {ncclInt64, 1}},
    {DType::kUInt64, {ncclUint64, 1}},     {DType::kFloat16, {ncclFloat16, 1}},
    {DType::kFloat32, {ncclFloat32, 1}},   {DType::kFloat64, {ncclFloat64, 1}},
    {DType::kComplex64, {ncclFloat32, 2}}, {DType::kComplex128, {ncclFloat64, 2}},
};

absl::StatusOr<NcclType> NcclTypeOf(DType dtype) {
  if (const std::optional<NcclType> type = LookUp(kNcclTypes, dtype)) return *type;
  return absl::InternalError(
      fmt::format("NCCL has no type for {} (core refuses it first)", DTypeName(dtype)));
}

constexpr std::pair<CollectiveReduction, ncclRedOp_t> kNcclOps[] = {
    {CollectiveReduction::kSum, ncclSum}, {CollectiveReduction::kProd, ncclProd},
    {CollectiveReduction::kMin, ncclMin}, {CollectiveReduction::kMax, ncclMax},
    {CollectiveReduction::kAvg, ncclAvg},
};

ncclRedOp_t NcclOp(CollectiveReduction reduction) {
  return LookUp(kNcclOps, reduction).value_or(ncclSum);
}

std::byte* At(const std::shared_ptr<Buffer>& buffer, int64_t offset) {
  return buffer == nullptr ? nullptr : static_cast<std::byte*>(buffer->data()) + offset;
}

// Rank `r`'s NCCL calls, between ncclGroupStart and ncclGroupEnd.
absl::Status EnqueueRank(const CollectiveCall& call, size_t r, ncclComm_t comm, NcclType type) {
  const CollectiveRank& rank = call.ranks[r];
  const cudaStream_t stream = static_cast<const CudaQueue&>(*rank.queue).stream();
  const auto count = static_cast<size_t>(call.count) * type.per_element;
  std::byte* const input = At(rank.input, rank.input_offset);
  std::byte* const output = At(rank.output, rank.output_offset);
  const ncclRedOp_t op = NcclOp(call.reduction);
  switch (call.kind) {
    case CollectiveKind::kAllReduce:
      return NcclStatus(ncclAllReduce(input, output, count, type.type, op, comm, stream),
                        "ncclAllReduce");
    case CollectiveKind::kReduce:
      return NcclStatus(ncclReduce(input, output, count, type.type, op, call.root, comm, stream),
                        "ncclReduce");
    case CollectiveKind::kBroadcast:
      return NcclStatus(ncclBroadcast(input, output, count, type.type, call.root, comm, stream),
                        "ncclBroadcast");
    case CollectiveKind::kAllGather:
      return NcclStatus(ncclAllGather(input, output, count, type.type, comm, stream),
                        "ncclAllGather");
    case CollectiveKind::kReduceScatter:
      return NcclStatus(ncclReduceScatter(input, output, count, type.type, op, comm, stream),
                        "ncclReduceScatter");
    case CollectiveKind::kAllToAll:
      break;
  }
  // All-to-all is a send and a receive with every rank (itself included), grouped.
  const size_t chunk = static_cast<size_t>(call.count) * ItemSize(call.dtype);
  for (size_t peer = 0; peer < call.ranks.size(); ++peer) {
    AH_RETURN_IF_ERROR(NcclStatus(
        ncclSend(input + peer * chunk, count, type.type, static_cast<int>(peer), comm, stream),
        "ncclSend"));
    AH_RETURN_IF_ERROR(NcclStatus(
        ncclRecv(output + peer * chunk, count, type.type, static_cast<int>(peer), comm, stream),
        "ncclRecv"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CudaCollectives::Collective(const CollectiveCall& call) {
  AH_ASSIGN_OR_RETURN(const NcclType type, NcclTypeOf(call.dtype));
  std::vector<int> ordinals;
  std::vector<QueueGroupSection::Member> members;
  for (const CollectiveRank& rank : call.ranks) {
    auto queue = std::static_pointer_cast<CudaQueue>(rank.queue);
    queue->NoteCall(call.label);
    ordinals.push_back(queue->device());
    QueueGroupSection::Member member{.queue = queue, .homes = {}};
    for (const std::shared_ptr<Buffer>* buffer : {&rank.input, &rank.output}) {
      if (*buffer == nullptr) continue;
      // Every buffer of a CUDA backend is a CudaQueuedBuffer, usually behind core's wrapper.
      const std::shared_ptr<CudaQueue>& home =
          dynamic_cast<const CudaQueuedBuffer&>((*buffer)->backend_buffer()).home();
      if (home != queue &&
          std::find(member.homes.begin(), member.homes.end(), home) == member.homes.end()) {
        member.homes.push_back(home);
      }
    }
    members.push_back(std::move(member));
  }
  AH_ASSIGN_OR_RETURN(const std::shared_ptr<NcclCommunicator> communicator,
                      NcclCommunicatorFor(ordinals));
  // Taken before the queues' sections, and by nothing that holds one: no cycle.
  absl::MutexLock in_order(&communicator->mutex());
  AH_ASSIGN_OR_RETURN(const QueueGroupSection section,
                      QueueGroupSection::Enter(std::move(members)));
  AH_RETURN_IF_ERROR(NcclStatus(ncclGroupStart(), "ncclGroupStart"));
  absl::Status status;
  for (size_t r = 0; r < call.ranks.size() && status.ok(); ++r) {
    status = EnqueueRank(call, r, communicator->rank(r), type);
  }
  // Ended whatever happened: NCCL launches the group's kernels here, on every rank's stream.
  const absl::Status ended = NcclStatus(ncclGroupEnd(), "ncclGroupEnd");
  return status.ok() ? ended : status;
}

}  // namespace arrayhub
