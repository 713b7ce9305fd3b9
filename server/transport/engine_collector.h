// The engine's state as Prometheus gauges, read at each scrape: device memory (total and free,
// as the device reports it), backend memory and buffers in use, arrays and sessions, and the
// same per tenant.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <vector>

#include "server/core/engine.h"

namespace arrayhub {

class EngineCollector final : public prometheus::Collectable {
 public:
  explicit EngineCollector(Engine& engine) : engine_(engine) {}

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  Engine& engine_;
};

}  // namespace arrayhub
