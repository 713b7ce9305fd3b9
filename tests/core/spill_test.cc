// Spilling (server/core/spiller.h) on the CPU backend, whose device is host memory up to a
// limit: every op family gives the same bytes on spilled inputs as on resident ones, a
// workload 1.5x the device completes, the soft limit spills only its tenant, the hard quota
// still refuses, spill files are private and go with their arrays, and many threads using the
// same arrays under pressure see no wrong data. ThreadSanitizer runs this suite
// (core_state_test). Built with ARRAYHUB_SPILL_TEST_CUDA, the same tests run on the CUDA
// backend (cuda_spill_test, label gpu), with a host tier; there the soft limit makes the
// pressure, the device being too large to fill in a test.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <regex>
#include <thread>
#include <vector>

#include "server/backend/backend_factory.h"
#include "server/backend/host/host_backend.h"
#include "server/core/engine.h"
#include "tests/support/engine_download.h"

namespace arrayhub {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

constexpr int64_t kUnlimited = TenantQuota::kUnlimited;
#ifdef ARRAYHUB_SPILL_TEST_CUDA
constexpr bool kCuda = true;
#else
constexpr bool kCuda = false;
#endif
// Host memory for spilled arrays (CUDA only; the CPU backend has no host tier): a few small
// arrays go there, the rest to disk.
constexpr int64_t kHostTier = 8 << 10;

// The device: the CPU backend holding `bytes`, or CUDA device 0 whatever its size.
std::unique_ptr<Backend> Device(int64_t bytes) {
  if (kCuda) return CreateBackend(BackendChoice::kCuda).value();
  return std::make_unique<HostBackend>(bytes);
}

class SpillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("spill-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    engines_.clear();
    fs::remove_all(dir_);
  }

  std::string SpillDirectory() const { return (dir_ / "spill").string(); }

  // An engine whose device holds `device_bytes`; spilling to SpillDirectory() unless
  // `spilling` is false.
  Engine& NewEngine(int64_t device_bytes, int64_t soft_bytes = kUnlimited,
                    int64_t quota_bytes = kUnlimited, bool spilling = true,
                    int64_t host_bytes = 0) {
    engines_.push_back(std::make_unique<Engine>(Device(device_bytes), Limits{}, SessionOptions{},
                                                TenantQuota{.max_bytes = quota_bytes}));
    Engine& engine = *engines_.back();
    if (spilling) {
      EXPECT_TRUE(engine
                      .ConfigureSpilling({.directory = SpillDirectory(),
                                          .host_bytes = host_bytes,
                                          .tenant_soft_bytes = soft_bytes})
                      .ok());
    }
    return engine;
  }

  // Helpers RunEveryFamily shares.
 public:
  static Caller Open(Engine& engine, const std::string& tenant) {
    absl::StatusOr<Session> session = engine.OpenSession(tenant, "spill-test", seconds(600));
    EXPECT_TRUE(session.ok()) << session.status();
    absl::StatusOr<Caller> caller = engine.ResolveSession(tenant, session->id.ToString(), {});
    EXPECT_TRUE(caller.ok()) << caller.status();
    return *caller;
  }

