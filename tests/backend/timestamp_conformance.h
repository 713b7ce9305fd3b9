// The timing contract of every backend (see backend_conformance.h and timestamp.h): a
// timestamp lies in its queue's order, after the work enqueued before it and before the work
// enqueued after; the time between two is the queue's time for the work between them; and a
// timestamp outlives its queue.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

#include "tests/backend/backend_conformance.h"

namespace arrayhub {

template <typename Factory>
class TimestampConformanceTest : public BackendTest<Factory> {
 protected:
  // Binds a new queue for the rest of the test (bound()); `bytes` allocated on it.
  std::shared_ptr<Buffer> BindNewQueueWithBuffer(int64_t bytes) {
    absl::StatusOr<std::shared_ptr<WorkQueue>> queue = this->backend().queues().NewQueue("tenant");
    EXPECT_TRUE(queue.ok()) << queue.status();
    if (!queue.ok()) return nullptr;
    queue_ = *std::move(queue);
    bound_ = this->backend().queues().Bind(queue_, "timestamp test");
    return Allocate(*bound_, bytes);
  }
  QueueBinding& bound() { return *bound_; }

  std::shared_ptr<Buffer> Allocate(QueueBinding& queue, int64_t bytes) {
    absl::StatusOr<std::shared_ptr<Buffer>> buffer =
        this->backend().memory().Allocate(queue, bytes);
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    return buffer.ok() ? *buffer : nullptr;
  }

  std::shared_ptr<Timestamp> Record(QueueBinding& queue) {
    absl::StatusOr<std::shared_ptr<Timestamp>> timestamp =
        this->backend().queues().RecordTimestamp(queue);
    EXPECT_TRUE(timestamp.ok()) << timestamp.status();
    return timestamp.ok() ? *timestamp : nullptr;
  }

  double Elapsed(Timestamp& start, Timestamp& end) {
    absl::StatusOr<double> milliseconds = this->backend().queues().ElapsedMilliseconds(start, end);
    EXPECT_TRUE(milliseconds.ok()) << milliseconds.status();
    return milliseconds.value_or(0);
  }

  // Fills the buffer 8 bytes at a time: for 64 MiB, work the queue takes a while over (tens of
  // microseconds on a GPU, milliseconds on a CPU), against none between two timestamps in a row.
  void Fill(QueueBinding& queue, Buffer& buffer) {
    const std::byte pattern[8] = {std::byte{0x5a}};
    ASSERT_TRUE(
        this->backend().memory().FillPattern(queue, buffer, 0, buffer.size() / 8, 8, pattern).ok());
  }

