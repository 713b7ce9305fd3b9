// Collectives across devices (Engine::Collective; docs/devices.md), on three virtual CPU devices
// (three, so that rank order and parts that are not halves show): every kind against values
// computed here, the rules' refusals with their messages, a failed call that leaves nothing,
// and concurrent collectives with writers of their inputs keeping the values right.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/core/engine.h"
#include "tests/support/engine_download.h"

namespace arrayhub {
namespace {

constexpr int kDevices = 3;
constexpr int64_t kQuotaBytes = 1 << 20;

std::vector<std::unique_ptr<Backend>> ThreeDevices() {
  std::vector<std::unique_ptr<Backend>> devices;
  for (int i = 0; i < kDevices; ++i) {
    devices.push_back(
        std::make_unique<HostBackend>(HostMemoryCapacity(), "cpu:" + std::to_string(i)));
  }
  return devices;
}

class CollectivesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Session> session =
        engine_.OpenSession("t", "collectives", std::chrono::seconds(60), 0);
    ASSERT_TRUE(session.ok()) << session.status();
    absl::StatusOr<Caller> caller = engine_.ResolveSession("t", session->id.ToString());
    ASSERT_TRUE(caller.ok()) << caller.status();
    caller_ = *caller;
  }

  // A new array of `values` (as `T`, shape `shape`) on `device`.
  template <typename T>
  std::string Upload(int device, DType dtype, const Shape& shape, const std::vector<T>& values) {
    absl::StatusOr<std::unique_ptr<PendingUpload>> upload =
        engine_.BeginUpload(Engine::OnDevice(caller_, device), dtype, shape);
    EXPECT_TRUE(upload.ok()) << upload.status();
    if (!upload.ok()) return "";
    EXPECT_TRUE((*upload)
                    ->Append(std::span(reinterpret_cast<const std::byte*>(values.data()),
                                       values.size() * sizeof(T)))
                    .ok());
    absl::StatusOr<ArrayTable::RecordPtr> array = (*upload)->Finish();
    EXPECT_TRUE(array.ok()) << array.status();
    return array.ok() ? (*array)->handle.ToString() : "";
  }

  template <typename T>
  std::vector<T> Read(const ArrayRecord& array) {
    absl::StatusOr<std::vector<std::byte>> bytes = testing::DownloadBytes(engine_, caller_, array);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    if (!bytes.ok()) return {};
    std::vector<T> values(bytes->size() / sizeof(T));
    std::memcpy(values.data(), bytes->data(), bytes->size());
    return values;
  }

  // Rank r's input: r * 100 + i for i < n, as float64, on device r.
  std::vector<std::string> Inputs(int64_t n, int ranks = kDevices) {
    std::vector<std::string> handles;
    for (int r = 0; r < ranks; ++r) {
      std::vector<double> values;
      for (int64_t i = 0; i < n; ++i) values.push_back(r * 100.0 + double(i));
      handles.push_back(Upload(r, DType::kFloat64, {n}, values));
    }
    return handles;
  }

  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> Run(
      CollectiveKind kind, std::vector<std::string> handles,
      std::optional<CollectiveReduction> reduction = std::nullopt, int root = 0,
      std::vector<int> devices = {}) {
    return engine_.Collective(caller_, {.kind = kind,
                                        .reduction = reduction,
                                        .handles = std::move(handles),
                                        .devices = std::move(devices),
                                        .root = root});
  }

  void ExpectRefused(const absl::StatusOr<std::vector<ArrayTable::RecordPtr>>& result,
                     const std::string& message) {
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(result.status().message()), message);
  }

  Engine engine_{ThreeDevices(), Limits{}, SessionOptions{}, TenantQuota{.max_bytes = kQuotaBytes}};
  Caller caller_;
};

TEST_F(CollectivesTest, AllReduceGivesEveryRankTheReduction) {
  const std::vector<std::string> inputs = Inputs(4);
  for (const auto& [reduction, expected] :
       std::vector<std::pair<CollectiveReduction, std::vector<double>>>{
           {CollectiveReduction::kSum, {300, 303, 306, 309}},
           {CollectiveReduction::kAvg, {100, 101, 102, 103}},
           {CollectiveReduction::kMin, {0, 1, 2, 3}},
           {CollectiveReduction::kMax, {200, 201, 202, 203}},
           {CollectiveReduction::kProd, {0, 1 * 101 * 201, 2 * 102 * 202, 3 * 103 * 203}}}) {
    absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results =
        Run(CollectiveKind::kAllReduce, inputs, reduction);
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), 3u);
    for (int r = 0; r < kDevices; ++r) {
      EXPECT_EQ((*results)[r]->device, r);
      EXPECT_EQ((*results)[r]->session, caller_.session);
      EXPECT_EQ(Read<double>(*(*results)[r]), expected) << ReductionName(reduction);
    }
  }
}

