// Scalars into elements: every dtype from every scalar kind, with NumPy 2's range checks.
// Expected values come from NumPy 2.4: np.full(1, value, dtype=d).tobytes().

#include "server/common/scalar.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace arrayhub {
namespace {

using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint64_t kUInt64Max = std::numeric_limits<uint64_t>::max();

// The element's bytes as little-endian hex, the form of np.full(...).tobytes().hex().
std::string Hex(const ElementBytes& bytes, DType dtype) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (int64_t i = 0; i < ItemSize(dtype); ++i) {
    const auto b = static_cast<uint8_t>(bytes[i]);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

// The encoded element as hex, or the error.
std::string EncodedHex(const Scalar& value, DType dtype) {
  absl::StatusOr<ElementBytes> bytes = EncodeScalar(value, dtype);
  if (!bytes.ok()) return bytes.status().ToString();
  return Hex(*bytes, dtype);
}

template <typename T>
T Decode(const Scalar& value, DType dtype) {
  absl::StatusOr<ElementBytes> bytes = EncodeScalar(value, dtype);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return T{};
  T out;
  std::memcpy(&out, bytes->data(), sizeof(T));
  return out;
}

uint16_t HalfBits(double v) { return Decode<uint16_t>(Scalar::Float(v), DType::kFloat16); }

void ExpectInvalidArgument(const Scalar& value, DType dtype, std::string_view fragment) {
  const absl::Status status = EncodeScalar(value, dtype).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
      << value.ToString() << " into " << DTypeName(dtype) << ": " << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(fragment));
}

// One row per dtype: the bytes of np.full(1, value, dtype).
struct Row {
  DType dtype;
  std::string_view hex;
};

void ExpectEncodings(const Scalar& value, std::initializer_list<Row> rows) {
  for (const Row& row : rows) {
    EXPECT_EQ(EncodedHex(value, row.dtype), row.hex)
        << value.ToString() << " into " << DTypeName(row.dtype);
  }
}

// --- Every dtype from every kind --------------------------------------------------------------

TEST(EncodeScalarTest, BoolTrueIntoEveryDType) {
  ExpectEncodings(Scalar::Bool(true), {{DType::kBool, "01"},
                                       {DType::kInt8, "01"},
                                       {DType::kInt16, "0100"},
                                       {DType::kInt32, "01000000"},
                                       {DType::kInt64, "0100000000000000"},
                                       {DType::kUInt8, "01"},
                                       {DType::kUInt16, "0100"},
                                       {DType::kUInt32, "01000000"},
                                       {DType::kUInt64, "0100000000000000"},
                                       {DType::kFloat16, "003c"},
                                       {DType::kFloat32, "0000803f"},
                                       {DType::kFloat64, "000000000000f03f"},
                                       {DType::kComplex64, "0000803f00000000"},
                                       {DType::kComplex128, "000000000000f03f0000000000000000"}});
}

TEST(EncodeScalarTest, BoolFalseIsZeroInEveryDType) {
  for (DType dtype : kAllDTypes) {
    EXPECT_EQ(EncodedHex(Scalar::Bool(false), dtype), std::string(2 * ItemSize(dtype), '0'))
        << DTypeName(dtype);
  }
}

TEST(EncodeScalarTest, IntSevenIntoEveryDType) {
  ExpectEncodings(Scalar::Int(7), {{DType::kBool, "01"},
                                   {DType::kInt8, "07"},
                                   {DType::kInt16, "0700"},
                                   {DType::kInt32, "07000000"},
                                   {DType::kInt64, "0700000000000000"},
                                   {DType::kUInt8, "07"},
                                   {DType::kUInt16, "0700"},
                                   {DType::kUInt32, "07000000"},
                                   {DType::kUInt64, "0700000000000000"},
                                   {DType::kFloat16, "0047"},
                                   {DType::kFloat32, "0000e040"},
                                   {DType::kFloat64, "0000000000001c40"},
                                   {DType::kComplex64, "0000e04000000000"},
                                   {DType::kComplex128, "0000000000001c400000000000000000"}});
}

TEST(EncodeScalarTest, IntMinusOneIntoEverySignedAndInexactDType) {
  ExpectEncodings(Scalar::Int(-1), {{DType::kBool, "01"},
                                    {DType::kInt8, "ff"},
                                    {DType::kInt16, "ffff"},
                                    {DType::kInt32, "ffffffff"},
                                    {DType::kInt64, "ffffffffffffffff"},
                                    {DType::kFloat16, "00bc"},
                                    {DType::kFloat32, "000080bf"},
                                    {DType::kFloat64, "000000000000f0bf"},
                                    {DType::kComplex64, "000080bf00000000"},
                                    {DType::kComplex128, "000000000000f0bf0000000000000000"}});
}

TEST(EncodeScalarTest, UIntIntoEveryDType) {
  // A uint kind below 2^63 converts like the same int.
  ExpectEncodings(Scalar::UInt(7), {{DType::kBool, "01"},
                                    {DType::kInt8, "07"},
                                    {DType::kInt64, "0700000000000000"},
                                    {DType::kUInt8, "07"},
                                    {DType::kUInt64, "0700000000000000"},
                                    {DType::kFloat16, "0047"},
                                    {DType::kFloat32, "0000e040"},
                                    {DType::kFloat64, "0000000000001c40"},
                                    {DType::kComplex64, "0000e04000000000"},
                                    {DType::kComplex128, "0000000000001c400000000000000000"}});
}

TEST(EncodeScalarTest, FloatIntoEveryDType) {
  // np.full(1, 2.5, d): integers truncate toward zero.
  ExpectEncodings(Scalar::Float(2.5), {{DType::kBool, "01"},
                                       {DType::kInt8, "02"},
                                       {DType::kInt16, "0200"},
                                       {DType::kInt32, "02000000"},
                                       {DType::kInt64, "0200000000000000"},
                                       {DType::kUInt8, "02"},
                                       {DType::kUInt16, "0200"},
                                       {DType::kUInt32, "02000000"},
                                       {DType::kUInt64, "0200000000000000"},
                                       {DType::kFloat16, "0041"},
                                       {DType::kFloat32, "00002040"},
                                       {DType::kFloat64, "0000000000000440"},
                                       {DType::kComplex64, "0000204000000000"},
                                       {DType::kComplex128, "00000000000004400000000000000000"}});
}

TEST(EncodeScalarTest, ComplexIntoEveryDType) {
  // np.full(1, 2.5-1j, d): real dtypes drop the imaginary part (ComplexWarning in NumPy).
  ExpectEncodings(Scalar::Complex({2.5, -1.0}),
                  {{DType::kBool, "01"},
                   {DType::kInt8, "02"},
                   {DType::kInt16, "0200"},
                   {DType::kInt32, "02000000"},
                   {DType::kInt64, "0200000000000000"},
                   {DType::kUInt8, "02"},
                   {DType::kUInt16, "0200"},
                   {DType::kUInt32, "02000000"},
                   {DType::kUInt64, "0200000000000000"},
                   {DType::kFloat16, "0041"},
                   {DType::kFloat32, "00002040"},
                   {DType::kFloat64, "0000000000000440"},
                   {DType::kComplex64, "00002040000080bf"},
                   {DType::kComplex128, "0000000000000440000000000000f0bf"}});
}

// --- Integer range checks (NumPy 2 raises OverflowError) --------------------------------------

TEST(EncodeScalarTest, IntOutOfRangeForInt8NamesValueAndDType) {
  // np.full(3, 300, dtype=np.int8) -> OverflowError: Python integer 300 out of bounds for int8
  const absl::Status status = EncodeScalar(Scalar::Int(300), DType::kInt8).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "Python integer 300 out of bounds for int8");
}

