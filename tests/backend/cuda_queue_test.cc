// The CUDA backend's queues: work of one queue runs in order without waiting, a queue that uses
// another queue's buffer waits for that queue's work, the owner's later free waits for the
// borrower, and calls of two queues on one buffer never overlap. The chains are long enough (tens
// of milliseconds of device work, enqueued in microseconds) that a missing wait shows as wrong
// values. Runs only where there is a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/host/host_backend.h"
#include "tests/backend/backend_io.h"
#include "tests/backend/cuda_fixture.h"
#include "tests/support/status_assert.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

constexpr int64_t kCount = int64_t{32} << 20;  // float32 elements: 128 MiB a buffer.
constexpr int kChain = 40;                     // Dependent ops per chain.

ArrayView Whole(Buffer& buffer, int64_t count, DType dtype = DType::kFloat32) {
  return ArrayView{
      .buffer = &buffer, .offset_bytes = 0, .dtype = dtype, .shape = {count}, .strides = {1}};
}

ElementwiseOperand Operand(Buffer& buffer, int64_t count) {
  return ElementwiseOperand{.array = Whole(buffer, count), .dtype = DType::kFloat32};
}

ElementwiseOperand Scalar(float value) {
  ElementwiseOperand operand{.array = std::nullopt, .dtype = DType::kFloat32};
  std::memcpy(operand.scalar.data(), &value, sizeof value);
  return operand;
}

// target = a + b, float32, elementwise, on `queue`.
absl::Status Add(QueueBinding& queue, Backend& backend, ElementwiseOperand a, ElementwiseOperand b,
                 Buffer& target, int64_t count) {
  return backend.compute().Elementwise(queue,
                                       ElementwiseCall{.op = ElementwiseOp::kAdd,
                                                       .compute_dtype = DType::kFloat32,
                                                       .result_dtype = DType::kFloat32,
                                                       .shape = {count},
                                                       .operands = {std::move(a), std::move(b)},
                                                       .output = Whole(target, count)});
}

// Small integers, so that every sum and product below is exact in float32.
std::vector<float> RandomFloats(int64_t count, uint64_t seed, int limit = 1000) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-limit, limit);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = static_cast<float>(small(rng));
  return values;
}

// The index of the first element of `got` that is not `want[i] + offset`, or -1.
int64_t FirstMismatch(const std::vector<float>& got, const std::vector<float>& want, float offset) {
  if (got.size() != want.size()) return 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i] + offset) return static_cast<int64_t>(i);
  }
  return -1;
}

class CudaQueueTest : public CudaFixture {
 protected:
  void SetUp() override {
    CudaFixture::SetUp();
    if (Stopped()) return;
    absl::StatusOr<std::shared_ptr<WorkQueue>> a = cuda_->queues().NewQueue("test");
    absl::StatusOr<std::shared_ptr<WorkQueue>> b = cuda_->queues().NewQueue("test");
    ASSERT_TRUE(a.ok() && b.ok());
    queue_a_ = *a;
    queue_b_ = *b;
  }

  // A new buffer of `queue`'s holding `values`.
  absl::StatusOr<std::shared_ptr<Buffer>> UploadOn(const std::shared_ptr<WorkQueue>& queue,
                                                   const std::vector<float>& values) {
    const auto bound = cuda_->queues().Bind(queue, "upload");
    return Upload(*bound, *cuda_, values);
  }

  std::shared_ptr<WorkQueue> queue_a_;
  std::shared_ptr<WorkQueue> queue_b_;
};

TEST_F(CudaQueueTest, OneQueueRunsItsChainInOrder) {
  const std::vector<float> start = RandomFloats(kCount, 1);
  const auto bound = cuda_->queues().Bind(queue_a_, "test chain");
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> x, Upload(*bound, *cuda_, start));
  for (int i = 0; i < kChain; ++i) {
    ASSERT_TRUE(Add(*bound, *cuda_, Operand(*x, kCount), Scalar(1), *x, kCount).ok());
  }
  AH_TEST_ASSIGN(const std::vector<float> got, Download<float>(*bound, *cuda_, *x));
  EXPECT_EQ(FirstMismatch(got, start, kChain), -1);
}

