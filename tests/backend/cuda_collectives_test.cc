// Collectives on the GPUs (NCCL; docs/devices.md) against the CPU backend's on as many virtual
// devices, on fresh random data: every kind, the reductions over each dtype class, ranks in an
// order other than the devices', strided inputs, and sessions racing writers of the inputs.
// Needs two GPUs at least (skipped below that).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "server/backend/backend_factory.h"
#include "server/backend/cuda/cuda_backend.h"
#include "server/common/float16.h"
#include "server/core/engine.h"
#include "tests/support/engine_download.h"
#include "tests/support/test_seed.h"

namespace arrayhub {
namespace {

// One engine's session and the arrays it holds.
class Side {
 public:
  explicit Side(std::vector<std::unique_ptr<Backend>> devices)
      : engine_(std::move(devices), Limits{}, SessionOptions{}, TenantQuota{}) {
    caller_ = Open();
  }

  Caller Open() {
    absl::StatusOr<Session> session =
        engine_.OpenSession("t", "collectives", std::chrono::seconds(600), 0);
    EXPECT_TRUE(session.ok()) << session.status();
    return engine_.ResolveSession("t", session->id.ToString()).value();
  }

  std::string Upload(int device, DType dtype, const Shape& shape,
                     const std::vector<std::byte>& bytes) {
    auto upload = engine_.BeginUpload(Engine::OnDevice(caller_, device), dtype, shape);
    EXPECT_TRUE(upload.ok()) << upload.status();
    EXPECT_TRUE((*upload)->Append(bytes).ok());
    absl::StatusOr<ArrayTable::RecordPtr> array = (*upload)->Finish();
    EXPECT_TRUE(array.ok()) << array.status();
    return (*array)->handle.ToString();
  }

  std::vector<std::byte> Read(const ArrayRecord& array) {
    absl::StatusOr<std::vector<std::byte>> bytes = testing::DownloadBytes(engine_, caller_, array);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    return bytes.ok() ? *bytes : std::vector<std::byte>{};
  }

  Engine& engine() { return engine_; }
  const Caller& caller() const { return caller_; }

