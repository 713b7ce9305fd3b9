// SetItem with a combine op (NumPy's ufunc.at) through the engine on the CPU backend: repeated
// indices accumulate in C order, scalars are typed as numpy.asarray types them and cast
// unsafely as NumPy 2.4 does, basic indices combine too, what NumPy refuses is refused with
// its message, a refused or failed call changes nothing, and a tenant cannot combine into
// another's array.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/core/engine.h"
#include "tests/support/engine_download.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

OperandSpec HandleOperand(const std::string& handle) {
  return OperandSpec{.handle = handle, .scalar = {}, .chain_value = {}};
}

OperandSpec ScalarOperand(Scalar value) {
  return OperandSpec{.handle = {}, .scalar = value, .chain_value = {}};
}

class SetItemCombineTest : public ::testing::Test {
 protected:
  Caller Open(const std::string& tenant) {
    absl::StatusOr<Session> session =
        engine_.OpenSession(tenant, "combine", std::chrono::seconds(60));
    EXPECT_TRUE(session.ok()) << session.status();
    return Caller{.tenant = tenant, .session = session->id};
  }

  // A new array of `dtype` holding `values` (of its C++ type).
  template <typename T>
  std::string Upload(DType dtype, const std::vector<T>& values) {
    absl::StatusOr<ArrayTable::RecordPtr> array = engine_.Create(
        caller_,
        {.dtype = dtype, .shape = {static_cast<int64_t>(values.size())}, .kind = ZerosKind{}});
    EXPECT_TRUE(array.ok()) << array.status();
    if (!array.ok()) return "";
    const auto* bytes = reinterpret_cast<const std::byte*>(values.data());
    EXPECT_TRUE(engine_.backend()
                    .memory()
                    .CopyFromHost(TestQueue(engine_.backend()), *(*array)->buffer,
                                  (*array)->offset_bytes,
                                  std::span(bytes, values.size() * sizeof(T)))
                    .ok());
    return (*array)->handle.ToString();
  }

  template <typename T>
  std::vector<T> Read(const std::string& handle, const Caller* caller = nullptr) {
    const Caller& who = caller ? *caller : caller_;
    absl::StatusOr<ArrayTable::RecordPtr> array = engine_.Find(who, handle);
    EXPECT_TRUE(array.ok()) << array.status();
    if (!array.ok()) return {};
    absl::StatusOr<std::vector<std::byte>> bytes = testing::DownloadBytes(engine_, who, **array);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    std::vector<T> values(bytes.ok() ? bytes->size() / sizeof(T) : 0);
    if (!values.empty()) std::memcpy(values.data(), bytes->data(), values.size() * sizeof(T));
    return values;
  }

  absl::Status At(ElementwiseOp op, const std::string& target, std::vector<IndexItemSpec> index,
                  OperandSpec value, const Caller* caller = nullptr) {
    return engine_.SetItem(
        caller ? *caller : caller_,
        {.handle = target, .index = std::move(index), .value = std::move(value), .combine = op});
  }

  Engine engine_{std::make_unique<HostBackend>(), Limits{}, SessionOptions{}};
  Caller caller_ = Open("alice");
};

TEST_F(SetItemCombineTest, RepeatedIndicesAccumulateInOrder) {
  // np.add.at(a, [0, 2, 0, -1, 0], [1, 2, 3, 4, 5]) on float64 [0, 0, 0].
  const std::string a = Upload(DType::kFloat64, std::vector<double>{0, 0, 0});
  const std::string index = Upload(DType::kInt64, std::vector<int64_t>{0, 2, 0, -1, 0});
  const std::string values = Upload(DType::kFloat64, std::vector<double>{1, 2, 3, 4, 5});
  ASSERT_TRUE(At(ElementwiseOp::kAdd, a, {IndexArraySpec{index}}, HandleOperand(values)).ok());
  EXPECT_EQ(Read<double>(a), (std::vector<double>{9, 0, 6}));

  // A scalar broadcast to every selected position; an int32 index array is converted first.
  const std::string index32 = Upload(DType::kInt32, std::vector<int32_t>{1, 1, 1});
  ASSERT_TRUE(
      At(ElementwiseOp::kMultiply, a, {IndexArraySpec{index32}}, ScalarOperand(Scalar::Int(0)))
          .ok());
  EXPECT_EQ(Read<double>(a), (std::vector<double>{9, 0, 6}));
  ASSERT_TRUE(
      At(ElementwiseOp::kMaximum, a, {IndexArraySpec{index32}}, ScalarOperand(Scalar::Float(7.5)))
          .ok());
  EXPECT_EQ(Read<double>(a), (std::vector<double>{9, 7.5, 6}));
}

