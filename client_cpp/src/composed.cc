#include "composed.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <utility>

namespace arrayhub::client::detail {

void ThrowInvalid(std::string message) {
  throw Error(StatusCode::kInvalidArgument, std::move(message));
}

int64_t NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    ThrowInvalid("axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                 std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> NormalizeAxes(const std::optional<std::vector<int64_t>>& axes, int64_t rank) {
  std::vector<int64_t> normalized;
  if (!axes) {
    for (int64_t d = 0; d < rank; ++d) normalized.push_back(d);
    return normalized;
  }
  for (int64_t axis : *axes) {
    const int64_t d = NormalizeAxis(axis, rank);
    if (std::find(normalized.begin(), normalized.end(), d) != normalized.end()) {
      ThrowInvalid("repeated axis");
    }
    normalized.push_back(d);
  }
  return normalized;
}

bool IsComplex(DType dtype) { return dtype == DType::kComplex64 || dtype == DType::kComplex128; }
bool IsFloating(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kFloat32 || dtype == DType::kFloat64;
}
bool IsInexact(DType dtype) { return IsFloating(dtype) || IsComplex(dtype); }

namespace {

// In promotion order: a pair of kinds promotes towards the later one.
enum class Kind { kBool, kUnsigned, kSigned, kFloat, kComplex };

Kind KindOf(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return Kind::kBool;
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
      return Kind::kSigned;
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
      return Kind::kUnsigned;
    case DType::kFloat16:
    case DType::kFloat32:
    case DType::kFloat64:
      return Kind::kFloat;
    default:
      return Kind::kComplex;
  }
}

DType SignedOfSize(int64_t bytes) {
  return bytes <= 1   ? DType::kInt8
         : bytes <= 2 ? DType::kInt16
         : bytes <= 4 ? DType::kInt32
                      : DType::kInt64;
}
DType FloatOfSize(int64_t bytes) {
  return bytes <= 2 ? DType::kFloat16 : bytes <= 4 ? DType::kFloat32 : DType::kFloat64;
}
DType ComplexOfSize(int64_t bytes) { return bytes <= 8 ? DType::kComplex64 : DType::kComplex128; }

// The smallest float dtype that holds every value of an integer dtype of `bytes` bytes, as
// NumPy promotes (int8 -> float16, int16 -> float32, wider -> float64).
int64_t FloatBytesForInteger(int64_t bytes) { return bytes <= 1 ? 2 : bytes <= 2 ? 4 : 8; }

}  // namespace

DType RealOf(DType dtype) {
  if (dtype == DType::kComplex64) return DType::kFloat32;
  if (dtype == DType::kComplex128) return DType::kFloat64;
  return dtype;
}

DType PromoteTypes(DType a, DType b) {
  Kind ka = KindOf(a), kb = KindOf(b);
  if (ka > kb || (ka == kb && ItemSize(a) > ItemSize(b))) {
    std::swap(a, b);
    std::swap(ka, kb);
  }
  // Now b's kind is the higher (or the same kind and b at least as wide).
  const int64_t sa = ItemSize(a), sb = ItemSize(b);
  if (ka == Kind::kBool || ka == kb) return b;
  switch (kb) {
    case Kind::kSigned:
      // a unsigned: a signed type wider than the unsigned one, float64 beyond int64.
      return sa < sb ? b : sa == 8 ? DType::kFloat64 : SignedOfSize(sa * 2);
    case Kind::kFloat:
      return FloatOfSize(std::max(sb, FloatBytesForInteger(sa)));
    case Kind::kComplex: {
      const int64_t part = ka == Kind::kFloat ? sa : FloatBytesForInteger(sa);
      return ComplexOfSize(std::max(sb, 2 * std::max<int64_t>(part, 4)));
    }
    default:
      return b;
  }
}

Array CountValid(const Array& a, const std::optional<std::vector<int64_t>>& axis, bool keepdims) {
  return sum(logical_not(isnan(a)), {.axis = axis, .keepdims = keepdims, .dtype = DType::kInt64});
}

Array SpreadWeights(const Array& a, const Array& w,
                    const std::optional<std::vector<int64_t>>& axes) {
  if (!axes) ThrowInvalid("Axis must be specified when shapes of a and weights differ.");
  const Shape& shape = a.shape();
  Shape along;
  for (int64_t d : *axes) along.push_back(shape[d]);
  if (w.shape() != along) {
    ThrowInvalid("Shape of weights must be consistent with shape of a along specified axis.");
  }
  std::vector<int64_t> order(axes->size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t i, int64_t j) { return (*axes)[i] < (*axes)[j]; });
  Shape spread(shape.size(), 1);
  for (int64_t d : *axes) spread[d] = shape[d];
  return reshape(transpose(w, order), spread);
}

bool AnyTrue(const Array& mask) { return ClientOf(mask).Download<bool>(any(mask)).front(); }

std::vector<double> ReadScalars(const std::vector<const Array*>& scalars) {
  std::vector<Array> wide;
  for (const Array* scalar : scalars) wide.push_back(astype(*scalar, DType::kFloat64));
  const std::vector<std::reference_wrapper<const Array>> parts(wide.begin(), wide.end());
  Client client = ClientOf(*scalars.front());
  return client.Download<double>(client.Stack(parts));
}

double ReadScalar(const Array& scalar) { return ReadScalars({&scalar}).front(); }

Array SliceAxis(const Array& a, int64_t axis, Slice slice) {
  std::vector<IndexItem> index(static_cast<size_t>(axis), Slice{});
  index.emplace_back(slice);
  return ClientOf(a).GetItem(a, index);
}

Array TakeAlongAxis(const Array& a, const Array& indices, int64_t axis) {
  Client client = ClientOf(a);
  const int64_t rank = static_cast<int64_t>(a.shape().size());
  std::vector<Array> aranges;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis) continue;
    Shape shape(static_cast<size_t>(rank), 1);
    shape[d] = indices.shape()[d];
    aranges.push_back(client.Reshape(client.Arange(0, shape[d], 1), shape));
  }
  std::vector<IndexItem> index;
  auto next = aranges.begin();
  for (int64_t d = 0; d < rank; ++d) index.emplace_back(d == axis ? indices : *next++);
  return client.GetItem(a, index);
}

}  // namespace arrayhub::client::detail
