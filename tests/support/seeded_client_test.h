// The fixture of the client suites that compute on random data: a test server, one client
// connected to it, and a generator seeded from BaseSeed(), named by every failure so that a run
// can be replayed (test_seed.h).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "arrayhub/client.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace arrayhub::testing {

class SeededClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = StartTestServer();
    ASSERT_NE(server_, nullptr);
    client_.emplace(client::Client::Connect(server_->address()));
  }

  client::Client& client() { return *client_; }

  // Standard normal values, C order.
  std::vector<double> Random(int64_t count) {
    std::normal_distribution<double> normal;
    std::vector<double> values(static_cast<size_t>(count));
    for (double& value : values) value = normal(rng_);
    return values;
  }
  std::vector<double> Get(const client::Array& array) { return client().Download<double>(array); }

  std::unique_ptr<ArrayHubServer> server_;
  std::optional<client::Client> client_;
  SeedTrace seed_trace_;
  std::mt19937_64 rng_{BaseSeed()};
};

}  // namespace arrayhub::testing
