// Creation requests (empty/zeros/ones/full/arange/linspace/eye) and uploads, run end to end
// through an Engine on the host backend and compared with NumPy 2's exact results.
// Expected values come from NumPy 2.4; each test names the expression it was taken from.

#include "server/core/creation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/core/engine.h"
#include "tests/support/engine_download.h"

namespace arrayhub {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;

// --- Request builders -------------------------------------------------------------------------

Scalar I(int64_t v) { return Scalar::Int(v); }
Scalar F(double v) { return Scalar::Float(v); }
Scalar C(double re, double im) { return Scalar::Complex({re, im}); }

CreateSpec Empty(Shape shape, std::optional<DType> dtype = std::nullopt) {
  return {.dtype = dtype, .shape = std::move(shape), .kind = EmptyKind{}};
}
CreateSpec Zeros(Shape shape, std::optional<DType> dtype = std::nullopt) {
  return {.dtype = dtype, .shape = std::move(shape), .kind = ZerosKind{}};
}
CreateSpec Ones(Shape shape, std::optional<DType> dtype = std::nullopt) {
  return {.dtype = dtype, .shape = std::move(shape), .kind = OnesKind{}};
}
CreateSpec Full(Shape shape, Scalar value, std::optional<DType> dtype = std::nullopt) {
  return {.dtype = dtype, .shape = std::move(shape), .kind = FullKind{.value = value}};
}
CreateSpec Arange(Scalar start, Scalar stop, std::optional<Scalar> step = std::nullopt,
                  std::optional<DType> dtype = std::nullopt) {
  return {
      .dtype = dtype, .shape = {}, .kind = ArangeKind{.start = start, .stop = stop, .step = step}};
}
CreateSpec Linspace(Scalar start, Scalar stop, int64_t num, bool endpoint = true,
                    std::optional<DType> dtype = std::nullopt) {
  return {.dtype = dtype,
          .shape = {},
          .kind = LinspaceKind{.start = start, .stop = stop, .num = num, .endpoint = endpoint}};
}
CreateSpec Eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
               std::optional<DType> dtype = std::nullopt) {
  return {.dtype = dtype, .shape = {}, .kind = EyeKind{.n = n, .m = m, .k = k}};
}

std::string Repeat(std::string_view text, int64_t times) {
  std::string out;
  for (int64_t i = 0; i < times; ++i) out += text;
  return out;
}

void ExpectError(const absl::Status& status, absl::StatusCode code, std::string_view fragment) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(fragment));
}

// --- Engine fixture ---------------------------------------------------------------------------

class EngineTest : public ::testing::Test {
 protected:
  explicit EngineTest(Limits limits = Limits{})
      : engine_(std::make_unique<HostBackend>(), limits, SessionOptions{}) {
    const Session session = engine_.OpenSession("alice", "creation_test", seconds(0)).value();
    caller_ = Caller{.tenant = "alice", .session = session.id};
  }

  absl::StatusOr<ArrayTable::RecordPtr> Create(const CreateSpec& spec) {
    return engine_.Create(caller_, spec);
  }

  // Creates the array, failing the test (and returning null) when that fails.
  ArrayTable::RecordPtr MustCreate(const CreateSpec& spec) {
    absl::StatusOr<ArrayTable::RecordPtr> record = Create(spec);
    EXPECT_TRUE(record.ok()) << record.status();
    return record.ok() ? *record : nullptr;
  }

  std::vector<std::byte> Bytes(const ArrayRecord& array) {
    absl::StatusOr<std::vector<std::byte>> bytes =
        testing::DownloadBytes(engine_, caller_, array, /*chunk_bytes=*/5);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    return bytes.ok() ? *std::move(bytes) : std::vector<std::byte>{};
  }

  // All bytes as little-endian hex, the form of a.tobytes().hex().
  std::string Hex(const ArrayRecord& array) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (std::byte b : Bytes(array)) {
      out += kDigits[static_cast<uint8_t>(b) >> 4];
      out += kDigits[static_cast<uint8_t>(b) & 15];
    }
    return out;
  }

  // The elements reinterpreted as T (use the unsigned type of the same size for bit patterns).
  template <typename T>
  std::vector<T> Values(const ArrayRecord& array) {
    const std::vector<std::byte> bytes = Bytes(array);
    EXPECT_EQ(bytes.size() % sizeof(T), 0u);
    std::vector<T> values(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }

  // Creates the array and checks its dtype and shape.
  ArrayTable::RecordPtr CreateExpecting(const CreateSpec& spec, DType dtype, const Shape& shape) {
    ArrayTable::RecordPtr record = MustCreate(spec);
    if (record == nullptr) return nullptr;
    EXPECT_EQ(record->dtype, dtype) << DTypeName(record->dtype);
    EXPECT_EQ(record->shape, shape) << FormatShape(record->shape);
    return record;
  }

  // The creation failed as expected and left no array or memory behind.
  void ExpectCreateFails(const CreateSpec& spec, absl::StatusCode code, std::string_view fragment) {
    const EngineStats before = engine_.Stats();
    ExpectError(Create(spec).status(), code, fragment);
    const EngineStats after = engine_.Stats();
    EXPECT_EQ(after.arrays, before.arrays);
    EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  }

  Engine engine_;
  Caller caller_;
};

// One element of each dtype as np.full(1, value, dtype).tobytes().hex().
struct ElementHex {
  DType dtype;
  std::string_view hex;
};

constexpr ElementHex kOnes[] = {
    {DType::kBool, "01"},
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
    {DType::kComplex128, "000000000000f03f0000000000000000"},
};

constexpr ElementHex kSevens[] = {
    {DType::kBool, "01"},
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
    {DType::kComplex128, "0000000000001c400000000000000000"},
};

// np.full(1, -1, dtype): the unsigned dtypes raise OverflowError instead.
constexpr ElementHex kMinusOnes[] = {
    {DType::kBool, "01"},
    {DType::kInt8, "ff"},
    {DType::kInt16, "ffff"},
    {DType::kInt32, "ffffffff"},
    {DType::kInt64, "ffffffffffffffff"},
    {DType::kFloat16, "00bc"},
    {DType::kFloat32, "000080bf"},
    {DType::kFloat64, "000000000000f0bf"},
    {DType::kComplex64, "000080bf00000000"},
    {DType::kComplex128, "000000000000f0bf0000000000000000"},
};

