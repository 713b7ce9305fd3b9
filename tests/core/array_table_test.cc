// The handle table: lookups scoped to the caller's tenant, all-or-nothing erasure, session
// cleanup, listings, and concurrent use. Records own real HostBackend buffers, so that the
// backend's memory counters show when a record's memory is actually released.

#include "server/core/array_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

class ArrayTableTest : public ::testing::Test {
 protected:
  // A fresh record of `tenant`'s `session` holding `elements` float32 values.
  ArrayTable::RecordPtr MakeRecord(const Caller& owner, int64_t elements = 4) {
    auto record = std::make_shared<ArrayRecord>();
    record->handle = Handle::Random();
    record->dtype = DType::kFloat32;
    record->shape = {elements};
    record->strides = ContiguousStrides(record->shape);
    record->buffer = backend_.memory().Allocate(TestQueue(backend_), elements * 4).value();
    record->owner = owner.tenant;
    record->holder = owner.tenant;
    record->session = owner.session;
    return record;
  }

  // Makes a record and inserts it; returns its handle (the table then holds the only
  // reference to the record).
  Handle InsertNew(const Caller& owner, int64_t elements = 4) {
    ArrayTable::RecordPtr record = MakeRecord(owner, elements);
    const Handle handle = record->handle;
    table_.Insert(std::move(record));
    return handle;
  }

  static std::string NotFoundMessage(const Handle& h) {
    return "array " + h.ToString() + " not found";
  }

  // The listed handles as sorted text, to compare listings regardless of order.
  static std::vector<std::string> Sorted(const std::vector<ArrayTable::RecordPtr>& records) {
    std::vector<std::string> handles;
    for (const auto& r : records) handles.push_back(r->handle.ToString());
    std::sort(handles.begin(), handles.end());
    return handles;
  }
  static std::vector<std::string> Sorted(std::initializer_list<Handle> expected) {
    std::vector<std::string> handles;
    for (const Handle& h : expected) handles.push_back(h.ToString());
    std::sort(handles.begin(), handles.end());
    return handles;
  }

  HostBackend backend_;
  ArrayTable table_;
  const Caller alice_{.tenant = "alice", .session = Handle::Random()};
  const Caller alice_other_session_{.tenant = "alice", .session = Handle::Random()};
  const Caller bob_{.tenant = "bob", .session = Handle::Random()};
};

// A Caller holds its queue's binding only as Engine::Binding's own copy: any copy of it (for
// another device, another thread) holds none, so none outlives the binding it would name, and
// a backend call handed an unbound Caller's binding is refused (memory_conformance.h).
TEST(CallerQueueTest, OnlyTheBoundCallerHoldsItsBinding) {
  HostBackend backend;
  const std::unique_ptr<QueueBinding> binding = backend.queues().Bind(nullptr, "test");
  Caller bound{.tenant = "alice", .session = Handle::Random()};
  EXPECT_FALSE(bound.bound.held());
  bound.bound.Hold(*binding);
  EXPECT_TRUE(bound.bound.held());
  EXPECT_EQ(&QueueOf(bound), binding.get());

  const Caller copied = bound;
  Caller assigned{.tenant = "bob", .session = Handle::Random()};
  assigned = bound;
  for (const Caller* other : {&copied, static_cast<const Caller*>(&assigned)}) {
    EXPECT_EQ(other->tenant, "alice");
    EXPECT_FALSE(other->bound.held());
    const absl::StatusOr<std::shared_ptr<Buffer>> refused =
        backend.memory().Allocate(QueueOf(*other), 8);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInternal) << refused.status();
  }
  EXPECT_TRUE(backend.memory().Allocate(QueueOf(bound), 8).ok());
}

TEST_F(ArrayTableTest, FindReturnsTheInsertedRecord) {
  ArrayTable::RecordPtr record = MakeRecord(alice_);
  table_.Insert(record);
  absl::StatusOr<ArrayTable::RecordPtr> found = table_.Find(alice_, record->handle);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->get(), record.get());
  EXPECT_EQ(table_.size(), 1);
}