 private:
  std::shared_ptr<WorkQueue> queue_;
  std::unique_ptr<QueueBinding> bound_;
};

TYPED_TEST_SUITE_P(TimestampConformanceTest);

TYPED_TEST_P(TimestampConformanceTest, TimesTheQueuesWorkBetweenTwo) {
  const std::shared_ptr<Buffer> buffer = this->BindNewQueueWithBuffer(int64_t{64} << 20);
  ASSERT_NE(buffer, nullptr);
  const std::shared_ptr<Timestamp> first = this->Record(this->bound());
  this->Fill(this->bound(), *buffer);
  const std::shared_ptr<Timestamp> second = this->Record(this->bound());
  const std::shared_ptr<Timestamp> third = this->Record(this->bound());
  ASSERT_NE(third, nullptr);
  ASSERT_TRUE(third->Wait().ok());
  EXPECT_TRUE(first->Reached().value_or(false));
  const double filling = this->Elapsed(*first, *second);
  const double nothing = this->Elapsed(*second, *third);
  EXPECT_GT(filling, 0);
  EXPECT_GT(filling, nothing);
  EXPECT_GE(nothing, 0);
  EXPECT_NEAR(this->Elapsed(*first, *third), filling + nothing, 1e-2);
  EXPECT_EQ(this->Elapsed(*second, *second), 0);
  EXPECT_LT(this->Elapsed(*second, *first), 0);
}

TYPED_TEST_P(TimestampConformanceTest, OutlivesItsQueue) {
  std::shared_ptr<Timestamp> start, end;
  {
    AH_TEST_ASSIGN(std::shared_ptr<WorkQueue> queue, this->backend().queues().NewQueue("tenant"));
    const std::unique_ptr<QueueBinding> bound =
        this->backend().queues().Bind(queue, "timestamp test");
    const std::shared_ptr<Buffer> buffer = this->Allocate(*bound, int64_t{1} << 20);
    ASSERT_NE(buffer, nullptr);
    start = this->Record(*bound);
    this->Fill(*bound, *buffer);
    end = this->Record(*bound);
  }
  ASSERT_NE(end, nullptr);
  EXPECT_TRUE(end->Wait().ok());
  EXPECT_GE(this->Elapsed(*start, *end), 0);
}

// A backend may reuse what a released timestamp held (the CUDA backend recycles its events):
// the timestamps held meanwhile keep their own points, and new ones still time their work.
TYPED_TEST_P(TimestampConformanceTest, ReleasedTimestampsLeaveTheHeldOnesTheirPoints) {
  const std::shared_ptr<Buffer> buffer = this->BindNewQueueWithBuffer(int64_t{64} << 20);
  ASSERT_NE(buffer, nullptr);
  const std::shared_ptr<Timestamp> held = this->Record(this->bound());
  this->Fill(this->bound(), *buffer);
  const std::shared_ptr<Timestamp> after_fill = this->Record(this->bound());
  // More records released than any pool keeps, each re-recorded at once into a fresh one.
  for (int i = 0; i < 300; ++i) this->Record(this->bound());
  const std::shared_ptr<Timestamp> start = this->Record(this->bound());
  this->Fill(this->bound(), *buffer);
  const std::shared_ptr<Timestamp> end = this->Record(this->bound());
  ASSERT_NE(end, nullptr);
  ASSERT_TRUE(end->Wait().ok());
  const double first_fill = this->Elapsed(*held, *after_fill);
  EXPECT_GT(first_fill, 0);
  EXPECT_GT(this->Elapsed(*start, *end), 0);
  // The held pair kept its place before the second fill: from it to the end spans both.
  EXPECT_GT(this->Elapsed(*held, *end), first_fill);
  EXPECT_GE(this->Elapsed(*after_fill, *start), 0);
}

// Sessions record and release timestamps on their own queues at the same time (the CUDA
// backend hands released events from one to another): each pair still times its own queue's
// work, never a point of another's.
TYPED_TEST_P(TimestampConformanceTest, ConcurrentQueuesRecordAndReleaseWithoutMixingPoints) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 100;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      absl::StatusOr<std::shared_ptr<WorkQueue>> queue =
          this->backend().queues().NewQueue("tenant");
      if (!queue.ok()) {
        ++bad;
        return;
      }
      const std::unique_ptr<QueueBinding> bound =
          this->backend().queues().Bind(*queue, "timestamp test");
      absl::StatusOr<std::shared_ptr<Buffer>> buffer =
          this->backend().memory().Allocate(*bound, int64_t{1} << 20);
      if (!buffer.ok()) {
        ++bad;
        return;
      }
      const std::byte pattern[8] = {std::byte{0x5a}};
      for (int round = 0; round < kRounds; ++round) {
        absl::StatusOr<std::shared_ptr<Timestamp>> start =
            this->backend().queues().RecordTimestamp(*bound);
        const absl::Status filled = this->backend().memory().FillPattern(
            *bound, **buffer, 0, (*buffer)->size() / 8, 8, pattern);
        absl::StatusOr<std::shared_ptr<Timestamp>> end =
            this->backend().queues().RecordTimestamp(*bound);
        if (!start.ok() || !filled.ok() || !end.ok() || !(*end)->Wait().ok() ||
            !(*start)->Reached().value_or(false)) {
          ++bad;
          continue;
        }
        const absl::StatusOr<double> ms =
            this->backend().queues().ElapsedMilliseconds(**start, **end);
        if (!ms.ok() || *ms < 0 || *ms > 10'000) ++bad;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
}

REGISTER_TYPED_TEST_SUITE_P(TimestampConformanceTest, TimesTheQueuesWorkBetweenTwo,
                            OutlivesItsQueue, ReleasedTimestampsLeaveTheHeldOnesTheirPoints,
                            ConcurrentQueuesRecordAndReleaseWithoutMixingPoints);

}  // namespace arrayhub
