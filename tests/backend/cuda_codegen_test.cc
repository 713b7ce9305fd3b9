// The elementwise kernel generator without a GPU: the sources it writes compile with NVRTC
// (which needs no device, so this runs in CI wherever the CUDA toolkit is), for single ops,
// for chains of every op over every loop dtype, and for each layout class; the argument block
// is laid out as the generated struct declares it; compiled binaries come back from the disk
// store under the same source and target only. Running the kernels is cuda_compute_test's.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "server/backend/compute.h"
#include "server/backend/cuda/elementwise_codegen.h"
#include "server/backend/cuda/kernel_cache.h"

namespace arrayhub {
namespace {

constexpr int kArch = 90;

void ExpectCompiles(const ElementwiseSignature& signature) {
  const absl::StatusOr<std::string> binary =
      CompileWithNvrtc(KernelSource(signature), KernelKey(signature), kArch);
  EXPECT_TRUE(binary.ok()) << KernelKey(signature) << ": " << binary.status();
}

TEST(ElementwiseCodegenTest, SingleOpsCompileInEachLayoutClass) {
  ElementwiseSignature add{.inputs = {{.dtype = DType::kFloat32}, {.dtype = DType::kFloat32}},
                           .steps = {{.op = ElementwiseOp::kAdd,
                                      .compute = DType::kFloat32,
                                      .result = DType::kFloat32,
                                      .operands = {0, 1}}},
                           .outputs = {{.step = 0, .dtype = DType::kFloat16}}};
  add.vector_width = 4;
  ExpectCompiles(add);  // Dense, vectors of 4.
  add.vector_width = 1;
  add.rank = 3;
  add.index32 = true;
  ExpectCompiles(add);  // Strided, 32-bit indices.
  add.inputs[1].scalar = true;
  add.index32 = false;
  ExpectCompiles(add);  // A scalar operand, 64-bit indices.
  add.inputs[0].scalar = true;
  add.rank = 0;
  ExpectCompiles(add);  // Nothing read from memory.
}

// One chain per loop dtype through every op that has a loop in it, each step reading the one
// before (and an input), with three outputs: every device function in the fused form.
TEST(ElementwiseCodegenTest, ChainsOfEveryOpCompileForEveryLoopDType) {
  for (DType compute : kAllDTypes) {
    ElementwiseSignature chain;
    chain.inputs = {
        {.dtype = compute}, {.dtype = DType::kInt8}, {.dtype = compute, .scalar = true}};
    int previous = 0;
    for (ElementwiseOp op : kAllElementwiseOps) {
      if (!CheckLoopExists(op, compute).ok()) continue;
      ElementwiseSignature::Step step{
          .op = op, .compute = compute, .result = compute, .operands = {}};
      for (int k = 0; k < Arity(op); ++k) step.operands.push_back(k == 0 ? previous : 2);
      chain.steps.push_back(step);
      // Only steps that keep the dtype feed the next one (comparisons give bool, which the
      // next step reads through a cast as any operand would).
      previous = static_cast<int>(chain.inputs.size() + chain.steps.size()) - 1;
    }
    const int last = static_cast<int>(chain.steps.size()) - 1;
    chain.outputs = {{.step = last, .dtype = compute},
                     {.step = 0, .dtype = DType::kFloat64},
                     {.step = last / 2, .dtype = DType::kBool}};
    chain.rank = 2;
    ExpectCompiles(chain);
  }
}

TEST(ElementwiseCodegenTest, ArgumentBlockOffsetsFollowTheStruct) {
  ElementwiseSignature s{.inputs = {{.dtype = DType::kFloat32},
                                    {.dtype = DType::kInt8, .scalar = true},
                                    {.dtype = DType::kFloat64}},
                         .steps = {{.op = ElementwiseOp::kAdd,
                                    .compute = DType::kFloat64,
                                    .result = DType::kFloat64,
                                    .operands = {0, 2}}},
                         .outputs = {{.step = 0, .dtype = DType::kFloat64},
                                     {.step = 0, .dtype = DType::kFloat32},
                                     {.step = 0, .dtype = DType::kInt16}}};
  s.rank = 2;
  const ElementwiseArgsLayout layout = ArgsLayoutOf(s);
  EXPECT_EQ(layout.out, 8u);                   // After n.
  EXPECT_EQ(layout.in, 8u + 24u);              // Three outputs.
  EXPECT_EQ(layout.scalar, 48u);               // Two array inputs end at 48, already 16-aligned.
  EXPECT_EQ(layout.shape, 64u);                // One scalar slot.
  EXPECT_EQ(layout.stride, 80u);               // Two extents.
  EXPECT_EQ(layout.size, 80u + 8u * 5u * 2u);  // Five arrays' strides, padded to 16: 160.
  s.rank = 0;
  s.inputs[1].scalar = false;
  EXPECT_EQ(ArgsLayoutOf(s).scalar, 64u);  // Three array pointers end at 56; then 16-aligned.
  EXPECT_EQ(ArgsLayoutOf(s).size, 80u);    // One (unused) scalar slot.
}

// A reduction folded into a chain, for every op it can be and each kind of accumulator (the
// pairs core's reduction rules give: integers in int64/uint64, float16 in float32, float32
// sums in float64), dense and strided, with and without an output beside it.
TEST(ElementwiseCodegenTest, FusedReductionsCompileForEveryOpAndAccumulator) {
  struct Case {
    DType value, accumulate, result;
  };
  const std::vector<Case> sums = {{DType::kFloat32, DType::kFloat64, DType::kFloat32},
                                  {DType::kFloat16, DType::kFloat32, DType::kFloat16},
                                  {DType::kInt8, DType::kInt64, DType::kInt64},
                                  {DType::kUInt16, DType::kUInt64, DType::kUInt64},
                                  {DType::kBool, DType::kInt64, DType::kInt64},
                                  {DType::kComplex64, DType::kComplex64, DType::kComplex64},
                                  {DType::kFloat64, DType::kFloat64, DType::kFloat64}};
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMean, ReduceOp::kMin,
                      ReduceOp::kMax, ReduceOp::kAny, ReduceOp::kAll}) {
    for (Case c : sums) {
      if (!FusableReduction(op, c.value)) continue;
      if (op == ReduceOp::kMin || op == ReduceOp::kMax) c.accumulate = c.result = c.value;
      if (op == ReduceOp::kAny || op == ReduceOp::kAll) c.accumulate = c.result = DType::kBool;
      if (op == ReduceOp::kMean && !IsFloating(c.value)) {
        c.accumulate = c.result = DType::kFloat64;
      }
      ElementwiseSignature chain{
          .inputs = {{.dtype = c.value}, {.dtype = c.value}},
          .steps = {{.op = c.value == DType::kBool ? ElementwiseOp::kLogicalXor
                                                   : ElementwiseOp::kSubtract,
                     .compute = c.value,
                     .result = c.value,
                     .operands = {0, 1}}},
          .outputs = {},
          .reduction = ElementwiseSignature::Reduction{
              .op = op, .step = 0, .accumulate = c.accumulate, .output = c.result}};
      chain.vector_width = 2;
      ExpectCompiles(chain);
      chain.outputs = {{.step = 0, .dtype = c.value}};
      chain.vector_width = 1;
      chain.rank = 2;
      ExpectCompiles(chain);
    }
  }
}

