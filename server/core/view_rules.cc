#include "server/core/view_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <string_view>

#include "server/common/status_macros.h"
#include "server/core/axes.h"
#include "server/core/broadcast.h"
#include "server/core/shape_limits.h"

namespace arrayhub {
namespace {

int64_t SizeOf(const Shape& shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

// NumPy's convert_shape_to_string, used by reshape's messages: unknown (negative) lengths
// print as "newaxis", except leading ones, which it leaves out: (5,3) -> "(5,3)", (-1,5) ->
// "(5)", (5,-1) -> "(5,newaxis)", (7,) -> "(7,)".
std::string ReshapeText(const Shape& shape) {
  size_t first = 0;
  while (first < shape.size() && shape[first] < 0) ++first;
  if (first == shape.size()) return "()";
  std::string text = std::to_string(shape[first]);
  for (size_t i = first + 1; i < shape.size(); ++i) {
    text += shape[i] < 0 ? ",newaxis" : "," + std::to_string(shape[i]);
  }
  return shape.size() == 1 ? "(" + text + ",)" : "(" + text + ")";
}

absl::StatusOr<Shape> ResolveNewShape(int64_t size, const Shape& requested) {
  Shape shape = requested;
  std::optional<size_t> unknown;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {  // NumPy 2 reads any negative length as the unknown one.
      if (unknown) return absl::InvalidArgumentError("can only specify one unknown dimension");
      unknown = i;
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      return absl::InvalidArgumentError(
          fmt::format("cannot reshape array of size {} into shape {}", size, ReshapeText(shape)));
    }
  }
  const bool fits = unknown ? known != 0 && size % known == 0 : known == size;
  if (!fits) {
    return absl::InvalidArgumentError(
        fmt::format("cannot reshape array of size {} into shape {}", size, ReshapeText(requested)));
  }
  if (unknown) shape[*unknown] = size / known;
  return shape;
}

Strides DenseStrides(const Shape& shape, MemoryOrder order) {
  if (order == MemoryOrder::kC) return ContiguousStrides(shape);
  Strides strides(shape.size());
  int64_t step = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    strides[d] = step;
    step *= std::max<int64_t>(shape[d], 1);
  }
  return strides;
}

bool IsDense(const Layout& layout, MemoryOrder order) {
  return order == MemoryOrder::kC ? IsCContiguous(layout.shape, layout.strides)
                                  : IsFContiguous(layout.shape, layout.strides);
}

}  // namespace

std::optional<Strides> ReshapeStrides(const Layout& layout, const Shape& new_shape,
                                      MemoryOrder order) {
  if (SizeOf(layout.shape) == 0) return DenseStrides(new_shape, order);  // Nothing to move.
  Shape old_shape;
  Strides old_strides;
  for (size_t d = 0; d < layout.shape.size(); ++d) {  // Axes of length 1 carry no layout.
    if (layout.shape[d] != 1) {
      old_shape.push_back(layout.shape[d]);
      old_strides.push_back(layout.strides[d]);
    }
  }
  const bool f_order = order == MemoryOrder::kF;
  const size_t old_rank = old_shape.size(), new_rank = new_shape.size();
  Strides strides(new_rank, 0);
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < new_rank && oi < old_rank) {
    int64_t np = new_shape[ni], op = old_shape[oi];
    while (np != op) {  // Grow the shorter run of axes until both cover the same elements.
      if (np < op) {
        np *= new_shape[nj++];
      } else {
        op *= old_shape[oj++];
      }
    }
    for (size_t ok = oi; ok + 1 < oj; ++ok) {  // The old run must be contiguous in `order`.
      const bool contiguous = f_order ? old_strides[ok + 1] == old_shape[ok] * old_strides[ok]
                                      : old_strides[ok] == old_shape[ok + 1] * old_strides[ok + 1];
      if (!contiguous) return std::nullopt;
    }
    if (f_order) {
      strides[ni] = old_strides[oi];
      for (size_t nk = ni + 1; nk < nj; ++nk) strides[nk] = strides[nk - 1] * new_shape[nk - 1];
    } else {
      strides[nj - 1] = old_strides[oj - 1];
      for (size_t nk = nj - 1; nk > ni; --nk) strides[nk - 1] = strides[nk] * new_shape[nk];
    }
    ni = nj++;
    oi = oj++;
  }
  // Trailing axes of length 1 take any stride; NumPy gives them the next one outwards.
  int64_t last = 1;
  if (ni >= 1) last = f_order ? strides[ni - 1] * new_shape[ni - 1] : strides[ni - 1];
  for (size_t nk = ni; nk < new_rank; ++nk) strides[nk] = last;
  return strides;
}

absl::StatusOr<ReshapePlan> PlanReshape(const Layout& layout, const ReshapeSpec& spec,
                                        const Limits& limits) {
  AH_RETURN_IF_ERROR(CheckRank(static_cast<int64_t>(spec.shape.size()), limits, "reshape.shape"));
  const int64_t size = SizeOf(layout.shape);
  AH_ASSIGN_OR_RETURN(Shape shape, ResolveNewShape(size, spec.shape));
  ReshapePlan plan{.shape = shape, .view_strides = std::nullopt, .order = spec.order};
  plan.view_strides = IsDense(layout, spec.order) ? DenseStrides(shape, spec.order)
                                                  : ReshapeStrides(layout, shape, spec.order);
  return plan;
}

