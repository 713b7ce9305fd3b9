// Host time of one kernel launch, by the way it is made: the daemon's elementwise kernels are
// NVRTC code loaded with cudaLibraryLoadData and launched as a cudaKernel_t through
// cudaLaunchKernel; CuPy launches a CUfunction through cuLaunchKernel. Each launch passes one
// 256-byte parameter block (about an elementwise call's). Median microseconds per launch over
// rounds of 256 launches, the stream drained between rounds outside the timing.
//   launch_cost_bench [--rounds N]
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr int kLaunchesPerRound = 256;
struct Params {
  float* data;
  char rest[248];
};

__global__ void StaticKernel(Params p) {
  if (threadIdx.x == 0 && blockIdx.x == 0) p.data[0] += 1.0f;
}

constexpr const char* kSource = R"(
struct Params { float* data; char rest[248]; };
extern "C" __global__ void library_kernel(Params p) {
  if (threadIdx.x == 0 && blockIdx.x == 0) p.data[0] += 1.0f;
})";

// printf, not fmt: nvcc in C++20 rejects fmt's compile-time format strings.
void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "launch_cost_bench: %s failed\n", what.c_str());
    std::exit(1);
  }
}
void CheckCuda(cudaError_t error, const char* what) {
  Check(error == cudaSuccess, std::string(what) + " (" + cudaGetErrorString(error) + ")");
}
void CheckDriver(CUresult result, const char* what) {
  Check(result == CUDA_SUCCESS,
        std::string(what) + " (CUresult " + std::to_string(static_cast<int>(result)) + ")");
}

std::string CompileForThisDevice() {
  int device = 0, major = 0, minor = 0;
  CheckCuda(cudaGetDevice(&device), "cudaGetDevice");
  CheckCuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "major");
  CheckCuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "minor");
  nvrtcProgram program = nullptr;
  Check(nvrtcCreateProgram(&program, kSource, "launch.cu", 0, nullptr, nullptr) == NVRTC_SUCCESS,
        "nvrtcCreateProgram");
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
  const char* options[] = {arch.c_str()};
  Check(nvrtcCompileProgram(program, 1, options) == NVRTC_SUCCESS, "nvrtcCompileProgram");
  size_t size = 0;
  Check(nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS, "nvrtcGetCUBINSize");
  std::string cubin(size, '\0');
  Check(nvrtcGetCUBIN(program, cubin.data()) == NVRTC_SUCCESS, "nvrtcGetCUBIN");
  nvrtcDestroyProgram(&program);
  return cubin;
}

double MedianMicrosecondsPerLaunch(cudaStream_t stream, int rounds,
                                   const std::function<void()>& launch) {
  std::vector<double> per_launch;
  for (int round = 0; round < rounds + 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kLaunchesPerRound; ++i) launch();
    const auto end = std::chrono::steady_clock::now();
    CheckCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (round >= 5) {
      per_launch.push_back(std::chrono::duration<double, std::micro>(end - start).count() /
                           kLaunchesPerRound);
    }
  }
  std::sort(per_launch.begin(), per_launch.end());
  return per_launch[per_launch.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 400;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[i + 1]);
  }
  CheckCuda(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t stream = nullptr;
  CheckCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  Params params{};
  CheckCuda(cudaMalloc(&params.data, sizeof(float)), "cudaMalloc");
  CheckCuda(cudaMemsetAsync(params.data, 0, sizeof(float), stream), "cudaMemsetAsync");

  const std::string cubin = CompileForThisDevice();
  cudaLibrary_t library = nullptr;
  CheckCuda(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
            "cudaLibraryLoadData");
  cudaKernel_t kernel = nullptr;
  CheckCuda(cudaLibraryGetKernel(&kernel, library, "library_kernel"), "cudaLibraryGetKernel");
  CUfunction function = nullptr;
  CheckDriver(cuKernelGetFunction(&function, reinterpret_cast<CUkernel>(kernel)),
              "cuKernelGetFunction");
  CUmodule module = nullptr;
  CheckDriver(cuModuleLoadData(&module, cubin.data()), "cuModuleLoadData");
  CUfunction module_function = nullptr;
  CheckDriver(cuModuleGetFunction(&module_function, module, "library_kernel"),
              "cuModuleGetFunction");

  void* args[] = {&params};
  int64_t launches = 0;
  const auto runtime_library = [&] {
    CheckCuda(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(128), args, 0,
                               stream),
              "cudaLaunchKernel(cudaKernel_t)");
    ++launches;
  };
  const auto driver_function = [&](CUfunction f) {
    CheckDriver(
        cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, reinterpret_cast<CUstream>(stream), args, nullptr),
        "cuLaunchKernel");
    ++launches;
  };
  const auto static_kernel = [&] {
    StaticKernel<<<1, 128, 0, stream>>>(params);
    CheckCuda(cudaGetLastError(), "StaticKernel<<<>>>");
    ++launches;
  };

  std::printf("| launch | us per launch |\n| --- | ---: |\n");
  std::printf("| cudaLaunchKernel of a cudaKernel_t (cudaLibraryLoadData; the daemon) | %.2f |\n",
              MedianMicrosecondsPerLaunch(stream, rounds, runtime_library));
  std::printf("| cuLaunchKernel of the same kernel's CUfunction (cuKernelGetFunction) | %.2f |\n",
              MedianMicrosecondsPerLaunch(stream, rounds, [&] { driver_function(function); }));
  std::printf(
      "| cuLaunchKernel of a cuModuleLoadData CUfunction (CuPy) | %.2f |\n",
      MedianMicrosecondsPerLaunch(stream, rounds, [&] { driver_function(module_function); }));
  std::printf("| <<<>>> of a kernel compiled in | %.2f |\n",
              MedianMicrosecondsPerLaunch(stream, rounds, static_kernel));
  float value = 0;
  CheckCuda(cudaMemcpy(&value, params.data, sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  Check(value == static_cast<float>(launches),
        std::to_string(launches) + " launches, the kernel counted " + std::to_string(value));
  return 0;
}
