// The backend contract (backend_conformance.h) on the CUDA backend, device 0. Skipped where
// there is no GPU.
#include <memory>
#include <string>
#include <string_view>

#include "server/backend/cuda/cuda_backend.h"
#include "tests/backend/distribution_conformance.h"
#include "tests/backend/elementwise_conformance.h"
#include "tests/backend/fft_conformance.h"
#include "tests/backend/indexing_conformance.h"
#include "tests/backend/linalg_conformance.h"
#include "tests/backend/memory_conformance.h"
#include "tests/backend/random_conformance.h"
#include "tests/backend/reduce_conformance.h"
#include "tests/backend/timestamp_conformance.h"

namespace arrayhub {

// Outside an anonymous namespace: ctest names each test after it ("CudaMemory.Name<arrayhub::
// CudaBackendFactory>"), one prefix a suite so that no two tests share a name.
struct CudaBackendFactory {
  static constexpr std::string_view kName = "cuda";
  static constexpr std::string_view kDeviceName = "cuda:0";
  static constexpr std::string_view kOutOfMemory = "out of device memory on cuda:0";
  static std::string Unavailable() { return CudaDeviceCount() == 0 ? "no CUDA device" : ""; }
  static absl::StatusOr<std::unique_ptr<Backend>> Make() { return CreateCudaBackend(0); }
};

INSTANTIATE_TYPED_TEST_SUITE_P(CudaMemory, MemoryConformanceTest, CudaBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaRandom, RandomConformanceTest, CudaBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaDistribution, DistributionConformanceTest, CudaBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaElementwise, ElementwiseConformanceTest, CudaBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaReduce, ReduceConformanceTest, CudaBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaLinalg, LinalgConformanceTest, CudaBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaIndexing, IndexingConformanceTest, CudaBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaFft, FftConformanceTest, CudaBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaTimestamp, TimestampConformanceTest, CudaBackendFactory);

}  // namespace arrayhub