TEST_F(CudaQueueTest, AQueueUsingAnotherQueuesBufferWaitsForItsWork) {
  const std::vector<float> start = RandomFloats(kCount, 2);
  std::shared_ptr<Buffer> x;
  {
    const auto bound = cuda_->queues().Bind(queue_a_, "writer");
    AH_TEST_ASSIGN(x, Upload(*bound, *cuda_, start));
    for (int i = 0; i < kChain; ++i) {
      ASSERT_TRUE(Add(*bound, *cuda_, Operand(*x, kCount), Scalar(1), *x, kCount).ok());
    }
  }  // Queue A's chain is still running: nothing waited for it.
  const auto bound = cuda_->queues().Bind(queue_b_, "reader");
  ASSERT_TRUE(cuda_->queues().Use(*bound, x).ok());
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> copy, cuda_->memory().Allocate(*bound, kCount * 4));
  ASSERT_TRUE(Add(*bound, *cuda_, Operand(*x, kCount), Scalar(0), *copy, kCount).ok());
  AH_TEST_ASSIGN(const std::vector<float> got, Download<float>(*bound, *cuda_, *copy));
  EXPECT_EQ(FirstMismatch(got, start, kChain), -1);
}

TEST_F(CudaQueueTest, TheOwnersFreeWaitsForTheBorrower) {
  const std::vector<float> values = RandomFloats(kCount, 3);
  AH_TEST_ASSIGN(std::shared_ptr<Buffer> x, UploadOn(queue_a_, values));
  std::shared_ptr<Buffer> sum;
  {
    // sum = x + x + ... (kChain times), reading x all along.
    const auto bound = cuda_->queues().Bind(queue_b_, "borrower");
    ASSERT_TRUE(cuda_->queues().Use(*bound, x).ok());
    AH_TEST_ASSIGN(sum, cuda_->memory().Allocate(*bound, kCount * 4));
    ASSERT_TRUE(
        cuda_->memory().FillPattern(*bound, *sum, 0, kCount, 4, std::array<std::byte, 4>{}).ok());
    for (int i = 0; i < kChain; ++i) {
      ASSERT_TRUE(
          Add(*bound, *cuda_, Operand(*sum, kCount), Operand(*x, kCount), *sum, kCount).ok());
    }
  }
  {
    // The owner frees x and at once fills new memory of the same size (the pool hands x's
    // memory back first): without the wait the borrower would read the fill.
    const auto bound = cuda_->queues().Bind(queue_a_, "owner again");
    x.reset();
    AH_TEST_ASSIGN(const std::shared_ptr<Buffer> reuse,
                   cuda_->memory().Allocate(*bound, kCount * 4));
    const float seven = 7;
    std::array<std::byte, 4> pattern;
    std::memcpy(pattern.data(), &seven, 4);
    ASSERT_TRUE(cuda_->memory().FillPattern(*bound, *reuse, 0, kCount, 4, pattern).ok());
  }
  const auto bound = cuda_->queues().Bind(queue_b_, "check");
  AH_TEST_ASSIGN(const std::vector<float> got, Download<float>(*bound, *cuda_, *sum));
  std::vector<float> want(values.size());
  for (size_t i = 0; i < values.size(); ++i) want[i] = values[i] * kChain;
  EXPECT_EQ(FirstMismatch(got, want, 0), -1);
}

