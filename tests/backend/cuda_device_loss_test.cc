// A lost GPU: the CUDA errors that leave the context unusable are told apart from the others,
// and CudaStatus reports them, once, to the health of the backends on the device, naming the
// call being served. The classification and the report run without a GPU; with one, a kernel
// that writes to an address outside device memory loses the device for real (run this suite
// in a process of its own: the context stays poisoned).
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <string>

#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/device_loss.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

TEST(CudaDeviceLossTest, OnlyErrorsThatPoisonTheContextLoseTheDevice) {
  for (const cudaError_t error :
       {cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorECCUncorrectable,
        cudaErrorMisalignedAddress, cudaErrorIllegalInstruction, cudaErrorAssert,
        cudaErrorHardwareStackError, cudaErrorLaunchTimeout, cudaErrorNvlinkUncorrectable}) {
    EXPECT_TRUE(IsDeviceLost(error)) << cudaGetErrorName(error);
  }
  for (const cudaError_t error :
       {cudaSuccess, cudaErrorMemoryAllocation, cudaErrorInvalidValue, cudaErrorNotReady,
        cudaErrorLaunchOutOfResources, cudaErrorInvalidConfiguration, cudaErrorNoDevice}) {
    EXPECT_FALSE(IsDeviceLost(error)) << cudaGetErrorName(error);
  }
}

// Without a device the thread's device is unknown, so every watcher hears of the loss.
TEST(CudaDeviceLossTest, CudaStatusReportsALossOnceWithoutAGpu) {
  if (CudaDeviceCount() > 0) GTEST_SKIP() << "the GPU test below covers it for real";
  DeviceHealth health;
  int heard = 0;
  std::string what;
  health.SetListener([&](std::string_view w) {
    ++heard;
    what = w;
  });
  const DeviceLossWatch watch(0, health);
  EXPECT_FALSE(CudaStatus(cudaErrorInvalidValue, "cudaMemcpyAsync").ok());
  EXPECT_EQ(heard, 0);
  const absl::Status lost = CudaStatus(cudaErrorLaunchFailure, "cudaStreamSynchronize");
  EXPECT_EQ(lost.code(), absl::StatusCode::kInternal);
  EXPECT_NE(lost.message().find("unusable until the server restarts"), std::string::npos)
      << lost.message();
  EXPECT_EQ(CudaStatus(cudaErrorIllegalAddress, "again").code(), absl::StatusCode::kInternal);
  EXPECT_EQ(heard, 1);
  EXPECT_NE(what.find("cudaErrorLaunchFailure"), std::string::npos) << what;
  EXPECT_NE(what.find("found while serving no request"), std::string::npos) << what;
}

// Device memory the backend never allocated: a view of it is what core never makes.
class Unallocated final : public Buffer {
 public:
  Unallocated() : Buffer(reinterpret_cast<void*>(0x1000), 4096) {}
};

TEST(CudaDeviceLossTest, AFaultingKernelLosesTheDeviceOnceWithTheCallThatFoundIt) {
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateCudaBackend(0);
  ASSERT_TRUE(backend.ok()) << backend.status();
  Backend& cuda = **backend;
  int heard = 0;
  std::string what;
  cuda.device_health().SetListener([&](std::string_view w) {
    ++heard;
    what = w;
  });
  absl::StatusOr<std::shared_ptr<WorkQueue>> queue = cuda.queues().NewQueue("test");
  ASSERT_TRUE(queue.ok()) << queue.status();
  const auto bound = cuda.queues().Bind(*queue, "fill (tenant 'mallory')");
  absl::StatusOr<std::shared_ptr<Buffer>> real = cuda.memory().Allocate(*bound, 8);
  ASSERT_TRUE(real.ok()) << real.status();
  Unallocated nowhere;
  // A strided pattern takes the fill kernel (a contiguous one-byte pattern would be a memset,
  // which the runtime refuses at once). The launch succeeds; the fault surfaces when the queue
  // is waited for, if not already at the launch's check.
  (void)cuda.memory().FillPattern(*bound, nowhere, 0, 256, 16,
                                  std::array<std::byte, 8>{std::byte{1}});
  std::array<std::byte, 8> bytes{};
  const absl::Status status = cuda.memory().CopyToHost(*bound, **real, 0, bytes);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(status.message().find("cudaErrorIllegalAddress"), std::string::npos) << status;
  EXPECT_TRUE(cuda.device_health().lost());
  EXPECT_EQ(heard, 1);
  EXPECT_NE(what.find("cudaErrorIllegalAddress"), std::string::npos) << what;
  EXPECT_NE(what.find("found while serving 'fill (tenant 'mallory')'"), std::string::npos) << what;
  // Every later call fails the same way, and the loss is not reported again.
  EXPECT_EQ(cuda.memory().CopyToHost(*bound, **real, 0, bytes).code(), absl::StatusCode::kInternal);
  EXPECT_EQ(heard, 1);
}

}  // namespace
}  // namespace arrayhub
