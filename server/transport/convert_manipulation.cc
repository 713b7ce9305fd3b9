// Decoding of the View, GetItem, SetItem and ArrayOp requests into core specs.
#include <fmt/format.h>

#include "server/common/status_macros.h"
#include "server/transport/convert.h"

namespace arrayhub {
namespace {

absl::StatusOr<MemoryOrder> OrderFromProto(const std::string& order, std::string_view field) {
  if (order.empty() || order == "C") return MemoryOrder::kC;
  if (order == "F") return MemoryOrder::kF;
  return absl::InvalidArgumentError(
      fmt::format("{} must be \"C\" or \"F\", got \"{}\"", field, order));
}

template <typename Repeated>
std::vector<int64_t> Ints(const Repeated& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

absl::StatusOr<std::vector<IndexItemSpec>> IndexFromProto(
    const google::protobuf::RepeatedPtrField<v1::IndexItem>& items,
    const BatchResults* batch = nullptr) {
  std::vector<IndexItemSpec> index;
  for (int i = 0; i < items.size(); ++i) {
    const v1::IndexItem& item = items[i];
    switch (item.item_case()) {
      case v1::IndexItem::kIndex:
        index.emplace_back(item.index());
        break;
      case v1::IndexItem::kSlice: {
        const v1::Slice& slice = item.slice();
        index.emplace_back(
            SliceSpec{.start = slice.has_start() ? std::optional(slice.start()) : std::nullopt,
                      .stop = slice.has_stop() ? std::optional(slice.stop()) : std::nullopt,
                      .step = slice.step() == 0 ? 1 : slice.step()});
        break;
      }
      case v1::IndexItem::kEllipsis:
        index.emplace_back(EllipsisSpec{});
        break;
      case v1::IndexItem::kNewAxis:
        index.emplace_back(NewAxisSpec{});
        break;
      case v1::IndexItem::kArray:
        index.emplace_back(IndexArraySpec{item.array()});
        break;
      case v1::IndexItem::kBatchArray: {
        AH_ASSIGN_OR_RETURN(std::string handle,
                            BatchHandleFromProto(item.batch_array(),
                                                 fmt::format("index[{}].batch_array", i), batch));
        index.emplace_back(IndexArraySpec{std::move(handle)});
        break;
      }
      case v1::IndexItem::ITEM_NOT_SET:
        return absl::InvalidArgumentError(fmt::format("index[{}] has no item", i));
    }
  }
  return index;
}

}  // namespace

absl::StatusOr<ViewSpec> ViewSpecFromProto(const v1::ViewRequest& request,
                                           const BatchResults* batch) {
  ViewSpec spec{.handle = "", .op = {}};
  if (request.array_case() != v1::ViewRequest::kBatchHandle) {
    spec.handle = request.handle();
  } else {
    AH_ASSIGN_OR_RETURN(spec.handle,
                        BatchHandleFromProto(request.batch_handle(), "batch_handle", batch));
  }
  switch (request.op_case()) {
    case v1::ViewRequest::kReshape: {
      AH_ASSIGN_OR_RETURN(MemoryOrder order,
                          OrderFromProto(request.reshape().order(), "reshape.order"));
      spec.op = ReshapeSpec{.shape = Ints(request.reshape().shape()), .order = order};
      break;
    }
    case v1::ViewRequest::kTranspose:
      spec.op = TransposeSpec{.axes = Ints(request.transpose().axes())};
      break;
    case v1::ViewRequest::kSwapaxes:
      spec.op =
          SwapAxesSpec{.axis1 = request.swapaxes().axis1(), .axis2 = request.swapaxes().axis2()};
      break;
    case v1::ViewRequest::kSqueeze:
      spec.op = SqueezeSpec{
          .axes = AxesFromProto(request.squeeze().has_axis(), request.squeeze().axis())};
      break;
    case v1::ViewRequest::kExpandDims:
      spec.op = ExpandDimsSpec{.axes = Ints(request.expand_dims().axes())};
      break;
    case v1::ViewRequest::kBroadcastTo:
      spec.op = BroadcastToSpec{.shape = Ints(request.broadcast_to().shape())};
      break;
    case v1::ViewRequest::kDiagonal: {
      const v1::ViewRequest::Diagonal& diagonal = request.diagonal();
      const bool defaults = diagonal.axis1() == 0 && diagonal.axis2() == 0;
      spec.op = DiagonalSpec{.offset = diagonal.offset(),
                             .axis1 = defaults ? 0 : diagonal.axis1(),
                             .axis2 = defaults ? 1 : diagonal.axis2()};
      break;
    }
    case v1::ViewRequest::kRavel: {
      AH_ASSIGN_OR_RETURN(MemoryOrder order,
                          OrderFromProto(request.ravel().order(), "ravel.order"));
      spec.op = RavelSpec{.order = order};
      break;
    }
    case v1::ViewRequest::kViewDtype: {
      AH_ASSIGN_OR_RETURN(DType dtype,
                          RequiredDType(request.view_dtype().dtype(), "view_dtype.dtype"));
      spec.op = ViewDTypeSpec{.dtype = dtype};
      break;
    }
    case v1::ViewRequest::OP_NOT_SET:
      return absl::InvalidArgumentError(
          "op is required: reshape, transpose, swapaxes, squeeze, expand_dims, broadcast_to, "
          "diagonal, ravel or view_dtype");
  }
  return spec;
}

absl::StatusOr<GetItemSpec> GetItemSpecFromProto(const v1::GetItemRequest& request,
                                                 const BatchResults* batch) {
  GetItemSpec spec{.handle = request.handle(), .index = {}};
  if (request.array_case() == v1::GetItemRequest::kBatchHandle) {
    AH_ASSIGN_OR_RETURN(spec.handle,
                        BatchHandleFromProto(request.batch_handle(), "batch_handle", batch));
  }
  AH_ASSIGN_OR_RETURN(spec.index, IndexFromProto(request.index(), batch));
  return spec;
}

absl::StatusOr<SetItemSpec> SetItemSpecFromProto(const v1::SetItemRequest& request) {
  AH_ASSIGN_OR_RETURN(std::vector<IndexItemSpec> index, IndexFromProto(request.index()));
  AH_ASSIGN_OR_RETURN(OperandSpec value, OperandFromProto(request.value(), "value"));
  SetItemSpec spec{.handle = request.handle(), .index = std::move(index), .value = value};
  if (!request.combine().empty()) {
    spec.combine = ElementwiseOpFromName(request.combine());
    if (!spec.combine) {
      return absl::InvalidArgumentError(
          fmt::format("combine: unknown ufunc '{}' (add, subtract, multiply, maximum, minimum, "
                      "fmax or fmin)",
                      request.combine()));
    }
  }
  return spec;
}

absl::StatusOr<ArrayOpSpec> ArrayOpSpecFromProto(const v1::ArrayOpRequest& request,
                                                 const BatchResults* batch) {
  ArrayOpSpec spec;
  std::optional<ArrayOpKind> op = ArrayOpFromName(request.op());
  if (!op) {
    return absl::InvalidArgumentError(fmt::format("unknown array op \"{}\"", request.op()));
  }
  spec.op = *op;
  AH_ASSIGN_OR_RETURN(spec.operands, OperandsFromProto(request.operands(), batch));
  AH_ASSIGN_OR_RETURN(spec.dtype, OptionalDType(request.dtype(), "dtype"));
  spec.axes = AxesFromProto(request.has_axis(), request.axis());
  spec.ints = Ints(request.ints());
  spec.split_at_indices = request.split_at_indices();
  if (request.side() == "right") {
    spec.right = true;
  } else if (!request.side().empty() && request.side() != "left") {
    return absl::InvalidArgumentError(
        fmt::format("side must be \"left\" or \"right\", got \"{}\"", request.side()));
  }
  return spec;
}

}  // namespace arrayhub