// --- empty / zeros / ones / full --------------------------------------------------------------

using ShapedCreationTest = EngineTest;

TEST_F(ShapedCreationTest, ZerosOfEveryDTypeAreZeroBytes) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(DTypeName(dtype));
    ArrayTable::RecordPtr a = CreateExpecting(Zeros({2, 3}, dtype), dtype, {2, 3});
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->nbytes(), 6 * ItemSize(dtype));
    EXPECT_EQ(a->strides, (Strides{3, 1}));
    EXPECT_EQ(Hex(*a), std::string(12 * ItemSize(dtype), '0'));
  }
}

TEST_F(ShapedCreationTest, OnesOfEveryDType) {
  for (const ElementHex& e : kOnes) {
    SCOPED_TRACE(DTypeName(e.dtype));
    ArrayTable::RecordPtr a = CreateExpecting(Ones({3}, e.dtype), e.dtype, {3});
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(Hex(*a), Repeat(e.hex, 3));  // np.ones(3, dtype).tobytes().hex()
  }
}

TEST_F(ShapedCreationTest, FullOfSevenInEveryDType) {
  for (const ElementHex& e : kSevens) {
    SCOPED_TRACE(DTypeName(e.dtype));
    ArrayTable::RecordPtr a = CreateExpecting(Full({2, 2}, I(7), e.dtype), e.dtype, {2, 2});
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(Hex(*a), Repeat(e.hex, 4));  // np.full((2, 2), 7, dtype).tobytes().hex()
  }
}

TEST_F(ShapedCreationTest, FullOfMinusOneInEverySignedAndInexactDType) {
  for (const ElementHex& e : kMinusOnes) {
    SCOPED_TRACE(DTypeName(e.dtype));
    ArrayTable::RecordPtr a = CreateExpecting(Full({5}, I(-1), e.dtype), e.dtype, {5});
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(Hex(*a), Repeat(e.hex, 5));  // np.full(5, -1, dtype).tobytes().hex()
  }
}

TEST_F(ShapedCreationTest, FullOfMinusOneInAnUnsignedDTypeIsAnError) {
  // np.full(3, -1, np.uint8) -> OverflowError: Python integer -1 out of bounds for uint8
  for (DType dtype : {DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64}) {
    ExpectCreateFails(Full({3}, I(-1), dtype), absl::StatusCode::kInvalidArgument,
                      "Python integer -1 out of bounds for " + std::string(DTypeName(dtype)));
  }
}

TEST_F(ShapedCreationTest, FullWithoutDTypeTakesNumPysDefaultForTheValue) {
  // np.full(2, True).dtype == bool, np.full(2, 7).dtype == int64, np.full(2, 2**63).dtype ==
  // uint64, np.full(2, 7.0).dtype == float64, np.full(2, 1j).dtype == complex128
  EXPECT_EQ(Hex(*CreateExpecting(Full({2}, Scalar::Bool(true)), DType::kBool, {2})), "0101");
  EXPECT_EQ(Hex(*CreateExpecting(Full({1}, I(7)), DType::kInt64, {1})), "0700000000000000");
  EXPECT_EQ(Hex(*CreateExpecting(Full({1}, Scalar::UInt(uint64_t{1} << 63)), DType::kUInt64, {1})),
            "0000000000000080");
  EXPECT_EQ(Hex(*CreateExpecting(Full({1}, F(7.0)), DType::kFloat64, {1})), "0000000000001c40");
  EXPECT_EQ(Hex(*CreateExpecting(Full({1}, C(0, 1)), DType::kComplex128, {1})),
            "0000000000000000000000000000f03f");
}

TEST_F(ShapedCreationTest, ZerosOnesAndEmptyDefaultToFloat64) {
  EXPECT_NE(CreateExpecting(Zeros({2}), DType::kFloat64, {2}), nullptr);
  EXPECT_NE(CreateExpecting(Ones({2}), DType::kFloat64, {2}), nullptr);
  EXPECT_NE(CreateExpecting(Empty({2}), DType::kFloat64, {2}), nullptr);
}

TEST_F(ShapedCreationTest, EmptyAllocatesTheRightSize) {
  ArrayTable::RecordPtr a = CreateExpecting(Empty({4, 5}, DType::kInt16), DType::kInt16, {4, 5});
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->nbytes(), 40);
  EXPECT_EQ(a->buffer->size(), 40);
  EXPECT_EQ(engine_.Stats().bytes_in_use, 40);
}

TEST_F(ShapedCreationTest, ArraysWithAZeroExtentAreEmpty) {
  // np.zeros((2, 0, 3)).shape == (2, 0, 3), .nbytes == 0
  ArrayTable::RecordPtr a = CreateExpecting(Zeros({2, 0, 3}), DType::kFloat64, {2, 0, 3});
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->size(), 0);
  EXPECT_EQ(a->nbytes(), 0);
  EXPECT_TRUE(a->c_contiguous());
  EXPECT_NE(a->buffer->data(), nullptr);
  EXPECT_EQ(Hex(*CreateExpecting(Full({0}, I(5)), DType::kInt64, {0})), "");
}

TEST_F(ShapedCreationTest, ZeroDimensionalArrayHasOneElement) {
  // np.full((), 7, np.int32).tobytes().hex() == '07000000'
  ArrayTable::RecordPtr a = CreateExpecting(Full({}, I(7), DType::kInt32), DType::kInt32, {});
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->size(), 1);
  EXPECT_EQ(Hex(*a), "07000000");
}

TEST_F(ShapedCreationTest, NegativeExtentIsInvalidArgument) {
  // np.zeros((2, -1)) -> ValueError: negative dimensions are not allowed
  ExpectCreateFails(Zeros({2, -1}), absl::StatusCode::kInvalidArgument,
                    "negative dimensions are not allowed");
}

// --- arange -----------------------------------------------------------------------------------

using ArangeTest = EngineTest;

TEST_F(ArangeTest, StopOnly) {
  // np.arange(10) -> int64 [0, 1, ..., 9]
  ArrayTable::RecordPtr a = CreateExpecting(Arange(I(0), I(10)), DType::kInt64, {10});
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST_F(ArangeTest, StartStopStep) {
  // np.arange(-3, 7, 2) -> [-3, -1, 1, 3, 5]
  ArrayTable::RecordPtr a = CreateExpecting(Arange(I(-3), I(7), I(2)), DType::kInt64, {5});
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{-3, -1, 1, 3, 5}));
}

