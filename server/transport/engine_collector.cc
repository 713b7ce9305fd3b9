#include "server/transport/engine_collector.h"

#include <string>
#include <utility>

namespace arrayhub {
namespace {

using Labels = std::vector<prometheus::ClientMetric::Label>;

prometheus::MetricFamily Gauges(std::string name, std::string help) {
  return {.name = std::move(name),
          .help = std::move(help),
          .type = prometheus::MetricType::Gauge,
          .metric = {}};
}

prometheus::MetricFamily Counters(std::string name, std::string help) {
  return {.name = std::move(name),
          .help = std::move(help),
          .type = prometheus::MetricType::Counter,
          .metric = {}};
}

void Count(prometheus::MetricFamily& family, double value) {
  prometheus::ClientMetric metric;
  metric.counter.value = value;
  family.metric.push_back(std::move(metric));
}

void Add(prometheus::MetricFamily& family, Labels labels, double value) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  metric.gauge.value = value;
  family.metric.push_back(std::move(metric));
}

}  // namespace

std::vector<prometheus::MetricFamily> EngineCollector::Collect() const {
  const EngineStats stats = engine_.Stats();

  auto info = Gauges("arrayhub_info", "Always 1; the labels say which daemon this is");
  Add(info, {{"version", ARRAYHUB_VERSION}, {"backend", std::string(engine_.backend_name())}}, 1);

  auto total = Gauges("arrayhub_device_memory_total_bytes",
                      "Memory of each device (host RAM for the CPU backend)");
  auto free = Gauges("arrayhub_device_memory_free_bytes",
                     "Free memory of each device as the device reports it, whoever holds the rest");
  auto device_in_use = Gauges("arrayhub_device_memory_in_use_bytes",
                              "Array memory arrayhubd holds on each device, all tenants");
  auto device_sessions =
      Gauges("arrayhub_device_sessions", "Open sessions whose device each device is");
  const std::vector<DeviceDescription> devices = engine_.Devices();
  const std::vector<Engine::DeviceUsage> usage = engine_.UsageByDevice();
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::string& name = devices[i].name;
    Add(total, {{"device", name}}, static_cast<double>(devices[i].total_memory_bytes));
    Add(free, {{"device", name}}, static_cast<double>(devices[i].free_memory_bytes));
    if (i < usage.size()) {
      Add(device_in_use, {{"device", name}}, static_cast<double>(usage[i].bytes_in_use));
      Add(device_sessions, {{"device", name}}, static_cast<double>(usage[i].sessions));
    }
  }

  auto in_use = Gauges("arrayhub_memory_in_use_bytes",
                       "Backend memory held by arrayhubd's live buffers, all tenants");
  Add(in_use, {}, static_cast<double>(stats.bytes_in_use));
  auto buffers = Gauges("arrayhub_buffers", "Live backend buffers (views share their base's)");
  Add(buffers, {}, static_cast<double>(stats.buffers));
  auto arrays = Gauges("arrayhub_arrays", "Live array handles, all tenants");
  Add(arrays, {}, static_cast<double>(stats.arrays));
  auto sessions = Gauges("arrayhub_sessions", "Open sessions, all tenants");
  Add(sessions, {}, static_cast<double>(stats.sessions));
  auto descriptors = Gauges(
      "arrayhub_shared_memory_descriptors",
      "Descriptors of clients' shared-memory objects held open (registered regions and parked "
      "ones), at most half the daemon's open-file limit");
  Add(descriptors, {}, static_cast<double>(stats.shared_memory_descriptors));

  auto tenant_bytes = Gauges("arrayhub_tenant_memory_bytes",
                             "Backend memory of each tenant's arrays (shared buffers once)");
  auto tenant_arrays = Gauges("arrayhub_tenant_arrays", "Live array handles of each tenant");
  auto tenant_sessions = Gauges("arrayhub_tenant_sessions", "Open sessions of each tenant");
  for (const auto& [tenant, usage] : engine_.UsageByTenant()) {
    Add(tenant_bytes, {{"tenant", tenant}}, static_cast<double>(usage.bytes));
    Add(tenant_arrays, {{"tenant", tenant}}, static_cast<double>(usage.arrays));
    Add(tenant_sessions, {{"tenant", tenant}}, static_cast<double>(usage.sessions));
  }
  auto tenant_disk = Gauges("arrayhub_tenant_disk_bytes",
                            "Disk of each tenant's durable publications (--data-dir)");
  for (const auto& [tenant, bytes] : engine_.DiskBytesByTenant()) {
    Add(tenant_disk, {{"tenant", tenant}}, static_cast<double>(bytes));
  }

  const SpillStats spill = engine_.SpillStatistics();
  auto tenant_spilled = Gauges("arrayhub_tenant_spilled_bytes",
                               "Bytes of each tenant's arrays spilled out of device memory, by "
                               "tier (host memory, disk)");
  for (const auto& [tenant, spilled] : spill.by_tenant) {
    Add(tenant_spilled, {{"tenant", tenant}, {"tier", "host"}},
        static_cast<double>(spilled.host_bytes));
    Add(tenant_spilled, {{"tenant", tenant}, {"tier", "disk"}},
        static_cast<double>(spilled.disk_bytes));
  }
  auto spills = Counters("arrayhub_spills_total", "Arrays moved out of device memory");
  Count(spills, static_cast<double>(spill.spills));
  auto returns = Counters("arrayhub_spill_returns_total",
                          "Spilled arrays brought back to device memory by a call using them");
  Count(returns, static_cast<double>(spill.returns));
  auto spill_seconds =
      Counters("arrayhub_spill_seconds_total", "Seconds spent moving arrays out of device memory");
  Count(spill_seconds, spill.spill_seconds);
  auto return_seconds = Counters("arrayhub_spill_return_seconds_total",
                                 "Seconds calls waited for spilled arrays to come back");
  Count(return_seconds, spill.return_seconds);

  return {std::move(info),          std::move(total),           std::move(free),
          std::move(in_use),        std::move(buffers),         std::move(arrays),
          std::move(sessions),      std::move(descriptors),     std::move(tenant_bytes),
          std::move(tenant_arrays), std::move(tenant_sessions), std::move(tenant_disk),
          std::move(device_in_use), std::move(device_sessions), std::move(tenant_spilled),
          std::move(spills),        std::move(returns),         std::move(spill_seconds),
          std::move(return_seconds)};
}

}  // namespace arrayhub