TEST_F(ArrayTableTest, FindFromAnotherSessionOfTheSameTenantSucceeds) {
  const Handle h = InsertNew(alice_);
  EXPECT_TRUE(table_.Find(alice_other_session_, h).ok());
}

TEST_F(ArrayTableTest, FindOfUnknownHandleIsNotFound) {
  const Handle unknown = Handle::Random();
  InsertNew(alice_);
  const absl::Status status = table_.Find(alice_, unknown).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), NotFoundMessage(unknown));
}

TEST_F(ArrayTableTest, FindOfAnotherTenantsArrayLooksExactlyLikeAnUnknownHandle) {
  const Handle bobs = InsertNew(bob_);
  const Handle unknown = Handle::Random();
  const absl::Status foreign = table_.Find(alice_, bobs).status();
  const absl::Status missing = table_.Find(alice_, unknown).status();
  EXPECT_EQ(foreign.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(foreign.message(), NotFoundMessage(bobs));
  EXPECT_EQ(missing.message(), NotFoundMessage(unknown));
  EXPECT_TRUE(table_.Find(bob_, bobs).ok());
}

TEST_F(ArrayTableTest, EraseDropsTheHandlesAndFreesTheirMemory) {
  const Handle a = InsertNew(alice_, 10);
  const Handle b = InsertNew(alice_, 20);
  EXPECT_EQ(backend_.Memory().bytes_in_use, 120);
  EXPECT_EQ(backend_.Memory().buffers_in_use, 2);

  absl::StatusOr<int64_t> erased = table_.Erase(alice_, {a, b});
  ASSERT_TRUE(erased.ok()) << erased.status();
  EXPECT_EQ(*erased, 2);
  EXPECT_EQ(table_.size(), 0);
  EXPECT_EQ(table_.Find(alice_, a).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(backend_.Memory().bytes_in_use, 0);
  EXPECT_EQ(backend_.Memory().buffers_in_use, 0);
}

TEST_F(ArrayTableTest, EraseWithOneUnknownHandleErasesNothing) {
  const Handle a = InsertNew(alice_);
  const Handle b = InsertNew(alice_);
  const Handle unknown = Handle::Random();
  const MemoryStats before = backend_.Memory();

  const absl::Status status = table_.Erase(alice_, {a, unknown, b}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), NotFoundMessage(unknown));
  EXPECT_EQ(table_.size(), 2);
  EXPECT_TRUE(table_.Find(alice_, a).ok());
  EXPECT_TRUE(table_.Find(alice_, b).ok());
  EXPECT_EQ(backend_.Memory().bytes_in_use, before.bytes_in_use);
}

TEST_F(ArrayTableTest, EraseIncludingAnotherTenantsArrayErasesNothing) {
  const Handle mine = InsertNew(alice_);
  const Handle theirs = InsertNew(bob_);
  const absl::Status status = table_.Erase(alice_, {mine, theirs}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), NotFoundMessage(theirs));
  EXPECT_EQ(table_.size(), 2);
  EXPECT_TRUE(table_.Find(alice_, mine).ok());
  EXPECT_TRUE(table_.Find(bob_, theirs).ok());
}

TEST_F(ArrayTableTest, EraseOfAHandleNamedTwiceCountsItOnce) {
  const Handle a = InsertNew(alice_);
  const Handle b = InsertNew(alice_);
  absl::StatusOr<int64_t> erased = table_.Erase(alice_, {a, a, b, a});
  ASSERT_TRUE(erased.ok()) << erased.status();
  EXPECT_EQ(*erased, 2);
  EXPECT_EQ(table_.size(), 0);
  EXPECT_EQ(backend_.Memory().bytes_in_use, 0);
}

TEST_F(ArrayTableTest, EraseOfNothingIsZero) {
  InsertNew(alice_);
  EXPECT_EQ(table_.Erase(alice_, {}).value(), 0);
  EXPECT_EQ(table_.size(), 1);
}

