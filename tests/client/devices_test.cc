// The C++ client on a daemon with two devices (virtual CPU devices, as --cpu-devices 2 makes):
// the session's device, SetDevice and DeviceGuard, CopyToDevice, the device of queued results,
// queued ops split into one batch per device, and the cross-device error.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrayhub/client.h"
#include "tests/support/test_server.h"

namespace {

using arrayhub::client::Array;
using arrayhub::client::Client;
using arrayhub::client::ClientOptions;
using arrayhub::client::DeviceGuard;
using arrayhub::client::Error;
using arrayhub::client::StatusCode;

ClientOptions OnDevice(int32_t device) {
  ClientOptions options;
  options.device = device;
  return options;
}

// A daemon with one device: nothing to choose, and a device it lacks is refused up front.
TEST(OneDeviceTest, SetDeviceRefusesADeviceTheServerLacks) {
  auto server = arrayhub::testing::StartTestServer();
  ASSERT_NE(server, nullptr);
  Client client = Client::Connect(server->address());
  EXPECT_EQ(client.device(), 0);
  for (int32_t device : {1, -1}) {
    try {
      client.SetDevice(device);
      ADD_FAILURE() << "SetDevice(" << device << ") threw nothing";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), StatusCode::kInvalidArgument);
      EXPECT_NE(std::string(error.what()).find("the server has 1 device(s)"), std::string::npos)
          << error.what();
    }
  }
  EXPECT_EQ(client.CurrentDevice(), 0);
  {
    DeviceGuard guard(client, 0);
    EXPECT_EQ(client.Download<int64_t>(client.Arange(0, 3)), (std::vector<int64_t>{0, 1, 2}));
  }
  EXPECT_EQ(client.CurrentDevice(), 0);
}

class DevicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = arrayhub::testing::StartCpuDevices(2);
    ASSERT_NE(server_, nullptr);
    client_.emplace(Client::Connect(server_->address(), OnDevice(0)));
  }

  Client& client() { return *client_; }

  std::unique_ptr<arrayhub::ArrayHubServer> server_;
  std::optional<Client> client_;  // Declared after server_, so destroyed before it.
};

TEST_F(DevicesTest, ServerInfoListsEveryDevice) {
  const arrayhub::client::ServerInfo info = client().Info();
  ASSERT_EQ(info.devices.size(), 2u);
  EXPECT_EQ(info.devices[0].name, "cpu:0");
  EXPECT_EQ(info.devices[1].name, "cpu:1");
  EXPECT_EQ(info.devices[0].sessions, 1);
  EXPECT_EQ(info.devices[1].sessions, 0);
  EXPECT_EQ(client().device(), 0);
  EXPECT_EQ(client().CurrentDevice(), 0);
}

TEST_F(DevicesTest, CallsRunOnTheCurrentDevice) {
  Array a = client().Arange(0, 4);
  {
    DeviceGuard on_one(client(), 1);
    EXPECT_EQ(client().CurrentDevice(), 1);
    Array b = client().Arange(0, 4);
    Array c = client().Ufunc("multiply", {b, 2});
    EXPECT_EQ(client().Download<int64_t>(c), (std::vector<int64_t>{0, 2, 4, 6}));
    EXPECT_EQ(b.info().device_index, 1);
    EXPECT_EQ(c.info().device, "cpu:1");
    Array uploaded = client().Upload(std::vector<float>{1, 2}, {2});  // The Upload RPC.
    EXPECT_EQ(uploaded.info().device_index, 1);
  }
  EXPECT_EQ(client().CurrentDevice(), 0);
  EXPECT_EQ(a.info().device_index, 0);
  EXPECT_EQ(a.info().device, "cpu:0");
}

TEST_F(DevicesTest, ADeviceTheServerLacksIsRefusedAndChangesNothing) {
  for (int32_t device : {2, -1}) {
    try {
      client().SetDevice(device);
      ADD_FAILURE() << "SetDevice(" << device << ") threw nothing";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), StatusCode::kInvalidArgument);
      EXPECT_NE(std::string(error.what()).find("the server has 2 device(s)"), std::string::npos)
          << error.what();
    }
  }
  EXPECT_EQ(client().CurrentDevice(), 0);
}

TEST_F(DevicesTest, QueuedOpsOfTwoDevicesRunEachOnItsOwn) {
  // Issued without waiting, alternating: each goes in a batch of its device.
  std::vector<Array> arrays;
  for (int i = 0; i < 6; ++i) {
    client().SetDevice(i % 2);
    arrays.push_back(client().Full({3}, i));
    arrays.push_back(client().Ufunc("add", {arrays.back(), 1}));
  }
  client().SetDevice(0);
  client().Synchronize();
  for (size_t k = 0; k < arrays.size(); ++k) {
    EXPECT_EQ(arrays[k].info().device_index, static_cast<int32_t>(k / 2 % 2)) << k;
  }
  EXPECT_EQ(client().Download<int64_t>(arrays[11]), (std::vector<int64_t>{6, 6, 6}));
}

TEST_F(DevicesTest, CopyToDeviceCopiesValuesBothWays) {
  Array a = client().Upload(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {2, 3});
  Array moved = client().CopyToDevice(client().Transpose(a), 1);  // A strided source.
  EXPECT_EQ(moved.info().device_index, 1);
  EXPECT_TRUE(moved.info().c_contiguous);
  EXPECT_EQ(client().Download<int32_t>(moved), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  Array back = client().CopyToDevice(moved, 0);
  EXPECT_EQ(back.info().device_index, 0);
  EXPECT_EQ(back.shape(), (arrayhub::client::Shape{3, 2}));
  EXPECT_EQ(client().Download<int32_t>(back), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
}

TEST_F(DevicesTest, AnOpAcrossDevicesThrowsInvalidArgumentNamingBoth) {
  Array a = client().Arange(0, 3);
  client().SetDevice(1);
  Array b = client().Arange(0, 3);
  client().SetDevice(0);
  try {
    Array sum = client().Ufunc("add", {a, b});
    client().Synchronize();
    ADD_FAILURE() << "adding arrays of two devices threw nothing";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), StatusCode::kInvalidArgument);
    const std::string message = error.what();
    EXPECT_NE(message.find("cpu:0"), std::string::npos) << message;
    EXPECT_NE(message.find("cpu:1"), std::string::npos) << message;
  }
  Array copied = client().CopyToDevice(b, 0);
  EXPECT_EQ(client().Download<int64_t>(client().Ufunc("add", {a, copied})),
            (std::vector<int64_t>{0, 2, 4}));
}

TEST_F(DevicesTest, ASessionOnTheOtherDevice) {
  Client other = Client::Connect(server_->address(), OnDevice(1));
  EXPECT_EQ(other.device(), 1);
  EXPECT_EQ(other.CurrentDevice(), 1);
  EXPECT_EQ(other.Zeros({2}).info().device_index, 1);
}

}  // namespace