TEST_F(ArangeTest, NegativeStep) {
  // np.arange(5, 0, -1) -> [5, 4, 3, 2, 1]
  ArrayTable::RecordPtr a = CreateExpecting(Arange(I(5), I(0), I(-1)), DType::kInt64, {5});
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{5, 4, 3, 2, 1}));
}

TEST_F(ArangeTest, Float64IsBitExact) {
  // np.arange(0, 1, 0.1).view(np.uint64)
  ArrayTable::RecordPtr a = CreateExpecting(Arange(I(0), I(1), F(0.1)), DType::kFloat64, {10});
  EXPECT_EQ(Values<uint64_t>(*a),
            (std::vector<uint64_t>{0x0000000000000000, 0x3fb999999999999a, 0x3fc999999999999a,
                                   0x3fd3333333333334, 0x3fd999999999999a, 0x3fe0000000000000,
                                   0x3fe3333333333334, 0x3fe6666666666667, 0x3fe999999999999a,
                                   0x3feccccccccccccd}));
}

TEST_F(ArangeTest, Float32IsBitExact) {
  // np.arange(0, 1, 0.1, dtype=np.float32).view(np.uint32): NumPy's FLOAT_fill takes
  // delta = float32(0 + 0.1) - float32(0) and computes start + i * delta in float32.
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(I(0), I(1), F(0.1), DType::kFloat32), DType::kFloat32, {10});
  EXPECT_EQ(Values<uint32_t>(*a),
            (std::vector<uint32_t>{0x00000000, 0x3dcccccd, 0x3e4ccccd, 0x3e99999a, 0x3ecccccd,
                                   0x3f000000, 0x3f19999a, 0x3f333333, 0x3f4ccccd, 0x3f666667}));
}

TEST_F(ArangeTest, Float32WithNonzeroStartIsBitExact) {
  // np.arange(0.1, 2, 0.7, dtype=np.float32).view(np.uint32)
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(F(0.1), I(2), F(0.7), DType::kFloat32), DType::kFloat32, {3});
  EXPECT_EQ(Values<uint32_t>(*a), (std::vector<uint32_t>{1036831949, 1061997773, 1069547520}));
  // np.arange(-0.3, 4, 1.1, dtype=np.float32).view(np.uint32)
  a = CreateExpecting(Arange(F(-0.3), I(4), F(1.1), DType::kFloat32), DType::kFloat32, {4});
  EXPECT_EQ(Values<uint32_t>(*a),
            (std::vector<uint32_t>{3197737370, 1061997773, 1072902964, 1077936129}));
}

TEST_F(ArangeTest, Float16IsBitExact) {
  // np.arange(0, 1, 0.1, dtype=np.float16).view(np.uint16): HALF_fill works in float32.
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(I(0), I(1), F(0.1), DType::kFloat16), DType::kFloat16, {10});
  EXPECT_EQ(Values<uint16_t>(*a), (std::vector<uint16_t>{0x0000, 0x2e66, 0x3266, 0x34cc, 0x3666,
                                                         0x3800, 0x38cc, 0x3999, 0x3a66, 0x3b33}));
}

TEST_F(ArangeTest, Float16StartRoundsOnceFromDouble) {
  const double start = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(F(start), I(3), I(1), DType::kFloat16), DType::kFloat16, {2});
  EXPECT_EQ(Values<uint16_t>(*a), (std::vector<uint16_t>{0x3c01, 0x4000}));
}

TEST_F(ArangeTest, Complex64FromRealBounds) {
  // np.arange(1, 2, 0.3, dtype=np.complex64).view(np.uint32)
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(I(1), I(2), F(0.3), DType::kComplex64), DType::kComplex64, {4});
  EXPECT_EQ(Values<uint32_t>(*a),
            (std::vector<uint32_t>{1065353216, 0, 1067869798, 0, 1070386380, 0, 1072902962, 0}));
}

TEST_F(ArangeTest, Complex128FromRealBounds) {
  // np.arange(0.5, 3.5, 0.75, dtype=np.complex128) -> [0.5, 1.25, 2, 2.75] (+0j)
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(F(0.5), F(3.5), F(0.75), DType::kComplex128), DType::kComplex128, {4});
  EXPECT_EQ(Values<std::complex<double>>(*a),
            (std::vector<std::complex<double>>{0.5, 1.25, 2.0, 2.75}));
}

TEST_F(ArangeTest, FloatBoundsIntoInt64UseTheFirstTwoTruncatedElements) {
  // np.arange(0.5, 5, 1.5, dtype=np.int64) -> [0, 2, 4]: int64(0.5) = 0, int64(2.0) = 2, and
  // the fill continues with delta 2.
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(F(0.5), I(5), F(1.5), DType::kInt64), DType::kInt64, {3});
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{0, 2, 4}));
}

TEST_F(ArangeTest, FloatBoundsWithoutDTypeGiveFloat64) {
  // np.arange(0, 5, 2.5) -> float64 [0.0, 2.5]
  ArrayTable::RecordPtr a = CreateExpecting(Arange(I(0), I(5), F(2.5)), DType::kFloat64, {2});
  EXPECT_EQ(Values<double>(*a), (std::vector<double>{0.0, 2.5}));
}

TEST_F(ArangeTest, BoolBoundIsAnInteger) {
  // np.arange(True, 3) -> int64 [1, 2]
  ArrayTable::RecordPtr a = CreateExpecting(Arange(Scalar::Bool(true), I(3)), DType::kInt64, {2});
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{1, 2}));
}

TEST_F(ArangeTest, Int8WrapsAroundPastItsMaximum) {
  // np.arange(120, 130, dtype=np.int8) -> [120, ..., 127, -128, -127] in NumPy 2.4 (only the
  // first two elements are range-checked; the fill wraps).
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(I(120), I(130), std::nullopt, DType::kInt8), DType::kInt8, {10});
  EXPECT_EQ(Values<int8_t>(*a),
            (std::vector<int8_t>{120, 121, 122, 123, 124, 125, 126, 127, -128, -127}));
}

TEST_F(ArangeTest, UInt8WrapsAroundPastItsMaximum) {
  // np.arange(250, 260, dtype=np.uint8) -> [250, ..., 255, 0, 1, 2, 3]
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(I(250), I(260), std::nullopt, DType::kUInt8), DType::kUInt8, {10});
  EXPECT_EQ(Values<uint8_t>(*a), (std::vector<uint8_t>{250, 251, 252, 253, 254, 255, 0, 1, 2, 3}));
}

