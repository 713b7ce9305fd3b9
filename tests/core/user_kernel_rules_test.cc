// CuPy's shape rules for user kernels (user_kernel_rules.h) and the kernel cache's bounds and
// compile-once guarantee (user_kernel_cache.h).
#include "server/core/user_kernel_rules.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <utility>

#include "server/core/user_kernel_cache.h"

namespace arrayhub {
namespace {

using kernel::KernelKind;
using kernel::KernelSource;

KernelSource Elementwise() {
  KernelSource source;
  source.kind = KernelKind::kElementwise;
  source.name = "k";
  return source;
}

KernelSource Reduction(std::string identity) {
  KernelSource source;
  source.kind = KernelKind::kReduction;
  source.identity = std::move(identity);
  source.name = "r";
  return source;
}

std::string Message(const absl::Status& status) { return std::string(status.message()); }

TEST(UserKernelRulesTest, ElementwiseBroadcastsNonRawArrays) {
  const KernelShapes shapes{.inputs = {Shape{2, 1}, std::nullopt, Shape{3}}, .outputs = {{}}};
  auto iteration =
      ResolveKernelIteration(Elementwise(), shapes, {false}, std::nullopt, std::nullopt, false);
  ASSERT_TRUE(iteration.ok()) << iteration.status();
  EXPECT_EQ(iteration->shape, (Shape{2, 3}));
  EXPECT_EQ(iteration->output_shape, (Shape{2, 3}));
  const KernelShapes clash{.inputs = {Shape{2}, Shape{3}}, .outputs = {{}}};
  EXPECT_EQ(Message(ResolveKernelIteration(Elementwise(), clash, {false}, std::nullopt,
                                           std::nullopt, false)
                        .status()),
            "operands could not be broadcast together with shapes (2,) (3,) ");
}

TEST(UserKernelRulesTest, ElementwiseSizeAndOutRulesAreCuPys) {
  const KernelShapes raw_only{.inputs = {std::nullopt}, .outputs = {{}}};
  EXPECT_EQ(Message(ResolveKernelIteration(Elementwise(), raw_only, {false}, std::nullopt,
                                           std::nullopt, false)
                        .status()),
            "Loop size is undecided.");
  auto sized = ResolveKernelIteration(Elementwise(), raw_only, {true}, 5, std::nullopt, false);
  ASSERT_TRUE(sized.ok());
  EXPECT_EQ(sized->shape, (Shape{5}));
  const KernelShapes arrays{.inputs = {Shape{4}}, .outputs = {{}}};
  EXPECT_EQ(
      Message(
          ResolveKernelIteration(Elementwise(), arrays, {false}, 4, std::nullopt, false).status()),
      "Specified 'size' can be used only if all of the ndarray are 'raw'.");
  EXPECT_EQ(Message(ResolveKernelIteration(Elementwise(), arrays, {true}, std::nullopt,
                                           std::nullopt, false)
                        .status()),
            "Output array size is Undecided");
  const KernelShapes wrong_out{.inputs = {Shape{4}}, .outputs = {Shape{2, 2}}};
  EXPECT_EQ(Message(ResolveKernelIteration(Elementwise(), wrong_out, {false}, std::nullopt,
                                           std::nullopt, false)
                        .status()),
            "Out shape is mismatched: (2, 2) while (4,) is expected.");
  // An out= array decides the shape when no argument does.
  const KernelShapes out_only{.inputs = {std::nullopt}, .outputs = {Shape{3}}};
  auto from_out =
      ResolveKernelIteration(Elementwise(), out_only, {false}, std::nullopt, std::nullopt, false);
  ASSERT_TRUE(from_out.ok());
  EXPECT_EQ(from_out->shape, (Shape{3}));
}

TEST(UserKernelRulesTest, ReductionAxesKeepdimsAndIdentity) {
  const KernelShapes shapes{.inputs = {Shape{2, 3, 4}}, .outputs = {{}}};
  auto r = ResolveKernelIteration(Reduction("0"), shapes, {false}, std::nullopt,
                                  std::vector<int64_t>{-1, 0}, true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->reduce_axes, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(r->output_shape, (Shape{1, 3, 1}));
  EXPECT_EQ(r->written_shape, (Shape{3}));
  auto all =
      ResolveKernelIteration(Reduction("0"), shapes, {false}, std::nullopt, std::nullopt, false);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->output_shape, Shape{});
  EXPECT_EQ(Message(ResolveKernelIteration(Reduction("0"), shapes, {false}, std::nullopt,
                                           std::vector<int64_t>{1, 1}, false)
                        .status()),
            "duplicate value in 'axis'");
  const KernelShapes empty{.inputs = {Shape{0, 2}}, .outputs = {{}}};
  EXPECT_EQ(Message(ResolveKernelIteration(Reduction(""), empty, {false}, std::nullopt,
                                           std::vector<int64_t>{0}, false)
                        .status()),
            "zero-size array to reduction operation r which has no identity");
  EXPECT_TRUE(ResolveKernelIteration(Reduction("0"), empty, {false}, std::nullopt,
                                     std::vector<int64_t>{0}, false)
                  .ok());
  // Reducing only the non-empty axis of an empty array reduces nothing empty.
  EXPECT_TRUE(ResolveKernelIteration(Reduction(""), empty, {false}, std::nullopt,
                                     std::vector<int64_t>{1}, false)
                  .ok());
}

TEST(UserKernelRulesTest, CacheKeysSeparateEveryFieldAndType) {
  KernelSource a = Elementwise();
  a.in_params = "T x";
  a.operation = "y = x";
  KernelSource b = a;
  b.in_params = "T x, ";  // A field's text never runs into the next one's.
  b.operation = "y = x";
  kernel::ArgumentTypes types{.inputs = {{.dtype = DType::kFloat32, .array = true}},
                              .outputs = {std::nullopt}};
  EXPECT_NE(KernelCacheKey(a, types), KernelCacheKey(b, types));
  kernel::ArgumentTypes scalar = types;
  scalar.inputs[0].array = false;
  EXPECT_NE(KernelCacheKey(a, types), KernelCacheKey(a, scalar));
  EXPECT_EQ(KernelCacheKey(a, types), KernelCacheKey(a, types));
}

TEST(KernelCacheTest, ManyThreadsAskingForOneKeyCompileOnce) {
  UserKernelCache cache(16, 1 << 20);
  std::atomic<int> compiles = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      auto got = cache.Get("key", 0, [&]() -> absl::StatusOr<CachedUserKernel> {
        ++compiles;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // The others arrive.
        return CachedUserKernel{};
      });
      EXPECT_TRUE(got.ok());
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(compiles.load(), 1);
  EXPECT_EQ(cache.compilations(), 1);
}

TEST(KernelCacheTest, RefusalsAreSharedButNotKept) {
  UserKernelCache cache(16, 1 << 20);
  int compiles = 0;
  const auto refuse = [&]() -> absl::StatusOr<CachedUserKernel> {
    ++compiles;
    return absl::InvalidArgumentError("operation:1:1: no");
  };
  EXPECT_FALSE(cache.Get("bad", 0, refuse).ok());
  EXPECT_FALSE(cache.Get("bad", 0, refuse).ok());
  EXPECT_EQ(compiles, 2);
  EXPECT_EQ(cache.entries(), 0);
}

TEST(KernelCacheTest, EndlessDistinctKernelsStayWithinTheBounds) {
  UserKernelCache cache(8, 4096);
  int compiles = 0;
  const auto compile = [&]() -> absl::StatusOr<CachedUserKernel> {
    ++compiles;
    return CachedUserKernel{};
  };
  for (int k = 0; k < 1000; ++k) {
    ASSERT_TRUE(cache.Get("kernel" + std::to_string(k), 200, compile).ok());
    EXPECT_LE(cache.entries(), 8);
    EXPECT_LE(cache.bytes(), 4096);
  }
  // The most recently used survive: asking again compiles nothing.
  ASSERT_TRUE(cache.Get("kernel999", 200, compile).ok());
  EXPECT_EQ(compiles, 1000);
  // Byte-bound: 4096 / (~9 + 1000) holds 4 entries at most.
  for (int k = 0; k < 10; ++k)
    ASSERT_TRUE(cache.Get("big" + std::to_string(k), 1000, compile).ok());
  EXPECT_LE(cache.entries(), 4);
  // An entry larger than the whole bound is used once and never kept.
  ASSERT_TRUE(cache.Get("huge", 10000, compile).ok());
  EXPECT_LE(cache.bytes(), 4096);
}

}  // namespace
}  // namespace arrayhub
