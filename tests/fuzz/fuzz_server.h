// What the fuzz targets share about the server they feed: how it is started (an in-process
// server on a free loopback port, with limits small enough that any input runs fast) and what
// counts as a finding.
#pragma once

#include <google/protobuf/stubs/logging.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/backend/backend_factory.h"
#include "server/core/creation.h"
#include "server/transport/server.h"

namespace arrayhub::fuzz {

// Reports what an input broke and aborts, so that libFuzzer keeps the input.
[[noreturn]] inline void Finding(std::string_view fuzzer, const std::string& what) {
  std::fprintf(stderr, "%.*s: %s\n", int(fuzzer.size()), fuzzer.data(), what.c_str());
  std::abort();
}

// UNKNOWN, INTERNAL and DATA_LOSS: answers whose messages would not tell a client what it did
// wrong. A request never deserves one.
inline bool IsUnclear(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNKNOWN || code == grpc::StatusCode::INTERNAL ||
         code == grpc::StatusCode::DATA_LOSS;
}

// The CPU backend behind a server with small limits (linear algebra on at most 64 KiB), with
// `options`' other settings (tokens, quotas, shared-memory limits).
inline std::unique_ptr<ArrayHubServer> StartFuzzServer(std::string_view fuzzer,
                                                       ServerOptions options) {
  spdlog::set_level(spdlog::level::off);
  // Protobuf logs every string field of invalid UTF-8 it parses; such inputs are expected.
  google::protobuf::SetLogHandler(nullptr);
  options.listen_address = "127.0.0.1:0";
  options.limits.max_array_bytes = 64 << 10;
  options.limits.max_array_elements = 16 << 10;
  options.limits.max_chunk_bytes = 4096;
  options.limits.default_chunk_bytes = 1024;
  // Two devices, so that placement, CopyToDevice and a Batch's device are fuzzed too.
  auto server = ArrayHubServer::Start(
      std::move(options), CreateBackends(BackendChoice::kCpu, {.cpu_devices = 2}).value());
  if (!server.ok()) Finding(fuzzer, "cannot start the server: " + server.status().ToString());
  return *std::move(server);
}

// The arrays each fuzzed session starts with, which the corpora name by their place: a float64
// 3 x 4 of ones, an int32 0-d arange, a complex64 2 x 2 of ones and a bool vector of zeros.
inline std::vector<CreateSpec> PremadeArrays() {
  return {
      {.dtype = DType::kFloat64, .shape = {3, 4}, .kind = OnesKind{}},
      {.dtype = DType::kInt32,
       .shape = {},
       .kind = ArangeKind{.start = Scalar::Int(0), .stop = Scalar::Int(5), .step = {}}},
      {.dtype = DType::kComplex64, .shape = {2, 2}, .kind = OnesKind{}},
      {.dtype = DType::kBool, .shape = {3}, .kind = ZerosKind{}},
  };
}

}  // namespace arrayhub::fuzz
