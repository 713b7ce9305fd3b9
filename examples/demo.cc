// arrayhub_demo [address]: what ArrayHub is for, against a running arrayhubd. It uploads a
// matrix of samples, computes their covariance on the daemon's device (elementwise math, a
// reduction, a matmul) and its SVD, publishes the covariance by name, starts a second process
// that attaches it by name and reads it where it lies (CUDA IPC on a GPU, the daemon's copy into
// shared memory on the CPU backend), then downloads the results and checks them against the
// same computation done here in float64. Each step prints its wall time. The address defaults
// to $ARRAYHUB_ADDRESS, else 127.0.0.1:50051. Exits non-zero on any failure or mismatch.
//
// arrayhub_demo --read ADDRESS NAME SUM_OF_SQUARES SUM_OF_MAGNITUDES is the second process.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "arrayhub/client.h"
#include "demo_reader.h"
#include "demo_reference.h"
#include "demo_steps.h"

extern char** environ;

namespace {

using arrayhub::client::Array;
using arrayhub::client::Client;
using demo::PrintNote;
using demo::PrintStep;
using demo::Stopwatch;

constexpr int64_t kRows = 2048;  // Samples.
constexpr int64_t kCols = 256;   // Features: the covariance is kCols x kCols.

std::string AddressFromArgs(int argc, char** argv) {
  if (argc > 1) return argv[1];
  const char* env = std::getenv("ARRAYHUB_ADDRESS");
  return env != nullptr && *env != '\0' ? env : "127.0.0.1:50051";
}

std::string Number(double value, const char* format = "%.6g") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// Ops are pipelined, and the CUDA backend answers once their work is enqueued: reading one
// element of `a` back waits until the device has made it, so a step's time is its own.
void WaitFor(Client& client, const Array& a) {
  const std::vector<arrayhub::client::IndexItem> first(a.shape().size(), 0);
  client.DownloadBytes(client.GetItem(a, first));
}

// A publication outlives its session; this one is withdrawn however the demo ends.
class Publication {
 public:
  Publication(Client& client, const Array& array, std::string name)
      : client_(client), name_(std::move(name)) {
    client_.Publish(array, name_);
  }
  ~Publication() {
    try {
      client_.Unpublish(name_);
    } catch (const std::exception& error) {
      std::cerr << "arrayhub_demo: unpublishing " << name_ << ": " << error.what() << "\n";
    }
  }
  Publication(const Publication&) = delete;
  Publication& operator=(const Publication&) = delete;