TEST_F(SetItemCombineTest, BasicIndicesCombineInPlace) {
  // np.subtract.at(a, slice(1, None), 1) and np.add.at(a, (), a): the value overlaps the target.
  const std::string a = Upload(DType::kInt32, std::vector<int32_t>{5, 6, 7});
  ASSERT_TRUE(At(ElementwiseOp::kSubtract, a, {SliceSpec{.start = 1, .stop = {}, .step = 1}},
                 ScalarOperand(Scalar::Int(1)))
                  .ok());
  EXPECT_EQ(Read<int32_t>(a), (std::vector<int32_t>{5, 5, 6}));
  ASSERT_TRUE(At(ElementwiseOp::kAdd, a, {}, HandleOperand(a)).ok());
  EXPECT_EQ(Read<int32_t>(a), (std::vector<int32_t>{10, 10, 12}));
}

TEST_F(SetItemCombineTest, ValuesAreCastUnsafelyAsNumPy24Does) {
  // np.add.at(uint8 [3], [0, 0], -1) is 1 (int64 -1 wraps to 255), np.add.at(int8 [0], [0],
  // 1000) is -24, and a complex value into a float array loses its imaginary part.
  const std::string u8 = Upload(DType::kUInt8, std::vector<uint8_t>{3});
  const std::string twice = Upload(DType::kInt64, std::vector<int64_t>{0, 0});
  ASSERT_TRUE(
      At(ElementwiseOp::kAdd, u8, {IndexArraySpec{twice}}, ScalarOperand(Scalar::Int(-1))).ok());
  EXPECT_EQ(Read<uint8_t>(u8), (std::vector<uint8_t>{1}));
  const std::string i8 = Upload(DType::kInt8, std::vector<int8_t>{0});
  ASSERT_TRUE(At(ElementwiseOp::kAdd, i8, {int64_t{0}}, ScalarOperand(Scalar::Int(1000))).ok());
  EXPECT_EQ(Read<int8_t>(i8), (std::vector<int8_t>{-24}));
  const std::string f64 = Upload(DType::kFloat64, std::vector<double>{1});
  ASSERT_TRUE(
      At(ElementwiseOp::kAdd, f64, {int64_t{0}}, ScalarOperand(Scalar::Complex({2, 5}))).ok());
  EXPECT_EQ(Read<double>(f64), (std::vector<double>{3}));
}

TEST_F(SetItemCombineTest, RefusalsQuoteNumPyAndChangeNothing) {
  const std::string flags = Upload(DType::kBool, std::vector<uint8_t>{1, 0});
  absl::Status status =
      At(ElementwiseOp::kSubtract, flags, {int64_t{0}}, ScalarOperand(Scalar::Bool(true)));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the "
            "`^` operator, or the logical_xor function instead.");
  // NumPy would subtract in int64 here and cast back; this server combines in the array's dtype.
  status = At(ElementwiseOp::kSubtract, flags, {int64_t{0}}, ScalarOperand(Scalar::Int(1)));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "subtract.at into a bool array: this server combines repeated indices with add, "
            "subtract, multiply, maximum, minimum, fmax and fmin, in the array's dtype (not "
            "subtract of bool)");
  status = At(ElementwiseOp::kTrueDivide, flags, {int64_t{0}}, ScalarOperand(Scalar::Int(1)));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Read<uint8_t>(flags), (std::vector<uint8_t>{1, 0}));

  // An index out of bounds after valid ones: NumPy's IndexError text, nothing combined.
  const std::string a = Upload(DType::kInt64, std::vector<int64_t>{1, 2, 3});
  const std::string index = Upload(DType::kInt64, std::vector<int64_t>{0, 1, -4});
  status = At(ElementwiseOp::kAdd, a, {IndexArraySpec{index}}, ScalarOperand(Scalar::Int(1)));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "index -4 is out of bounds for axis 0 with size 3");
  EXPECT_EQ(Read<int64_t>(a), (std::vector<int64_t>{1, 2, 3}));
}

TEST_F(SetItemCombineTest, ATenantCannotCombineIntoAnothersArray) {
  const std::string a = Upload(DType::kInt64, std::vector<int64_t>{1, 2, 3});
  const Caller bob = Open("bob");
  const absl::Status status =
      At(ElementwiseOp::kAdd, a, {int64_t{0}}, ScalarOperand(Scalar::Int(1)), &bob);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  // Nor read one of another tenant's arrays as the values.
  absl::StatusOr<ArrayTable::RecordPtr> bobs =
      engine_.Create(bob, {.dtype = DType::kInt64, .shape = {3}, .kind = ZerosKind{}});
  ASSERT_TRUE(bobs.ok()) << bobs.status();
  const absl::Status reading =
      At(ElementwiseOp::kAdd, (*bobs)->handle.ToString(), {}, HandleOperand(a), &bob);
  EXPECT_EQ(reading.code(), absl::StatusCode::kNotFound) << reading;
  EXPECT_EQ(Read<int64_t>(a), (std::vector<int64_t>{1, 2, 3}));
}

}  // namespace
}  // namespace arrayhub