TEST_F(CollectivesTest, IntegersWrapAndComplexAndBoolReduceAsNcclDoes) {
  std::vector<std::string> ints;
  std::vector<std::string> complexes;
  std::vector<std::string> bools;
  for (int r = 0; r < kDevices; ++r) {
    ints.push_back(Upload<int8_t>(r, DType::kInt8, {2}, {int8_t(100), int8_t(-100)}));
    complexes.push_back(Upload<std::complex<float>>(r, DType::kComplex64, {1},
                                                    {std::complex<float>(float(r), 1.0f)}));
    bools.push_back(Upload<uint8_t>(r, DType::kBool, {2}, {1, uint8_t(r != 1)}));
  }
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> wrapped =
      Run(CollectiveKind::kAllReduce, ints, CollectiveReduction::kSum);
  ASSERT_TRUE(wrapped.ok()) << wrapped.status();
  EXPECT_EQ(Read<int8_t>(*(*wrapped)[2]), (std::vector<int8_t>{44, -44}));  // 300 - 256.
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> mean =
      Run(CollectiveKind::kAllReduce, complexes, CollectiveReduction::kAvg);
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_EQ(Read<std::complex<float>>(*(*mean)[1]),
            (std::vector<std::complex<float>>{{1.0f, 1.0f}}));
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> all =
      Run(CollectiveKind::kAllReduce, bools, CollectiveReduction::kMin);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(Read<uint8_t>(*(*all)[0]), (std::vector<uint8_t>{1, 0}));
}

TEST_F(CollectivesTest, MinAndMaxIgnoreNanUnlessEveryValueIsNan) {
  // NCCL's rule (numpy.fmin/fmax), which the GPUs showed: the CPU backend answers alike.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::string> inputs;
  const std::vector<std::vector<float>> values = {{nan, 1, nan}, {2, nan, nan}, {nan, 3, nan}};
  for (int r = 0; r < kDevices; ++r) inputs.push_back(Upload(r, DType::kFloat32, {3}, values[r]));
  for (const auto& [reduction, expected] :
       std::vector<std::pair<CollectiveReduction, std::vector<float>>>{
           {CollectiveReduction::kMin, {2, 1}}, {CollectiveReduction::kMax, {2, 3}}}) {
    absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results =
        Run(CollectiveKind::kAllReduce, inputs, reduction);
    ASSERT_TRUE(results.ok()) << results.status();
    const std::vector<float> got = Read<float>(*(*results)[0]);
    EXPECT_EQ(got[0], expected[0]);
    EXPECT_EQ(got[1], expected[1]);
    EXPECT_TRUE(std::isnan(got[2]));
  }
}

TEST_F(CollectivesTest, ReduceGivesOnlyTheRoot) {
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results =
      Run(CollectiveKind::kReduce, Inputs(3), CollectiveReduction::kSum, /*root=*/2);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0]->device, 2);
  EXPECT_EQ(Read<double>(*(*results)[0]), (std::vector<double>{300, 303, 306}));
}

TEST_F(CollectivesTest, BroadcastCopiesFromTheArraysDeviceInDevicesOrder) {
  const std::string source = Upload<double>(1, DType::kFloat64, {2, 2}, {1, 2, 3, 4});
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results =
      Run(CollectiveKind::kBroadcast, {source}, std::nullopt, 0, {2, 1, 0});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 3u);
  for (int r = 0; r < kDevices; ++r) {
    EXPECT_EQ((*results)[r]->device, 2 - r);
    EXPECT_EQ((*results)[r]->shape, (Shape{2, 2}));
    EXPECT_EQ(Read<double>(*(*results)[r]), (std::vector<double>{1, 2, 3, 4}));
  }
}

TEST_F(CollectivesTest, AllGatherJoinsAlongAxisZeroInRankOrder) {
  // Ranks in another order than the devices': rank 0 on device 2, rank 1 on 0, rank 2 on 1.
  std::vector<std::string> inputs = Inputs(2);
  std::rotate(inputs.begin(), inputs.begin() + 2, inputs.end());
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results =
      Run(CollectiveKind::kAllGather, inputs);
  ASSERT_TRUE(results.ok()) << results.status();
  for (int r = 0; r < kDevices; ++r) {
    EXPECT_EQ((*results)[r]->device, (r + 2) % kDevices);
    EXPECT_EQ((*results)[r]->shape, (Shape{6}));
    EXPECT_EQ(Read<double>(*(*results)[r]), (std::vector<double>{200, 201, 0, 1, 100, 101}));
  }
}

