// DeviceHealth: a device's loss is reported once, whoever reports it, and heard by the listener
// once, whether it was set before the loss or after; a removed listener hears nothing.
#include "server/backend/device_health.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace arrayhub {
namespace {

TEST(DeviceHealthTest, TheFirstReportOfManyThreadsCountsAndIsHeardOnce) {
  DeviceHealth health;
  std::atomic<int> heard{0};
  std::string what;
  health.SetListener([&](std::string_view w) {
    ++heard;
    what = w;
  });
  EXPECT_FALSE(health.lost());
  std::atomic<int> first{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      if (health.ReportLost("lost by " + std::to_string(t))) ++first;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_TRUE(health.lost());
  EXPECT_EQ(first, 1);
  EXPECT_EQ(heard, 1);
  EXPECT_TRUE(what.starts_with("lost by ")) << what;
}

TEST(DeviceHealthTest, AListenerSetAfterTheLossHearsOfItAtOnce) {
  DeviceHealth health;
  ASSERT_TRUE(health.ReportLost("ECC"));
  std::string what;
  health.SetListener([&](std::string_view w) { what = w; });
  EXPECT_EQ(what, "ECC");
}

TEST(DeviceHealthTest, ARemovedListenerHearsNothing) {
  DeviceHealth health;
  int heard = 0;
  health.SetListener([&](std::string_view) { ++heard; });
  health.SetListener(nullptr);
  EXPECT_TRUE(health.ReportLost("gone"));
  EXPECT_EQ(heard, 0);
}

}  // namespace
}  // namespace arrayhub