TEST_F(ArangeTest, LongInt8RangeWraps) {
  // np.arange(300, dtype=np.int8)[-3:] -> [41, 42, 43]
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(I(0), I(300), std::nullopt, DType::kInt8), DType::kInt8, {300});
  const std::vector<int8_t> values = Values<int8_t>(*a);
  ASSERT_EQ(values.size(), 300u);
  EXPECT_EQ(values[127], 127);
  EXPECT_EQ(values[128], -128);
  EXPECT_EQ(std::vector<int8_t>(values.end() - 3, values.end()), (std::vector<int8_t>{41, 42, 43}));
}

TEST_F(ArangeTest, SecondElementOutOfRangeIsAnError) {
  // np.arange(127, 129, dtype=np.int8) -> OverflowError: Python integer 128 out of bounds for
  // int8 (NumPy stores start + step before filling)
  ExpectCreateFails(Arange(I(127), I(129), std::nullopt, DType::kInt8),
                    absl::StatusCode::kInvalidArgument,
                    "Python integer 128 out of bounds for int8");
}

TEST_F(ArangeTest, SingleElementDoesNotCheckTheSecond) {
  // np.arange(127, 128, dtype=np.int8) -> [127]
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(I(127), I(128), std::nullopt, DType::kInt8), DType::kInt8, {1});
  EXPECT_EQ(Values<int8_t>(*a), (std::vector<int8_t>{127}));
}

TEST_F(ArangeTest, StepsBeyondInt64AreFineWhenNoSecondElementIsWritten) {
  // np.arange(-1, 0, -2**63) -> int64 [] (start + step leaves int64, but nothing is written);
  // np.arange(0, 1, -2**63) -> [], np.arange(0, 1, 2**63 - 1) -> [0].
  const int64_t most_negative = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(CreateExpecting(Arange(I(-1), I(0), I(most_negative)), DType::kInt64, {0})->nbytes(),
            0);
  EXPECT_EQ(Values<int64_t>(*CreateExpecting(
                Arange(I(0), I(1), I(std::numeric_limits<int64_t>::max())), DType::kInt64, {1})),
            (std::vector<int64_t>{0}));
  // One element of a float dtype from integer bounds: np.arange(-1, 0, -2**63 ... ) never
  // needs start + step either: np.arange(1, 0, -2**63, dtype=np.float32) -> [1.].
  EXPECT_EQ(Values<float>(*CreateExpecting(Arange(I(1), I(0), I(most_negative), DType::kFloat32),
                                           DType::kFloat32, {1})),
            (std::vector<float>{1.0f}));
}

TEST_F(ArangeTest, StartOutOfRangeForUnsignedIsAnError) {
  // np.arange(-2, 2, dtype=np.uint8) -> OverflowError: Python integer -2 out of bounds for uint8
  ExpectCreateFails(Arange(I(-2), I(2), std::nullopt, DType::kUInt8),
                    absl::StatusCode::kInvalidArgument,
                    "Python integer -2 out of bounds for uint8");
}

TEST_F(ArangeTest, EmptyRanges) {
  // np.arange(0, 0) -> int64 []; np.arange(5, 0) -> int64 []; np.arange(0, 1, -1) -> []
  EXPECT_EQ(CreateExpecting(Arange(I(0), I(0)), DType::kInt64, {0})->nbytes(), 0);
  EXPECT_EQ(CreateExpecting(Arange(I(5), I(0)), DType::kInt64, {0})->nbytes(), 0);
  EXPECT_EQ(CreateExpecting(Arange(F(0), F(1), F(-1)), DType::kFloat64, {0})->nbytes(), 0);
}

TEST_F(ArangeTest, ZeroStepIsInvalidArgument) {
  // np.arange(0, 1, 0) -> ZeroDivisionError
  ExpectCreateFails(Arange(I(0), I(1), I(0)), absl::StatusCode::kInvalidArgument,
                    "step must not be zero");
  ExpectCreateFails(Arange(F(0), F(1), F(0.0)), absl::StatusCode::kInvalidArgument,
                    "step must not be zero");
}

TEST_F(ArangeTest, ShapeIsInvalidArgument) {
  CreateSpec spec = Arange(I(0), I(3));
  spec.shape = {3};
  ExpectCreateFails(spec, absl::StatusCode::kInvalidArgument, "arange takes no shape");
  ExpectCreateFails(spec, absl::StatusCode::kInvalidArgument, "got shape (3,)");
}

TEST_F(ArangeTest, ComplexBoundOrStepIsInvalidArgument) {
  ExpectCreateFails(Arange(I(0), C(1, 0)), absl::StatusCode::kInvalidArgument, "complex");
  ExpectCreateFails(Arange(C(0, 1), I(3)), absl::StatusCode::kInvalidArgument, "complex");
  ExpectCreateFails(Arange(I(0), I(3), C(1, 0)), absl::StatusCode::kInvalidArgument, "complex");
}

TEST_F(ArangeTest, NonFiniteLengthIsInvalidArgument) {
  ExpectCreateFails(Arange(I(0), F(std::numeric_limits<double>::infinity())),
                    absl::StatusCode::kInvalidArgument, "arange: cannot compute length");
}

TEST_F(ArangeTest, BoolWithMoreThanTwoElementsIsAnError) {
  // np.arange(3, dtype=bool) -> TypeError: arange() is only supported for booleans when the
  // result has at most length 2.
  ExpectCreateFails(Arange(I(0), I(3), std::nullopt, DType::kBool),
                    absl::StatusCode::kInvalidArgument, "at most 2 elements");
}

TEST_F(ArangeTest, BoolWithTwoElements) {
  // np.arange(2, dtype=bool) -> [False, True]
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(I(0), I(2), std::nullopt, DType::kBool), DType::kBool, {2});
  EXPECT_EQ(Hex(*a), "0001");
}

TEST_F(ArangeTest, BeyondInt64GivesFloat64LikeNumPy) {
  const uint64_t big = uint64_t{1} << 63;
  ArrayTable::RecordPtr a =
      CreateExpecting(Arange(Scalar::UInt(big), Scalar::UInt(big + 3)), DType::kFloat64, {3});
  EXPECT_EQ(Values<double>(*a), (std::vector<double>(3, 0x1p63)));
}

