#include "server/transport/metrics.h"

#include <prometheus/text_serializer.h>

#include <string>
#include <vector>

#include "server/transport/engine_collector.h"

namespace arrayhub {
namespace {

// From 100 us (a small RPC on loopback) to a minute (a large SVD or transfer).
const prometheus::Histogram::BucketBoundaries& LatencyBuckets() {
  static const auto* buckets = new prometheus::Histogram::BucketBoundaries{
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
      0.1,    0.25,    0.5,    1,     2.5,    5,     10,   30,    60};
  return *buckets;
}

}  // namespace

ServerMetrics::ServerMetrics(Engine& engine)
    : registry_(std::make_shared<prometheus::Registry>()),
      engine_state_(std::make_shared<EngineCollector>(engine)),
      requests_(prometheus::BuildCounter()
                    .Name("arrayhub_requests_total")
                    .Help("RPCs finished, by service, method and status code (errors are the "
                          "codes other than OK)")
                    .Register(*registry_)),
      durations_(prometheus::BuildHistogram()
                     .Name("arrayhub_request_duration_seconds")
                     .Help("Time from a call's arrival to its status, by service and method")
                     .Register(*registry_)),
      transfers_(prometheus::BuildCounter()
                     .Name("arrayhub_transfer_bytes_total")
                     .Help("Array bytes received by Upload and CopyFromSharedMemory "
                           "(direction=upload) and sent by Download and CopyToSharedMemory "
                           "(direction=download)")
                     .Register(*registry_)),
      uploaded_(transfers_.Add({{"direction", "upload"}})),
      downloaded_(transfers_.Add({{"direction", "download"}})) {}

void ServerMetrics::CountRequest(std::string_view service, std::string_view method,
                                 std::string_view code, double seconds) {
  const std::string s(service), m(method);
  requests_.Add({{"service", s}, {"method", m}, {"code", std::string(code)}}).Increment();
  durations_.Add({{"service", s}, {"method", m}}, LatencyBuckets()).Observe(seconds);
}

void ServerMetrics::CountTransfer(Direction direction, int64_t bytes) {
  (direction == Direction::kUpload ? uploaded_ : downloaded_).Increment(static_cast<double>(bytes));
}

std::string ServerMetrics::Text() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  for (auto& family : engine_state_->Collect()) families.push_back(std::move(family));
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace arrayhub