// Two sessions each running add(x, 1, out=x) on x of the first one's queue, from two threads,
// one operation (binding) per add as core makes them, with host work on each side of the add
// as core has (operand lookup, checks and allocation before; registering the result after):
// every update lands. Before each call was a critical section over the queues it touches, the
// borrower waited for the owner's work only when it looked x up, and the owner for the
// borrower only when the borrower's operation ended: the owner's adds enqueued in between ran
// beside the borrower's and updates were lost (the first version of this test, with no host
// work in the operations, passed on that code: the window was a few microseconds).
TEST_F(CudaQueueTest, TwoQueuesIncrementingOneBufferLoseNoUpdate) {
  constexpr int kAdds = 300;
  constexpr auto kCoreWork = std::chrono::microseconds(100);
  const std::vector<float> start = RandomFloats(kCount, 5);
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> x, UploadOn(queue_a_, start));
  std::vector<absl::Status> failures(2);
  std::vector<std::thread> threads;
  for (const int t : {0, 1}) {
    threads.emplace_back([&, t] {
      const std::shared_ptr<WorkQueue>& queue = t == 0 ? queue_a_ : queue_b_;
      for (int i = 0; i < kAdds && failures[t].ok(); ++i) {
        const auto bound = cuda_->queues().Bind(queue, "add");
        failures[t].Update(cuda_->queues().Use(*bound, x));
        std::this_thread::sleep_for(kCoreWork);
        failures[t].Update(Add(*bound, *cuda_, Operand(*x, kCount), Scalar(1), *x, kCount));
        std::this_thread::sleep_for(kCoreWork);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<absl::Status>(2));
  const auto bound = cuda_->queues().Bind(queue_b_, "check");
  ASSERT_TRUE(cuda_->queues().Use(*bound, x).ok());
  AH_TEST_ASSIGN(const std::vector<float> got, Download<float>(*bound, *cuda_, *x));
  EXPECT_EQ(FirstMismatch(got, start, 2 * kAdds), -1);
}

// Linear-algebra workers (cuBLAS handles and their workspaces) move between queues: products
// on four queues at once, each checked against the host backend.
TEST_F(CudaQueueTest, MatmulsOnManyQueuesAtOnce) {
  constexpr int64_t n = 192;
  HostBackend host;
  auto matrix = [&](QueueBinding& queue, Backend& backend, const std::vector<float>& values) {
    return Upload(queue, backend, values);
  };
  auto view = [&](Buffer& buffer) {
    return ArrayView{.buffer = &buffer,
                     .offset_bytes = 0,
                     .dtype = DType::kFloat32,
                     .shape = {n, n},
                     .strides = {n, 1}};
  };
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<std::shared_ptr<WorkQueue>> queue = cuda_->queues().NewQueue("test");
      if (!queue.ok()) {
        ++failures[t];
        return;
      }
      const auto bound = cuda_->queues().Bind(*queue, "matmul");
      for (int round = 0; round < 20; ++round) {
        const std::vector<float> a = RandomFloats(n * n, 100 * t + round, 8);
        const std::vector<float> b = RandomFloats(n * n, 1000 * t + round, 8);
        auto da = matrix(*bound, *cuda_, a), db = matrix(*bound, *cuda_, b),
             dc = cuda_->memory().Allocate(*bound, n * n * 4);
        auto ha = matrix(TestQueue(host), host, a), hb = matrix(TestQueue(host), host, b),
             hc = host.memory().Allocate(TestQueue(host), n * n * 4);
        if (!da.ok() || !db.ok() || !dc.ok() || !ha.ok() || !hb.ok() || !hc.ok()) {
          ++failures[t];
          return;
        }
        const absl::Status device =
            cuda_->linalg().Matmul(*bound, {.a = view(**da), .b = view(**db), .out = view(**dc)});
        const absl::Status reference = host.linalg().Matmul(
            TestQueue(host), {.a = view(**ha), .b = view(**hb), .out = view(**hc)});
        auto got = Download<float>(*bound, *cuda_, **dc);
        auto want = Download<float>(host, **hc);
        // Sums of 192 products of at most 64: exact in float32.
        if (!device.ok() || !reference.ok() || !got.ok() || !want.ok() || *got != *want) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace arrayhub