  static absl::StatusOr<std::string> Upload(Engine& engine, const Caller& caller,
                                            const std::vector<double>& values, Shape shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(values.size())};
    AH_ASSIGN_OR_RETURN(std::unique_ptr<PendingUpload> upload,
                        engine.BeginUpload(caller, DType::kFloat64, shape));
    const std::span<const std::byte> bytes = std::as_bytes(std::span(values));
    for (size_t at = 0; at < bytes.size(); at += size_t{1} << 20) {  // Within the chunk limit.
      AH_RETURN_IF_ERROR(
          upload->Append(bytes.subspan(at, std::min(bytes.size() - at, size_t{1} << 20))));
    }
    AH_ASSIGN_OR_RETURN(std::shared_ptr<const ArrayRecord> done, upload->Finish());
    return done->handle.ToString();
  }

  static std::vector<std::byte> Bytes(Engine& engine, const Caller& caller,
                                      const absl::StatusOr<ArrayTable::RecordPtr>& array) {
    EXPECT_TRUE(array.ok()) << array.status();
    if (!array.ok()) return {};
    absl::StatusOr<std::vector<std::byte>> bytes = testing::DownloadBytes(engine, caller, **array);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    return bytes.ok() ? *bytes : std::vector<std::byte>{};
  }

  static std::vector<double> Doubles(Engine& engine, const Caller& caller,
                                     const std::string& handle) {
    std::vector<std::byte> bytes = Bytes(engine, caller, engine.Find(caller, handle));
    std::vector<double> values(bytes.size() / sizeof(double));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }

  // Spills every array of the caller's tenant that no call uses (the soft limit of the
  // engine is 1 byte): any allocation does it.
  static void SpillNow(Engine& engine, const Caller& caller) {
    auto scratch =
        engine.Create(caller, {.dtype = DType::kUInt8, .shape = {1}, .kind = ZerosKind{}});
    ASSERT_TRUE(scratch.ok()) << scratch.status();
    ASSERT_TRUE(engine.Free(caller, std::vector<Handle>{(*scratch)->handle}).ok());
  }

 protected:
  std::vector<fs::path> SpillFiles() const {
    std::vector<fs::path> files;
    if (!fs::exists(SpillDirectory())) return files;
    for (const auto& item : fs::directory_iterator(SpillDirectory())) files.push_back(item.path());
    return files;
  }

  fs::path dir_;
  std::vector<std::unique_ptr<Engine>> engines_;
};

std::vector<double> Ramp(int64_t n, double scale) {
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[i] = scale * static_cast<double>(i % 97) + 0.5;
  return values;
}

OperandSpec Array(const std::string& handle) {
  return OperandSpec{.handle = handle, .scalar = {}, .chain_value = {}};
}

// Every op family, run on one engine; each op's inputs spilled first where `spill`.
std::vector<std::vector<std::byte>> RunEveryFamily(Engine& engine, const Caller& caller,
                                                   const Caller& reader, bool spill) {
  std::vector<std::vector<std::byte>> results;
  const int64_t returns_before = engine.SpillStatistics().returns;
  const std::string a = SpillTest::Upload(engine, caller, Ramp(64, 1.0)).value();
  const std::string b = SpillTest::Upload(engine, caller, Ramp(64, -0.25)).value();
  const std::string m = SpillTest::Upload(engine, caller, Ramp(64, 0.5), {8, 8}).value();
  auto before = [&] {
    if (spill) SpillTest::SpillNow(engine, caller);
  };
  auto keep = [&](const absl::StatusOr<ArrayTable::RecordPtr>& array) {
    results.push_back(SpillTest::Bytes(engine, caller, array));
  };
  before();
  keep(engine.Elementwise(caller,
                          {.op = ElementwiseOp::kMultiply, .operands = {Array(a), Array(b)}}));
  before();
  keep(engine.Reduce(caller, {.op = ReduceOp::kSum, .input = a}));
  before();
  keep(engine.Matmul(caller, {.a = Array(m), .b = Array(m)}));
  before();
  keep(engine.Fft(caller, {.op = FftOp::kRfft, .input = Array(a)}));
  before();
  keep(engine.GetItem(caller,
                      {.handle = a, .index = {SliceSpec{.start = 3, .stop = 40, .step = 3}}}));
  before();
  EXPECT_TRUE(engine
                  .SetItem(caller, {.handle = b,
                                    .index = {SliceSpec{.start = 0, .stop = 10}},
                                    .value = {.scalar = Scalar::Float(3.0)}})
                  .ok());
  before();
  EXPECT_TRUE(
      engine
          .SetItem(caller,
                   {.handle = b, .index = {int64_t{5}}, .value = {.scalar = Scalar::Float(7.0)}})
          .ok());
  before();
  keep(engine.Find(caller, b));
  before();
  for (ArrayOpKind op : {ArrayOpKind::kSort, ArrayOpKind::kConcatenate}) {
    ArrayOpSpec spec{.op = op, .operands = {Array(b)}};
    if (op == ArrayOpKind::kConcatenate) spec.operands = {Array(a), Array(b)};
    auto made = engine.ArrayOp(caller, spec);
    EXPECT_TRUE(made.ok()) << made.status();
    if (made.ok()) keep(made->front());
    before();
  }
  // Upload into a spilled array, and download one.
  {
    auto into = engine.BeginUploadInto(caller, a, DType::kFloat64, {64}, 8, 16);
    EXPECT_TRUE(into.ok()) << into.status();
    const std::vector<double> two{-1.0, -2.0};
    EXPECT_TRUE((*into)->Append(std::as_bytes(std::span(two))).ok());
    EXPECT_TRUE((*into)->Finish().ok());
  }
  before();
  keep(engine.Find(caller, a));
  // Published while spilled, attached and read by another tenant.
  before();
  EXPECT_TRUE(
      engine.Publish(caller, {.handle = m, .name = "m", .reader_tenants = {reader.tenant}}).ok());
  before();
  auto attached = engine.Attach(reader, "m", caller.tenant);
  results.push_back(SpillTest::Bytes(engine, reader, attached));
  if (spill) {
    EXPECT_GT(engine.SpillStatistics().returns - returns_before, 10);
  }
  return results;
}

