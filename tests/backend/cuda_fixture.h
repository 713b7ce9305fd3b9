// The fixture every CUDA backend suite starts from: a backend on device 0 for each test, or
// the test skipped where there is no GPU (CI).
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "server/backend/cuda/cuda_backend.h"

namespace arrayhub {

class CudaFixture : public testing::Test {
 protected:
  void SetUp() override {
    if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
    absl::StatusOr<std::unique_ptr<Backend>> backend = CreateCudaBackend(0);
    ASSERT_TRUE(backend.ok()) << backend.status();
    cuda_ = *std::move(backend);
  }

  // Whether SetUp ended the test early (no device, or no backend).
  bool Stopped() const { return IsSkipped() || HasFatalFailure(); }

  std::unique_ptr<Backend> cuda_;
};

}  // namespace arrayhub
