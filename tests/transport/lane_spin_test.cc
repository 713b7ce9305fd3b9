// How a batch lane waits for its next frame (server/transport/lane_spin.h): only a lane whose
// client came back within the window spins, a spin ends as soon as the connection has a frame
// or has ended, or when the window passes, and never takes more than the free slots.
#include "server/transport/lane_spin.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace arrayhub {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Long enough that a test which spun to the end of it would stand out.
constexpr std::chrono::microseconds kLongWindow = 20s;

class LaneSpinTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, ends_), 0); }
  void TearDown() override {
    close(ends_[0]);
    if (ends_[1] >= 0) close(ends_[1]);
  }

  // A lane whose client came straight back after its answer.
  static void MakeQuick(LaneSpin& spin) {
    spin.NoteAnswered();
    spin.NoteArrived();
    ASSERT_TRUE(spin.spinning());
  }

  // Seconds AwaitFrame took on the lane's end.
  double SecondsAwaiting(LaneSpin& spin) {
    const Clock::time_point start = Clock::now();
    spin.AwaitFrame(ends_[0]);
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  int ends_[2] = {-1, -1};  // The lane's, the client's.
  LaneSpinSlots slots_{2};
};

TEST_F(LaneSpinTest, OnlyALaneWhoseClientCameBackWithinTheWindowSpins) {
  LaneSpin spin(50ms, slots_);
  spin.NoteArrived();  // The first frame: no answer before it.
  EXPECT_FALSE(spin.spinning());
  MakeQuick(spin);
  spin.NoteAnswered();
  std::this_thread::sleep_for(100ms);
  spin.NoteArrived();
  EXPECT_FALSE(spin.spinning()) << "a client slower than the window must leave the lane asleep";
}

TEST_F(LaneSpinTest, AZeroWindowNeverSpins) {
  LaneSpin spin(0us, slots_);
  spin.NoteAnswered();
  spin.NoteArrived();
  EXPECT_FALSE(spin.spinning());
}

TEST_F(LaneSpinTest, ASpinEndsWhenAFrameArrives) {
  LaneSpin spin(kLongWindow, slots_);
  MakeQuick(spin);
  std::thread client([this] {
    std::this_thread::sleep_for(20ms);
    ASSERT_EQ(write(ends_[1], "x", 1), 1);
  });
  const double seconds = SecondsAwaiting(spin);
  client.join();
  EXPECT_GE(seconds, 0.015);
  EXPECT_LT(seconds, 5);
  char byte = 0;
  EXPECT_EQ(read(ends_[0], &byte, 1), 1) << "the spin must leave the frame's bytes to the read";
  EXPECT_EQ(byte, 'x');
}

TEST_F(LaneSpinTest, ASpinEndsWhenTheConnectionEnds) {
  LaneSpin spin(kLongWindow, slots_);
  MakeQuick(spin);
  close(ends_[1]);
  ends_[1] = -1;
  EXPECT_LT(SecondsAwaiting(spin), 5);
}

TEST_F(LaneSpinTest, ASpinEndsWhenItsWindowPassesAndGivesItsSlotBack) {
  LaneSpin spin(30ms, slots_);
  MakeQuick(spin);
  const double seconds = SecondsAwaiting(spin);
  EXPECT_GE(seconds, 0.025);
  EXPECT_LT(seconds, 5);
  EXPECT_TRUE(slots_.TryTake());
  EXPECT_TRUE(slots_.TryTake());
  EXPECT_FALSE(slots_.TryTake()) << "two slots, both given back after the spin";
}

TEST_F(LaneSpinTest, NoFreeSlotNoSpin) {
  ASSERT_TRUE(slots_.TryTake());
  ASSERT_TRUE(slots_.TryTake());
  LaneSpin spin(kLongWindow, slots_);
  MakeQuick(spin);
  EXPECT_LT(SecondsAwaiting(spin), 5) << "with every slot taken the lane must block instead";
  slots_.Give();
  slots_.Give();
}

TEST(LaneSpinSlotsTest, AQuarterOfTheCoresAtLeastOne) {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  EXPECT_EQ(LaneSpinSlots::DefaultSlots(), std::max(1, cores / 4));
}

}  // namespace
}  // namespace arrayhub
