#include "cuda_driver.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

namespace demo {
namespace {

constexpr int kPosixFileDescriptor = 1;  // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR.
constexpr size_t kExportDataBytes = 64;  // sizeof(CUmemPoolPtrExportData).

// "GPU-xxxxxxxx-xxxx-..." as the 32 hex digits of the UUID's 16 bytes.
std::string HexDigits(const std::string& uuid) {
  std::string digits;
  for (char c : uuid.substr(uuid.starts_with("GPU-") ? 4 : 0)) {
    if (c != '-') digits += c;
  }
  return digits;
}

}  // namespace

// The driver's entry points, with CUDA's types spelled as what they are on x86-64 and aarch64
// Linux (CUresult and CUdevice int, handles pointers, CUdeviceptr 64 bits), since cuda.h is not
// here when the demo is built without the CUDA toolkit.
struct CudaDriver::Api {
  int (*init)(unsigned int flags);
  int (*get_error_name)(int result, const char** name);
  int (*device_get_count)(int* count);
  int (*device_get)(int* device, int ordinal);
  int (*device_get_uuid)(unsigned char uuid[16], int device);
  int (*primary_ctx_retain)(void** context, int device);
  int (*primary_ctx_release)(int device);
  int (*ctx_set_current)(void* context);
  int (*pool_import)(void** pool, void* handle, int handle_type, unsigned long long flags);
  int (*pointer_import)(uint64_t* pointer, void* pool, void* export_data);
  int (*memcpy_dtoh)(void* destination, uint64_t source, size_t bytes);
  int (*mem_free)(uint64_t pointer);
};

namespace {

template <typename Function>
void Load(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  if (function == nullptr) {
    throw std::runtime_error(std::string("libcuda.so.1 has no ") + name + " (driver too old?)");
  }
}

}  // namespace

CudaDriver::CudaDriver() : api_(std::make_unique<Api>()) {
  library_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    throw std::runtime_error(std::string("CUDA IPC needs the CUDA driver: ") + dlerror());
  }
  Api& api = *api_;
  Load(library_, "cuInit", api.init);
  Load(library_, "cuGetErrorName", api.get_error_name);
  Load(library_, "cuDeviceGetCount", api.device_get_count);
  Load(library_, "cuDeviceGet", api.device_get);
  // The _v2 entry point (CUDA 11.4 on) where the driver has it, as the Python client does.
  if (dlsym(library_, "cuDeviceGetUuid_v2") != nullptr) {
    Load(library_, "cuDeviceGetUuid_v2", api.device_get_uuid);
  } else {
    Load(library_, "cuDeviceGetUuid", api.device_get_uuid);
  }
  Load(library_, "cuDevicePrimaryCtxRetain", api.primary_ctx_retain);
  Load(library_, "cuDevicePrimaryCtxRelease_v2", api.primary_ctx_release);
  Load(library_, "cuCtxSetCurrent", api.ctx_set_current);
  Load(library_, "cuMemPoolImportFromShareableHandle", api.pool_import);
  Load(library_, "cuMemPoolImportPointer", api.pointer_import);
  Load(library_, "cuMemcpyDtoH_v2", api.memcpy_dtoh);
  Load(library_, "cuMemFree_v2", api.mem_free);
  Check(api.init(0), "cuInit");
}

CudaDriver::~CudaDriver() {
  if (library_ != nullptr) dlclose(library_);
}

void CudaDriver::Check(int result, const char* call) const {
  if (result == 0) return;
  const char* name = nullptr;
  api_->get_error_name(result, &name);
  throw std::runtime_error(std::string(call) + " failed: " +
                           (name != nullptr ? name : "error " + std::to_string(result)));
}

int CudaDriver::OrdinalOf(const std::string& uuid) const {
  const std::string wanted = HexDigits(uuid);
  int count = 0;
  Check(api_->device_get_count(&count), "cuDeviceGetCount");
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    int device = 0;
    Check(api_->device_get(&device, ordinal), "cuDeviceGet");
    unsigned char raw[16];
    Check(api_->device_get_uuid(raw, device), "cuDeviceGetUuid");
    char hex[33];
    for (int i = 0; i < 16; ++i) std::snprintf(hex + 2 * i, 3, "%02x", raw[i]);
    if (wanted == hex) return ordinal;
  }
  throw std::runtime_error("the daemon's GPU " + uuid +
                           " is not visible to this process (CUDA_VISIBLE_DEVICES?)");
}

std::unique_ptr<MappedDeviceArray> CudaDriver::Map(const arrayhub::client::IpcExport& exported) {
  if (exported.pointer_export_data.size() != kExportDataBytes) {
    throw std::runtime_error("the daemon sent " +
                             std::to_string(exported.pointer_export_data.size()) +
                             " bytes of pointer export data, not 64");
  }
  int device = 0;
  Check(api_->device_get(&device, OrdinalOf(exported.device_uuid)), "cuDeviceGet");
  // The pool's descriptor, with the export's one-use ticket; closed once imported.
  const int fd = arrayhub::client::FetchPoolDescriptor(exported);
  // Each step runs only if the ones before it succeeded; `call` names the one that failed.
  const char* call = "cuDevicePrimaryCtxRetain";
  void* context = nullptr;
  int result = api_->primary_ctx_retain(&context, device);
  const bool retained = result == 0;
  if (result == 0) call = "cuCtxSetCurrent", result = api_->ctx_set_current(context);
  void* pool = nullptr;
  if (result == 0) {
    call = "cuMemPoolImportFromShareableHandle";
    result = api_->pool_import(&pool, reinterpret_cast<void*>(static_cast<intptr_t>(fd)),
                               kPosixFileDescriptor, 0);
  }
  close(fd);
  uint64_t pointer = 0;
  std::string export_data = exported.pointer_export_data;
  if (result == 0) {
    call = "cuMemPoolImportPointer";
    result = api_->pointer_import(&pointer, pool, export_data.data());
  }
  if (result != 0) {
    if (retained) api_->primary_ctx_release(device);
    Check(result, call);
  }
  return std::unique_ptr<MappedDeviceArray>(
      new MappedDeviceArray(*this, device, pointer, exported.offset_bytes));
}

MappedDeviceArray::MappedDeviceArray(const CudaDriver& driver, int device, uint64_t pointer,
                                     int64_t offset_bytes)
    : driver_(driver), device_(device), pointer_(pointer), offset_bytes_(offset_bytes) {}

// CUDA requires an importer to free its imported pointer before the exporter frees the memory;
// the lease (released by the caller after this) keeps it alive until then.
MappedDeviceArray::~MappedDeviceArray() {
  driver_.api_->mem_free(pointer_);
  driver_.api_->primary_ctx_release(device_);
}

void MappedDeviceArray::Read(std::span<std::byte> destination) const {
  driver_.Check(driver_.api_->memcpy_dtoh(destination.data(), device_pointer(), destination.size()),
                "cuMemcpyDtoH");
}

}  // namespace demo
