#include "server/common/dtype.h"

namespace arrayhub {
namespace {

struct DTypeProperties {
  DType dtype;
  std::string_view name;
  int64_t itemsize;
  DTypeKind kind;
};

constexpr DTypeProperties kProperties[] = {
    {DType::kBool, "bool", 1, DTypeKind::kBool},
    {DType::kInt8, "int8", 1, DTypeKind::kSigned},
    {DType::kInt16, "int16", 2, DTypeKind::kSigned},
    {DType::kInt32, "int32", 4, DTypeKind::kSigned},
    {DType::kInt64, "int64", 8, DTypeKind::kSigned},
    {DType::kUInt8, "uint8", 1, DTypeKind::kUnsigned},
    {DType::kUInt16, "uint16", 2, DTypeKind::kUnsigned},
    {DType::kUInt32, "uint32", 4, DTypeKind::kUnsigned},
    {DType::kUInt64, "uint64", 8, DTypeKind::kUnsigned},
    {DType::kFloat16, "float16", 2, DTypeKind::kFloat},
    {DType::kFloat32, "float32", 4, DTypeKind::kFloat},
    {DType::kFloat64, "float64", 8, DTypeKind::kFloat},
    {DType::kComplex64, "complex64", 8, DTypeKind::kComplex},
    {DType::kComplex128, "complex128", 16, DTypeKind::kComplex},
};

const DTypeProperties& PropertiesOf(DType dtype) { return kProperties[DTypeIndex(dtype)]; }

}  // namespace

int64_t ItemSize(DType dtype) { return PropertiesOf(dtype).itemsize; }
std::string_view DTypeName(DType dtype) { return PropertiesOf(dtype).name; }
DTypeKind KindOf(DType dtype) { return PropertiesOf(dtype).kind; }

// DTypeKind's enumerators are in this order.
char KindLetter(DTypeKind kind) { return "biufc"[static_cast<int>(kind)]; }

DType RealDType(DType dtype) {
  if (dtype == DType::kComplex64) return DType::kFloat32;
  return dtype == DType::kComplex128 ? DType::kFloat64 : dtype;
}

std::optional<DType> DTypeFromName(std::string_view name) {
  for (const auto& p : kProperties) {
    if (p.name == name) return p.dtype;
  }
  return std::nullopt;
}

std::optional<DType> DTypeFromWire(int value) {
  if (value < static_cast<int>(DType::kBool) || value > static_cast<int>(DType::kComplex128)) {
    return std::nullopt;
  }
  return static_cast<DType>(value);
}

}  // namespace arrayhub
