// The scenarios of the service benchmark (service_bench.cc runs them): each connects its own
// clients to a running arrayhubd, measures, and prints a markdown table with its peer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "arrayhub/client.h"

namespace arrayhub::bench {

// The client API the scenarios use.
using client::Array;
using client::Client;
using client::DType;
using client::Error;
using client::ServerInfo;
using client::Shape;

struct BenchOptions {
  std::string address;  // host:port of the daemon.
  int repeats = 5000;   // Round trips per measured call.
  int64_t transfer_bytes = int64_t{1} << 30;
  int transfer_repeats = 3;
  int transfer_streams = 0;  // Of the striped streaming row; 0: the client's own choice.
  int clients = 256;
  double seconds = 30;
  // cudaMemcpy GB/s from and to pinned host memory, measured in the same run by
  // pinned_copy_bench (absent on a machine without a GPU).
  std::optional<double> pinned_h2d_gbs;
  std::optional<double> pinned_d2h_gbs;
};

// 1. A small op (add on 1 KiB) against a bare empty call (health Check) on one channel.
void RunRoundTrip(const BenchOptions& options);
// 2. 64 dependent small ops as one Batch against 64 single calls and one call.
void RunBatch(const BenchOptions& options);
// 3. 1 GiB up and down over gRPC streaming (and over shared memory where the client uses it).
void RunTransfer(const BenchOptions& options);
// 4. A second client uses the first one's 1 GiB array by handle, against download + upload.
void RunSharing(const BenchOptions& options);
// 5. Many clients issuing small ops at once; the server's memory before and after.
void RunConcurrency(const BenchOptions& options);

}  // namespace arrayhub::bench