TEST_F(ArrayTableTest, ErasedRecordStillHeldByAReaderKeepsItsMemoryUntilReleased) {
  const Handle a = InsertNew(alice_, 8);
  ArrayTable::RecordPtr held = table_.Find(alice_, a).value();
  ASSERT_EQ(table_.Erase(alice_, {a}).value(), 1);
  EXPECT_EQ(backend_.Memory().bytes_in_use, 32);  // A download in flight may still read it.
  held.reset();
  EXPECT_EQ(backend_.Memory().bytes_in_use, 0);
}

TEST_F(ArrayTableTest, EraseSessionRemovesOnlyThatSessionsArrays) {
  const Handle a1 = InsertNew(alice_, 1);
  const Handle a2 = InsertNew(alice_, 2);
  const Handle other = InsertNew(alice_other_session_, 4);
  const Handle bobs = InsertNew(bob_, 8);

  EXPECT_EQ(table_.EraseSession(alice_.session), 2);
  EXPECT_EQ(table_.size(), 2);
  EXPECT_FALSE(table_.Find(alice_, a1).ok());
  EXPECT_FALSE(table_.Find(alice_, a2).ok());
  EXPECT_TRUE(table_.Find(alice_, other).ok());
  EXPECT_TRUE(table_.Find(bob_, bobs).ok());
  EXPECT_EQ(backend_.Memory().bytes_in_use, (4 + 8) * 4);
}

TEST_F(ArrayTableTest, EraseSessionOfUnknownSessionErasesNothing) {
  InsertNew(alice_);
  EXPECT_EQ(table_.EraseSession(Handle::Random()), 0);
  EXPECT_EQ(table_.size(), 1);
}

TEST_F(ArrayTableTest, ListBySessionReturnsOnlyTheCallersSession) {
  const Handle a1 = InsertNew(alice_);
  const Handle a2 = InsertNew(alice_);
  InsertNew(alice_other_session_);
  InsertNew(bob_);
  EXPECT_EQ(Sorted(table_.List(alice_, /*all_sessions=*/false)), Sorted({a1, a2}));
}

TEST_F(ArrayTableTest, ListOfAllSessionsReturnsTheTenantsArraysOnly) {
  const Handle a1 = InsertNew(alice_);
  const Handle a2 = InsertNew(alice_other_session_);
  const Handle b = InsertNew(bob_);
  EXPECT_EQ(Sorted(table_.List(alice_, /*all_sessions=*/true)), Sorted({a1, a2}));
  EXPECT_EQ(Sorted(table_.List(bob_, /*all_sessions=*/true)), Sorted({b}));
}

TEST_F(ArrayTableTest, ListNeverShowsAnotherTenantsArraysEvenInTheSameSession) {
  // A forged caller naming alice's session under bob's tenant sees nothing of alice's.
  InsertNew(alice_);
  const Caller impostor{.tenant = "bob", .session = alice_.session};
  EXPECT_TRUE(table_.List(impostor, /*all_sessions=*/false).empty());
  EXPECT_TRUE(table_.List(impostor, /*all_sessions=*/true).empty());
}

TEST_F(ArrayTableTest, ConcurrentInsertFindEraseLeavesNothingBehind) {
  constexpr int kThreads = 8;
  constexpr int kRecordsPerThread = 2000;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const Caller caller{.tenant = "tenant" + std::to_string(t % 3), .session = Handle::Random()};
      std::vector<Handle> mine;
      for (int i = 0; i < kRecordsPerThread; ++i) {
        ArrayTable::RecordPtr record = MakeRecord(caller, 1 + i % 5);
        mine.push_back(record->handle);
        table_.Insert(std::move(record));
        if (!table_.Find(caller, mine.back()).ok()) ++failures;
        if (i % 2 == 1) {  // Erase in pairs, the rest at the end.
          if (table_.Erase(caller, {mine[i - 1], mine[i]}).value_or(-1) != 2) ++failures;
        }
        if (i % 100 == 0) table_.List(caller, /*all_sessions=*/true);
      }
      if (table_.EraseSession(caller.session) != 0) ++failures;  // All erased already.
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(table_.size(), 0);
  EXPECT_EQ(backend_.Memory().bytes_in_use, 0);
  EXPECT_EQ(backend_.Memory().buffers_in_use, 0);
}

}  // namespace
}  // namespace arrayhub