 private:
  Engine engine_;
  Caller caller_;
};

// `count` random elements of `dtype`: small integers, values near 1 for products, unit
// complex values, and bools, so that no sum or product overflows a float.
std::vector<std::byte> RandomBytes(DType dtype, int64_t count, std::mt19937_64& random,
                                   int nan_one_in = 0) {
  std::vector<std::byte> bytes(static_cast<size_t>(count * ItemSize(dtype)));
  std::uniform_real_distribution<double> real(0.5, 1.5);
  std::uniform_int_distribution<int> small(-100, 100);
  for (int64_t i = 0; i < count; ++i) {
    std::byte* at = bytes.data() + i * ItemSize(dtype);
    auto put = [&](auto value) { std::memcpy(at, &value, sizeof(value)); };
    switch (dtype) {
      case DType::kBool:
        put(static_cast<uint8_t>(small(random) > 0));
        break;
      case DType::kInt8:
        put(static_cast<int8_t>(small(random)));
        break;
      case DType::kInt32:
        put(static_cast<int32_t>(small(random)));
        break;
      case DType::kUInt64:
        put(static_cast<uint64_t>(random()));
        break;
      case DType::kFloat16:
        put(HalfFromDouble(real(random)).bits());
        break;
      case DType::kFloat32:
        put(nan_one_in > 0 && random() % nan_one_in == 0 ? std::nanf("")
                                                         : static_cast<float>(real(random)));
        break;
      case DType::kFloat64:
        put(nan_one_in > 0 && random() % nan_one_in == 0 ? std::nan("") : real(random));
        break;
      case DType::kComplex64:
        put(std::complex<float>(float(real(random)), float(real(random))));
        break;
      default:
        ADD_FAILURE() << "no generator for " << DTypeName(dtype);
    }
  }
  return bytes;
}

// Equal bytes for integers and bools; within `tolerance` relative for the floating dtypes,
// whose sums NCCL adds in another order.
void ExpectClose(DType dtype, const std::vector<std::byte>& gpu, const std::vector<std::byte>& cpu,
                 const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
  const DTypeKind kind = KindOf(dtype);
  if (kind != DTypeKind::kFloat && kind != DTypeKind::kComplex) {
    EXPECT_TRUE(gpu == cpu) << what;
    return;
  }
  auto value = [&](const std::vector<std::byte>& bytes, size_t i) -> double {
    switch (dtype) {
      case DType::kFloat16: {
        uint16_t bits;
        std::memcpy(&bits, bytes.data() + 2 * i, 2);
        Imath::half half;
        half.setBits(bits);
        return static_cast<float>(half);
      }
      case DType::kFloat32:
      case DType::kComplex64: {
        float v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        return v;
      }
      default: {
        double v;
        std::memcpy(&v, bytes.data() + 8 * i, 8);
        return v;
      }
    }
  };
  const size_t reals = gpu.size() / (dtype == DType::kFloat16   ? 2
                                     : dtype == DType::kFloat64 ? 8
                                                                : 4);
  const double tolerance = dtype == DType::kFloat16   ? 2e-3
                           : dtype == DType::kFloat64 ? 1e-13
                                                      : 1e-6;
  int64_t bad = 0;
  for (size_t i = 0; i < reals; ++i) {
    const double g = value(gpu, i);
    const double c = value(cpu, i);
    if (std::isnan(g) && std::isnan(c)) continue;
    if (!(std::abs(g - c) <= tolerance * std::max(1.0, std::abs(c)))) {
      if (++bad <= 3) ADD_FAILURE() << what << " at " << i << ": gpu " << g << ", cpu " << c;
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

class CudaCollectivesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    devices_ = CudaDeviceCount();
    if (devices_ < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices_;
    gpu_ = std::make_unique<Side>(CreateBackends(BackendChoice::kCuda, {}).value());
    cpu_ = std::make_unique<Side>(
        CreateBackends(BackendChoice::kCpu, {.cpu_devices = devices_}).value());
    random_.seed(testing::BaseSeed() + 25);
  }

  // Runs `spec` (its handles: indices into the inputs, as strings) on both sides over the same
  // random inputs of `dtype` and `shape` on `order`'s devices, and compares every result.
  void Compare(CollectiveSpec spec, DType dtype, const Shape& shape, std::vector<int> order) {
    std::vector<std::string> gpu_handles;
    std::vector<std::string> cpu_handles;
    int64_t count = 1;
    for (int64_t extent : shape) count *= extent;
    for (int device : order) {
      const std::vector<std::byte> bytes = RandomBytes(dtype, count, random_, nan_fraction_);
      gpu_handles.push_back(gpu_->Upload(device, dtype, shape, bytes));
      cpu_handles.push_back(cpu_->Upload(device, dtype, shape, bytes));
    }
    const std::string what = fmt::format("{} {} of {} over devices {}", CollectiveName(spec.kind),
                                         spec.reduction ? ReductionName(*spec.reduction) : "",
                                         DTypeName(dtype), fmt::join(order, ","));
    spec.handles = gpu_handles;
    auto on_gpu = gpu_->engine().Collective(gpu_->caller(), spec);
    ASSERT_TRUE(on_gpu.ok()) << what << ": " << on_gpu.status();
    spec.handles = cpu_handles;
    auto on_cpu = cpu_->engine().Collective(cpu_->caller(), spec);
    ASSERT_TRUE(on_cpu.ok()) << what << ": " << on_cpu.status();
    ASSERT_EQ(on_gpu->size(), on_cpu->size());
    for (size_t r = 0; r < on_gpu->size(); ++r) {
      EXPECT_EQ((*on_gpu)[r]->device, (*on_cpu)[r]->device) << what;
      EXPECT_EQ((*on_gpu)[r]->shape, (*on_cpu)[r]->shape) << what;
      ExpectClose(dtype, gpu_->Read(*(*on_gpu)[r]), cpu_->Read(*(*on_cpu)[r]),
                  what + fmt::format(", rank {}", r));
    }
  }

  std::vector<int> AllDevices() const {
    std::vector<int> devices(static_cast<size_t>(devices_));
    for (int i = 0; i < devices_; ++i) devices[static_cast<size_t>(i)] = i;
    return devices;
  }

  int devices_ = 0;
  int nan_fraction_ = 0;  // Compare's float inputs: NaN one time in this many (0: never).
  std::unique_ptr<Side> gpu_;
  std::unique_ptr<Side> cpu_;
  std::mt19937_64 random_;
  testing::SeedTrace seed_trace_;
};

TEST_F(CudaCollectivesTest, AllReduceMatchesTheHostForEveryDTypeClassAndOp) {
  const Shape shape = {1000, 3};
  using R = CollectiveReduction;
  const std::vector<std::pair<DType, std::vector<R>>> cases = {
      {DType::kFloat32, {R::kSum, R::kProd, R::kMin, R::kMax, R::kAvg}},
      {DType::kFloat64, {R::kSum, R::kAvg}},
      {DType::kFloat16, {R::kSum, R::kMax}},
      {DType::kInt32, {R::kSum, R::kMin}},
      {DType::kInt8, {R::kProd}},
      {DType::kUInt64, {R::kMax, R::kSum}},
      {DType::kComplex64, {R::kSum, R::kAvg}},
      {DType::kBool, {R::kMin, R::kMax}},
  };
  for (const auto& [dtype, reductions] : cases) {
    for (R reduction : reductions) {
      Compare({.kind = CollectiveKind::kAllReduce, .reduction = reduction}, dtype, shape,
              AllDevices());
    }
  }
}

TEST_F(CudaCollectivesTest, MinAndMaxTreatNanAsTheHostDoes) {
  // NaN in a third of the values: NCCL ignores it unless every rank's is NaN, and so does the
  // CPU backend.
  const Shape shape = {3000};
  nan_fraction_ = 3;
  for (CollectiveReduction reduction : {CollectiveReduction::kMin, CollectiveReduction::kMax}) {
    Compare({.kind = CollectiveKind::kAllReduce, .reduction = reduction}, DType::kFloat32, shape,
            AllDevices());
    Compare({.kind = CollectiveKind::kReduceScatter, .reduction = reduction}, DType::kFloat64,
            {devices_ * 100}, AllDevices());
  }
}

TEST_F(CudaCollectivesTest, EveryKindMatchesTheHostInDeviceAndReversedRankOrder) {
  std::vector<int> reversed = AllDevices();
  std::reverse(reversed.begin(), reversed.end());
  const Shape shape = {6 * devices_, 50};  // Splits into parts along axis 0.
  for (const std::vector<int>& order : {AllDevices(), reversed}) {
    Compare({.kind = CollectiveKind::kReduce,
             .reduction = CollectiveReduction::kSum,
             .root = devices_ - 1},
            DType::kFloat32, shape, order);
    Compare({.kind = CollectiveKind::kAllGather}, DType::kFloat16, shape, order);
    Compare({.kind = CollectiveKind::kReduceScatter, .reduction = CollectiveReduction::kMax},
            DType::kInt32, shape, order);
    Compare({.kind = CollectiveKind::kAllToAll}, DType::kFloat64, shape, order);
  }
}

TEST_F(CudaCollectivesTest, BroadcastSendsFromTheArraysDevice) {
  const std::vector<std::byte> bytes = RandomBytes(DType::kFloat32, 4096, random_);
  const std::string source = gpu_->Upload(1, DType::kFloat32, {4096}, bytes);
  std::vector<int> devices = AllDevices();
  std::reverse(devices.begin(), devices.end());
  auto copies = gpu_->engine().Collective(
      gpu_->caller(),
      {.kind = CollectiveKind::kBroadcast, .handles = {source}, .devices = devices});
  ASSERT_TRUE(copies.ok()) << copies.status();
  ASSERT_EQ(copies->size(), devices.size());
  for (size_t r = 0; r < devices.size(); ++r) {
    EXPECT_EQ((*copies)[r]->device, devices[r]);
    EXPECT_TRUE(gpu_->Read(*(*copies)[r]) == bytes) << "rank " << r;
  }
}

TEST_F(CudaCollectivesTest, StridedInputsAndRacingWritersKeepTheValues) {
  // Each device holds a transposed 256 x 256 float64 view of i * 1 + device; four sessions
  // all-reduce the views while two rewrite device 0's matrix with its own values (x + 0).
  const int64_t n = 256;
  std::vector<std::string> views;
  std::string matrix0;
  for (int device = 0; device < devices_; ++device) {
    std::vector<double> values(static_cast<size_t>(n * n));
    for (size_t i = 0; i < values.size(); ++i) values[i] = double(i) + device;
    std::vector<std::byte> bytes(values.size() * 8);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    const std::string matrix = gpu_->Upload(device, DType::kFloat64, {n, n}, bytes);
    if (device == 0) matrix0 = matrix;
    auto view = gpu_->engine().View(Engine::OnDevice(gpu_->caller(), device),
                                    {.handle = matrix, .op = TransposeSpec{}});
    ASSERT_TRUE(view.ok()) << view.status();
    views.push_back((*view)->handle.ToString());
  }
  // Element (0, 1) of the transpose is matrix[1][0] = n + device, summed over the devices.
  double expected = 0;
  for (int device = 0; device < devices_; ++device) expected += double(n) + device;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      Engine& engine = gpu_->engine();
      const Caller caller = gpu_->Open();
      for (int i = 0; i < 10; ++i) {
        if (t >= 4) {
          auto same =
              engine.Elementwise(caller, {.op = ElementwiseOp::kAdd,
                                          .operands = {OperandSpec{.handle = matrix0},
                                                       OperandSpec{.scalar = Scalar::Float(0.0)}},
                                          .out = matrix0,
                                          .dtype = std::nullopt});
          if (!same.ok()) ++failures;
          continue;
        }
        auto sums = engine.Collective(caller, {.kind = CollectiveKind::kAllReduce,
                                               .reduction = CollectiveReduction::kSum,
                                               .handles = views});
        if (!sums.ok()) {
          ADD_FAILURE() << sums.status();
          ++failures;
          continue;
        }
        auto bytes = testing::DownloadBytes(engine, caller, *sums->back());
        double at01 = 0;
        if (bytes.ok()) std::memcpy(&at01, bytes->data() + 8, 8);
        if (!bytes.ok() || at01 != expected) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace arrayhub