TEST(EncodeScalarTest, NegativeIntIntoUnsignedIsOutOfBounds) {
  // np.full(3, -1, dtype=np.uint8) -> Python integer -1 out of bounds for uint8
  for (DType dtype : {DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64}) {
    ExpectInvalidArgument(Scalar::Int(-1), dtype,
                          "Python integer -1 out of bounds for " + std::string(DTypeName(dtype)));
  }
}

TEST(EncodeScalarTest, IntegerBoundsAreInclusive) {
  EXPECT_EQ(Decode<int8_t>(Scalar::Int(127), DType::kInt8), 127);
  EXPECT_EQ(Decode<int8_t>(Scalar::Int(-128), DType::kInt8), -128);
  ExpectInvalidArgument(Scalar::Int(128), DType::kInt8, "Python integer 128 out of bounds");
  ExpectInvalidArgument(Scalar::Int(-129), DType::kInt8, "Python integer -129 out of bounds");
  EXPECT_EQ(Decode<uint8_t>(Scalar::Int(255), DType::kUInt8), 255);
  ExpectInvalidArgument(Scalar::Int(256), DType::kUInt8, "Python integer 256 out of bounds");
  EXPECT_EQ(Decode<int16_t>(Scalar::Int(-32768), DType::kInt16), -32768);
  ExpectInvalidArgument(Scalar::Int(32768), DType::kInt16, "out of bounds for int16");
  EXPECT_EQ(Decode<uint16_t>(Scalar::Int(65535), DType::kUInt16), 65535);
  ExpectInvalidArgument(Scalar::Int(65536), DType::kUInt16, "out of bounds for uint16");
  EXPECT_EQ(Decode<int32_t>(Scalar::Int(-2147483648LL), DType::kInt32), -2147483647 - 1);
  ExpectInvalidArgument(Scalar::Int(2147483648LL), DType::kInt32, "out of bounds for int32");
  EXPECT_EQ(Decode<uint32_t>(Scalar::Int(4294967295LL), DType::kUInt32), 4294967295u);
  ExpectInvalidArgument(Scalar::Int(4294967296LL), DType::kUInt32, "out of bounds for uint32");
  EXPECT_EQ(Decode<int64_t>(Scalar::Int(std::numeric_limits<int64_t>::min()), DType::kInt64),
            std::numeric_limits<int64_t>::min());
}

