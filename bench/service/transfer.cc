// Scenario 3: moving 1 GiB between the client's memory and the server's, each way, over gRPC
// streaming and over shared memory, beside cudaMemcpy from pinned memory in the same run.
// Through shared memory a transfer is the client's copy between its vector and the region plus
// the server's one DMA between the (pinned) region and the device; both are in the time.
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include "arrayhub/client.h"
#include "bench/service/latency.h"
#include "bench/service/scenarios.h"

namespace arrayhub::bench {
namespace {

struct TransferTimes {
  double upload_s = 0;
  double download_s = 0;
  bool used_shared_memory = false;
};

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Medians of `repeats` uploads and downloads of `data` with a client whose shared-memory use
// is `shared_memory` ("0" off, "1" on; see the client's ARRAYHUB_SHARED_MEMORY).
TransferTimes Measure(const BenchOptions& options, const std::vector<std::byte>& data,
                      const char* shared_memory) {
  setenv("ARRAYHUB_SHARED_MEMORY", shared_memory, 1);
  Client client = Client::Connect(options.address);
  const Shape shape{static_cast<int64_t>(data.size() / sizeof(float))};
  std::vector<double> uploads, downloads;
  // Downloads land in memory allocated and touched once, as the peer's do: a fresh 1 GiB
  // vector per download would time the kernel's page faults, not the transfer.
  std::vector<std::byte> back(data.size());
  for (int i = 0; i < options.transfer_repeats + 1; ++i) {  // The first is a warm-up.
    std::fill(back.begin(), back.end(), std::byte{0});
    std::optional<Array> array;
    const double up =
        TimeUs([&] { array.emplace(client.UploadBytes(data, DType::kFloat32, shape)); });
    const double down = TimeUs([&] { client.DownloadInto(*array, back); });
    if (back != data) {
      fmt::print(stderr, "bench: the {} bytes downloaded differ from those uploaded\n",
                 data.size());
      std::exit(1);
    }
    if (i == 0) continue;
    uploads.push_back(up / 1e6);
    downloads.push_back(down / 1e6);
  }
  unsetenv("ARRAYHUB_SHARED_MEMORY");
  return {MedianOf(uploads), MedianOf(downloads), client.UsesSharedMemory()};
}

}  // namespace

void RunTransfer(const BenchOptions& options) {
  // Distinct float32 values, so that a misplaced chunk shows.
  std::vector<float> values(static_cast<size_t>(options.transfer_bytes / 4));
  std::iota(values.begin(), values.end(), 0.0f);
  std::vector<std::byte> data(values.size() * sizeof(float));
  std::memcpy(data.data(), values.data(), data.size());
  values = {};

  const double gib = static_cast<double>(data.size()) / (1 << 30);
  const double gb = static_cast<double>(data.size()) / 1e9;
  fmt::print("\n### Transfer of {:.2f} GiB (C++ client, median of {})\n\n", gib,
             options.transfer_repeats);
  fmt::print(
      "| path | upload GB/s | download GB/s | upload / pinned cudaMemcpy H2D | download / pinned "
      "cudaMemcpy D2H |\n| --- | --- | --- | --- | --- |\n");
  auto share = [](double gbs, const std::optional<double>& peer) {
    return peer ? fmt::format("{:.2f}", gbs / *peer) : std::string("n/a (no GPU)");
  };
  for (const auto& [name, shared_memory] :
       {std::pair{"gRPC streaming (target >= 2 GB/s each way)", "0"},
        std::pair{"shared memory (target >= 0.8 of pinned cudaMemcpy)", "1"}}) {
    const TransferTimes t = Measure(options, data, shared_memory);
    const double up = gb / t.upload_s, down = gb / t.download_s;
    fmt::print("| {}{} | {:.2f} | {:.2f} | {} | {} |\n", name,
               t.used_shared_memory ? " [client used shared memory]" : " [client streamed]", up,
               down, share(up, options.pinned_h2d_gbs), share(down, options.pinned_d2h_gbs));
  }
  if (options.pinned_h2d_gbs) {
    fmt::print("| peer: cudaMemcpy, pinned host memory | {:.2f} | {:.2f} | 1 | 1 |\n",
               *options.pinned_h2d_gbs, *options.pinned_d2h_gbs);
  }
}

}  // namespace arrayhub::bench
