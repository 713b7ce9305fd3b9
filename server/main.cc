// arrayhubd: configuration, logging, backend selection, serving, and shutdown on SIGTERM/SIGINT.
//
// Every option can be given, in decreasing precedence, as a command-line flag, as an
// environment variable ARRAYHUB_<NAME> (e.g. ARRAYHUB_LISTEN), or in the TOML/INI file named
// by --config (or ARRAYHUB_CONFIG); otherwise its default applies (see environment_args.h).
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iostream>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "server/backend/backend_factory.h"
#include "server/descriptor_limit.h"
#include "server/environment_args.h"
#include "server/shutdown_signals.h"
#include "server/transport/server.h"

namespace {

// Exit status after the device was lost (EX_SOFTWARE in sysexits.h): apart from 0, 2 for a
// configuration error, 100-127 for a command-line error (CLI11) and 128 + signal.
constexpr int kExitDeviceLost = 70;
// How long calls in flight may still run after the device was lost (each fails at its next
// CUDA call), and how long the whole stop may take before the process exits regardless.
constexpr std::chrono::seconds kDeviceLossDrain{1};
constexpr std::chrono::seconds kDeviceLossDeadline{10};
// How long past --drain-seconds the process may take to stop: calls stop at their next check
// once the drain runs out, and the arrays are freed, within milliseconds.
constexpr std::chrono::seconds kExitGrace{1};

struct Config {
  std::string listen = "127.0.0.1:50051";
  std::string backend = "auto";
  std::string log_level = "info";
  arrayhub::Limits limits;
  int64_t session_ttl = 60;
  int64_t max_session_ttl = 3600;
  int64_t lease_warning_percent = 80;
  int64_t drain_seconds = 10;
  int64_t transfer_idle_seconds = 60;
  int64_t lane_spin_microseconds = 250;
  std::string metrics_listen;
  arrayhub::TenantQuota quotas;
  std::string auth_file;
  arrayhub::TlsFiles tls;
  arrayhub::PeerOptions peer;
  bool insecure = false;
  std::string ipc_socket;
  arrayhub::KernelCacheOptions kernel_cache;
  arrayhub::DeviceOptions devices;
  std::string data_dir;
  arrayhub::SpillOptions spill;
};

void DefineOptions(CLI::App& app, Config& config) {
  app.set_config("--config", "", "TOML or INI file with options (names as the long flags)")
      ->envname("ARRAYHUB_CONFIG");
  app.allow_config_extras(CLI::config_extras_mode::error);  // A misspelt key is an error.
  app.footer(
      "Each option can also be set by its environment variable (Env) or, under its long name, "
      "in the\n--config file. A flag wins over the environment, which wins over the file.\n"
      "SIGTERM or SIGINT drains (see --drain-seconds); a second signal exits at once.\n"
      "Exit status: 0 after a drain, 2 for a configuration error, 70 when the GPU was lost (a\n"
      "CUDA error that leaves it unusable: restart the daemon), 128 + N after a second signal N.");
  // The envname is shown by --help and read by WithEnvironment, which passes the value on as a
  // flag (so CLI11 itself never has to).
  auto add = [&app](const std::string& name, auto& value, const std::string& help) {
    std::string env = "ARRAYHUB_" + name;
    for (char& c : env) c = c == '-' ? '_' : static_cast<char>(std::toupper(c));
    return app.add_option("--" + name, value, help)->envname(env)->capture_default_str();
  };
  add("listen", config.listen, "gRPC address to listen on (host:port)");
  add("backend", config.backend, "compute backend: auto (CUDA when a GPU is visible), cuda, cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  add("devices", config.devices.cuda_devices,
      "CUDA devices to serve, as ordinals after CUDA_VISIBLE_DEVICES (e.g. 0,2); empty: every "
      "visible one")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber);
  add("cpu-devices", config.devices.cpu_devices,
      "virtual devices of the CPU backend (cpu:0, cpu:1, ...; they share the host's memory), "
      "for trying and testing multi-device code without GPUs")
      ->check(CLI::Range(1, 64));
  add("log-level", config.log_level, "trace, debug, info, warn, error, critical or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  add("max-rank", config.limits.max_rank, "most dimensions an array may have")
      ->check(CLI::Range(0, 64));
  add("max-array-bytes", config.limits.max_array_bytes, "largest single array, in bytes")
      ->check(CLI::NonNegativeNumber);
  add("max-chunk-bytes", config.limits.max_chunk_bytes,
      "largest upload or download chunk, in bytes")
      ->check(CLI::Range(int64_t{1}, int64_t{64} << 20));
  add("default-chunk-bytes", config.limits.default_chunk_bytes,
      "download chunk size when a client names none, in bytes")
      ->check(CLI::Range(int64_t{1}, int64_t{64} << 20));
  add("max-inline-read-bytes", config.limits.max_inline_read_bytes,
      "most bytes of the result a Batch answers inline (its `read`); a larger one is left for "
      "a download. At most the largest gRPC message")
      ->check(CLI::NonNegativeNumber);
  add("max-inline-create-bytes", config.limits.max_inline_create_bytes,
      "most bytes of host data a create carries inline (clients queue small uploads in their "
      "Batches so); 0 refuses them. At most the largest gRPC message")
      ->check(CLI::NonNegativeNumber);
  add("session-ttl", config.session_ttl, "default session lease, in seconds")
      ->check(CLI::PositiveNumber);
  add("max-session-ttl", config.max_session_ttl, "longest lease a client may ask for, in seconds")
      ->check(CLI::PositiveNumber);
  add("lease-warning-percent", config.lease_warning_percent,
      "WatchSession streams hear that a lease is about to run out once this percentage of it "
      "has passed without a KeepAlive")
      ->check(CLI::Range(1, 99));
  add("drain-seconds", config.drain_seconds,
      "on SIGTERM/SIGINT, how long in-flight calls may run before they are stopped")
      ->check(CLI::NonNegativeNumber);
  add("metrics-listen", config.metrics_listen,
      "host:port for Prometheus metrics at http://host:port/metrics; empty: no metrics endpoint");
  add("max-array-elements", config.limits.max_array_elements,
      "most elements of one array or view (broadcast views included)")
      ->check(CLI::NonNegativeNumber);
  add("max-list-entries", config.limits.max_list_entries,
      "most entries of a request's open-ended lists (arrays to join, split points, handles to "
      "free, reader tenants)")
      ->check(CLI::PositiveNumber);
  add("tenant-max-bytes", config.quotas.max_bytes,
      "memory quota of each tenant, in bytes of the arrays it made (published ones included)")
      ->check(CLI::NonNegativeNumber);
  add("tenant-max-arrays", config.quotas.max_arrays,
      "array quota of each tenant: handles it holds plus names it publishes")
      ->check(CLI::NonNegativeNumber);
  add("tenant-max-sessions", config.quotas.max_sessions,
      "sessions each tenant may have open at once")
      ->check(CLI::NonNegativeNumber);
  add("tenant-max-transfers", config.quotas.max_transfers,
      "uploads, downloads, Batch streams and session watches each tenant may have in flight "
      "at once")
      ->check(CLI::NonNegativeNumber);
  add("tenant-max-disk-bytes", config.quotas.max_disk_bytes,
      "disk quota of each tenant in the data directory, in bytes of its durable publications' "
      "files")
      ->check(CLI::NonNegativeNumber);
  add("data-dir", config.data_dir,
      "directory of durable publications (made mode 0700 if missing): written on "
      "publish(durable=True) and `arrayhub checkpoint`, restored at start; empty: none");
  add("tenant-soft-bytes", config.spill.tenant_soft_bytes,
      "soft memory limit of each tenant: past it, its least recently used arrays spill out of "
      "device memory (to --spill-host-bytes, then --data-dir) until it is back under")
      ->check(CLI::NonNegativeNumber);
  add("spill-host-bytes", config.spill.host_bytes,
      "host memory (pinned on the CUDA backend) that arrays spilled out of device memory may "
      "take, all tenants together; beyond it they spill to files under --data-dir. Ignored on "
      "the CPU backend")
      ->check(CLI::NonNegativeNumber);
  add("spill-disk-bytes", config.spill.disk_bytes,
      "bytes of spill files under --data-dir/spill, all tenants together (a tenant's spilled "
      "bytes count against its --tenant-max-bytes, not its disk quota)")
      ->check(CLI::NonNegativeNumber);
  add("cpu-memory-bytes", config.devices.cpu_memory_bytes,
      "most bytes the arrays of each CPU device may hold; 0: the host's memory (or the "
      "container's limit). A small value stands in for a small GPU")
      ->check(CLI::NonNegativeNumber);
  add("transfer-idle-seconds", config.transfer_idle_seconds,
      "an upload or download that moves no chunk for this long is cancelled (an upload's "
      "reserved array freed)")
      ->check(CLI::PositiveNumber);
  add("shared-memory", config.limits.shared_memory,
      "let clients on this host register shared-memory regions (memfds handed over the "
      "descriptor socket) for one-copy transfers (true/false)");
  add("max-shared-memory-regions", config.limits.max_shared_memory_regions,
      "shared-memory regions each session may register")
      ->check(CLI::NonNegativeNumber);
  add("tenant-max-shared-memory-regions", config.limits.tenant_max_shared_memory_regions,
      "shared-memory regions the sessions of each tenant may hold together (each holds a "
      "file descriptor of the daemon's)")
      ->check(CLI::NonNegativeNumber);
  add("max-shared-memory-bytes", config.limits.max_shared_memory_bytes,
      "largest shared-memory region, in bytes (the CUDA backend pins it in host memory)")
      ->check(CLI::NonNegativeNumber);
  add("max-kernel-work", config.limits.max_kernel_work,
      "most operations one user-kernel call may do (elements times the checked kernel's bound "
      "per element), refused before it runs")
      ->check(CLI::NonNegativeNumber);
  add("fuse-batches", config.limits.fuse_batches,
      "run each Batch's runs of elementwise ops as fused chains: one kernel per run of one "
      "shape, intermediate results never in memory (true/false)");
  add("batch-lanes", config.limits.batch_lanes,
      "let clients on this host send their pipelined batches over the descriptor socket "
      "instead of a gRPC stream (OpenBatchLane; the same batches, a cheaper round trip) "
      "(true/false)");
  add("max-batch-lanes", config.limits.max_batch_lanes,
      "batch lanes open at once, all tenants together (each holds a thread of the daemon)")
      ->check(CLI::NonNegativeNumber);
  add("lane-spin-microseconds", config.lane_spin_microseconds,
      "how long a batch lane whose client answers quickly polls for its next batch before it "
      "sleeps (a woken thread runs the batch slower); at most a quarter of the cores spin at "
      "once; 0: never")
      ->check(CLI::Range(int64_t{0}, int64_t{100'000}));
  add("cuda-ipc", config.limits.cuda_ipc,
      "let clients on this host map arrays' device memory in place (CUDA IPC; CUDA backend "
      "only; each tenant's memory then comes from a pool of its own) (true/false)");
  add("max-ipc-leases", config.limits.max_ipc_leases,
      "CUDA IPC leases each session may hold at once")
      ->check(CLI::NonNegativeNumber);
  add("max-session-events", config.limits.max_session_events,
      "events (cuda.Event ids) each session may hold at once")
      ->check(CLI::NonNegativeNumber);
  add("cuda-ipc-socket", config.ipc_socket,
      "Unix socket through which clients on this host exchange descriptors with the daemon "
      "(CUDA IPC pools, shared-memory regions): a path, or @name for an abstract socket; "
      "empty: a fresh abstract name");
  add("kernel-cache-dir", config.kernel_cache.directory,
      "directory where the CUDA backend keeps the kernels it compiles, so that a restart loads "
      "them instead of compiling again; created mode 0700, it must be this user's alone (its "
      "files run on the GPU). Empty: in memory only");
  add("kernel-cache-max-bytes", config.kernel_cache.max_bytes,
      "most bytes --kernel-cache-dir holds; the least recently used kernels go beyond it")
      ->check(CLI::PositiveNumber);
  add("auth-file", config.auth_file,
      "token file: lines `<tenant> <sha256-hex of token>`; clients send `authorization: Bearer "
      "<token>`. Unset: no authentication, every caller is tenant 'anonymous'");
  add("tls-cert", config.tls.cert, "PEM certificate chain: serve TLS (with --tls-key)");
  add("tls-key", config.tls.key, "PEM private key of --tls-cert");
  add("tls-client-ca", config.tls.client_ca,
      "PEM CA bundle: require client certificates signed by it (mutual TLS)");
  add("peer-address", config.peer.advertise_address,
      "host:port other daemons reach this one at, given to clients with each capability for "
      "daemon-to-daemon pulls (docs/scale-out.md); empty: clients name the address they use");
  add("peer-allow", config.peer.allow,
      "the other daemons this one may pull from (PullArray names the origin), as HOST:PORT "
      "entries separated by commas: HOST a host name (matched as written, never resolved), an "
      "IPv4 address or block (10.0.0.0/8) or an IPv6 one in brackets ([fd00::/8]), PORT a port "
      "or *; empty: none (same-daemon pulls need no entry)")
      ->delimiter(',');
  add("peer-tls-ca", config.peer.tls_ca,
      "PEM CA bundle for pulling from other daemons over TLS (their certificates are checked "
      "against it; --tls-cert/--tls-key are presented to peers that require client "
      "certificates); empty: pulls are plaintext");
  app.add_flag("--insecure", config.insecure,
               "allow listening on a non-loopback address without --auth-file")
      ->envname("ARRAYHUB_INSECURE");
  app.add_flag("--allow-raw-kernels", config.limits.allow_raw_kernels,
               "let clients run raw CUDA kernels (RawKernel, RawModule), which can read and write "
               "all of the GPU's memory, every tenant's included: single-tenant daemons only "
               "(refused with an --auth-file naming more than one tenant)")
      ->envname("ARRAYHUB_ALLOW_RAW_KERNELS");
}

// `arrayhubd --hash-token`: the digest of the token on standard input, for the token file.
int HashToken() {
  std::string token;
  std::getline(std::cin, token);
  if (token.empty()) {
    std::cerr << "arrayhubd --hash-token: no token on standard input\n";
    return 2;
  }
  std::cout << arrayhub::ToHex(arrayhub::Sha256(token)) << "\n";
  return 0;
}

int Fail(const absl::Status& status) {
  spdlog::critical("{}", status.ToString());
  return 2;
}

// Exits with kExitDeviceLost at once: no destructor touches the dead device.
[[noreturn]] void ExitForDeviceLoss() {
  spdlog::shutdown();  // Flushes the log.
  std::fflush(nullptr);
  std::_Exit(kExitDeviceLost);
}

// The device is lost (the backend logged how, with the request that found it, and health
// answers NOT_SERVING): every array is gone with it and every call fails. Calls in flight get
// kDeviceLossDrain, then the process exits with kExitDeviceLost for its supervisor to restart
// it, without freeing anything on the dead device, and within kDeviceLossDeadline even if a
// call is stuck in the driver.
[[noreturn]] void ExitAfterDeviceLoss(arrayhub::ArrayHubServer& server) {
  std::thread([] {
    std::this_thread::sleep_for(kDeviceLossDeadline);
    spdlog::critical("the stop after the device loss is stuck: exiting {}", kExitDeviceLost);
    ExitForDeviceLoss();
  }).detach();
  spdlog::critical("the device is lost: stopping (exit status {})", kExitDeviceLost);
  server.Shutdown(kDeviceLossDrain);
  ExitForDeviceLoss();
}

}  // namespace

int main(int argc, char** argv) {
  // Debian's abseil is built with Mutex deadlock detection on, which records every lock in a
  // global graph: a tenth of the daemon's time per op in a Batch (gperftools on the H100,
  // bench/RESULTS.md). The test binaries keep it, and TSan checks the lock order there.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  CLI::App app("arrayhubd: serves device-resident arrays over gRPC", "arrayhubd");
  Config config;
  DefineOptions(app, config);
  app.set_version_flag("--version", std::string("arrayhubd ") + ARRAYHUB_VERSION,
                       "print the version (the Python package's too) and exit");
  bool hash_token = false;
  app.add_flag("--hash-token", hash_token,
               "print the SHA-256 of the token read from standard input (one line), then exit");
  const arrayhub::EnvironmentArgs environment = arrayhub::WithEnvironment(app, argc, argv);
  std::vector<const char*> args;
  for (const std::string& arg : environment.args) args.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() != 0 && !environment.variables.empty()) {
      std::cerr << "arrayhubd: options also came from the environment: "
                << fmt::format("{}", fmt::join(environment.variables, ", ")) << "\n";
    }
    return app.exit(error);
  }
  if (hash_token) return HashToken();

  spdlog::set_level(spdlog::level::from_str(config.log_level));
  arrayhub::Limits& limits = config.limits;
  limits.transfer_idle_timeout = std::chrono::seconds(config.transfer_idle_seconds);
  limits.lane_spin = std::chrono::microseconds(config.lane_spin_microseconds);
  if (limits.default_chunk_bytes > limits.max_chunk_bytes) {
    return Fail(absl::InvalidArgumentError("--default-chunk-bytes exceeds --max-chunk-bytes"));
  }
  // Half the descriptors for clients' shared-memory objects at most, the rest for connections
  // and everything else, whatever the tenants do.
  const int64_t descriptors = arrayhub::RaiseDescriptorLimit();
  limits.max_shared_memory_descriptors = descriptors / 2;
  spdlog::info("descriptor limit {}; clients' shared-memory objects may hold {} of them",
               descriptors, limits.max_shared_memory_descriptors);
  // A chunk plus its message framing must fit the gRPC receive limit.
  limits.max_message_bytes =
      std::max<int64_t>(int64_t{4} << 20, limits.max_chunk_bytes + (64 << 10));
  limits.max_inline_read_bytes = std::min(limits.max_inline_read_bytes, limits.max_message_bytes);
  limits.max_inline_create_bytes =
      std::min(limits.max_inline_create_bytes, limits.max_message_bytes);

  std::shared_ptr<const arrayhub::TokenTable> tokens;
  if (!config.auth_file.empty()) {
    auto loaded = arrayhub::TokenTable::Load(config.auth_file);
    if (!loaded.ok()) return Fail(loaded.status());
    spdlog::info("authentication on: {} token(s) from {}", loaded->size(), config.auth_file);
    tokens = std::make_shared<const arrayhub::TokenTable>(*std::move(loaded));
  }
  if (config.limits.allow_raw_kernels && tokens != nullptr && tokens->tenant_count() > 1) {
    return Fail(absl::InvalidArgumentError(fmt::format(
        "--allow-raw-kernels needs a single tenant, but {} names {}: a raw kernel can read and "
        "write every tenant's arrays",
        config.auth_file, tokens->tenant_count())));
  }

  auto choice = arrayhub::ParseBackendChoice(config.backend);
  if (!choice.ok()) return Fail(choice.status());
  auto backends = arrayhub::CreateBackends(*choice, config.devices, config.limits.cuda_ipc,
                                           config.kernel_cache);
  if (!backends.ok()) return Fail(backends.status());
  for (const auto& backend : *backends) {
    for (const auto& device : backend->Devices()) {
      spdlog::info("backend {} ({}): {}: {}, {} MiB", backend->name(),
                   config.backend == "auto" ? "chosen automatically" : "as configured", device.name,
                   device.description, device.total_memory_bytes >> 20);
    }
  }

  // Before serving, so that a signal never finds the default action in place.
  if (absl::Status installed = arrayhub::InstallShutdownSignals(); !installed.ok()) {
    return Fail(installed);
  }

  arrayhub::ServerOptions options{
      .listen_address = config.listen,
      .limits = limits,
      .sessions = {.default_lease = std::chrono::seconds(config.session_ttl),
                   .max_lease = std::chrono::seconds(config.max_session_ttl),
                   .lease_warning_fraction =
                       static_cast<double>(config.lease_warning_percent) / 100},
      .metrics_listen = config.metrics_listen,
      .quotas = config.quotas,
      .tokens = tokens,
      .tls = config.tls,
      .peer = config.peer,
      .insecure = config.insecure,
      .data_dir = config.data_dir,
      .spill = config.spill,
      .ipc_socket = config.ipc_socket,
      .on_device_lost = arrayhub::RequestStopForDeviceLoss,
  };
  if (tokens != nullptr && config.tls.cert.empty() && !arrayhub::IsLoopbackAddress(config.listen)) {
    spdlog::warn("bearer tokens will cross the network in clear text: add --tls-cert/--tls-key");
  }
  auto server = arrayhub::ArrayHubServer::Start(options, std::move(*backends));
  if (!server.ok()) return Fail(server.status());
  spdlog::info(
      "arrayhubd {} listening on {} (backend {}, max rank {}, max array {} bytes, "
      "chunks up to {} bytes, sessions {} s up to {} s, drain {} s)",
      ARRAYHUB_VERSION, (*server)->address(), (*server)->engine().backend().name(), limits.max_rank,
      limits.max_array_bytes, limits.max_chunk_bytes, config.session_ttl, config.max_session_ttl,
      config.drain_seconds);
  if ((*server)->metrics_port() != 0) {
    const std::string& metrics = config.metrics_listen;  // host:port, checked by the server.
    spdlog::info("metrics on http://{}:{}/metrics", metrics.substr(0, metrics.rfind(':')),
                 (*server)->metrics_port());
  }

  const int signal_number = arrayhub::WaitForShutdownSignal();
  if (signal_number == arrayhub::kDeviceLost) ExitAfterDeviceLoss(**server);
  spdlog::info("received signal {}: draining for up to {} s (send it again to exit at once)",
               signal_number, config.drain_seconds);
  // A call inside one long library call (BLAS, LAPACK) reaches no check until it returns; the
  // drain ends on time all the same, without it.
  std::promise<void> stopped;
  std::thread watchdog([done = stopped.get_future(),
                        limit = std::chrono::seconds(config.drain_seconds) + kExitGrace] {
    if (done.wait_for(limit) == std::future_status::ready) return;
    spdlog::error("calls still running {} s after the drain began: exiting without them",
                  limit.count());
    spdlog::default_logger()->flush();
    _exit(1);
  });
  (*server)->Shutdown(std::chrono::seconds(config.drain_seconds));
  server->reset();  // Frees every array before exit.
  stopped.set_value();
  watchdog.join();
  spdlog::info("arrayhubd stopped");
  return 0;
}