TEST(EncodeScalarTest, UInt64MaxFitsUInt64) {
  // np.full(1, 2**64 - 1, dtype=np.uint64) -> [18446744073709551615]
  EXPECT_EQ(Decode<uint64_t>(Scalar::UInt(kUInt64Max), DType::kUInt64), kUInt64Max);
}

TEST(EncodeScalarTest, UInt64MaxIsOutOfBoundsForInt64) {
  // NumPy 2 raises OverflowError ("Python int too large to convert to C long").
  ExpectInvalidArgument(Scalar::UInt(kUInt64Max), DType::kInt64,
                        "Python integer 18446744073709551615 out of bounds for int64");
  ExpectInvalidArgument(Scalar::UInt(uint64_t{1} << 63), DType::kInt64, "out of bounds for int64");
  EXPECT_EQ(Decode<int64_t>(Scalar::UInt((uint64_t{1} << 63) - 1), DType::kInt64),
            std::numeric_limits<int64_t>::max());
}

TEST(EncodeScalarTest, LargeUIntIsOutOfBoundsForSmallDTypes) {
  ExpectInvalidArgument(Scalar::UInt(256), DType::kUInt8, "Python integer 256 out of bounds");
  ExpectInvalidArgument(Scalar::UInt(128), DType::kInt8, "Python integer 128 out of bounds");
}

// --- Floats into integers ---------------------------------------------------------------------

TEST(EncodeScalarTest, FloatIntoIntTruncatesTowardZero) {
  // np.full(1, 2.7, np.int32) -> [2]; np.full(1, -2.7, np.int32) -> [-2]
  EXPECT_EQ(Decode<int32_t>(Scalar::Float(2.7), DType::kInt32), 2);
  EXPECT_EQ(Decode<int32_t>(Scalar::Float(-2.7), DType::kInt32), -2);
  // np.full(1, 127.9, np.int8) -> [127]; np.full(1, -128.9, np.int8) -> [-128]
  EXPECT_EQ(Decode<int8_t>(Scalar::Float(127.9), DType::kInt8), 127);
  EXPECT_EQ(Decode<int8_t>(Scalar::Float(-128.9), DType::kInt8), -128);
  // np.full(1, -0.9, np.uint8) -> [0]
  EXPECT_EQ(Decode<uint8_t>(Scalar::Float(-0.9), DType::kUInt8), 0);
  // The largest double below 2^64 fits uint64.
  EXPECT_EQ(Decode<uint64_t>(Scalar::Float(18446744073709549568.0), DType::kUInt64),
            18446744073709549568ull);
}

TEST(EncodeScalarTest, NonFiniteFloatIntoIntIsInvalidArgument) {
  // NumPy's np.full casts unsafely (INT_MIN and a RuntimeWarning); the server refuses instead.
  for (DType dtype : {DType::kInt8, DType::kInt32, DType::kInt64, DType::kUInt8, DType::kUInt64}) {
    ExpectInvalidArgument(Scalar::Float(kNaN), dtype, "cannot convert float nan");
    ExpectInvalidArgument(Scalar::Float(kInf), dtype, "cannot convert float inf");
    ExpectInvalidArgument(Scalar::Float(-kInf), dtype, "cannot convert float -inf");
  }
}

