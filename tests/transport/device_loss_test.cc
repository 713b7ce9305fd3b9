// A lost device (a CUDA error after which the context is unusable) through the whole server,
// without a GPU: the backend's DeviceHealth is told as the CUDA backend tells it; health turns
// NOT_SERVING at once and the server's on_device_lost (arrayhubd: stop with exit status 70) is
// called once. And the daemon's stop request wakes its wait as a signal would.
#include <atomic>

#include "server/shutdown_signals.h"
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

std::atomic<int> stops{0};

class DeviceLossTest : public RpcTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options;
    options.on_device_lost = [] { ++stops; };
    return options;
  }
};

TEST_F(DeviceLossTest, HealthTurnsNotServingAndTheDaemonIsToldOnce) {
  stops = 0;
  ASSERT_EQ(HealthCheck(), std::string("\x08\x01", 2));
  DeviceHealth& health = server_->engine().backend().device_health();
  EXPECT_TRUE(health.ReportLost("cudaErrorIllegalAddress, found while serving 'add'"));
  EXPECT_FALSE(health.ReportLost("cudaErrorLaunchFailure"));
  EXPECT_EQ(HealthCheck(), std::string("\x08\x02", 2));
  EXPECT_EQ(stops, 1);
}

TEST(ShutdownRequestTest, AStopForDeviceLossWakesTheWaitLikeASignal) {
  ASSERT_TRUE(InstallShutdownSignals().ok());
  RequestStopForDeviceLoss();
  EXPECT_EQ(WaitForShutdownSignal(), kDeviceLost);
}

}  // namespace
}  // namespace arrayhub::testing