TEST_F(CollectivesTest, ReduceScatterGivesRankIPartIOfTheReduction) {
  std::vector<std::string> inputs;
  for (int r = 0; r < kDevices; ++r) {
    std::vector<int32_t> values;
    for (int i = 0; i < 6; ++i) values.push_back(r * 10 + i);
    inputs.push_back(Upload<int32_t>(r, DType::kInt32, {3, 2}, values));
  }
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results =
      Run(CollectiveKind::kReduceScatter, inputs, CollectiveReduction::kMax);
  ASSERT_TRUE(results.ok()) << results.status();
  for (int r = 0; r < kDevices; ++r) {
    EXPECT_EQ((*results)[r]->shape, (Shape{1, 2}));
    EXPECT_EQ(Read<int32_t>(*(*results)[r]), (std::vector<int32_t>{20 + 2 * r, 21 + 2 * r}));
  }
}

TEST_F(CollectivesTest, AllToAllSendsPartJOfEveryInputToRankJ) {
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results =
      Run(CollectiveKind::kAllToAll, Inputs(3));
  ASSERT_TRUE(results.ok()) << results.status();
  for (int j = 0; j < kDevices; ++j) {
    EXPECT_EQ(Read<double>(*(*results)[j]), (std::vector<double>{double(j), 100.0 + j, 200.0 + j}));
  }
}

TEST_F(CollectivesTest, StridedInputsAreReadInTheirLogicalOrder) {
  std::vector<std::string> inputs;
  for (int r = 0; r < 2; ++r) {
    const std::string matrix = Upload<double>(r, DType::kFloat64, {2, 2}, {1, 2, 3, 4});
    absl::StatusOr<ArrayTable::RecordPtr> transposed =
        engine_.View(Engine::OnDevice(caller_, r), {.handle = matrix, .op = TransposeSpec{}});
    ASSERT_TRUE(transposed.ok()) << transposed.status();
    inputs.push_back((*transposed)->handle.ToString());
  }
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results =
      Run(CollectiveKind::kAllReduce, inputs, CollectiveReduction::kSum);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(Read<double>(*(*results)[1]), (std::vector<double>{2, 6, 4, 8}));
}

TEST_F(CollectivesTest, TheRulesRefuseWithMessagesAndChangeNothing) {
  const std::vector<std::string> inputs = Inputs(4);
  const std::string other = Upload<float>(1, DType::kFloat32, {4}, {1, 2, 3, 4});
  std::vector<std::string> shorts;
  std::vector<std::string> bools;
  std::vector<std::string> ints;
  std::vector<std::string> complexes;
  for (int r = 0; r < 2; ++r) {
    shorts.push_back(Upload<int16_t>(r, DType::kInt16, {1}, {1}));
    bools.push_back(Upload<uint8_t>(r, DType::kBool, {1}, {1}));
    ints.push_back(Upload<int32_t>(r, DType::kInt32, {1}, {1}));
    complexes.push_back(Upload<std::complex<double>>(r, DType::kComplex128, {1}, {{1, 1}}));
  }
  const int64_t arrays = engine_.Stats().arrays;
  ExpectRefused(Run(CollectiveKind::kAllReduce, {}, CollectiveReduction::kSum),
                "all_reduce: handles must name one array per rank, and names none");
  ExpectRefused(Run(CollectiveKind::kAllReduce, inputs),
                "all_reduce: op is required (sum, prod, min, max or avg)");
  ExpectRefused(Run(CollectiveKind::kAllGather, inputs, CollectiveReduction::kSum),
                "all_gather: op is for the reductions (all_reduce, reduce, reduce_scatter)");
  ExpectRefused(Run(CollectiveKind::kReduce, inputs, CollectiveReduction::kSum, 3),
                "reduce: root 3 is not a rank: there are 3 (0 to 2)");
  ExpectRefused(Run(CollectiveKind::kAllReduce, inputs, CollectiveReduction::kSum, 1),
                "all_reduce: root is for reduce");
  ExpectRefused(Run(CollectiveKind::kAllReduce, {inputs[0], inputs[0]}, CollectiveReduction::kSum),
                "all_reduce: handles[1] is on device 0 (cpu:0) as handles[0] is: a collective "
                "has one rank per device");
  ExpectRefused(Run(CollectiveKind::kAllReduce, {inputs[0], inputs[1], inputs[2], inputs[0]},
                    CollectiveReduction::kSum),
                "all_reduce: 4 ranks, but this daemon has 3 devices: a collective has one rank "
                "per device");
  ExpectRefused(Run(CollectiveKind::kAllReduce, {inputs[0], other}, CollectiveReduction::kSum),
                "all_reduce: handles[1] is float32 of shape (4,), but handles[0] is float64 of "
                "shape (4,): the arrays of a collective must match");
  ExpectRefused(Run(CollectiveKind::kReduceScatter, inputs, CollectiveReduction::kSum),
                "reduce_scatter: axis 0 of shape (4,) does not split into 3 equal parts, one per "
                "rank");
  ExpectRefused(Run(CollectiveKind::kBroadcast, {inputs[0]}, std::nullopt, 0, {1, 2}),
                "broadcast: the array is on device 0 (cpu:0), which devices must include: it "
                "sends from there");
  ExpectRefused(Run(CollectiveKind::kBroadcast, {inputs[0]}, std::nullopt, 0, {0, 3}),
                "broadcast: devices[1] 3 is not a device of this daemon, which has 3 (0 to 2)");
  ExpectRefused(Run(CollectiveKind::kBroadcast, {inputs[0], inputs[1]}, std::nullopt, 0, {0}),
                "broadcast: handles must name the one array it sends, not 2");
  ExpectRefused(Run(CollectiveKind::kAllGather, inputs, std::nullopt, 0, {0, 1, 2}),
                "all_gather: devices is for broadcast; the ranks are the arrays' devices");
  ExpectRefused(Run(CollectiveKind::kAllReduce, shorts, CollectiveReduction::kSum),
                "all_reduce: dtype int16 cannot be reduced across devices (NCCL has no 16-bit "
                "integers); cast it to int32 first");
  ExpectRefused(Run(CollectiveKind::kAllReduce, bools, CollectiveReduction::kSum),
                "all_reduce: op sum is not defined for dtype bool; min and max (logical and, or) "
                "are");
  ExpectRefused(Run(CollectiveKind::kAllReduce, ints, CollectiveReduction::kAvg),
                "all_reduce: op avg needs a floating or complex dtype, not int32");
  ExpectRefused(Run(CollectiveKind::kAllReduce, complexes, CollectiveReduction::kProd),
                "all_reduce: op prod is not defined for complex dtype complex128; sum and avg "
                "are");
  EXPECT_EQ(engine_.Stats().arrays, arrays);
  // Moving bytes takes every dtype.
  EXPECT_TRUE(Run(CollectiveKind::kAllGather, shorts).ok());
  EXPECT_EQ(engine_.Stats().arrays, arrays + 2);
}

