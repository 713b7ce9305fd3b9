// Collectives across the server's devices (docs/devices.md, "Collectives"): one Collective call
// each, after the queued work; and Scatter/Gather, built from SplitAt, CopyToDevice and
// Concatenate.
#include <functional>
#include <string>
#include <string_view>

#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"

namespace arrayhub::client {
namespace {

using ArrayRefs = std::vector<std::reference_wrapper<const Array>>;
using Request = v1::CollectiveRequest;

Request::ReduceOp ToProto(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return Request::SUM;
    case ReduceOp::kProd:
      return Request::PROD;
    case ReduceOp::kMin:
      return Request::MIN;
    case ReduceOp::kMax:
      return Request::MAX;
    case ReduceOp::kAvg:
      return Request::AVG;
  }
  throw Error(StatusCode::kInvalidArgument,
              "unknown ReduceOp " + std::to_string(static_cast<int>(op)));
}

// A request of `kind` naming `arrays` by handle (a queued one is sent first, as handle() does);
// kInvalidArgument for no arrays at all, which no collective takes.
Request RequestFor(Request::Kind kind, const ArrayRefs& arrays, std::string_view what) {
  if (arrays.empty()) {
    throw Error(StatusCode::kInvalidArgument, std::string(what) + ": needs at least one array");
  }
  Request request;
  request.set_kind(kind);
  for (const Array& array : arrays) request.add_handles(array.handle());
  return request;
}

// The results of one Collective call, made after everything queued has run (so that the ranks'
// parts come after the ops issued before it).
std::vector<ArrayInfo> Run(detail::Connection& synced, const Request& request) {
  const v1::CollectiveResponse response =
      detail::Call(synced, &v1::ArrayHub::Stub::Collective, request);
  std::vector<ArrayInfo> results;
  results.reserve(response.results_size());
  for (const v1::ArrayInfo& info : response.results()) results.push_back(detail::FromProto(info));
  return results;
}

}  // namespace

std::vector<Array> Client::AllReduce(const ArrayRefs& arrays, ReduceOp op) {
  Request request = RequestFor(Request::ALL_REDUCE, arrays, "AllReduce");
  request.set_op(ToProto(op));
  return AdoptAll(Run(Synced(), request));
}

Array Client::Reduce(const ArrayRefs& arrays, int32_t root, ReduceOp op) {
  Request request = RequestFor(Request::REDUCE, arrays, "Reduce");
  request.set_op(ToProto(op));
  request.set_root(root);
  std::vector<Array> results = AdoptAll(Run(Synced(), request));
  return std::move(results.at(0));
}

std::vector<Array> Client::Broadcast(const Array& array, const std::vector<int32_t>& devices) {
  Request request = RequestFor(Request::BROADCAST, {array}, "Broadcast");
  request.mutable_devices()->Add(devices.begin(), devices.end());
  return AdoptAll(Run(Synced(), request));
}

std::vector<Array> Client::AllGather(const ArrayRefs& arrays) {
  return AdoptAll(Run(Synced(), RequestFor(Request::ALL_GATHER, arrays, "AllGather")));
}

std::vector<Array> Client::ReduceScatter(const ArrayRefs& arrays, ReduceOp op) {
  Request request = RequestFor(Request::REDUCE_SCATTER, arrays, "ReduceScatter");
  request.set_op(ToProto(op));
  return AdoptAll(Run(Synced(), request));
}

std::vector<Array> Client::AllToAll(const ArrayRefs& arrays) {
  return AdoptAll(Run(Synced(), RequestFor(Request::ALL_TO_ALL, arrays, "AllToAll")));
}

std::vector<Array> Client::Scatter(const Array& array, const std::vector<int32_t>& devices,
                                   int64_t axis) {
  if (devices.empty()) {
    throw Error(StatusCode::kInvalidArgument, "Scatter: needs at least one device");
  }
  const Shape& shape = array.shape();
  const auto ndim = static_cast<int64_t>(shape.size());
  if (axis < -ndim || axis >= ndim) {
    // NumPy's AxisError, as array_split raises it.
    throw Error(StatusCode::kInvalidArgument, "axis " + std::to_string(axis) +
                                                  " is out of bounds for array of dimension " +
                                                  std::to_string(ndim));
  }
  // numpy.array_split: the first extent % parts parts one longer than the rest.
  const int64_t extent = shape[static_cast<size_t>(axis < 0 ? axis + ndim : axis)];
  const auto parts = static_cast<int64_t>(devices.size());
  std::vector<int64_t> cuts;
  int64_t at = 0;
  for (int64_t i = 0; i + 1 < parts; ++i) {
    at += extent / parts + (i < extent % parts ? 1 : 0);
    cuts.push_back(at);
  }
  std::vector<Array> views = SplitAt(array, cuts, axis);
  std::vector<Array> copies;
  copies.reserve(views.size());
  for (size_t i = 0; i < views.size(); ++i) copies.push_back(CopyToDevice(views[i], devices[i]));
  return copies;
}

Array Client::Gather(const ArrayRefs& arrays, std::optional<int32_t> device, int64_t axis) {
  if (arrays.empty()) {
    throw Error(StatusCode::kInvalidArgument, "Gather: needs at least one array");
  }
  const int32_t target = device.value_or(CurrentDevice());
  std::vector<Array> copies;  // Those of other devices, copied over.
  copies.reserve(arrays.size());
  ArrayRefs parts;
  for (const Array& array : arrays) {
    if (array.info().device_index == target) {
      parts.emplace_back(array);
    } else {
      parts.emplace_back(copies.emplace_back(CopyToDevice(array, target)));
    }
  }
  DeviceGuard guard(*this, target);  // Concatenate runs where its operands now are.
  return Concatenate(parts, axis);
}

}  // namespace arrayhub::client
