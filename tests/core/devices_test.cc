// Several devices in one engine (docs/devices.md), on two virtual CPU devices: sessions spread
// over the devices, arrays live where their call ran, an op refuses an operand of another device
// with a message naming both, CopyToDevice moves any layout between devices with its values,
// reads and views work from any device, the byte quota counts every device, events are timed
// on one device, and concurrent copies and ops between the devices keep the values right.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/core/engine.h"
#include "tests/support/engine_download.h"

namespace arrayhub {
namespace {

constexpr int64_t kQuotaBytes = 1 << 20;

std::vector<std::unique_ptr<Backend>> TwoDevices() {
  std::vector<std::unique_ptr<Backend>> devices;
  devices.push_back(std::make_unique<HostBackend>(HostMemoryCapacity(), "cpu:0"));
  devices.push_back(std::make_unique<HostBackend>(HostMemoryCapacity(), "cpu:1"));
  return devices;
}

OperandSpec HandleOperand(const std::string& handle) {
  return OperandSpec{.handle = handle, .scalar = {}, .chain_value = {}};
}

class DevicesTest : public ::testing::Test {
 protected:
  Caller Open(std::optional<int> device, const std::string& tenant = "t") {
    absl::StatusOr<Session> session =
        engine_.OpenSession(tenant, "devices", std::chrono::seconds(60), device);
    EXPECT_TRUE(session.ok()) << session.status();
    absl::StatusOr<Caller> caller = engine_.ResolveSession(tenant, session->id.ToString());
    EXPECT_TRUE(caller.ok()) << caller.status();
    return *caller;
  }

  // float64 values 0, 1, ..., n-1 on the caller's device.
  ArrayTable::RecordPtr Arange(const Caller& caller, int64_t n) {
    absl::StatusOr<ArrayTable::RecordPtr> array = engine_.Create(
        caller,
        {.dtype = DType::kFloat64,
         .shape = {},
         .kind = ArangeKind{.start = Scalar::Float(0.0), .stop = Scalar::Float(double(n))}});
    EXPECT_TRUE(array.ok()) << array.status();
    return array.ok() ? *array : nullptr;
  }

  std::vector<double> Read(const Caller& caller, const ArrayRecord& array) {
    absl::StatusOr<std::vector<std::byte>> bytes = testing::DownloadBytes(engine_, caller, array);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    if (!bytes.ok()) return {};
    std::vector<double> values(bytes->size() / sizeof(double));
    std::memcpy(values.data(), bytes->data(), bytes->size());
    return values;
  }