TEST_F(SpillTest, EveryOpFamilyGivesTheSameBytesOnSpilledInputs) {
  Engine& resident = NewEngine(int64_t{64} << 20, kUnlimited, kUnlimited, /*spilling=*/false);
  Engine& spilling = NewEngine(int64_t{64} << 20, /*soft_bytes=*/1, kUnlimited, true, kHostTier);
  const auto expected = RunEveryFamily(resident, Open(resident, "alice"), Open(resident, "bob"),
                                       /*spill=*/false);
  const auto got = RunEveryFamily(spilling, Open(spilling, "alice"), Open(spilling, "bob"),
                                  /*spill=*/true);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_FALSE(got[i].empty()) << i;
    EXPECT_EQ(got[i], expected[i]) << "result " << i;
  }
  EXPECT_EQ(resident.SpillStatistics().spills, 0);
}

// 24 arrays of 64 KiB on a device of 1 MiB: 1.5x what it holds, each summed and added to its
// neighbour, all values checked. Without spilling the same workload is refused.
TEST_F(SpillTest, AWorkloadOneAndAHalfTimesTheDeviceCompletes) {
  if (kCuda) GTEST_SKIP() << "the device is too large to fill here: bench/devices/spill_bench.py";
  constexpr int64_t kDevice = int64_t{1} << 20, kCount = 24, kElements = 8192;
  for (bool spilling : {false, true}) {
    Engine& engine = NewEngine(kDevice, kUnlimited, kUnlimited, spilling);
    const Caller caller = Open(engine, "alice");
    std::vector<std::string> handles;
    absl::Status refused;
    for (int64_t i = 0; i < kCount && refused.ok(); ++i) {
      absl::StatusOr<std::string> handle = Upload(engine, caller, Ramp(kElements, double(i)));
      if (handle.ok()) handles.push_back(*handle);
      refused = handle.status();
    }
    if (!spilling) {
      EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
      continue;
    }
    ASSERT_TRUE(refused.ok()) << refused;
    EXPECT_GE(engine.TenantSpilled("alice").total(), kCount * kElements * 8 - kDevice);
    for (int64_t i = 0; i < kCount; ++i) {
      const std::string& x = handles[i];
      const std::string& y = handles[(i + 1) % kCount];
      auto sum =
          engine.Elementwise(caller, {.op = ElementwiseOp::kAdd, .operands = {Array(x), Array(y)}});
      ASSERT_TRUE(sum.ok()) << sum.status();
      const std::vector<double> values = Doubles(engine, caller, (*sum)->handle.ToString());
      const std::vector<double> xs = Ramp(kElements, double(i));
      const std::vector<double> ys = Ramp(kElements, double((i + 1) % kCount));
      ASSERT_EQ(values.size(), xs.size());
      for (size_t k = 0; k < xs.size(); ++k) ASSERT_EQ(values[k], xs[k] + ys[k]) << i << " " << k;
      ASSERT_TRUE(engine.Free(caller, std::vector<Handle>{(*sum)->handle}).ok());
    }
    EXPECT_GT(engine.SpillStatistics().returns, kCount / 2);
  }
}