 private:
  Client& client_;
  std::string name_;
};

// Runs this program again as the reader of `name`; returns its exit status.
int RunSecondProcess(const std::string& address, const std::string& name,
                     const demo::Checksum& want) {
  std::vector<std::string> args = {"arrayhub_demo",
                                   "--read",
                                   address,
                                   name,
                                   Number(want.sum_of_squares, "%.17g"),
                                   Number(want.sum_of_magnitudes, "%.17g")};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int error = posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ);
      error != 0) {
    throw std::runtime_error(std::string("starting the second process: ") + std::strerror(error));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waiting for the second process");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Singular values of a symmetric positive semi-definite matrix are its eigenvalues: they sum to
// its trace, their squares to its squared Frobenius norm. Throws on a mismatch; returns what
// agreed.
std::string CheckSingularValues(const std::vector<float>& s,
                                const std::vector<double>& covariance) {
  double trace = 0;
  for (int64_t i = 0; i < kCols; ++i) trace += covariance[static_cast<size_t>(i * kCols + i)];
  const double frobenius_squared = demo::ChecksumOf<double>(covariance).sum_of_squares;
  const demo::Checksum got = demo::ChecksumOf<float>(s);
  const double sum = std::accumulate(s.begin(), s.end(), 0.0);
  const double trace_error = demo::RelativeError(sum, trace);
  const double norm_error = demo::RelativeError(got.sum_of_squares, frobenius_squared);
  const bool descending = !s.empty() && std::is_sorted(s.rbegin(), s.rend()) && s.back() >= 0;
  if (static_cast<int64_t>(s.size()) != kCols || !descending ||
      !(trace_error <= demo::kTolerance) || !(norm_error <= demo::kTolerance)) {
    throw std::runtime_error("singular values disagree with the host reference: sum " +
                             Number(sum) + " (trace " + Number(trace) + "), sum of squares " +
                             Number(got.sum_of_squares) + " (" + Number(frobenius_squared) + "), " +
                             (descending ? "descending" : "not descending"));
  }
  return "singular values: sum = trace (error " + Number(trace_error, "%.1e") +
         "), sum of squares = squared Frobenius norm (error " + Number(norm_error, "%.1e") +
         "); largest " + Number(s[0]) + ", " + Number(s[1]) + ", " + Number(s[2]) + ", smallest " +
         Number(s.back());
}

void RunDemo(const std::string& address) {
  arrayhub::client::ClientOptions options;
  options.client_name = "arrayhub_demo";
  Stopwatch connect;
  Client client = Client::Connect(address, options);
  const arrayhub::client::ServerInfo info = client.Info();
  PrintStep(connect, "connected to arrayhubd " + info.version + " at " + address + ": backend " +
                         info.backend + ", device " +
                         (info.devices.empty()
                              ? "none"
                              : info.devices[0].name + " (" + info.devices[0].description + ")"));

  Stopwatch host;
  const std::vector<float> samples = demo::MakeSamples(kRows, kCols);
  const std::vector<double> reference = demo::CovarianceOf(samples, kRows, kCols);
  PrintStep(host, "host reference in this process, float64 (to check the daemon's results)");

  const std::string shape = "[" + std::to_string(kRows) + ", " + std::to_string(kCols) + "]";
  Stopwatch upload;
  const Array x = client.Upload(samples, {kRows, kCols});
  WaitFor(client, x);
  PrintStep(upload,
            "upload x: float32" + shape + ", " + std::to_string(x.nbytes()) + " bytes" +
                (client.UsesSharedMemory() ? ", through shared memory" : ", streamed over gRPC"));

  Stopwatch elementwise;
  const Array sin_x = client.Ufunc("sin", {x});
  const Array scaled = client.Ufunc("multiply", {sin_x, 3});  // A weak scalar: stays float32.
  const Array squared = client.Ufunc("multiply", {x, x});
  const Array y = client.Ufunc("add", {scaled, squared});
  WaitFor(client, y);
  PrintStep(elementwise, "elementwise on " + info.backend + ": y = 3 sin(x) + x * x (4 ufuncs)");

  Stopwatch reduction;
  const Array mean = client.Reduce("mean", y, {.axis = std::vector<int64_t>{0}});
  const Array centred = client.Ufunc("subtract", {y, mean});  // Broadcast over the rows.
  WaitFor(client, centred);
  PrintStep(reduction, "reduction: the column means of y (mean over axis 0), subtracted");

  Stopwatch matmul;
  Array covariance = client.Matmul(centred, centred, {.transpose_a = true});
  client.UfuncOut(covariance, "divide", {covariance, kRows - 1});  // In place.
  WaitFor(client, covariance);
  PrintStep(matmul, "matmul: covariance = yᵀy / " + std::to_string(kRows - 1) + ", float32[" +
                        std::to_string(kCols) + ", " + std::to_string(kCols) + "]");

  Stopwatch svd_watch;
  const arrayhub::client::SvdResult svd = client.linalg().Svd(covariance, false);
  WaitFor(client, svd.s);
  PrintStep(svd_watch, "SVD of the covariance (numpy.linalg.svd, full_matrices=False)");

  Stopwatch publish;
  const std::string name = "arrayhub_demo/covariance-" + std::to_string(getpid());
  const Publication publication(client, covariance, name);
  PrintStep(publish, "published the covariance as '" + name + "'");

  Stopwatch second;
  const demo::Checksum want = demo::ChecksumOf<double>(reference);
  const int status = RunSecondProcess(address, name, want);
  if (status != 0)
    throw std::runtime_error("the second process failed (status " + std::to_string(status) + ")");
  PrintStep(second, "second process done (start, connect, attach, read, check)");

  Stopwatch download;
  const std::vector<float> covariance_back = client.Download<float>(covariance);
  const std::vector<float> s = client.Download<float>(svd.s);
  PrintStep(download, "download the covariance and the singular values: " +
                          std::to_string((covariance_back.size() + s.size()) * sizeof(float)) +
                          " bytes");

  Stopwatch check;
  const double error = demo::ScaledError(covariance_back, reference);
  if (!(error <= demo::kTolerance)) {
    throw std::runtime_error("the covariance differs from the host reference: largest error " +
                             Number(error, "%.2e") + " of its largest entry");
  }
  const std::string singular_values = CheckSingularValues(s, reference);
  PrintStep(check, "checked against the host reference: covariance within " +
                       Number(error, "%.1e") + " of its largest entry (tolerance " +
                       Number(demo::kTolerance, "%.0e") + ")");
  PrintNote(singular_values);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 1 && std::string(argv[1]) == "--read") {
      if (argc != 6) {
        std::cerr << "usage: arrayhub_demo --read ADDRESS NAME SUM_OF_SQUARES SUM_OF_MAGNITUDES\n";
        return 2;
      }
      return demo::RunReader(argv[2], argv[3],
                             {.sum_of_squares = std::strtod(argv[4], nullptr),
                              .sum_of_magnitudes = std::strtod(argv[5], nullptr)});
    }
    RunDemo(AddressFromArgs(argc, argv));
  } catch (const std::exception& error) {
    std::cerr << "arrayhub_demo: " << error.what() << "\n";
    return 1;
  }
  std::cout << "ok\n";
  return 0;
}
