// The backend contract (backend_conformance.h) on the host backend.
#include <memory>
#include <string>
#include <string_view>

#include "server/backend/host/host_backend.h"
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

// Outside an anonymous namespace: ctest names each test after it ("HostMemory.Name<arrayhub::
// HostBackendFactory>"), one prefix a suite so that no two tests share a name.
struct HostBackendFactory {
  static constexpr std::string_view kName = "cpu";
  static constexpr std::string_view kDeviceName = "cpu";
  static constexpr std::string_view kOutOfMemory = "out of host memory";
  static std::string Unavailable() { return ""; }
  static absl::StatusOr<std::unique_ptr<Backend>> Make() { return std::make_unique<HostBackend>(); }
};

INSTANTIATE_TYPED_TEST_SUITE_P(HostMemory, MemoryConformanceTest, HostBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(HostRandom, RandomConformanceTest, HostBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(HostDistribution, DistributionConformanceTest, HostBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(HostElementwise, ElementwiseConformanceTest, HostBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(HostReduce, ReduceConformanceTest, HostBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(HostLinalg, LinalgConformanceTest, HostBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(HostIndexing, IndexingConformanceTest, HostBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(HostFft, FftConformanceTest, HostBackendFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(HostTimestamp, TimestampConformanceTest, HostBackendFactory);

}  // namespace arrayhub