TEST(EncodeScalarTest, OutOfRangeFloatIntoIntIsInvalidArgumentNamingDType) {
  ExpectInvalidArgument(Scalar::Float(1e30), DType::kInt32, "to int32: out of range");
  ExpectInvalidArgument(Scalar::Float(128.0), DType::kInt8, "to int8: out of range");
  ExpectInvalidArgument(Scalar::Float(-129.0), DType::kInt8, "to int8: out of range");
  ExpectInvalidArgument(Scalar::Float(-1.0), DType::kUInt8, "to uint8: out of range");
  ExpectInvalidArgument(Scalar::Float(9223372036854775808.0), DType::kInt64, "to int64");
  ExpectInvalidArgument(Scalar::Float(18446744073709551616.0), DType::kUInt64, "to uint64");
}

TEST(EncodeScalarTest, ComplexIntoIntUsesRealPartWithTheSameChecks) {
  // np.full(1, 1+2j, np.int32) -> [1]
  EXPECT_EQ(Decode<int32_t>(Scalar::Complex({1.0, 2.0}), DType::kInt32), 1);
  ExpectInvalidArgument(Scalar::Complex({kNaN, 0.0}), DType::kInt16, "cannot convert float nan");
}

// --- Into bool --------------------------------------------------------------------------------

TEST(EncodeScalarTest, FloatIntoBoolIsNonzero) {
  // np.full(1, 1.5, bool) -> [True]; 0.0 -> [False]; -0.0 -> [False]; nan -> [True]
  EXPECT_EQ(Decode<uint8_t>(Scalar::Float(1.5), DType::kBool), 1);
  EXPECT_EQ(Decode<uint8_t>(Scalar::Float(0.0), DType::kBool), 0);
  EXPECT_EQ(Decode<uint8_t>(Scalar::Float(-0.0), DType::kBool), 0);
  EXPECT_EQ(Decode<uint8_t>(Scalar::Float(kNaN), DType::kBool), 1);
}

TEST(EncodeScalarTest, ComplexIntoBoolIsNonzero) {
  // np.full(1, 1j, bool) -> [True]
  EXPECT_EQ(Decode<uint8_t>(Scalar::Complex({0.0, 1.0}), DType::kBool), 1);
  EXPECT_EQ(Decode<uint8_t>(Scalar::Complex({0.0, 0.0}), DType::kBool), 0);
}

TEST(EncodeScalarTest, IntIntoBoolIsNonzero) {
  EXPECT_EQ(Decode<uint8_t>(Scalar::Int(-5), DType::kBool), 1);
  EXPECT_EQ(Decode<uint8_t>(Scalar::Int(0), DType::kBool), 0);
  EXPECT_EQ(Decode<uint8_t>(Scalar::UInt(kUInt64Max), DType::kBool), 1);
}

// --- Inexact dtypes ---------------------------------------------------------------------------

TEST(EncodeScalarTest, ComplexIntoFloat64DropsImaginaryPart) {
  EXPECT_EQ(Decode<double>(Scalar::Complex({1.0, 2.0}), DType::kFloat64), 1.0);
}

TEST(EncodeScalarTest, ComplexIntoComplex64KeepsBothParts) {
  const auto z = Decode<std::complex<float>>(Scalar::Complex({1.0, 2.0}), DType::kComplex64);
  EXPECT_EQ(z, std::complex<float>(1.0f, 2.0f));
}

TEST(EncodeScalarTest, Float16Bits) {
  // np.float16(v).view(np.uint16)
  EXPECT_EQ(HalfBits(1.0), 0x3C00);
  EXPECT_EQ(HalfBits(65504.0), 0x7BFF);  // Largest finite half.
  EXPECT_EQ(HalfBits(1e6), 0x7C00);      // Overflows to inf.
  EXPECT_EQ(HalfBits(65520.0), 0x7C00);  // Halfway to 2^16 rounds to inf.
  EXPECT_EQ(HalfBits(0.1), 0x2E66);
  EXPECT_EQ(HalfBits(0.3), 0x34CD);
  EXPECT_EQ(HalfBits(-kInf), 0xFC00);
  EXPECT_EQ(HalfBits(6e-8), 0x0001);  // Smallest subnormal.
  EXPECT_EQ(HalfBits(-0.0), 0x8000);
  EXPECT_EQ(HalfBits(kNaN) & 0x7C00, 0x7C00);
  EXPECT_NE(HalfBits(kNaN) & 0x03FF, 0);
}