  Engine engine_{TwoDevices(), Limits{}, SessionOptions{}, TenantQuota{.max_bytes = kQuotaBytes}};
};

TEST_F(DevicesTest, SessionsGoToTheLeastUsedDeviceUnlessTheyNameOne) {
  const Caller first = Open(std::nullopt);
  EXPECT_EQ(first.device, 0);               // A tie goes to the first.
  EXPECT_EQ(Open(std::nullopt).device, 1);  // Equal memory: the fewer sessions.
  ASSERT_NE(Arange(first, 1000), nullptr);
  EXPECT_EQ(Open(std::nullopt).device, 1);  // Less memory, although more sessions.
  EXPECT_EQ(Open(0).device, 0);
  absl::StatusOr<Session> refused =
      engine_.OpenSession("t", "devices", std::chrono::seconds(60), 2);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(),
            "device 2 is not a device of this daemon, which has 2 (0 to 1)");
  const std::vector<Engine::DeviceUsage> usage = engine_.UsageByDevice();
  EXPECT_EQ(usage[0].bytes_in_use, 8000);
  EXPECT_EQ(usage[0].sessions, 2);
  EXPECT_EQ(usage[1].sessions, 2);
}

TEST_F(DevicesTest, ACallRunsOnTheDeviceItNames) {
  const Caller session = Open(0);
  absl::StatusOr<Caller> on_one = engine_.ResolveSession("t", session.session.ToString(), 1);
  ASSERT_TRUE(on_one.ok()) << on_one.status();
  const ArrayTable::RecordPtr array = Arange(*on_one, 4);
  EXPECT_EQ(array->device, 1);
  EXPECT_EQ(engine_.DeviceName(array->device), "cpu:1");
  EXPECT_EQ(engine_.UsageByDevice()[1].bytes_in_use, 32);
  EXPECT_EQ(engine_.ResolveSession("t", session.session.ToString(), 5).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(DevicesTest, AnOperandOfAnotherDeviceIsRefusedNamingBoth) {
  const Caller zero = Open(0);
  const Caller one = Engine::OnDevice(zero, 1);
  const ArrayTable::RecordPtr a = Arange(zero, 4);
  const ArrayTable::RecordPtr b = Arange(one, 4);
  const int64_t arrays = engine_.Stats().arrays;
  absl::StatusOr<ArrayTable::RecordPtr> sum = engine_.Elementwise(
      zero,
      {.op = ElementwiseOp::kAdd,
       .operands = {HandleOperand(a->handle.ToString()), HandleOperand(b->handle.ToString())}});
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sum.status().message(),
            "operands[1] " + b->handle.ToString() +
                " is on device 1 (cpu:1), but the call runs on device 0 (cpu:0): copy it there "
                "(CopyToDevice) or run the call on device 1");
  EXPECT_EQ(engine_.Stats().arrays, arrays);  // Nothing was made.
}

TEST_F(DevicesTest, CopyToDeviceMovesAnyLayoutWithItsValues) {
  const Caller zero = Open(0);
  absl::StatusOr<ArrayTable::RecordPtr> matrix = engine_.Create(
      zero, {.dtype = DType::kFloat64,
             .shape = {},
             .kind = ArangeKind{.start = Scalar::Float(0.0), .stop = Scalar::Float(6.0)}});
  ASSERT_TRUE(matrix.ok());
  absl::StatusOr<ArrayTable::RecordPtr> grid = engine_.View(
      zero, {.handle = (*matrix)->handle.ToString(), .op = ReshapeSpec{.shape = {2, 3}}});
  ASSERT_TRUE(grid.ok()) << grid.status();
  absl::StatusOr<ArrayTable::RecordPtr> transposed =
      engine_.View(zero, {.handle = (*grid)->handle.ToString(), .op = TransposeSpec{}});
  ASSERT_TRUE(transposed.ok()) << transposed.status();
  ASSERT_FALSE((*transposed)->c_contiguous());

  absl::StatusOr<ArrayTable::RecordPtr> moved =
      engine_.CopyToDevice(zero, (*transposed)->handle.ToString(), 1);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ((*moved)->device, 1);
  EXPECT_TRUE((*moved)->c_contiguous());
  EXPECT_EQ((*moved)->shape, (Shape{3, 2}));
  EXPECT_EQ(Read(zero, **moved), (std::vector<double>{0, 3, 1, 4, 2, 5}));

  // And back, from a call on either device; to its own device it is a plain copy.
  absl::StatusOr<ArrayTable::RecordPtr> back =
      engine_.CopyToDevice(Engine::OnDevice(zero, 1), (*moved)->handle.ToString(), 0);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)->device, 0);
  EXPECT_EQ(Read(zero, **back), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(engine_.CopyToDevice(zero, (*back)->handle.ToString(), 2).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(DevicesTest, ReadsAndViewsWorkFromAnyDevice) {
  const Caller zero = Open(0);
  const ArrayTable::RecordPtr on_one = Arange(Engine::OnDevice(zero, 1), 5);
  EXPECT_EQ(Read(zero, *on_one), (std::vector<double>{0, 1, 2, 3, 4}));
  absl::StatusOr<ArrayTable::RecordPtr> item = engine_.GetItem(
      zero, {.handle = on_one->handle.ToString(), .index = {SliceSpec{.start = 1, .stop = 3}}});
  ASSERT_TRUE(item.ok()) << item.status();
  EXPECT_EQ((*item)->device, 1);  // A view lives with its base.
  EXPECT_EQ(Read(zero, **item), (std::vector<double>{1, 2}));
}

TEST_F(DevicesTest, TheByteQuotaCountsEveryDevice) {
  const Caller zero = Open(0);
  const int64_t n = kQuotaBytes / 8 * 3 / 5;  // 60% of the quota each.
  ASSERT_NE(Arange(zero, n), nullptr);
  absl::StatusOr<ArrayTable::RecordPtr> over = engine_.Create(
      Engine::OnDevice(zero, 1), {.dtype = DType::kFloat64, .shape = {n}, .kind = ZerosKind{}});
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(engine_.UsageByDevice()[1].bytes_in_use, 0);
}

TEST_F(DevicesTest, EventsAreTimedOnOneDevice) {
  const Caller zero = Open(0);
  ASSERT_TRUE(engine_.RecordEvent(zero, 1).ok());
  ASSERT_TRUE(engine_.RecordEvent(zero, 2).ok());
  ASSERT_TRUE(engine_.RecordEvent(Engine::OnDevice(zero, 1), 3).ok());
  EXPECT_TRUE(engine_.EventElapsedMilliseconds(zero, 1, 2).ok());
  absl::StatusOr<double> across = engine_.EventElapsedMilliseconds(zero, 1, 3);
  EXPECT_EQ(across.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(across.status().message(),
            "start_event_id 1 was recorded on device 0 and end_event_id 3 on device 1: elapsed "
            "time is measured between events of one device");
}

TEST_F(DevicesTest, ConcurrentCopiesAndOpsBetweenDevicesKeepTheValues) {
  const Caller zero = Open(0);
  const Caller one = Engine::OnDevice(zero, 1);
  const ArrayTable::RecordPtr source = Arange(zero, 256);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const Caller& caller = t % 2 == 0 ? zero : one;
      for (int i = 0; i < 20; ++i) {
        absl::StatusOr<ArrayTable::RecordPtr> copy =
            engine_.CopyToDevice(caller, source->handle.ToString(), 1 - t % 2);
        if (!copy.ok()) {
          ++failures;
          continue;
        }
        const Caller on_copy = Engine::OnDevice(caller, (*copy)->device);
        absl::StatusOr<ArrayTable::RecordPtr> doubled =
            engine_.Elementwise(on_copy, {.op = ElementwiseOp::kAdd,
                                          .operands = {HandleOperand((*copy)->handle.ToString()),
                                                       HandleOperand((*copy)->handle.ToString())}});
        if (!doubled.ok() || Read(caller, **doubled)[255] != 510.0) ++failures;
        (void)engine_.Free(caller, std::vector<std::string>{(*copy)->handle.ToString()});
        if (doubled.ok()) {
          (void)engine_.Free(caller, std::vector<std::string>{(*doubled)->handle.ToString()});
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace arrayhub