TEST_F(CollectivesTest, ResultsPastTheQuotaAreRefusedBeforeAnythingIsMade) {
  const int64_t n = kQuotaBytes / 8 / 5;  // Inputs 3 x 20% of the quota; a gather needs 180%.
  const std::vector<std::string> inputs = Inputs(n);
  const int64_t arrays = engine_.Stats().arrays;
  const std::vector<Engine::DeviceUsage> before = engine_.UsageByDevice();
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> gathered =
      Run(CollectiveKind::kAllGather, inputs);
  EXPECT_EQ(gathered.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(engine_.Stats().arrays, arrays);
  for (int r = 0; r < kDevices; ++r) {
    EXPECT_EQ(engine_.UsageByDevice()[r].bytes_in_use, before[r].bytes_in_use);
  }
}

TEST_F(CollectivesTest, ConcurrentCollectivesAndWritersKeepTheValues) {
  // Four threads all-reduce the same inputs while two others overwrite them with the same
  // values and read the results: a collective never sees an input half written, and each sum
  // is exact.
  const int64_t n = 512;
  const std::vector<std::string> inputs = Inputs(n);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      const Caller caller = Engine::OnDevice(caller_, t % kDevices);
      for (int i = 0; i < 15; ++i) {
        if (t >= 4) {
          // Rewrites rank t-4's input with what it holds: r * 100 + i.
          const int r = t - 4;
          const Caller on_rank = Engine::OnDevice(caller_, r);
          absl::StatusOr<ArrayTable::RecordPtr> same =
              engine_.Elementwise(on_rank, {.op = ElementwiseOp::kAdd,
                                            .operands = {OperandSpec{.handle = inputs[r]},
                                                         OperandSpec{.scalar = Scalar::Float(0.0)}},
                                            .out = inputs[r],
                                            .dtype = std::nullopt});
          if (!same.ok()) ++failures;
          continue;
        }
        absl::StatusOr<std::vector<ArrayTable::RecordPtr>> sums =
            engine_.Collective(caller, {.kind = CollectiveKind::kAllReduce,
                                        .reduction = CollectiveReduction::kSum,
                                        .handles = inputs,
                                        .devices = {},
                                        .root = 0});
        if (!sums.ok()) {
          ++failures;
          continue;
        }
        const std::vector<double> values = Read<double>(*(*sums)[t % kDevices]);
        if (values.size() != size_t(n) || values[n - 1] != 300.0 + 3.0 * double(n - 1)) {
          ++failures;
        }
        std::vector<std::string> handles;
        for (const ArrayTable::RecordPtr& sum : *sums) handles.push_back(sum->handle.ToString());
        (void)engine_.Free(caller, handles);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace arrayhub