// The three reduction pointers follow the strides; a kernel without a reduction keeps the key
// (and so the source and stored binary) it had before reductions could be fused.
TEST(ElementwiseCodegenTest, AReductionAddsItsPointersAndItsOwnKey) {
  ElementwiseSignature s{.inputs = {{.dtype = DType::kFloat32}},
                         .steps = {{.op = ElementwiseOp::kSquare,
                                    .compute = DType::kFloat32,
                                    .result = DType::kFloat32,
                                    .operands = {0}}},
                         .outputs = {{.step = 0, .dtype = DType::kFloat32}}};
  s.rank = 2;
  EXPECT_EQ(KernelKey(s), "ew:afloat32,;square:float32:float32:0;>0:float32,:r2:v1:i64");
  const ElementwiseArgsLayout plain = ArgsLayoutOf(s);
  s.reduction = ElementwiseSignature::Reduction{
      .op = ReduceOp::kSum, .step = 0, .accumulate = DType::kFloat64, .output = DType::kFloat32};
  const ElementwiseArgsLayout reduced = ArgsLayoutOf(s);
  EXPECT_EQ(reduced.reduction, plain.stride + 8u * 2u * 2u);  // Two arrays' strides of rank 2.
  EXPECT_EQ(reduced.reduction, 96u);
  EXPECT_EQ(reduced.size, 128u);  // 96 + three pointers, padded to 16.
  EXPECT_EQ(KernelKey(s),
            "ew:afloat32,;square:float32:float32:0;>0:float32,:r2:v1:i64:Rsum:0:float64:float32");
}

// A second store over the directory (a restarted daemon) loads the binary the first compiled;
// another source or another architecture compiles.
TEST(KernelStoreTest, ARestartLoadsWhatAnEarlierProcessCompiled) {
  char pattern[] = "/tmp/kernel_store_test-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  ElementwiseSignature add{.inputs = {{.dtype = DType::kFloat32}, {.dtype = DType::kFloat32}},
                           .steps = {{.op = ElementwiseOp::kAdd,
                                      .compute = DType::kFloat32,
                                      .result = DType::kFloat32,
                                      .operands = {0, 1}}},
                           .outputs = {{.step = 0, .dtype = DType::kFloat32}}};
  const std::string source = KernelSource(add);
  const std::string name = KernelKey(add);
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };

  auto first = CompiledCodeStore::Open(dir, 64 << 20);
  ASSERT_TRUE(first.ok()) << first.status();
  const Clock::time_point t0 = Clock::now();
  absl::StatusOr<CompiledBinary> compiled = CompileCached(source, name, kArch, first->get());
  const Clock::time_point t1 = Clock::now();
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(compiled->from_store);

  auto second = CompiledCodeStore::Open(dir, 64 << 20);
  ASSERT_TRUE(second.ok()) << second.status();
  const Clock::time_point t2 = Clock::now();
  absl::StatusOr<CompiledBinary> loaded = CompileCached(source, name, kArch, second->get());
  const Clock::time_point t3 = Clock::now();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->from_store);
  EXPECT_EQ(loaded->binary, compiled->binary);
  std::printf("float32 add for sm_%d: compiled in %.1f ms, loaded from disk in %.2f ms\n", kArch,
              ms(t1 - t0), ms(t3 - t2));

  absl::StatusOr<CompiledBinary> other_arch = CompileCached(source, name, 80, second->get());
  ASSERT_TRUE(other_arch.ok()) << other_arch.status();
  EXPECT_FALSE(other_arch->from_store);
  absl::StatusOr<CompiledBinary> other_source =
      CompileCached(source + "\n// another program\n", name, kArch, second->get());
  ASSERT_TRUE(other_source.ok()) << other_source.status();
  EXPECT_FALSE(other_source->from_store);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace arrayhub
