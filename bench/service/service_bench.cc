// arrayhub service benchmark: what calling the daemon over RPC costs, each figure beside its
// peer measured in the same run. Needs a running arrayhubd (scripts/service-bench.sh starts
// one). Prints markdown tables.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>

#include "arrayhub/client.h"
#include "bench/service/scenarios.h"

int main(int argc, char** argv) {
  arrayhub::bench::BenchOptions options;
  std::string scenarios = "roundtrip,batch,transfer,sharing,concurrency";
  std::string pinned_copy;
  CLI::App app("service_bench: ArrayHub's RPC costs beside their peers", "service_bench");
  app.add_option("--address", options.address, "host:port of a running arrayhubd")->required();
  app.add_option("--scenarios", scenarios,
                 "comma-separated: roundtrip, batch, transfer, sharing, concurrency");
  app.add_option("--repeats", options.repeats, "round trips per measured small call");
  app.add_option("--transfer-bytes", options.transfer_bytes, "size of the transferred array");
  app.add_option("--transfer-repeats", options.transfer_repeats, "transfers per path (median)");
  app.add_option("--transfer-streams", options.transfer_streams,
                 "streams of the striped streaming row (0: the client's default)");
  app.add_option("--clients", options.clients, "concurrent clients");
  app.add_option("--seconds", options.seconds, "length of the concurrent run");
  app.add_option("--pinned-copy", pinned_copy,
                 "file with 'h2d_gbs d2h_gbs' from pinned_copy_bench, measured in this run");
  CLI11_PARSE(app, argc, argv);
  if (!pinned_copy.empty()) {
    std::ifstream in(pinned_copy);
    double h2d = 0, d2h = 0;
    if (!(in >> h2d >> d2h)) {
      fmt::print(stderr, "service_bench: cannot read two numbers from {}\n", pinned_copy);
      return 1;
    }
    options.pinned_h2d_gbs = h2d;
    options.pinned_d2h_gbs = d2h;
  }
  try {
    const arrayhub::client::ServerInfo info =
        arrayhub::client::Client::Connect(options.address).Info();
    fmt::print("arrayhubd {} at {}, backend {}{}\n", info.version, options.address, info.backend,
               info.devices.empty() ? "" : ", " + info.devices[0].description);
    auto wanted = [&](const char* name) { return scenarios.find(name) != std::string::npos; };
    if (wanted("roundtrip")) arrayhub::bench::RunRoundTrip(options);
    if (wanted("batch")) arrayhub::bench::RunBatch(options);
    if (wanted("transfer")) arrayhub::bench::RunTransfer(options);
    if (wanted("sharing")) arrayhub::bench::RunSharing(options);
    if (wanted("concurrency")) arrayhub::bench::RunConcurrency(options);
  } catch (const arrayhub::client::Error& e) {
    fmt::print(stderr, "service_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
