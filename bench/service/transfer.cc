// Scenario 3: moving 1 GiB between the client's memory and the server's, each way, over gRPC
// streaming, over shared memory from ordinary memory, and over shared memory from pinned
// buffers, beside cudaMemcpy from pinned memory in the same run. From ordinary memory a
// same-host transfer is the client's copy between its vector and the session's region plus
// the server's one DMA between the (pinned) region and the device, both in the time; from a
// pinned buffer (Client::AllocatePinned) it is the server's DMA alone.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arrayhub/client.h"
#include "bench/service/latency.h"
#include "bench/service/scenarios.h"

namespace arrayhub::bench {
namespace {

// How the client moves the data.
enum class Path { kOneStream, kStreaming, kSharedMemory, kPinnedBuffer };

struct TransferTimes {
  double upload_s = 0;
  double download_s = 0;
  std::string how;  // What the client did, as it reports it.
};

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Medians of `repeats` uploads and downloads of `data` by a new client along `path`.
TransferTimes Measure(const BenchOptions& options, const std::vector<std::byte>& data, Path path) {
  // Read once, when the client connects (see the client's ARRAYHUB_SHARED_MEMORY).
  const bool streamed = path == Path::kOneStream || path == Path::kStreaming;
  setenv("ARRAYHUB_SHARED_MEMORY", streamed ? "0" : "1", 1);
  client::ClientOptions client_options;
  client_options.transfer_streams = path == Path::kOneStream ? 1 : options.transfer_streams;
  Client client = Client::Connect(options.address, client_options);
  unsetenv("ARRAYHUB_SHARED_MEMORY");
  const Shape shape{static_cast<int64_t>(data.size() / sizeof(float))};
  // Downloads land in memory allocated and touched once, as the peer's do: a fresh 1 GiB
  // vector per download would time the kernel's page faults, not the transfer.
  std::vector<std::byte> ordinary;
  client::PinnedBuffer pinned_source, pinned_back;
  std::span<const std::byte> source = data;
  std::span<std::byte> back;
  if (path == Path::kPinnedBuffer) {
    pinned_source = client.AllocatePinned(static_cast<int64_t>(data.size()));
    pinned_back = client.AllocatePinned(static_cast<int64_t>(data.size()));
    std::memcpy(pinned_source.data(), data.data(), data.size());
    source = pinned_source.bytes();
    back = pinned_back.bytes();
  } else {
    ordinary.resize(data.size());
    back = ordinary;
  }
  std::vector<double> uploads, downloads;
  for (int i = 0; i < options.transfer_repeats + 1; ++i) {  // The first is a warm-up.
    std::fill(back.begin(), back.end(), std::byte{0});
    std::optional<Array> array;
    const double up =
        TimeUs([&] { array.emplace(client.UploadBytes(source, DType::kFloat32, shape)); });
    const double down = TimeUs([&] { client.DownloadInto(*array, back); });
    if (!std::ranges::equal(back, data)) {
      fmt::print(stderr, "bench: the {} bytes downloaded differ from those uploaded\n",
                 data.size());
      std::exit(1);
    }
    if (i == 0) continue;
    uploads.push_back(up / 1e6);
    downloads.push_back(down / 1e6);
  }
  std::string how = client.UsesSharedMemory()
                        ? "client used its shared-memory region"
                        : fmt::format("client streamed, {} stream(s)", client.TransferStreams());
  if (path == Path::kPinnedBuffer) {
    how = pinned_source.registered() ? "server copied from/to the pinned buffers"
                                     : "pinned buffers not registered: " + how;
  }
  return {MedianOf(uploads), MedianOf(downloads), how};
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
  for (const auto& [name, path] :
       {std::pair{"gRPC streaming, one stream", Path::kOneStream},
        std::pair{"gRPC streaming, the client's default (target >= 2 GB/s each way)",
                  Path::kStreaming},
        std::pair{"shared memory, from/to ordinary memory (a client memcpy)", Path::kSharedMemory},
        std::pair{"shared memory, from/to pinned buffers (target >= 0.8 of pinned cudaMemcpy)",
                  Path::kPinnedBuffer}}) {
    const TransferTimes t = Measure(options, data, path);
    const double up = gb / t.upload_s, down = gb / t.download_s;
    fmt::print("| {} [{}] | {:.2f} | {:.2f} | {} | {} |\n", name, t.how, up, down,
               share(up, options.pinned_h2d_gbs), share(down, options.pinned_d2h_gbs));
  }
  if (options.pinned_h2d_gbs) {
    fmt::print("| peer: cudaMemcpy, pinned host memory | {:.2f} | {:.2f} | 1 | 1 |\n",
               *options.pinned_h2d_gbs, *options.pinned_d2h_gbs);
  }
}

}  // namespace arrayhub::bench