TEST_F(SpillTest, TheSoftLimitSpillsOnlyItsTenantAndTheHardQuotaStillRefuses) {
  constexpr int64_t kArray = 16 << 10;  // 2048 float64.
  Engine& engine = NewEngine(int64_t{64} << 20, /*soft_bytes=*/2 * kArray, /*quota=*/4 * kArray);
  const Caller alice = Open(engine, "alice"), bob = Open(engine, "bob");
  std::vector<std::string> bobs;
  for (int i = 0; i < 3; ++i) bobs.push_back(Upload(engine, bob, Ramp(2048, i)).value());
  ASSERT_TRUE(Upload(engine, alice, Ramp(2048, 9)).ok());
  EXPECT_EQ(engine.TenantSpilled("alice").total(), 0);
  EXPECT_EQ(engine.TenantSpilled("bob").total(), kArray);  // The least recently used one.
  EXPECT_LE(engine.TenantBytesInUse("bob") - engine.TenantSpilled("bob").total(), 2 * kArray);
  // Spilled arrays still count against the quota: the fifth is refused, nothing spills for it.
  bobs.push_back(Upload(engine, bob, Ramp(2048, 3)).value());
  const int64_t spills = engine.SpillStatistics().spills;
  absl::StatusOr<std::string> fifth = Upload(engine, bob, Ramp(2048, 4));
  EXPECT_EQ(fifth.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(fifth.status().message().find("--tenant-max-bytes"), std::string::npos);
  EXPECT_EQ(engine.SpillStatistics().spills, spills);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(Doubles(engine, bob, bobs[i]), Ramp(2048, i)) << i;
}

TEST_F(SpillTest, SpillFilesArePrivateRandomAndGoWithTheirArrays) {
  // A file an earlier daemon left is removed at start.
  fs::create_directories(SpillDirectory());
  { std::ofstream(SpillDirectory() + "/leftover.spill") << "old"; }
  Engine& engine = NewEngine(int64_t{64} << 20, /*soft_bytes=*/1);
  EXPECT_FALSE(fs::exists(SpillDirectory()));
  const Caller alice = Open(engine, "alice"), mallory = Open(engine, "mallory");
  const std::string secret = Upload(engine, alice, Ramp(512, 3.0)).value();
  SpillNow(engine, alice);
  EXPECT_EQ(fs::status(SpillDirectory()).permissions() & fs::perms::all, fs::perms::owner_all);
  const std::vector<fs::path> files = SpillFiles();
  ASSERT_EQ(files.size(), 1u);
  struct stat info {};
  ASSERT_EQ(::stat(files[0].c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  EXPECT_TRUE(std::regex_match(files[0].filename().string(), std::regex("[0-9a-f]{32}\\.spill")))
      << files[0];
  // Another tenant cannot reach it, by handle or otherwise.
  EXPECT_EQ(engine.Find(mallory, secret).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(engine.TenantSpilled("mallory").total(), 0);
  // Coming back deletes the file; spilling again makes a new one; freeing deletes that.
  EXPECT_EQ(Doubles(engine, alice, secret), Ramp(512, 3.0));
  SpillNow(engine, alice);
  ASSERT_EQ(SpillFiles().size(), 1u);
  EXPECT_NE(SpillFiles()[0], files[0]);
  ASSERT_TRUE(engine.Free(alice, std::vector<std::string>{secret}).ok());
  EXPECT_TRUE(SpillFiles().empty());
  EXPECT_EQ(engine.TenantSpilled("alice").total(), 0);
}

// Memory comes back as its owner's, whoever's call brings it back: on the CUDA backend a
// tenant's IPC pool is mapped whole, so the reader must not get the owner's array in its own.
TEST_F(SpillTest, MemoryComesBackAsItsOwnersWhoeverUsesIt) {
  if (!kCuda) GTEST_SKIP() << "host memory has no pools to export";
  Engine& engine = NewEngine(0, /*soft_bytes=*/1);
  const Caller alice = Open(engine, "alice"), bob = Open(engine, "bob");
  const std::string x = Upload(engine, alice, Ramp(512, 1.0)).value();
  ASSERT_TRUE(engine.Publish(alice, {.handle = x, .name = "x", .reader_tenants = {"bob"}}).ok());
  auto attached = engine.Attach(bob, "x", "alice");
  ASSERT_TRUE(attached.ok()) << attached.status();
  SpillNow(engine, alice);
  ASSERT_GT(engine.TenantSpilled("alice").total(), 0);
  EXPECT_EQ(Doubles(engine, bob, (*attached)->handle.ToString()), Ramp(512, 1.0));
  // Bob may read it, but its memory is not Bob's to export (nor in Bob's pool).
  EXPECT_EQ(engine.ExportIpc(bob, (*attached)->handle.ToString()).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(engine.ExportIpc(alice, x).ok());
}

// On the GPU, arrays of a few MiB (not whole MiB) spill into the host tier's pinned blocks in
// one copy each and come back bit for bit, round after round: blocks are reused, and where
// sizes change the tier unpins kept blocks to make room within its 16 MiB. (On the CPU
// backend, which has no host tier, the same rounds go through disk.)
TEST_F(SpillTest, PinnedHostTierRoundTripsRoundAfterRound) {
  Engine& engine = NewEngine(int64_t{256} << 20, /*soft_bytes=*/1, kUnlimited, true,
                             /*host_bytes=*/int64_t{16} << 20);
  const Caller alice = Open(engine, "alice");
  for (int round = 0; round < 4; ++round) {
    std::vector<std::string> arrays;
    std::vector<std::vector<double>> expected;
    for (int i = 0; i < 3; ++i) {
      // 2.5, 3.5 and 4.5 MiB in the first round, other sizes in later ones.
      const int64_t count = ((int64_t{5} + 2 * i + round) << 20) / 2 / 8 + 3;
      expected.push_back(Ramp(count, 1.0 + round + i));
      arrays.push_back(Upload(engine, alice, expected.back()).value());
    }
    SpillNow(engine, alice);
    ASSERT_GT(engine.TenantSpilled("alice").total(), 0) << "round " << round;
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(Doubles(engine, alice, arrays[i]), expected[i]) << "round " << round;
    }
    ASSERT_TRUE(engine.Free(alice, arrays).ok());
  }
  EXPECT_EQ(engine.TenantSpilled("alice").total(), 0);
}

// Four tenants on four threads spill and bring back arrays of a few MiB at once: on the GPU
// they take, return and unpin the host tier's blocks concurrently (16 MiB for all, so blocks
// are unpinned to make room while others are in use), and every value comes back.
TEST_F(SpillTest, PinnedHostTierServesManyThreadsAtOnce) {
  Engine& engine = NewEngine(int64_t{256} << 20, /*soft_bytes=*/1, kUnlimited, true,
                             /*host_bytes=*/int64_t{16} << 20);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const Caller caller = Open(engine, "tenant" + std::to_string(t));
      for (int round = 0; round < 3; ++round) {
        std::vector<std::string> arrays;
        std::vector<std::vector<double>> expected;
        for (int i = 0; i < 2; ++i) {
          const int64_t count = ((int64_t{3} + t + round + i) << 20) / 2 / 8 + 5;
          expected.push_back(Ramp(count, 1.0 + t + round + i));
          absl::StatusOr<std::string> array = Upload(engine, caller, expected.back());
          if (!array.ok()) {
            ++failures;
            return;
          }
          arrays.push_back(*array);
        }
        SpillNow(engine, caller);
        for (int i = 0; i < 2; ++i) {
          if (Doubles(engine, caller, arrays[i]) != expected[i]) ++failures;
        }
        if (!engine.Free(caller, arrays).ok()) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(SpillTest, AFailedReturnAnswersAClearStatusAndChangesNothing) {
  Engine& engine = NewEngine(int64_t{64} << 20, /*soft_bytes=*/1);
  const Caller alice = Open(engine, "alice");
  const std::string x = Upload(engine, alice, Ramp(512, 1.0)).value();
  SpillNow(engine, alice);
  ASSERT_EQ(SpillFiles().size(), 1u);
  const fs::path file = SpillFiles()[0];
  const fs::path aside = dir_ / "aside";
  fs::rename(file, aside);
  absl::StatusOr<ArrayTable::RecordPtr> sum =
      engine.Reduce(alice, {.op = ReduceOp::kSum, .input = x});
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(sum.status().message().find("cannot open the spill file"), std::string::npos)
      << sum.status();
  EXPECT_EQ(engine.TenantSpilled("alice").total(), 512 * 8);  // Still spilled, still charged.
  fs::rename(aside, file);
  EXPECT_EQ(Doubles(engine, alice, x), Ramp(512, 1.0));
}

// A spill that cannot write its file (the spill directory's path is taken by a file) is told
// to the operator's log with its reason, and the array stays resident and intact.
TEST_F(SpillTest, AFailedSpillIsLoggedAndLeavesTheArrayWhereItWas) {
  engines_.push_back(std::make_unique<Engine>(Device(int64_t{64} << 20), Limits{}, SessionOptions{},
                                              TenantQuota{}));
  Engine& engine = *engines_.back();
  // Held by the engine's log too: the fixture's engines outlive the test body.
  auto logged = std::make_shared<std::vector<std::string>>();
  ASSERT_TRUE(engine
                  .ConfigureSpilling(
                      {.directory = SpillDirectory(),
                       .tenant_soft_bytes = 1,
                       .log = [logged](const std::string& line) { logged->push_back(line); }})
                  .ok());
  std::ofstream(SpillDirectory()) << "not a directory";
  const Caller alice = Open(engine, "alice");
  const std::string x = Upload(engine, alice, Ramp(512, 1.0)).value();
  SpillNow(engine, alice);
  ASSERT_FALSE(logged->empty());
  EXPECT_NE(logged->front().find("spilling 4096 bytes of tenant 'alice' to disk failed"),
            std::string::npos)
      << logged->front();
  EXPECT_EQ(engine.TenantSpilled("alice").total(), 0);
  EXPECT_EQ(Doubles(engine, alice, x), Ramp(512, 1.0));
}

// 6 threads of two tenants on a device that holds two thirds of their arrays, with a soft limit
// of a third of each tenant's: each thread reads and computes on its own arrays and on one
// array shared by all, while allocation pressure spills and brings them back.
TEST_F(SpillTest, ManyThreadsUnderPressureSeeTheRightData) {
  constexpr int kThreads = 6;
  constexpr int64_t kElements = 2048;  // 16 KiB each: 304 KiB of arrays and 6 sums at most.
  Engine& engine =
      NewEngine(int64_t{224} << 10, /*soft_bytes=*/48 << 10, kUnlimited, true, kHostTier);
  const Caller owner = Open(engine, "tenant0");
  const std::string shared = Upload(engine, owner, Ramp(kElements, 2.0)).value();
  ASSERT_TRUE(
      engine.Publish(owner, {.handle = shared, .name = "shared", .all_tenants = true}).ok());
  std::atomic<int> errors{0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const Caller caller = Open(engine, "tenant" + std::to_string(t % 2));
      auto fail = [&](const std::string& what) {
        ++errors;
        ADD_FAILURE() << "thread " << t << ": " << what;
      };
      absl::StatusOr<ArrayTable::RecordPtr> attached = engine.Attach(caller, "shared", "tenant0");
      if (!attached.ok()) return fail(std::string(attached.status().message()));
      const std::string common = (*attached)->handle.ToString();
      std::vector<std::string> mine;
      for (int i = 0; i < 3; ++i) {
        absl::StatusOr<std::string> handle = Upload(engine, caller, Ramp(kElements, t * 10 + i));
        if (!handle.ok()) return fail(std::string(handle.status().message()));
        mine.push_back(*handle);
      }
      for (int round = 0; std::chrono::steady_clock::now() < deadline; ++round) {
        const int i = round % 3;
        auto sum = engine.Elementwise(
            caller, {.op = ElementwiseOp::kAdd, .operands = {Array(mine[i]), Array(common)}});
        if (!sum.ok()) return fail(std::string(sum.status().message()));
        const std::vector<double> got = Doubles(engine, caller, (*sum)->handle.ToString());
        const std::vector<double> x = Ramp(kElements, t * 10 + i), y = Ramp(kElements, 2.0);
        for (int64_t k = 0; k < kElements; k += 511) {
          if (got.size() != x.size() || got[k] != x[k] + y[k]) return fail("wrong sum");
        }
        if (!engine.Free(caller, std::vector<Handle>{(*sum)->handle}).ok()) return fail("free");
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(engine.SpillStatistics().spills, 0);
  EXPECT_GT(engine.SpillStatistics().returns, 0);
}

}  // namespace
}  // namespace arrayhub
