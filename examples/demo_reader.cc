#include "demo_reader.h"

#include <unistd.h>

#include <cstring>
#include <span>
#include <vector>

#include "arrayhub/client.h"
#include "cuda_driver.h"
#include "demo_steps.h"

namespace demo {
namespace {

using arrayhub::client::Array;
using arrayhub::client::Client;

// CUDA IPC: the daemon's device memory mapped here, in place. Reading it into host memory is
// what this check needs; a CUDA program would run its kernels on device_pointer() instead.
std::vector<float> ReadMapped(Client& client, const Array& array) {
  Stopwatch watch;
  const arrayhub::client::IpcExport exported = client.ExportIpc(array);
  std::vector<float> values(static_cast<size_t>(array.size()));
  {
    CudaDriver driver;
    const std::unique_ptr<MappedDeviceArray> mapped = driver.Map(exported);
    PrintStep(watch,
              "reader: mapped the daemon's device memory in place (CUDA IPC: ExportIpc, the "
              "pool's descriptor over the daemon's socket, cuMemPoolImportPointer): no copy, "
              "nothing on the wire");
    Stopwatch read;
    mapped->Read(std::as_writable_bytes(std::span<float>(values)));
    PrintStep(read, "reader: read its " + std::to_string(array.nbytes()) +
                        " bytes from the mapping (one cuMemcpyDtoH by this process) to check them");
  }  // The imported pointer is freed before the lease is released, as CUDA requires.
  client.ReleaseIpc(exported.lease);
  return values;
}

// The CPU backend: a buffer of this process's shared memory, registered with the daemon, which
// copies the array into it once (CopyToSharedMemory); nothing goes over the wire.
std::vector<float> ReadShared(Client& client, const Array& array) {
  Stopwatch watch;
  arrayhub::client::PinnedBuffer buffer = client.AllocatePinned(array.nbytes());
  PrintStep(watch,
            std::string("reader: ") +
                (buffer.registered()
                     ? "registered a buffer of shared memory (a sealed memfd) with the daemon"
                     : "the daemon cannot use this process's shared memory: ordinary "
                       "memory, the array will stream over gRPC"));
  Stopwatch read;
  client.DownloadInto(array, buffer.bytes());
  PrintStep(read, buffer.registered()
                      ? "reader: the CPU backend has no device memory to map: the daemon copied "
                        "the array once into the shared buffer (CopyToSharedMemory), nothing on "
                        "the wire, no copy in this process"
                      : "reader: streamed the array over gRPC");
  std::span<const float> values = buffer.as<float>();
  return {values.begin(), values.end()};
}

}  // namespace

int RunReader(const std::string& address, const std::string& name, const Checksum& want) {
  arrayhub::client::ClientOptions options;
  options.client_name = "arrayhub_demo reader";
  Stopwatch watch;
  Client client = Client::Connect(address, options);
  Array array = client.Attach(name);
  if (array.dtype() != arrayhub::client::DType::kFloat32 || array.shape().size() != 2) {
    std::printf("reader: '%s' is not a float32 matrix\n", name.c_str());
    return 1;
  }
  PrintStep(watch, "reader (pid " + std::to_string(getpid()) + "): connected, attached '" + name +
                       "' by name: float32[" + std::to_string(array.shape()[0]) + ", " +
                       std::to_string(array.shape()[1]) +
                       "], a handle on the publisher's memory, not a copy");
  const bool on_cuda = client.Info().backend == "cuda";
  const std::vector<float> values = on_cuda ? ReadMapped(client, array) : ReadShared(client, array);
  const std::string differs = CompareChecksums(ChecksumOf<float>(values), want);
  if (!differs.empty()) {
    std::printf("reader: what it read differs from the host reference: %s\n", differs.c_str());
    return 1;
  }
  PrintNote("reader: its checksums agree with the host reference");
  return 0;
}

}  // namespace demo