TEST(EncodeScalarTest, Float16RoundsOnceFromDouble) {
  EXPECT_EQ(HalfBits(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3C01);
}

TEST(EncodeScalarTest, Float32Bits) {
  // np.float32(v).view(np.uint32)
  EXPECT_EQ(Decode<uint32_t>(Scalar::Float(0.1), DType::kFloat32), 0x3DCCCCCDu);
  EXPECT_EQ(Decode<uint32_t>(Scalar::Float(0.3), DType::kFloat32), 0x3E99999Au);
  EXPECT_EQ(Decode<uint32_t>(Scalar::Float(1e300), DType::kFloat32), 0x7F800000u);
}

TEST(EncodeScalarTest, Float64KeepsTheDoubleExactly) {
  EXPECT_EQ(Decode<uint64_t>(Scalar::Float(0.1), DType::kFloat64), 0x3FB999999999999Aull);
}

TEST(EncodeScalarTest, UnusedBytesAreZero) {
  absl::StatusOr<ElementBytes> bytes = EncodeScalar(Scalar::Int(-1), DType::kInt8);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  for (size_t i = 1; i < bytes->size(); ++i) EXPECT_EQ((*bytes)[i], std::byte{0}) << i;
}

// --- DefaultDType and ToString ----------------------------------------------------------------

TEST(DefaultDTypeTest, MatchesNumPyArrayOfAPythonScalar) {
  // np.array(True).dtype, np.array(5).dtype, np.array(2**63).dtype, np.array(2.5).dtype,
  // np.array(1j).dtype
  EXPECT_EQ(DefaultDType(Scalar::Bool(true)), DType::kBool);
  EXPECT_EQ(DefaultDType(Scalar::Int(5)), DType::kInt64);
  EXPECT_EQ(DefaultDType(Scalar::UInt(uint64_t{1} << 63)), DType::kUInt64);
  EXPECT_EQ(DefaultDType(Scalar::Float(2.5)), DType::kFloat64);
  EXPECT_EQ(DefaultDType(Scalar::Complex({0, 1})), DType::kComplex128);
}

TEST(ScalarToStringTest, BoolIsPythonText) {
  EXPECT_EQ(Scalar::Bool(true).ToString(), "True");
  EXPECT_EQ(Scalar::Bool(false).ToString(), "False");
}

TEST(ScalarToStringTest, IntegersAreDecimal) {
  EXPECT_EQ(Scalar::Int(300).ToString(), "300");
  EXPECT_EQ(Scalar::Int(-5).ToString(), "-5");
  EXPECT_EQ(Scalar::UInt(kUInt64Max).ToString(), "18446744073709551615");
}

TEST(ScalarToStringTest, FloatIsShortestRoundTrip) {
  EXPECT_EQ(Scalar::Float(2.5).ToString(), "2.5");
  EXPECT_EQ(Scalar::Float(0.1).ToString(), "0.1");
  EXPECT_EQ(Scalar::Float(1e30).ToString(), "1e+30");  // repr(1e30)
  EXPECT_EQ(Scalar::Float(kInf).ToString(), "inf");
  EXPECT_EQ(Scalar::Float(kNaN).ToString(), "nan");
}

TEST(ScalarToStringTest, ComplexIsPythonRepr) {
  EXPECT_EQ(Scalar::Complex({1.0, 2.0}).ToString(), "(1+2j)");     // repr(1+2j)
  EXPECT_EQ(Scalar::Complex({1.5, -2.0}).ToString(), "(1.5-2j)");  // repr(1.5-2j)
}

TEST(ScalarToStringTest, IntegralFloatKeepsItsPointZero) {
  EXPECT_EQ(Scalar::Float(1.0).ToString(), "1.0");    // repr(1.0)
  EXPECT_EQ(Scalar::Float(-0.0).ToString(), "-0.0");  // repr(-0.0)
}

TEST(ScalarToStringTest, ComplexWithNegativeZeroOrZeroRealPartIsPythonRepr) {
  EXPECT_EQ(Scalar::Complex({1.0, -0.0}).ToString(), "(1-0j)");  // repr(complex(1, -0.0))
  EXPECT_EQ(Scalar::Complex({0.0, 2.0}).ToString(), "2j");       // repr(2j)
}

TEST(ScalarAsComplexTest, ConvertsEveryKind) {
  EXPECT_EQ(Scalar::Bool(true).AsComplex(), std::complex<double>(1.0, 0.0));
  EXPECT_EQ(Scalar::Int(-3).AsComplex(), std::complex<double>(-3.0, 0.0));
  EXPECT_EQ(Scalar::UInt(uint64_t{1} << 63).AsComplex(), std::complex<double>(0x1p63, 0.0));
  EXPECT_EQ(Scalar::Float(2.5).AsComplex(), std::complex<double>(2.5, 0.0));
  EXPECT_EQ(Scalar::Complex({1, 2}).AsComplex(), std::complex<double>(1.0, 2.0));
}

}  // namespace
}  // namespace arrayhub
