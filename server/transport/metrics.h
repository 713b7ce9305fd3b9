// The daemon's Prometheus metrics. Calls are counted as they finish (requests by method and
// status code, latency histograms, array bytes moved); the rest (memory, devices, tenants,
// sessions) is read from the engine each time the metrics are collected, so it is never stale.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/core/engine.h"

namespace arrayhub {

class ServerMetrics {
 public:
  enum class Direction { kUpload, kDownload };

  explicit ServerMetrics(Engine& engine);

  // One finished call. `service` and `method` must come from a fixed set (see
  // request_metrics.cc): every distinct value is a time series kept for the process's life.
  void CountRequest(std::string_view service, std::string_view method, std::string_view code,
                    double seconds);
  // Array bytes received by Upload or sent by Download.
  void CountTransfer(Direction direction, int64_t bytes);

  // Every metric in Prometheus's text exposition format (version 0.0.4): what /metrics serves.
  std::string Text() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<prometheus::Collectable> engine_state_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& durations_;
  prometheus::Family<prometheus::Counter>& transfers_;
  prometheus::Counter& uploaded_;
  prometheus::Counter& downloaded_;
};

}  // namespace arrayhub