// --- linspace ---------------------------------------------------------------------------------

using LinspaceTest = EngineTest;

TEST_F(LinspaceTest, WithEndpoint) {
  // np.linspace(0, 1, 5) -> [0, 0.25, 0.5, 0.75, 1]
  ArrayTable::RecordPtr a = CreateExpecting(Linspace(I(0), I(1), 5), DType::kFloat64, {5});
  EXPECT_EQ(Values<double>(*a), (std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0}));
}

TEST_F(LinspaceTest, WithoutEndpointIsBitExact) {
  // np.linspace(0, 1, 5, endpoint=False).view(np.uint64)
  ArrayTable::RecordPtr a =
      CreateExpecting(Linspace(I(0), I(1), 5, /*endpoint=*/false), DType::kFloat64, {5});
  EXPECT_EQ(Values<uint64_t>(*a),
            (std::vector<uint64_t>{0x0, 0x3fc999999999999a, 0x3fd999999999999a, 0x3fe3333333333334,
                                   0x3fe999999999999a}));
}

TEST_F(LinspaceTest, SevenSamplesAreBitExact) {
  // np.linspace(0, 1, 7).view(np.uint64)
  ArrayTable::RecordPtr a = CreateExpecting(Linspace(I(0), I(1), 7), DType::kFloat64, {7});
  EXPECT_EQ(Values<uint64_t>(*a),
            (std::vector<uint64_t>{0x0, 0x3fc5555555555555, 0x3fd5555555555555, 0x3fe0000000000000,
                                   0x3fe5555555555555, 0x3feaaaaaaaaaaaaa, 0x3ff0000000000000}));
}

TEST_F(LinspaceTest, OneSampleIsTheStart) {
  // np.linspace(2, 3, 1) -> [2.]
  ArrayTable::RecordPtr a = CreateExpecting(Linspace(I(2), I(3), 1), DType::kFloat64, {1});
  EXPECT_EQ(Values<double>(*a), (std::vector<double>{2.0}));
}

TEST_F(LinspaceTest, ZeroSamplesIsEmptyFloat64) {
  // np.linspace(0, 1, 0) -> float64 []
  EXPECT_EQ(CreateExpecting(Linspace(I(0), I(1), 0), DType::kFloat64, {0})->nbytes(), 0);
}

TEST_F(LinspaceTest, IntegerDTypeTakesTheFloor) {
  // np.linspace(0, 10, 7, dtype=np.int32) -> [0, 1, 3, 5, 6, 8, 10]
  ArrayTable::RecordPtr a =
      CreateExpecting(Linspace(I(0), I(10), 7, true, DType::kInt32), DType::kInt32, {7});
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{0, 1, 3, 5, 6, 8, 10}));
}

TEST_F(LinspaceTest, IntegerDTypeFloorsNegativeValuesDownward) {
  // np.linspace(-5, 5, 4, dtype=np.int32) -> [-5, -2, 1, 5] (floor(-1.67) = -2)
  ArrayTable::RecordPtr a =
      CreateExpecting(Linspace(I(-5), I(5), 4, true, DType::kInt32), DType::kInt32, {4});
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{-5, -2, 1, 5}));
  // np.linspace(7, -3, 4, dtype=np.int16) -> [7, 3, 0, -3]
  a = CreateExpecting(Linspace(I(7), I(-3), 4, true, DType::kInt16), DType::kInt16, {4});
  EXPECT_EQ(Values<int16_t>(*a), (std::vector<int16_t>{7, 3, 0, -3}));
}

TEST_F(LinspaceTest, IntegerDTypeOutOfRangeIsRefused) {
  // np.linspace(0, 300, 3, dtype=np.int8) casts unsafely to [0, -106, 44]; the server
  // range-checks both ends instead.
  ExpectCreateFails(Linspace(I(0), I(300), 3, true, DType::kInt8),
                    absl::StatusCode::kInvalidArgument, "out of range");
}

TEST_F(LinspaceTest, Float16IsBitExact) {
  // np.linspace(-1, 1, 4, dtype=np.float16).view(np.uint16)
  ArrayTable::RecordPtr a =
      CreateExpecting(Linspace(I(-1), I(1), 4, true, DType::kFloat16), DType::kFloat16, {4});
  EXPECT_EQ(Values<uint16_t>(*a), (std::vector<uint16_t>{0xbc00, 0xb555, 0x3555, 0x3c00}));
}

TEST_F(LinspaceTest, Float16RoundsOnceFromFloat64) {
  const double stop = 1.0 + std::ldexp(1.0, -10) + std::ldexp(1.0, -39);
  ArrayTable::RecordPtr a =
      CreateExpecting(Linspace(I(1), F(stop), 3, true, DType::kFloat16), DType::kFloat16, {3});
  EXPECT_EQ(Values<uint16_t>(*a), (std::vector<uint16_t>{0x3c00, 0x3c01, 0x3c01}));
}

TEST_F(LinspaceTest, Float32IsBitExact) {
  // np.linspace(0.1, 0.9, 7, dtype=np.float32).view(np.uint32): float64 samples rounded once.
  ArrayTable::RecordPtr a =
      CreateExpecting(Linspace(F(0.1), F(0.9), 7, true, DType::kFloat32), DType::kFloat32, {7});
  EXPECT_EQ(Values<uint32_t>(*a),
            (std::vector<uint32_t>{0x3dcccccd, 0x3e6eeeef, 0x3ebbbbbc, 0x3f000000, 0x3f222222,
                                   0x3f444444, 0x3f666666}));
}

TEST_F(LinspaceTest, ComplexBoundsGiveComplex128) {
  // np.linspace(0, 1+1j, 3) -> complex128 [0, 0.5+0.5j, 1+1j]
  ArrayTable::RecordPtr a = CreateExpecting(Linspace(I(0), C(1, 1), 3), DType::kComplex128, {3});
  EXPECT_EQ(Values<std::complex<double>>(*a),
            (std::vector<std::complex<double>>{{0, 0}, {0.5, 0.5}, {1, 1}}));
}

TEST_F(LinspaceTest, BoolDTypeIsNonzero) {
  // np.linspace(0, 1, 3, dtype=bool) -> [False, True, True]
  ArrayTable::RecordPtr a =
      CreateExpecting(Linspace(I(0), I(1), 3, true, DType::kBool), DType::kBool, {3});
  EXPECT_EQ(Hex(*a), "000101");
}

