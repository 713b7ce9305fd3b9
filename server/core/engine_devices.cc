// Copies between the daemon's devices (docs/devices.md).
#include <fmt/format.h>

#include <algorithm>

#include "server/common/status_macros.h"
#include "server/core/engine.h"
#include "server/core/shape_limits.h"

namespace arrayhub {

absl::StatusOr<ArrayRecord> Engine::CopyAcross(const Caller& caller, ArrayTable::RecordPtr source,
                                               bool temporary) {
  // C-contiguous where it lives first, so that one range of bytes crosses.
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr contiguous,
                      ContiguousForReading(OnDevice(caller, source->device), source));
  const auto bound = Bind(caller, "copy to device");
  // After the source's writers, and its memory kept until the copy is done.
  AH_RETURN_IF_ERROR(UseBuffer(bound.caller(), contiguous->buffer));
  const int64_t nbytes = contiguous->nbytes();
  AH_ASSIGN_OR_RETURN(ArrayRecord copy,
                      NewArray(bound.caller(), source->dtype, source->shape, nbytes, temporary));
  AH_RETURN_IF_ERROR(backend(bound.caller())
                         .memory()
                         .CopyFromDevice(QueueOf(bound.caller()), *copy.buffer, 0,
                                         *contiguous->buffer, contiguous->offset_bytes, nbytes));
  return copy;
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::CopyToDevice(const Caller& caller,
                                                           std::string_view handle, int device) {
  AH_RETURN_IF_ERROR(CheckDevice(device, "device"));
  AH_ASSIGN_OR_RETURN(Located found, FindOnItsDevice(caller, handle));
  AH_ASSIGN_OR_RETURN(ArrayRecord copy, CopyAcross(OnDevice(caller, device), found.array));
  return Register(std::move(copy));
}

absl::StatusOr<std::vector<ArrayTable::RecordPtr>> Engine::Collective(const Caller& caller,
                                                                      const CollectiveSpec& spec) {
  const std::string_view name = CollectiveName(spec.kind);
  const bool broadcast = spec.kind == CollectiveKind::kBroadcast;
  if (broadcast ? spec.handles.size() != 1 : spec.handles.empty()) {
    return absl::InvalidArgumentError(
        broadcast ? fmt::format("broadcast: handles must name the one array it sends, not {}",
                                spec.handles.size())
                  : fmt::format("{}: handles must name one array per rank, and names none", name));
  }
  if (broadcast == spec.devices.empty()) {
    return absl::InvalidArgumentError(
        broadcast
            ? std::string("broadcast: devices must name the devices it sends to")
            : fmt::format("{}: devices is for broadcast; the ranks are the arrays' devices", name));
  }
  if (const size_t ranks = broadcast ? spec.devices.size() : spec.handles.size();
      ranks > static_cast<size_t>(device_count())) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {} ranks, but this daemon has {} devices: a collective has one rank "
                    "per device",
                    name, ranks, device_count()));
  }
  // The inputs, and each rank's device.
  std::vector<Located> inputs;
  std::vector<int> devices;
  for (size_t i = 0; i < spec.handles.size(); ++i) {
    AH_ASSIGN_OR_RETURN(Located found,
                        FindOnItsDevice(caller, spec.handles[i], fmt::format("handles[{}]", i)));
    const ArrayRecord& first = *(inputs.empty() ? found.array : inputs.front().array);
    if (found.array->dtype != first.dtype || found.array->shape != first.shape) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: handles[{}] is {} of shape {}, but handles[0] is {} of shape {}: the arrays of a "
          "collective must match",
          name, i, DTypeName(found.array->dtype), FormatShape(found.array->shape),
          DTypeName(first.dtype), FormatShape(first.shape)));
    }
    devices.push_back(found.array->device);
    inputs.push_back(std::move(found));
  }
  int root = spec.root;
  if (broadcast) {
    devices = spec.devices;
    const auto source = std::find(devices.begin(), devices.end(), inputs.front().array->device);
    if (source == devices.end()) {
      const int device = inputs.front().array->device;
      return absl::InvalidArgumentError(fmt::format(
          "broadcast: the array is on device {} ({}), which devices must include: it sends "
          "from there",
          device, DeviceName(device)));
    }
    root = static_cast<int>(source - devices.begin());
  }
  const std::string_view field = broadcast ? "devices" : "handles";
  for (size_t i = 0; i < devices.size(); ++i) {
    AH_RETURN_IF_ERROR(CheckDevice(devices[i], fmt::format("{}: {}[{}]", name, field, i)));
    const auto same = std::find(devices.begin(), devices.begin() + i, devices[i]);
    if (same != devices.begin() + i) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: {}[{}] is on device {} ({}) as {}[{}] is: a collective has one rank per device",
          name, field, i, devices[i], DeviceName(devices[i]), field, same - devices.begin()));
    }
  }
  const ArrayRecord& model = *inputs.front().array;
  const int ranks = static_cast<int>(devices.size());
  AH_ASSIGN_OR_RETURN(const CollectivePlan plan,
                      PlanCollective(spec, model.dtype, model.shape, ranks));
  AH_ASSIGN_OR_RETURN(const int64_t result_bytes,
                      CheckedArrayBytes(plan.result_shape, model.dtype, limits_));

  // Each rank's part in the session's queue on its device: its input C-contiguous there, and
  // its result allocated there (charged to the tenant) before anything is sent.
  CollectiveCall call{.kind = spec.kind,
                      .reduction = spec.reduction.value_or(CollectiveReduction::kSum),
                      .dtype = plan.dtype,
                      .count = plan.count,
                      .root = root,
                      .ranks = {},
                      .label = std::string(name)};
  std::vector<ArrayTable::RecordPtr> contiguous;  // Held until the call is enqueued.
  std::vector<ArrayRecord> results;
  // The backend reads the inputs and writes the results in Collective below, after their
  // bindings ended: they stay on their devices until then.
  const PinScope pins;
  for (int r = 0; r < ranks; ++r) {
    const Caller on_rank = OnDevice(caller, devices[r]);
    CollectiveRank& rank = call.ranks.emplace_back();
    rank.queue = on_rank.queue;
    if (!broadcast || r == root) {
      AH_ASSIGN_OR_RETURN(
          ArrayTable::RecordPtr input,
          ContiguousForReading(on_rank, inputs[broadcast ? 0 : static_cast<size_t>(r)].array));
      {
        const auto bound = Bind(on_rank, name);
        AH_RETURN_IF_ERROR(UseBuffer(bound.caller(), input->buffer));
      }
      rank.input = input->buffer;
      rank.input_offset = input->offset_bytes;
      contiguous.push_back(std::move(input));
    }
    if (spec.kind != CollectiveKind::kReduce || r == root) {
      const auto bound = Bind(on_rank, name);
      AH_ASSIGN_OR_RETURN(ArrayRecord result,
                          NewArray(bound.caller(), model.dtype, plan.result_shape, result_bytes));
      rank.output = result.buffer;
      results.push_back(std::move(result));
    }
  }
  if (plan.count > 0)
    AH_RETURN_IF_ERROR(backend(OnDevice(caller, devices[0])).collectives().Collective(call));
  return RegisterAll(std::move(results));
}

}  // namespace arrayhub
