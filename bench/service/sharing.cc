// Scenario 4: a second client (another session on its own channel, as another process would
// have) uses the first client's 1 GiB array by name, against downloading it and uploading it
// again.
#include <fmt/format.h>
#include <unistd.h>

#include <vector>

#include "arrayhub/client.h"
#include "bench/service/latency.h"
#include "bench/service/scenarios.h"

namespace arrayhub::bench {

void RunSharing(const BenchOptions& options) {
  Client owner = Client::Connect(options.address);
  Client user = Client::Connect(options.address);
  const int64_t count = options.transfer_bytes / 4;
  Array data = owner.Full({count}, 0.5, DType::kFloat32);
  const std::string name = fmt::format("bench-shared-{}", getpid());
  owner.Publish(data, name);

  // Each path ends with the user summing the array and reading the sum: the data is in use.
  auto sum = [&](const Array& array) { return user.Download<float>(user.Reduce("sum", array)); };
  std::vector<double> by_handle, by_copy;
  for (int i = 0; i < options.transfer_repeats + 1; ++i) {
    const double attach_us = TimeUs([&] {
      Array attached = user.Attach(name);
      sum(attached);
    });
    const double copy_us = TimeUs([&] {
      std::vector<std::byte> bytes = owner.DownloadBytes(data);
      Array copy = user.UploadBytes(bytes, DType::kFloat32, {count});
      sum(copy);
    });
    if (i == 0) continue;  // Warm-up.
    by_handle.push_back(attach_us / 1e3);
    by_copy.push_back(copy_us / 1e3);
  }
  std::sort(by_handle.begin(), by_handle.end());
  std::sort(by_copy.begin(), by_copy.end());
  const double handle_ms = by_handle[by_handle.size() / 2];
  const double copy_ms = by_copy[by_copy.size() / 2];
  fmt::print("\n### Sharing a {:.2f} GiB array with another client (median of {})\n\n",
             static_cast<double>(options.transfer_bytes) / (1 << 30), options.transfer_repeats);
  fmt::print(
      "| path | array bytes over the wire | ms (then sum it) | speed-up |\n| --- | --- | --- | "
      "--- |\n");
  fmt::print(
      "| by handle: Publish, Attach (target: no payload) | 0 (Attach request and ArrayInfo "
      "only) | {:.1f} | {:.0f}x |\n",
      handle_ms, copy_ms / handle_ms);
  fmt::print("| peer: Download, then Upload by the other client | {} | {:.1f} | 1x |\n",
             2 * options.transfer_bytes, copy_ms);
  owner.Unpublish(name);
}

}  // namespace arrayhub::bench
