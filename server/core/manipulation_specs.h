// View, indexing and array-manipulation requests after decoding, before validation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "server/common/dtype.h"
#include "server/common/shape.h"
#include "server/core/compute_specs.h"

namespace arrayhub {

// ---------------------------------------------------------------------------------------------
// Views (View RPC): NumPy's functions that return a view when the layout allows.

enum class MemoryOrder : uint8_t { kC, kF };

struct ReshapeSpec {
  Shape shape;  // One entry may be -1.
  MemoryOrder order = MemoryOrder::kC;
};
struct TransposeSpec {
  std::vector<int64_t> axes;  // Empty: reversed.
};
struct SwapAxesSpec {
  int64_t axis1 = 0;
  int64_t axis2 = 0;
};
struct SqueezeSpec {
  std::optional<std::vector<int64_t>> axes;  // Absent: every axis of length 1.
};
struct ExpandDimsSpec {
  std::vector<int64_t> axes;
};
struct BroadcastToSpec {
  Shape shape;
};
struct DiagonalSpec {
  int64_t offset = 0;
  int64_t axis1 = 0;
  int64_t axis2 = 1;
};
struct RavelSpec {
  MemoryOrder order = MemoryOrder::kC;
};
struct ViewDTypeSpec {  // ndarray.view(dtype): the same bytes read as `dtype`.
  DType dtype = DType::kFloat64;
};

using ViewOp = std::variant<ReshapeSpec, TransposeSpec, SwapAxesSpec, SqueezeSpec, ExpandDimsSpec,
                            BroadcastToSpec, DiagonalSpec, RavelSpec, ViewDTypeSpec>;

struct ViewSpec {
  std::string handle;
  ViewOp op;
};

// ---------------------------------------------------------------------------------------------
// Indexing (GetItem, SetItem RPCs): one entry of a[...].

struct SliceSpec {
  std::optional<int64_t> start;
  std::optional<int64_t> stop;
  int64_t step = 1;  // Never 0.
};
struct EllipsisSpec {};
struct NewAxisSpec {};
struct IndexArraySpec {
  std::string handle;  // An integer or boolean array.
};

using IndexItemSpec = std::variant<int64_t, SliceSpec, EllipsisSpec, NewAxisSpec, IndexArraySpec>;

struct GetItemSpec {
  std::string handle;
  std::vector<IndexItemSpec> index;
};

struct SetItemSpec {
  std::string handle;
  std::vector<IndexItemSpec> index;
  OperandSpec value;
  // ufunc.at: combine each selected element with the value (as many times as it is selected)
  // instead of assigning it; one of the ops ScatterCombines accepts (backend/indexing.h).
  std::optional<ElementwiseOp> combine = std::nullopt;
};

// ---------------------------------------------------------------------------------------------
// Copy-making manipulations (ArrayOp RPC), named as in NumPy.

// One enumerator per row of array_ops.def.
enum class ArrayOpKind : uint8_t {
#define AH_ARRAY_OP(enumerator, ...) k##enumerator,
#include "server/core/array_ops.def"
#undef AH_ARRAY_OP
};

// NumPy's name of an op ("cumsum"); nullopt for a name that is not one.
std::optional<ArrayOpKind> ArrayOpFromName(std::string_view name);
std::string_view ArrayOpName(ArrayOpKind op);
// Ops that answer a list of arrays, as NumPy answers a tuple or list (split, nonzero), even
// when it holds a single one.
bool ArrayOpGivesSeveral(ArrayOpKind op);

struct ArrayOpSpec {
  ArrayOpKind op = ArrayOpKind::kCopy;
  std::vector<OperandSpec> operands = {};
  std::optional<DType> dtype = std::nullopt;
  std::optional<std::vector<int64_t>> axes = std::nullopt;  // Absent: axis=None.
  std::vector<int64_t> ints = {};  // Split points/sections, reps, repeats, shifts,
                                   // partition's kth.
  bool split_at_indices = false;   // split: `ints` are indices, not a section count.
  bool right = false;              // searchsorted side="right".
};

}  // namespace arrayhub
