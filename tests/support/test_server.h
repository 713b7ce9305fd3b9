// An in-process arrayhubd on a free loopback port, for transport and client tests.
#pragma once

#include <cstdlib>
#include <memory>
#include <string_view>

#include "server/transport/server.h"

namespace arrayhub::testing {

// The backend is the one named by the environment variable ARRAYHUB_TEST_BACKEND ("cpu", the
// default, or "cuda"), so the same suites run against the GPU on the GPU machine.
std::unique_ptr<ArrayHubServer> StartTestServer(ServerOptions options = {});

// A daemon with `count` virtual CPU devices, as `arrayhubd --cpu-devices N` makes, whatever the
// test backend: for the multi-device tests that run without GPUs.
std::unique_ptr<ArrayHubServer> StartCpuDevices(int count, ServerOptions options = {});

// Whether ARRAYHUB_TEST_BACKEND names the CUDA backend.
inline bool TestBackendIsCuda() {
  const char* backend = std::getenv("ARRAYHUB_TEST_BACKEND");
  return backend != nullptr && std::string_view(backend) == "cuda";
}

}  // namespace arrayhub::testing
