// Scenario 1: what a small operation costs over RPC, against the cheapest call there is.
#include <fmt/format.h>

#include <cstdlib>
#include <vector>

#include "arrayhub/client.h"
#include "bench/service/latency.h"
#include "bench/service/scenarios.h"

namespace arrayhub::bench {

void RunRoundTrip(const BenchOptions& options) {
  Client client = Client::Connect(options.address);
  client.SetSync(true);  // Each call timed is one round trip, not a place in the pipeline.
  const std::vector<float> values(256, 1.5f);  // 1 KiB.
  Array a = client.Upload(values, {256});
  Array b = client.Upload(values, {256});
  Array out = client.Empty({256}, DType::kFloat32);

  // Interleaved, so that drift of the machine touches all three alike.
  Latencies ping, add_new, add_out;
  const int warmup = options.repeats / 10;
  for (int i = 0; i < warmup + options.repeats; ++i) {
    const double ping_us = TimeUs([&] { client.Ping(); });
    // The result's Free (when `r` goes) is outside the timed part.
    std::optional<Array> result;
    const double new_us = TimeUs([&] { result.emplace(client.Ufunc("add", {a, b})); });
    result.reset();
    const double out_us = TimeUs([&] { client.UfuncOut(out, "add", {a, b}); });
    if (i < warmup) continue;
    ping.Add(ping_us);
    add_new.Add(new_us);
    add_out.Add(out_us);
  }
  const double floor = ping.Quantile(0.5);
  fmt::print("\n### Small-op round trip (C++ client, {} calls each, interleaved)\n\n",
             options.repeats);
  fmt::print(
      "| call | p50 us | p99 us | p50 / bare call (target <= 1.5) |\n| --- | --- | --- | --- |\n");
  auto row = [&](const char* name, Latencies& latencies) {
    fmt::print("| {} | {:.1f} | {:.1f} | {:.2f} |\n", name, latencies.Quantile(0.5),
               latencies.Quantile(0.99), latencies.Quantile(0.5) / floor);
  };
  row("bare call: grpc.health.v1 Check, same channel", ping);
  row("add, 256 float32, new result array", add_new);
  row("add, 256 float32, out= existing array", add_out);

  // A host read of pipelined work, `(a + 1)[0]` downloaded: one batch and its read, on the
  // session's batch lane (a client on the daemon's host) and as a Batch call
  // (ARRAYHUB_BATCH_LANE=0 when it connects).
  setenv("ARRAYHUB_BATCH_LANE", "0", 1);
  Client unary = Client::Connect(options.address);
  unsetenv("ARRAYHUB_BATCH_LANE");
  Client laned = Client::Connect(options.address);
  Array on_unary = unary.Upload(values, {256});
  Array on_lane = laned.Upload(values, {256});
  Latencies read_unary, read_lane;
  for (int i = 0; i < warmup + options.repeats; ++i) {
    const double unary_us = TimeUs([&] {
      unary.Download<float>(unary.GetItem(unary.Ufunc("add", {on_unary, 1}), {0}));
    });
    const double lane_us = TimeUs([&] {
      laned.Download<float>(laned.GetItem(laned.Ufunc("add", {on_lane, 1}), {0}));
    });
    if (i < warmup) continue;
    read_unary.Add(unary_us);
    read_lane.Add(lane_us);
  }
  row("pipelined add and read of one element, a Batch call", read_unary);
  row("pipelined add and read of one element, on the batch lane", read_lane);
}

}  // namespace arrayhub::bench