TEST_F(LinspaceTest, ComplexBoundsIntoFloatDropTheImaginaryPart) {
  // np.linspace(0, 2+1j, 3, dtype=np.float32) -> [0, 1, 2] (ComplexWarning)
  ArrayTable::RecordPtr a =
      CreateExpecting(Linspace(I(0), C(2, 1), 3, true, DType::kFloat32), DType::kFloat32, {3});
  EXPECT_EQ(Values<float>(*a), (std::vector<float>{0.0f, 1.0f, 2.0f}));
}

TEST_F(LinspaceTest, ComplexBoundsIntoBoolLookAtTheImaginaryPart) {
  ArrayTable::RecordPtr a =
      CreateExpecting(Linspace(I(0), C(0, 1), 3, true, DType::kBool), DType::kBool, {3});
  EXPECT_EQ(Hex(*a), "000101");
}

TEST_F(LinspaceTest, ComplexBoundsIntoAnIntegerDTypeAreRefused) {
  ExpectCreateFails(Linspace(I(0), C(1, 1), 3, true, DType::kInt32),
                    absl::StatusCode::kInvalidArgument, "complex");
}

TEST_F(LinspaceTest, NegativeNumIsInvalidArgumentWithNumPysMessage) {
  // np.linspace(0, 1, -1) -> ValueError: Number of samples, -1, must be non-negative.
  const EngineStats before = engine_.Stats();
  const absl::Status status = Create(Linspace(I(0), I(1), -1)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "Number of samples, -1, must be non-negative.");
  EXPECT_EQ(engine_.Stats().arrays, before.arrays);
}

TEST_F(LinspaceTest, ShapeIsInvalidArgument) {
  CreateSpec spec = Linspace(I(0), I(1), 3);
  spec.shape = {3};
  ExpectCreateFails(spec, absl::StatusCode::kInvalidArgument, "linspace takes no shape");
}

// --- eye --------------------------------------------------------------------------------------

using EyeTest = EngineTest;