ReshapePlan PlanRavel(const Layout& layout, MemoryOrder order) {
  const int64_t size = SizeOf(layout.shape);
  ReshapePlan plan{.shape = {size}, .view_strides = std::nullopt, .order = order};
  if (IsDense(layout, order)) plan.view_strides = Strides{1};
  return plan;
}

absl::StatusOr<Layout> TransposeLayout(const Layout& layout, const TransposeSpec& spec) {
  const auto rank = static_cast<int64_t>(layout.shape.size());
  std::vector<int64_t> axes = spec.axes;
  if (axes.empty()) {
    axes.resize(rank);
    std::iota(axes.rbegin(), axes.rend(), 0);
  } else if (static_cast<int64_t>(axes.size()) != rank) {
    return absl::InvalidArgumentError("axes don't match array");
  }
  AH_ASSIGN_OR_RETURN(axes, NormalizeAxes(axes, rank, "repeated axis in transpose"));
  Layout result{.shape = {}, .strides = {}, .offset_bytes = layout.offset_bytes};
  for (int64_t axis : axes) {
    result.shape.push_back(layout.shape[axis]);
    result.strides.push_back(layout.strides[axis]);
  }
  return result;
}

absl::StatusOr<Layout> SwapAxesLayout(const Layout& layout, const SwapAxesSpec& spec) {
  const auto rank = static_cast<int64_t>(layout.shape.size());
  AH_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(spec.axis1, rank));
  AH_ASSIGN_OR_RETURN(int64_t b, NormalizeAxis(spec.axis2, rank));
  Layout result = layout;
  std::swap(result.shape[a], result.shape[b]);
  std::swap(result.strides[a], result.strides[b]);
  return result;
}

absl::StatusOr<Layout> SqueezeLayout(const Layout& layout, const SqueezeSpec& spec) {
  const auto rank = static_cast<int64_t>(layout.shape.size());
  std::vector<bool> drop(rank, false);
  if (!spec.axes) {
    for (int64_t d = 0; d < rank; ++d) drop[d] = layout.shape[d] == 1;
  } else {
    AH_ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                        NormalizeAxes(*spec.axes, rank, "repeated axis"));
    for (int64_t axis : axes) {
      if (layout.shape[axis] != 1) {
        return absl::InvalidArgumentError(
            "cannot select an axis to squeeze out which has size not equal to one");
      }
      drop[axis] = true;
    }
  }
  Layout result{.shape = {}, .strides = {}, .offset_bytes = layout.offset_bytes};
  for (int64_t d = 0; d < rank; ++d) {
    if (drop[d]) continue;
    result.shape.push_back(layout.shape[d]);
    result.strides.push_back(layout.strides[d]);
  }
  return result;
}

absl::StatusOr<Layout> ExpandDimsLayout(const Layout& layout, const ExpandDimsSpec& spec,
                                        const Limits& limits) {
  const auto rank = static_cast<int64_t>(layout.shape.size() + spec.axes.size());
  AH_RETURN_IF_ERROR(CheckRank(rank, limits, "the result of expand_dims"));
  AH_ASSIGN_OR_RETURN(std::vector<int64_t> axes, NormalizeAxes(spec.axes, rank, "repeated axis"));
  Layout result{.shape = {}, .strides = {}, .offset_bytes = layout.offset_bytes};
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) {
      result.shape.push_back(1);
      result.strides.push_back(0);
    } else {
      result.shape.push_back(layout.shape[next]);
      result.strides.push_back(layout.strides[next]);
      ++next;
    }
  }
  return result;
}

absl::StatusOr<Layout> BroadcastToLayout(const Layout& layout, const BroadcastToSpec& spec,
                                         const Limits& limits) {
  AH_RETURN_IF_ERROR(
      CheckRank(static_cast<int64_t>(spec.shape.size()), limits, "broadcast_to.shape"));
  if (std::any_of(spec.shape.begin(), spec.shape.end(), [](int64_t e) { return e < 0; })) {
    return absl::InvalidArgumentError("all elements of broadcast shape must be non-negative");
  }
  const size_t rank = layout.shape.size();
  bool fits = rank <= spec.shape.size();
  for (size_t i = 0; fits && i < rank; ++i) {
    const int64_t have = layout.shape[rank - 1 - i];
    fits = have == 1 || have == spec.shape[spec.shape.size() - 1 - i];
  }
  if (!fits) {
    return absl::InvalidArgumentError(fmt::format(
        "operands could not be broadcast together with remapped shapes [original->remapped]: "
        "{}  and requested shape {}",
        CompactShape(layout.shape), CompactShape(spec.shape)));
  }
  AH_RETURN_IF_ERROR(CheckShape(spec.shape, limits, "broadcast_to.shape").status());
  return Layout{.shape = spec.shape,
                .strides = BroadcastStrides(layout.shape, layout.strides, spec.shape),
                .offset_bytes = layout.offset_bytes};
}

