// Scenario 5: many clients at once, each its own channel and session, issuing small ops for a
// while; then the server's memory must be back where it started.
#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "arrayhub/client.h"
#include "bench/service/latency.h"
#include "bench/service/scenarios.h"

namespace arrayhub::bench {
namespace {

struct ServerMemory {
  int64_t bytes_in_use = 0;
  int64_t arrays = 0;
  int64_t sessions = 0;
  int64_t device_free = 0;
};

ServerMemory Probe(const std::string& address) {
  Client probe = Client::Connect(address);
  const ServerInfo info = probe.Info();
  return {info.bytes_in_use, info.arrays, info.sessions - 1,  // Not the probe's own session.
          info.devices.empty() ? 0 : info.devices[0].free_memory_bytes};
}

}  // namespace

void RunConcurrency(const BenchOptions& options) {
  const ServerMemory before = Probe(options.address);
  std::atomic<int64_t> operations{0}, errors{0};
  std::mutex mutex;
  Latencies all;
  std::string first_error;
  const auto deadline = BenchClock::now() + std::chrono::duration_cast<BenchClock::duration>(
                                                std::chrono::duration<double>(options.seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < options.clients; ++c) {
    threads.emplace_back([&, c] {
      Latencies mine;
      try {
        Client client = Client::Connect(options.address);
        client.SetSync(true);  // Each call timed is one round trip, not a place in the queue.
        const std::vector<float> values(256, static_cast<float>(c));
        Array a = client.Upload(values, {256});
        while (BenchClock::now() < deadline) {
          try {
            std::optional<Array> sum;
            mine.Add(TimeUs([&] { sum.emplace(client.Ufunc("add", {a, a})); }));
            ++operations;
          } catch (const Error& e) {
            if (errors++ == 0) {
              std::lock_guard lock(mutex);
              first_error = e.what();
            }
          }
        }
      } catch (const Error& e) {  // Connecting or the first upload failed.
        if (errors++ == 0) {
          std::lock_guard lock(mutex);
          first_error = e.what();
        }
      }
      std::lock_guard lock(mutex);
      all.Merge(mine);
    });
  }
  for (std::thread& thread : threads) thread.join();
  const ServerMemory after = Probe(options.address);

  fmt::print("\n### {} concurrent clients for {:.0f} s (add on 256 float32, new result each)\n\n",
             options.clients, options.seconds);
  fmt::print("| ops/s | p50 us | p99 us | errors (target 0) |\n| --- | --- | --- | --- |\n");
  fmt::print("| {:.0f} | {:.0f} | {:.0f} | {} |\n",
             static_cast<double>(operations.load()) / options.seconds, all.Quantile(0.5),
             all.Quantile(0.99), errors.load());
  if (!first_error.empty()) fmt::print("\nfirst error: {}\n", first_error);
  fmt::print(
      "\n| server | before | after the clients left |\n| --- | --- | --- |\n"
      "| bytes in arrays (target: back to before) | {} | {} |\n| arrays | {} | {} |\n"
      "| sessions | {} | {} |\n| device free bytes (the pool keeps freed memory cached) | {} | {} "
      "|\n",
      before.bytes_in_use, after.bytes_in_use, before.arrays, after.arrays, before.sessions,
      after.sessions, before.device_free, after.device_free);
}

}  // namespace arrayhub::bench