TEST_F(EyeTest, Identity) {
  // np.eye(3)
  ArrayTable::RecordPtr a = CreateExpecting(Eye(3), DType::kFloat64, {3, 3});
  EXPECT_EQ(Values<double>(*a), (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

TEST_F(EyeTest, RectangularAboveTheDiagonal) {
  // np.eye(3, 4, k=1)
  ArrayTable::RecordPtr a = CreateExpecting(Eye(3, 4, 1), DType::kFloat64, {3, 4});
  EXPECT_EQ(Values<double>(*a), (std::vector<double>{0, 1, 0, 0,  //
                                                     0, 0, 1, 0,  //
                                                     0, 0, 0, 1}));
}

TEST_F(EyeTest, RectangularBelowTheDiagonal) {
  // np.eye(4, 3, k=-2)
  ArrayTable::RecordPtr a = CreateExpecting(Eye(4, 3, -2), DType::kFloat64, {4, 3});
  EXPECT_EQ(Values<double>(*a), (std::vector<double>{0, 0, 0,  //
                                                     0, 0, 0,  //
                                                     1, 0, 0,  //
                                                     0, 1, 0}));
}

TEST_F(EyeTest, DiagonalOutsideTheMatrixGivesZeros) {
  // np.eye(2, 2, k=5) and np.eye(2, 2, k=-5) -> all zeros
  EXPECT_EQ(Values<double>(*CreateExpecting(Eye(2, 2, 5), DType::kFloat64, {2, 2})),
            (std::vector<double>(4, 0.0)));
  EXPECT_EQ(Values<double>(*CreateExpecting(Eye(2, 2, -5), DType::kFloat64, {2, 2})),
            (std::vector<double>(4, 0.0)));
}

TEST_F(EyeTest, HugeDiagonalOffsetGivesZeros) {
  // np.eye(2, 2, k=2**63 - 1) -> all zeros
  const int64_t k = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Values<double>(*CreateExpecting(Eye(2, 2, k), DType::kFloat64, {2, 2})),
            (std::vector<double>(4, 0.0)));
}

TEST_F(EyeTest, MostNegativeDiagonalOffsetGivesZeros) {
  const int64_t k = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Values<double>(*CreateExpecting(Eye(2, 2, k), DType::kFloat64, {2, 2})),
            (std::vector<double>(4, 0.0)));
}

TEST_F(EyeTest, Bool) {
  // np.eye(3, dtype=bool).tobytes().hex()
  EXPECT_EQ(Hex(*CreateExpecting(Eye(3, std::nullopt, 0, DType::kBool), DType::kBool, {3, 3})),
            "010000000100000001");
}

TEST_F(EyeTest, Complex64AndInt16) {
  // np.eye(2, dtype=np.complex64).tobytes().hex()
  EXPECT_EQ(
      Hex(*CreateExpecting(Eye(2, std::nullopt, 0, DType::kComplex64), DType::kComplex64, {2, 2})),
      "0000803f00000000000000000000000000000000000000000000803f00000000");
  // np.eye(3, 2, dtype=np.int16) -> [[1, 0], [0, 1], [0, 0]]
  EXPECT_EQ(Values<int16_t>(*CreateExpecting(Eye(3, 2, 0, DType::kInt16), DType::kInt16, {3, 2})),
            (std::vector<int16_t>{1, 0, 0, 1, 0, 0}));
}

TEST_F(EyeTest, ZeroSizeIsEmpty) {
  // np.eye(0).shape == (0, 0)
  EXPECT_EQ(CreateExpecting(Eye(0), DType::kFloat64, {0, 0})->nbytes(), 0);
}

TEST_F(EyeTest, NegativeSizeIsInvalidArgument) {
  // np.eye(-1) -> ValueError: negative dimensions are not allowed
  ExpectCreateFails(Eye(-1), absl::StatusCode::kInvalidArgument,
                    "negative dimensions are not allowed");
}

TEST_F(EyeTest, ShapeIsInvalidArgument) {
  CreateSpec spec = Eye(2);
  spec.shape = {2, 2};
  ExpectCreateFails(spec, absl::StatusCode::kInvalidArgument, "eye takes no shape");
}

// --- Limits -----------------------------------------------------------------------------------

TEST(CheckedArrayBytesTest, ReturnsTheByteSize) {
  EXPECT_EQ(CheckedArrayBytes(Shape{3, 4}, DType::kComplex128, Limits{}).value(), 192);
  EXPECT_EQ(CheckedArrayBytes(Shape{}, DType::kInt8, Limits{}).value(), 1);
}

TEST(CheckedArrayBytesTest, RankAtTheLimitIsAllowed) {
  EXPECT_EQ(CheckedArrayBytes(Shape(64, 1), DType::kFloat64, Limits{}).value(), 8);
}

TEST(CheckedArrayBytesTest, RankOverTheLimitIsInvalidArgumentNamingTheFlag) {
  const absl::Status status = CheckedArrayBytes(Shape(65, 1), DType::kFloat64, Limits{}).status();
  ExpectError(status, absl::StatusCode::kInvalidArgument, "--max-rank");
  ExpectError(status, absl::StatusCode::kInvalidArgument, "shape has 65 dimensions");
  ExpectError(status, absl::StatusCode::kInvalidArgument, "at most 64");
}

TEST(CheckedArrayBytesTest, BytesAtTheLimitAreAllowed) {
  const Limits limits{.max_array_bytes = 1024};
  EXPECT_EQ(CheckedArrayBytes(Shape{128}, DType::kFloat64, limits).value(), 1024);
}

TEST(CheckedArrayBytesTest, BytesOverTheLimitAreResourceExhaustedNamingTheFlag) {
  const Limits limits{.max_array_bytes = 1024};
  const absl::Status status = CheckedArrayBytes(Shape{129}, DType::kFloat64, limits).status();
  ExpectError(status, absl::StatusCode::kResourceExhausted, "--max-array-bytes");
  ExpectError(status, absl::StatusCode::kResourceExhausted,
              "array of shape (129,) and dtype float64 needs 1032 bytes");
  ExpectError(status, absl::StatusCode::kResourceExhausted, "at most 1024 bytes");
}

TEST(CheckedArrayBytesTest, ByteOverflowIsInvalidArgument) {
  const absl::Status status =
      CheckedArrayBytes(Shape{int64_t{1} << 59, 2}, DType::kComplex128, Limits{}).status();
  ExpectError(status, absl::StatusCode::kInvalidArgument, "overflows int64");
}

TEST(PlanCreationTest, ZerosPlanIsOneFillOfTheWholeArray) {
  absl::StatusOr<CreationPlan> plan = PlanCreation(Zeros({4, 5}, DType::kInt32), Limits{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->dtype, DType::kInt32);
  EXPECT_EQ(plan->nbytes, 80);
  ASSERT_EQ(plan->steps.size(), 1u);
  const auto* fill = std::get_if<PatternFill>(&plan->steps[0]);
  ASSERT_NE(fill, nullptr);
  EXPECT_EQ(fill->offset, 0);
  EXPECT_EQ(fill->count, 20);
  EXPECT_EQ(fill->stride_bytes, 4);
  EXPECT_EQ(fill->pattern_size, 4);
}

TEST(PlanCreationTest, EmptyPlanHasNoFillSteps) {
  absl::StatusOr<CreationPlan> plan = PlanCreation(Empty({7}, DType::kUInt16), Limits{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->nbytes, 14);
  EXPECT_TRUE(plan->steps.empty());
}

class LimitedEngineTest : public EngineTest {
 protected:
  LimitedEngineTest() : EngineTest(Limits{.max_rank = 3, .max_array_bytes = 64}) {}
};

TEST_F(LimitedEngineTest, CreateOverTheByteLimitAllocatesNothing) {
  ExpectCreateFails(Zeros({9}), absl::StatusCode::kResourceExhausted, "--max-array-bytes");
  ExpectCreateFails(Linspace(I(0), I(1), 9), absl::StatusCode::kResourceExhausted,
                    "--max-array-bytes");
  ExpectCreateFails(Eye(3), absl::StatusCode::kResourceExhausted, "--max-array-bytes");
  EXPECT_EQ(engine_.Stats().bytes_in_use, 0);
}

TEST_F(LimitedEngineTest, CreateOverTheRankLimitAllocatesNothing) {
  ExpectCreateFails(Zeros({1, 1, 1, 1}), absl::StatusCode::kInvalidArgument, "--max-rank");
}

// --- Uploads ----------------------------------------------------------------------------------

class UploadTest : public EngineTest {
 protected:
  UploadTest() : EngineTest(Limits{.max_chunk_bytes = 16}) {}

  std::unique_ptr<PendingUpload> Begin(DType dtype, const Shape& shape) {
    absl::StatusOr<std::unique_ptr<PendingUpload>> upload =
        engine_.BeginUpload(caller_, dtype, shape);
    EXPECT_TRUE(upload.ok()) << upload.status();
    return upload.ok() ? std::move(*upload) : nullptr;
  }

  static std::vector<std::byte> Sequence(size_t n, int first = 1) {
    std::vector<std::byte> bytes(n);
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::byte>(first + i);
    return bytes;
  }
};

TEST_F(UploadTest, ExactBytesInChunksCommitTheArray) {
  std::unique_ptr<PendingUpload> upload = Begin(DType::kInt16, {4, 3});  // 24 bytes.
  ASSERT_NE(upload, nullptr);
  const std::vector<std::byte> data = Sequence(24);
  EXPECT_EQ(engine_.Stats().arrays, 0);  // Not visible until finished.
  ASSERT_TRUE(upload->Append(std::span(data).first(16)).ok());
  ASSERT_TRUE(upload->Append(std::span(data).subspan(16)).ok());
  EXPECT_EQ(upload->received(), 24);
  EXPECT_EQ(upload->expected(), 24);

  absl::StatusOr<std::shared_ptr<const ArrayRecord>> done = upload->Finish();
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ((*done)->dtype, DType::kInt16);
  EXPECT_EQ((*done)->shape, (Shape{4, 3}));
  EXPECT_EQ(Bytes(**done), data);
  EXPECT_EQ(engine_.Stats().arrays, 1);
  EXPECT_TRUE(engine_.Find(caller_, (*done)->handle.ToString()).ok());
}

TEST_F(UploadTest, MoreBytesThanDeclaredIsInvalidArgument) {
  std::unique_ptr<PendingUpload> upload = Begin(DType::kUInt8, {10});
  ASSERT_NE(upload, nullptr);
  ASSERT_TRUE(upload->Append(Sequence(8)).ok());
  const absl::Status status = upload->Append(Sequence(3));
  ExpectError(status, absl::StatusCode::kInvalidArgument, "more data than the header declares");
  ExpectError(status, absl::StatusCode::kInvalidArgument,
              "11 bytes received, uint8 array of shape (10,) holds 10 bytes");
  EXPECT_EQ(upload->received(), 8);
}

TEST_F(UploadTest, FewerBytesThanDeclaredFailsAtFinish) {
  std::unique_ptr<PendingUpload> upload = Begin(DType::kFloat32, {2, 2});
  ASSERT_NE(upload, nullptr);
  ASSERT_TRUE(upload->Append(Sequence(4)).ok());
  const absl::Status status = upload->Finish().status();
  ExpectError(status, absl::StatusCode::kInvalidArgument, "upload ended after 4 bytes");
  ExpectError(status, absl::StatusCode::kInvalidArgument,
              "float32 array of shape (2, 2) needs 16 bytes");
  EXPECT_EQ(engine_.Stats().arrays, 0);
}

TEST_F(UploadTest, EmptyChunkIsInvalidArgument) {
  std::unique_ptr<PendingUpload> upload = Begin(DType::kUInt8, {4});
  ASSERT_NE(upload, nullptr);
  ExpectError(upload->Append({}), absl::StatusCode::kInvalidArgument, "upload chunk is empty");
}

TEST_F(UploadTest, ChunkOverTheLimitIsInvalidArgumentNamingTheFlag) {
  std::unique_ptr<PendingUpload> upload = Begin(DType::kUInt8, {64});
  ASSERT_NE(upload, nullptr);
  const absl::Status status = upload->Append(Sequence(17));
  ExpectError(status, absl::StatusCode::kInvalidArgument, "--max-chunk-bytes");
  ExpectError(status, absl::StatusCode::kInvalidArgument, "17 bytes exceeds the limit of 16");
  EXPECT_EQ(upload->received(), 0);
  EXPECT_TRUE(upload->Append(Sequence(16)).ok());  // At the limit is fine.
}

TEST_F(UploadTest, DroppingAnUnfinishedUploadLeavesNothingBehind) {
  const EngineStats before = engine_.Stats();
  {
    std::unique_ptr<PendingUpload> upload = Begin(DType::kFloat64, {4});
    ASSERT_NE(upload, nullptr);
    EXPECT_EQ(engine_.Stats().bytes_in_use, before.bytes_in_use + 32);  // Reserved up front.
    ASSERT_TRUE(upload->Append(Sequence(16)).ok());
  }
  const EngineStats after = engine_.Stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.buffers, before.buffers);
  EXPECT_EQ(after.arrays, before.arrays);
}

TEST_F(UploadTest, NothingMayFollowFinish) {
  std::unique_ptr<PendingUpload> upload = Begin(DType::kUInt8, {2});
  ASSERT_NE(upload, nullptr);
  ASSERT_TRUE(upload->Append(Sequence(2)).ok());
  ASSERT_TRUE(upload->Finish().ok());
  ExpectError(upload->Append(Sequence(1)), absl::StatusCode::kFailedPrecondition,
              "already finished");
  ExpectError(upload->Finish().status(), absl::StatusCode::kFailedPrecondition, "already finished");
  EXPECT_EQ(engine_.Stats().arrays, 1);
}

TEST_F(UploadTest, EmptyArrayFinishesWithoutData) {
  std::unique_ptr<PendingUpload> upload = Begin(DType::kFloat64, {3, 0});
  ASSERT_NE(upload, nullptr);
  absl::StatusOr<std::shared_ptr<const ArrayRecord>> done = upload->Finish();
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ((*done)->nbytes(), 0);
}

TEST_F(UploadTest, BeginOverTheByteLimitAllocatesNothing) {
  const Limits small{.max_array_bytes = 8};
  Engine engine(std::make_unique<HostBackend>(), small, SessionOptions{});
  const Caller caller{.tenant = "alice",
                      .session = engine.OpenSession("alice", "t", seconds(0))->id};
  ExpectError(engine.BeginUpload(caller, DType::kFloat64, {2}).status(),
              absl::StatusCode::kResourceExhausted, "--max-array-bytes");
  EXPECT_EQ(engine.Stats().bytes_in_use, 0);
}

TEST_F(UploadTest, DownloadHandsOutChunksOfTheAskedSize) {
  ArrayTable::RecordPtr a =
      MustCreate(Arange(I(0), I(5), std::nullopt, DType::kInt16));  // 10 bytes.
  ASSERT_NE(a, nullptr);
  for (const auto& [asked, sizes] : std::vector<std::pair<int64_t, std::vector<size_t>>>{
           {4, {4, 4, 2}}, {5, {5, 5}}, {10, {10}}, {64, {10}}, {0, {10}}}) {
    std::unique_ptr<PendingDownload> download =
        engine_.BeginDownload(caller_, a->handle.ToString(), asked).value();
    EXPECT_EQ(download->total(), 10);
    std::vector<size_t> got;
    std::vector<std::byte> bytes;
    for (std::span<const std::byte> chunk = download->Next().value(); !chunk.empty();
         chunk = download->Next().value()) {
      got.push_back(chunk.size());
      bytes.insert(bytes.end(), chunk.begin(), chunk.end());
    }
    EXPECT_EQ(got, sizes) << "chunk_bytes " << asked;
    EXPECT_EQ(download->sent(), 10);
    std::vector<int16_t> values(5);
    ASSERT_EQ(bytes.size(), 10u);
    std::memcpy(values.data(), bytes.data(), bytes.size());
    EXPECT_EQ(values, (std::vector<int16_t>{0, 1, 2, 3, 4}));
    EXPECT_TRUE(download->Next().value().empty()) << "after the end";
  }
}

TEST_F(UploadTest, DownloadChecksItsRequest) {
  ArrayTable::RecordPtr a = MustCreate(Zeros({2}, DType::kInt32));
  ASSERT_NE(a, nullptr);
  ExpectError(engine_.BeginDownload(caller_, a->handle.ToString(), -1).status(),
              absl::StatusCode::kInvalidArgument, "chunk_bytes must not be negative, got -1");
  ExpectError(engine_.BeginDownload(caller_, "not-a-handle", 0).status(),
              absl::StatusCode::kInvalidArgument, "handle");
}

}  // namespace
}  // namespace arrayhub