absl::StatusOr<Layout> DiagonalLayout(const Layout& layout, int64_t itemsize,
                                      const DiagonalSpec& spec) {
  const auto rank = static_cast<int64_t>(layout.shape.size());
  if (rank < 2) {
    return absl::InvalidArgumentError("diag requires an array of at least two dimensions");
  }
  // NumPy names the argument: "axis2: axis 2 is out of bounds for array of dimension 2".
  const auto named = [rank](int64_t axis, std::string_view name) -> absl::StatusOr<int64_t> {
    absl::StatusOr<int64_t> normalized = NormalizeAxis(axis, rank);
    if (!normalized.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {}", name, std::string(normalized.status().message())));
    }
    return normalized;
  };
  AH_ASSIGN_OR_RETURN(int64_t a1, named(spec.axis1, "axis1"));
  AH_ASSIGN_OR_RETURN(int64_t a2, named(spec.axis2, "axis2"));
  if (a1 == a2) return absl::InvalidArgumentError("axis1 and axis2 cannot be the same");
  const int64_t n1 = layout.shape[a1], n2 = layout.shape[a2];
  // Offsets beyond the matrix give an empty diagonal; clamping keeps the arithmetic in range.
  const int64_t offset = std::clamp(spec.offset, -n1, n2);
  const int64_t length = offset >= 0 ? std::min(n1, n2 - offset) : std::min(n1 + offset, n2);
  Layout result{.shape = {}, .strides = {}, .offset_bytes = layout.offset_bytes};
  if (length > 0) {
    const int64_t first = offset >= 0 ? offset * layout.strides[a2] : -offset * layout.strides[a1];
    result.offset_bytes += first * itemsize;
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (d == a1 || d == a2) continue;
    result.shape.push_back(layout.shape[d]);
    result.strides.push_back(layout.strides[d]);
  }
  result.shape.push_back(std::max<int64_t>(length, 0));
  result.strides.push_back(layout.strides[a1] + layout.strides[a2]);
  return result;
}

absl::StatusOr<DTypeView> DTypeViewLayout(const Layout& layout, DType from, DType to) {
  // The server's bool kernels read a byte as 0 or 1; NumPy's read any nonzero byte as true.
  if (to == DType::kBool && from != DType::kBool) {
    return absl::InvalidArgumentError(fmt::format(
        "viewing {} as bool is not supported: this server's bool arrays hold only the bytes 0 "
        "and 1 (use x != 0, or x.astype(bool))",
        DTypeName(from)));
  }
  // Through a view of a bool array as another dtype, writes could store other bytes in it.
  const bool writable = from == to || from != DType::kBool;
  const int64_t old_size = ItemSize(from), new_size = ItemSize(to);
  if (old_size == new_size) return DTypeView{.layout = layout, .writable = writable};
  // NumPy 2's array_descr_set: the last axis changes length, the others keep their strides.
  const size_t rank = layout.shape.size();
  if (rank == 0) {
    return absl::InvalidArgumentError(
        "Changing the dtype of a 0d array is only supported if the itemsize is unchanged");
  }
  const size_t last = rank - 1;
  if (layout.shape[last] != 1 && SizeOf(layout.shape) != 0 && layout.strides[last] != 1) {
    return absl::InvalidArgumentError(
        "To change to a dtype of a different size, the last axis must be contiguous");
  }
  Layout result = layout;
  if (new_size < old_size) {
    if (old_size % new_size != 0) {
      return absl::InvalidArgumentError(
          "When changing to a smaller dtype, its size must be a divisor of the size of original "
          "dtype");
    }
    result.shape[last] *= old_size / new_size;
  } else {
    const int64_t bytes = layout.shape[last] * old_size;
    if (bytes % new_size != 0) {
      return absl::InvalidArgumentError(
          "When changing to a larger dtype, its size must be a divisor of the total size in "
          "bytes of the last axis of the array.");
    }
    result.shape[last] = bytes / new_size;
  }
  // Strides count elements, and the backends read elements at addresses aligned to their
  // size (the GPU's 16-byte complex loads need it): where NumPy would make an unaligned view
  // (int8 bytes from an odd offset as float32), this server refuses it.
  bool aligned = layout.offset_bytes % new_size == 0;
  for (size_t d = 0; d < last; ++d) {
    const int64_t stride_bytes = layout.strides[d] * old_size;
    aligned = aligned && stride_bytes % new_size == 0;
    result.strides[d] = stride_bytes / new_size;
  }
  if (!aligned) {
    return absl::InvalidArgumentError(fmt::format(
        "cannot view this {} array as {}: its data start (byte {}) or strides in bytes are not "
        "multiples of {} bytes, and this server keeps every element aligned (NumPy would make "
        "an unaligned view; view a copy instead)",
        DTypeName(from), DTypeName(to), layout.offset_bytes, new_size));
  }
  result.strides[last] = 1;
  return DTypeView{.layout = std::move(result), .writable = writable};
}

}  // namespace arrayhub
