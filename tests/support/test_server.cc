#include "tests/support/test_server.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

#include "server/backend/backend_factory.h"

namespace arrayhub::testing {

std::unique_ptr<ArrayHubServer> StartTestServer(ServerOptions options) {
  const char* env = std::getenv("ARRAYHUB_TEST_BACKEND");
  auto choice = ParseBackendChoice(env != nullptr ? env : "cpu");
  EXPECT_TRUE(choice.ok()) << choice.status();
  auto backend = CreateBackend(choice.value_or(BackendChoice::kCpu));
  EXPECT_TRUE(backend.ok()) << backend.status();
  options.listen_address = "127.0.0.1:0";
  auto server = ArrayHubServer::Start(std::move(options), std::move(backend).value());
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(server).value() : nullptr;
}

std::unique_ptr<ArrayHubServer> StartCpuDevices(int count, ServerOptions options) {
  auto devices = CreateBackends(BackendChoice::kCpu, {.cpu_devices = count});
  EXPECT_TRUE(devices.ok()) << devices.status();
  if (!devices.ok()) return nullptr;
  options.listen_address = "127.0.0.1:0";
  auto server = ArrayHubServer::Start(std::move(options), std::move(devices).value());
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(server).value() : nullptr;
}

}  // namespace arrayhub::testing
