// Scenario 2: 64 dependent small ops as one Batch call, against the same 64 as single calls
// (sync mode), through the client's pipeline up to a read of the result, and against one
// single call.
#include "arrayhub/batch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

#include "arrayhub/client.h"
#include "bench/service/latency.h"
#include "bench/service/scenarios.h"

namespace arrayhub::bench {

using client::Batch;
using client::Step;

void RunBatch(const BenchOptions& options) {
  constexpr int kOps = 64;
  Client client = Client::Connect(options.address);
  client.SetSync(true);  // The single calls are one round trip each, as they are timed.
  Client pipelined = Client::Connect(options.address);
  pipelined.SetSync(false);
  const std::vector<float> values(256, 1.0f);  // 1 KiB.
  Array x = client.Upload(values, {256});
  Array px = pipelined.Upload(values, {256});

  const int repeats = std::max(options.repeats / 20, 20);
  Latencies one, singles, batched, queued;
  auto check = [&](const Array& result) {
    if (client.Download<float>(result) != std::vector<float>(256, 1.0f + kOps)) {
      fmt::print(stderr, "bench: the chain of {} adds gave wrong values\n", kOps);
      std::exit(1);
    }
  };
  for (int i = 0; i < repeats + repeats / 10; ++i) {
    const bool warm = i >= repeats / 10;
    std::vector<Array> chain;  // Freed after the timed part.
    chain.reserve(kOps);
    const double singles_us = TimeUs([&] {
      chain.push_back(client.Ufunc("add", {x, 1.0}));
      for (int k = 1; k < kOps; ++k) chain.push_back(client.Ufunc("add", {chain.back(), 1.0}));
    });
    if (i == 0) check(chain.back());
    chain.clear();

    std::vector<Array> kept;
    const double batch_us = TimeUs([&] {
      Batch batch(client);
      Step step = batch.Add(x, 1.0);
      for (int k = 1; k < kOps; ++k) step = batch.Add(step, 1.0);
      kept = batch.Run({step});
    });
    if (i == 0) check(kept.at(0));
    kept.clear();

    // The same chain through the pipeline, up to the read of its result (one Batch).
    const double queued_us = TimeUs([&] {
      Array y = pipelined.Ufunc("add", {px, 1.0});
      for (int k = 1; k < kOps; ++k) y = pipelined.Ufunc("add", {y, 1.0});
      if (pipelined.Download<float>(y) != std::vector<float>(256, 1.0f + kOps)) {
        fmt::print(stderr, "bench: the pipelined chain of {} adds gave wrong values\n", kOps);
        std::exit(1);
      }
    });

    std::optional<Array> single;
    const double one_us = TimeUs([&] { single.emplace(client.Ufunc("add", {x, 1.0})); });
    if (!warm) continue;
    singles.Add(singles_us);
    batched.Add(batch_us);
    queued.Add(queued_us);
    one.Add(one_us);
  }
  const double call = one.Quantile(0.5);
  fmt::print("\n### {} dependent small ops (add on 256 float32), {} repeats\n\n", kOps, repeats);
  fmt::print("| how | p50 us | p99 us | p50 / one single call (batch target <= 4) |\n");
  fmt::print("| --- | --- | --- | --- |\n");
  fmt::print("| one single call | {:.0f} | {:.0f} | 1.00 |\n", call, one.Quantile(0.99));
  fmt::print("| {} single calls | {:.0f} | {:.0f} | {:.1f} |\n", kOps, singles.Quantile(0.5),
             singles.Quantile(0.99), singles.Quantile(0.5) / call);
  fmt::print("| one Batch of {} (recorded and run) | {:.0f} | {:.0f} | {:.1f} |\n", kOps,
             batched.Quantile(0.5), batched.Quantile(0.99), batched.Quantile(0.5) / call);
  fmt::print("| {} pipelined calls and the read of the result | {:.0f} | {:.0f} | {:.1f} |\n", kOps,
             queued.Quantile(0.5), queued.Quantile(0.99), queued.Quantile(0.5) / call);
}

}  // namespace arrayhub::bench
