// The dtype table against NumPy 2: np.dtype(name).itemsize, .name and .kind.

#include "server/common/dtype.h"

#include <gtest/gtest.h>

#include <string>

namespace arrayhub {
namespace {

struct Expected {
  DType dtype;
  int wire;               // The proto enum value.
  std::string_view name;  // np.dtype(...).name
  int64_t itemsize;       // np.dtype(...).itemsize
  char kind;              // np.dtype(...).kind
};

constexpr Expected kNumPy[] = {
    {DType::kBool, 1, "bool", 1, 'b'},
    {DType::kInt8, 2, "int8", 1, 'i'},
    {DType::kInt16, 3, "int16", 2, 'i'},
    {DType::kInt32, 4, "int32", 4, 'i'},
    {DType::kInt64, 5, "int64", 8, 'i'},
    {DType::kUInt8, 6, "uint8", 1, 'u'},
    {DType::kUInt16, 7, "uint16", 2, 'u'},
    {DType::kUInt32, 8, "uint32", 4, 'u'},
    {DType::kUInt64, 9, "uint64", 8, 'u'},
    {DType::kFloat16, 10, "float16", 2, 'f'},
    {DType::kFloat32, 11, "float32", 4, 'f'},
    {DType::kFloat64, 12, "float64", 8, 'f'},
    {DType::kComplex64, 13, "complex64", 8, 'c'},
    {DType::kComplex128, 14, "complex128", 16, 'c'},
};

TEST(DTypeTest, AllDTypesListsEveryDTypeOnceInWireOrder) {
  ASSERT_EQ(std::size(kAllDTypes), std::size(kNumPy));
  for (size_t i = 0; i < std::size(kNumPy); ++i) {
    EXPECT_EQ(kAllDTypes[i], kNumPy[i].dtype) << "index " << i;
    EXPECT_EQ(static_cast<int>(kAllDTypes[i]), kNumPy[i].wire) << "index " << i;
  }
}

TEST(DTypeTest, ItemSizeMatchesNumPy) {
  for (const Expected& e : kNumPy) EXPECT_EQ(ItemSize(e.dtype), e.itemsize) << e.name;
}

TEST(DTypeTest, NameMatchesNumPy) {
  for (const Expected& e : kNumPy) EXPECT_EQ(DTypeName(e.dtype), e.name);
}

TEST(DTypeTest, KindMatchesNumPy) {
  for (const Expected& e : kNumPy) EXPECT_EQ(KindLetter(KindOf(e.dtype)), e.kind) << e.name;
}

TEST(DTypeTest, KindPredicatesAgreeWithKind) {
  for (const Expected& e : kNumPy) {
    EXPECT_EQ(IsInteger(e.dtype), e.kind == 'i' || e.kind == 'u') << e.name;
    EXPECT_EQ(IsFloating(e.dtype), e.kind == 'f') << e.name;
    EXPECT_EQ(IsComplex(e.dtype), e.kind == 'c') << e.name;
  }
}

TEST(DTypeTest, DTypeFromNameRoundTripsEveryName) {
  for (const Expected& e : kNumPy) {
    EXPECT_EQ(DTypeFromName(DTypeName(e.dtype)), e.dtype) << e.name;
    EXPECT_EQ(DTypeFromName(e.name), e.dtype) << e.name;
  }
}

TEST(DTypeTest, DTypeFromNameRejectsUnknownNames) {
  for (std::string_view name : {"", "float", "int", "Int8", "bool_", "float128", "int8 ", "f8"}) {
    EXPECT_EQ(DTypeFromName(name), std::nullopt) << "'" << name << "'";
  }
}

TEST(DTypeTest, DTypeFromWireMapsOneToFourteenInOrder) {
  for (const Expected& e : kNumPy) EXPECT_EQ(DTypeFromWire(e.wire), e.dtype) << e.wire;
}

TEST(DTypeTest, DTypeFromWireRejectsUnspecifiedAndUnknownValues) {
  EXPECT_EQ(DTypeFromWire(0), std::nullopt);
  EXPECT_EQ(DTypeFromWire(15), std::nullopt);
  EXPECT_EQ(DTypeFromWire(-1), std::nullopt);
  EXPECT_EQ(DTypeFromWire(255), std::nullopt);
  EXPECT_EQ(DTypeFromWire(256 + 1), std::nullopt);  // Would alias kBool if truncated to uint8.
}

}  // namespace
}  // namespace arrayhub
