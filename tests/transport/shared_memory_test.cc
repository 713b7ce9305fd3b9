// RegisterSharedMemory, UnregisterSharedMemory, CopyFromSharedMemory, CopyToSharedMemory over
// the in-process server: round trips, every refusal with its code and message, a client that
// shrinks its object, and regions released with their session.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <thread>

#include "server/transport/metrics.h"
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

constexpr int64_t kHeader = 32;

// A shared-memory object as a client makes it: a random name, 32 random bytes of key at its
// start. Unlinked and unmapped when the test ends.
class ClientObject {
 public:
  explicit ClientObject(int64_t size) : size_(size) {
    std::random_device random;
    name_ = "/arrayhub-test-" + std::to_string(getpid()) + "-" + std::to_string(random());
    const int fd = shm_open(name_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    EXPECT_GE(fd, 0) << std::strerror(errno);
    EXPECT_EQ(ftruncate(fd, size), 0);
    data_ = static_cast<char*>(
        mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    EXPECT_NE(data_, MAP_FAILED);
    close(fd);
    for (int64_t i = 0; i < kHeader; ++i) data_[i] = static_cast<char>(random());
  }
  ~ClientObject() {
    munmap(data_, static_cast<size_t>(size_));
    shm_unlink(name_.c_str());
  }

  const std::string& name() const { return name_; }
  std::string key() const { return std::string(data_, kHeader); }
  char* data() { return data_; }
  // Truncates the object as a misbehaving client could (the test never touches the lost pages).
  void Shrink(int64_t size) {
    const int fd = shm_open(name_.c_str(), O_RDWR, 0);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, size), 0);
    close(fd);
  }

 private:
  std::string name_;
  int64_t size_;
  char* data_;
};

int OpenDescriptors() {
  return static_cast<int>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                        std::filesystem::directory_iterator()));
}

class SharedMemoryTest : public RpcTest {
 protected:
  grpc::Status Register(const std::string& region, const std::string& shm_key, int64_t byte_size,
                        const std::string& key, const std::string& session = "") {
    v1::RegisterSharedMemoryRequest request;
    request.set_region_name(region);
    request.set_shm_key(shm_key);
    request.set_byte_size(byte_size);
    request.set_key(key);
    v1::RegisterSharedMemoryResponse response;
    return stub_->RegisterSharedMemory(Context(session).get(), request, &response);
  }
  grpc::Status Register(const std::string& region, const ClientObject& object, int64_t byte_size,
                        const std::string& session = "") {
    return Register(region, object.name(), byte_size, object.key(), session);
  }
  grpc::Status Unregister(const std::string& region) {
    v1::UnregisterSharedMemoryRequest request;
    request.set_region_name(region);
    v1::UnregisterSharedMemoryResponse response;
    return stub_->UnregisterSharedMemory(Context().get(), request, &response);
  }

  static v1::SharedMemoryCopyRequest Copy(const std::string& region, int64_t offset,
                                          const std::string& handle = "",
                                          v1::DType dtype = v1::DTYPE_UNSPECIFIED,
                                          std::vector<int64_t> shape = {}) {
    v1::SharedMemoryCopyRequest request;
    request.set_region_name(region);
    request.set_offset_bytes(offset);
    request.set_handle(handle);
    request.set_dtype(dtype);
    request.mutable_shape()->Assign(shape.begin(), shape.end());
    return request;
  }
  grpc::Status CopyIn(const v1::SharedMemoryCopyRequest& request, v1::ArrayInfo* info = nullptr,
                      const std::string& session = "") {
    v1::SharedMemoryCopyResponse response;
    grpc::Status status = stub_->CopyFromSharedMemory(Context(session).get(), request, &response);
    if (info != nullptr) *info = response.array();
    return status;
  }
  grpc::Status CopyOut(const v1::SharedMemoryCopyRequest& request) {
    v1::SharedMemoryCopyResponse response;
    return stub_->CopyToSharedMemory(Context().get(), request, &response);
  }

  v1::ArrayInfo View(const v1::ViewRequest& request) {
    v1::ArrayInfo info;
    grpc::Status status = stub_->View(Context().get(), request, &info);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return info;
  }
  v1::ArrayInfo Arange(int64_t n, v1::DType dtype) {
    v1::CreateRequest create;
    create.set_dtype(dtype);
    create.mutable_arange()->mutable_start()->set_int_value(0);
    create.mutable_arange()->mutable_stop()->set_int_value(n);
    return Create(create);
  }
  v1::ArrayInfo Reshape(const std::string& handle, std::vector<int64_t> shape) {
    v1::ViewRequest request;
    request.set_handle(handle);
    request.mutable_reshape()->mutable_shape()->Assign(shape.begin(), shape.end());
    return View(request);
  }
  v1::ArrayInfo Transpose(const std::string& handle) {
    v1::ViewRequest request;
    request.set_handle(handle);
    request.mutable_transpose();
    return View(request);
  }
};

template <typename T>
std::string Bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

TEST_F(SharedMemoryTest, UploadComputeDownloadThroughOneRegion) {
  ClientObject object(4096);
  ASSERT_TRUE(Register("io", object, 4096).ok());
  std::vector<float> values(12);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5f * static_cast<float>(i) - 2.0f;
  std::memcpy(object.data() + 64, values.data(), values.size() * sizeof(float));

  v1::ArrayInfo uploaded;
  ASSERT_TRUE(CopyIn(Copy("io", 64, "", v1::DTYPE_FLOAT32, {3, 4}), &uploaded).ok());
  EXPECT_EQ(uploaded.dtype(), v1::DTYPE_FLOAT32);
  EXPECT_EQ(uploaded.shape_size(), 2);
  EXPECT_EQ(DownloadAll(uploaded.handle()), Bytes(values));

  v1::ElementwiseRequest multiply;
  multiply.set_op("multiply");
  multiply.add_operands()->set_handle(uploaded.handle());
  multiply.add_operands()->mutable_scalar()->set_float_value(3.0);
  v1::ArrayInfo product;
  ASSERT_TRUE(stub_->Elementwise(Context().get(), multiply, &product).ok());

  ASSERT_TRUE(CopyOut(Copy("io", 1024, product.handle())).ok());
  std::vector<float> expected(values);
  for (float& v : expected) v *= 3.0f;
  EXPECT_EQ(std::string(object.data() + 1024, expected.size() * sizeof(float)), Bytes(expected));
  // The bytes around the copy are untouched.
  EXPECT_EQ(object.data()[1023], 0);
  EXPECT_EQ(object.data()[1024 + 48], 0);
}

TEST_F(SharedMemoryTest, CopiesCountAsTransferredBytes) {
  ClientObject object(4096);
  ASSERT_TRUE(Register("io", object, 4096).ok());
  v1::ArrayInfo uploaded;
  ASSERT_TRUE(CopyIn(Copy("io", 32, "", v1::DTYPE_INT16, {24}), &uploaded).ok());  // 48 bytes.
  ASSERT_TRUE(CopyOut(Copy("io", 128, uploaded.handle())).ok());
  ASSERT_TRUE(CopyOut(Copy("io", 256, uploaded.handle())).ok());
  EXPECT_FALSE(CopyOut(Copy("io", 4090, uploaded.handle())).ok());  // Refused: not counted.
  const std::string text = server_->metrics().Text();
  EXPECT_NE(text.find("arrayhub_transfer_bytes_total{direction=\"upload\"} 48\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("arrayhub_transfer_bytes_total{direction=\"download\"} 96\n"),
            std::string::npos)
      << text;
}

TEST_F(SharedMemoryTest, EveryDTypeRoundTripsBitForBit) {
  ClientObject object(1 << 16);
  ASSERT_TRUE(Register("io", object, 1 << 16).ok());
  std::mt19937 random(7);
  for (int wire = v1::DTYPE_BOOL; wire <= v1::DTYPE_COMPLEX128; ++wire) {
    const auto dtype = static_cast<v1::DType>(wire);
    // 100 elements' worth of random bytes at 16 bytes an element (the largest); bool takes
    // only 0 and 1. Each dtype's array uses a prefix of them.
    std::string original(100 * 16, '\0');
    for (char& c : original) {
      c = static_cast<char>(dtype == v1::DTYPE_BOOL ? random() % 2 : random());
    }
    v1::ArrayInfo info;
    std::memcpy(object.data() + 128, original.data(), original.size());
    ASSERT_TRUE(CopyIn(Copy("io", 128, "", dtype, {10, 10}), &info).ok()) << wire;
    const std::string back_stream = DownloadAll(info.handle());
    ASSERT_EQ(back_stream, original.substr(0, back_stream.size())) << wire;
    std::memset(object.data() + 128, 0, original.size());
    ASSERT_TRUE(CopyOut(Copy("io", 128, info.handle())).ok()) << wire;
    EXPECT_EQ(std::string(object.data() + 128, back_stream.size()), back_stream) << wire;
  }
}

TEST_F(SharedMemoryTest, UploadOverwritesAnArrayAndWritesThroughAStridedView) {
  ClientObject object(4096);
  ASSERT_TRUE(Register("io", object, 4096).ok());
  const v1::ArrayInfo base = Reshape(Arange(6, v1::DTYPE_INT64).handle(), {2, 3});

  // C-contiguous target: overwritten in place, same handle.
  const std::vector<int64_t> fresh = {10, 11, 12, 13, 14, 15};
  std::memcpy(object.data() + 32, fresh.data(), 48);
  v1::ArrayInfo written;
  ASSERT_TRUE(CopyIn(Copy("io", 32, base.handle()), &written).ok());
  EXPECT_EQ(written.handle(), base.handle());
  EXPECT_EQ(DownloadAll(base.handle()), Bytes(fresh));

  // Transposed view (3, 2): the region's C-order bytes land at the view's elements, as NumPy's
  // base.T[...] = data does.
  const v1::ArrayInfo transposed = Transpose(base.handle());
  const std::vector<int64_t> data = {1, 2, 3, 4, 5, 6};  // Rows of the (3, 2) view.
  std::memcpy(object.data() + 32, data.data(), 48);
  ASSERT_TRUE(CopyIn(Copy("io", 32, transposed.handle(), v1::DTYPE_INT64, {3, 2})).ok());
  EXPECT_EQ(DownloadAll(base.handle()), Bytes(std::vector<int64_t>{1, 3, 5, 2, 4, 6}));

  // Downloading the view writes its C order.
  ASSERT_TRUE(CopyOut(Copy("io", 256, transposed.handle())).ok());
  EXPECT_EQ(std::string(object.data() + 256, 48), Bytes(data));
}

TEST_F(SharedMemoryTest, RegistrationRefusals) {
  ClientObject object(1024);
  const std::string key = object.key();
  std::string wrong = key;
  wrong[5] = static_cast<char>(wrong[5] ^ 1);
  EXPECT_STATUS(Register("r", object.name(), 1024, wrong), PERMISSION_DENIED,
                "key does not match the first 32 bytes of shared-memory object '" + object.name());
  EXPECT_STATUS(Register("r", object.name(), 1024, key.substr(0, 31)), INVALID_ARGUMENT,
                "key must be the region's first 32 bytes, got 31 bytes");
  EXPECT_STATUS(Register("r", "arrayhub-x", 1024, key), INVALID_ARGUMENT,
                "shm_key must be '/' followed by 1 to 250 characters, got 'arrayhub-x'");
  EXPECT_STATUS(Register("r", "/", 1024, key), INVALID_ARGUMENT, "shm_key must be '/' followed");
  EXPECT_STATUS(Register("r", "/" + std::string(251, 'a'), 1024, key), INVALID_ARGUMENT,
                "(252 characters)");
  EXPECT_STATUS(Register("r", "/../etc/passwd", 1024, key), INVALID_ARGUMENT,
                "shm_key may contain only [A-Za-z0-9._-] after its leading '/'; character 3");
  EXPECT_STATUS(Register("r", "/..", 1024, key), INVALID_ARGUMENT,
                "shm_key '/..' names a directory");
  EXPECT_STATUS(Register("r", "/arrayhub-no-such-object", 1024, key), NOT_FOUND,
                "shm_key '/arrayhub-no-such-object': no such shared-memory object");
  EXPECT_STATUS(Register("r", object, 1025), INVALID_ARGUMENT,
                "byte_size 1025 exceeds the size of shared-memory object '" + object.name() +
                    "', 1024 bytes");
  EXPECT_STATUS(Register("r", object, 31), INVALID_ARGUMENT,
                "byte_size must be at least 32 (the region's header), got 31");
  EXPECT_STATUS(Register("", object, 1024), INVALID_ARGUMENT,
                "region_name must have 1 to 128 characters, got 0");
  EXPECT_STATUS(Register("a b", object, 1024), INVALID_ARGUMENT,
                "region_name may contain only [A-Za-z0-9._/-]; character 1");
  ASSERT_TRUE(Register("r", object, 1024).ok());
  EXPECT_STATUS(Register("r", object, 512), ALREADY_EXISTS,
                "region_name 'r' is already registered in this session");
  // Unregistering frees the name.
  ASSERT_TRUE(Unregister("r").ok());
  EXPECT_STATUS(Unregister("r"), NOT_FOUND,
                "region_name 'r': no shared-memory region of that name is registered");
  EXPECT_TRUE(Register("r", object, 512).ok());
}

TEST_F(SharedMemoryTest, CopyRefusals) {
  ClientObject object(1024);
  ASSERT_TRUE(Register("io", object, 1000).ok());
  const v1::ArrayInfo array = Arange(8, v1::DTYPE_INT64);  // 64 bytes.

  EXPECT_STATUS(CopyIn(Copy("nope", 32, "", v1::DTYPE_INT64, {8})), NOT_FOUND,
                "region_name 'nope': no shared-memory region");
  EXPECT_STATUS(CopyOut(Copy("nope", 32, array.handle())), NOT_FOUND, "region_name 'nope'");
  EXPECT_STATUS(CopyIn(Copy("io", 31, "", v1::DTYPE_INT64, {8})), INVALID_ARGUMENT,
                "offset_bytes 31 lies in the 32-byte header of region 'io'");
  EXPECT_STATUS(CopyOut(Copy("io", -8, array.handle())), INVALID_ARGUMENT,
                "offset_bytes -8 lies in the 32-byte header");
  // Within the registered 1000 bytes, not the object's 1024.
  EXPECT_STATUS(CopyIn(Copy("io", 937, "", v1::DTYPE_INT64, {8})), INVALID_ARGUMENT,
                "offset_bytes 937 plus the array's 64 bytes exceeds region 'io' of 1000 bytes");
  EXPECT_TRUE(CopyIn(Copy("io", 936, "", v1::DTYPE_INT64, {8})).ok());
  EXPECT_STATUS(CopyOut(Copy("io", std::numeric_limits<int64_t>::max(), array.handle())),
                INVALID_ARGUMENT, "offset_bytes 9223372036854775807 plus the array's 64 bytes");
  EXPECT_STATUS(CopyOut(Copy("io", 1000, array.handle())), INVALID_ARGUMENT,
                "offset_bytes 1000 plus the array's 64 bytes exceeds");
  // dtype and shape checked as an Upload header is.
  EXPECT_STATUS(CopyIn(Copy("io", 32, "", v1::DTYPE_UNSPECIFIED, {8})), INVALID_ARGUMENT,
                "dtype must be set for an upload into a new array");
  EXPECT_STATUS(CopyIn(Copy("io", 32, "", v1::DTYPE_FLOAT32, {3, -2})), INVALID_ARGUMENT,
                "negative dimensions are not allowed");
  EXPECT_STATUS(CopyIn(Copy("io", 32, "", static_cast<v1::DType>(99), {2})), INVALID_ARGUMENT,
                "dtype");
  EXPECT_STATUS(CopyIn(Copy("io", 32, array.handle(), v1::DTYPE_FLOAT64)), INVALID_ARGUMENT,
                "dtype float64 does not match array " + array.handle() + ", which is int64");
  EXPECT_STATUS(CopyIn(Copy("io", 32, array.handle(), v1::DTYPE_INT64, {2, 4})), INVALID_ARGUMENT,
                "shape (2, 4) does not match array");
  EXPECT_STATUS(CopyOut(Copy("io", 32, array.handle(), v1::DTYPE_INT64)), INVALID_ARGUMENT,
                "dtype and shape must be left unset for a copy to shared memory");
  EXPECT_STATUS(CopyOut(Copy("io", 32, "0123456789abcdef0123456789abcdef")), NOT_FOUND, "");
  // A read-only view is no upload target.
  v1::ViewRequest broadcast;
  broadcast.set_handle(array.handle());
  broadcast.mutable_broadcast_to()->add_shape(2);
  broadcast.mutable_broadcast_to()->add_shape(8);
  const v1::ArrayInfo read_only = View(broadcast);
  EXPECT_STATUS(CopyIn(Copy("io", 32, read_only.handle())), INVALID_ARGUMENT,
                "assignment destination is read-only");
}

TEST_F(SharedMemoryTest, AnotherSessionsRegionIsNotFound) {
  ClientObject object(1024);
  ASSERT_TRUE(Register("mine", object, 1024).ok());
  const std::string other = OpenSession();
  EXPECT_STATUS(CopyIn(Copy("mine", 32, "", v1::DTYPE_INT8, {4}), nullptr, other), NOT_FOUND,
                "region_name 'mine': no shared-memory region of that name is registered in this "
                "session");
  // Names are per session: the other session may use the same one for its own region.
  EXPECT_TRUE(Register("mine", object, 1024, other).ok());
}

TEST_F(SharedMemoryTest, ShrunkObjectGivesAnErrorNotACrash) {
  ClientObject object(1 << 16);
  ASSERT_TRUE(Register("io", object, 1 << 16).ok());
  const v1::ArrayInfo array = Arange(1024, v1::DTYPE_FLOAT64);  // 8 KiB.
  object.Shrink(4096);
  const EngineStats before = server_->engine().Stats();
  EXPECT_STATUS(CopyIn(Copy("io", 1024, "", v1::DTYPE_FLOAT64, {1024})), FAILED_PRECONDITION,
                "the shared-memory object shrank to 4096 bytes after it was registered");
  // The failed upload left no array and no memory behind.
  EXPECT_EQ(server_->engine().Stats().arrays, before.arrays);
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, before.bytes_in_use);
  EXPECT_STATUS(CopyIn(Copy("io", 1024, array.handle())), FAILED_PRECONDITION,
                "shrank to 4096 bytes");
  EXPECT_STATUS(CopyOut(Copy("io", 1024, array.handle())), FAILED_PRECONDITION,
                "shrank to 4096 bytes after it was registered; the copy needs 9216 bytes");
  // What still lies inside the object works.
  EXPECT_TRUE(CopyOut(Copy("io", 64, Arange(4, v1::DTYPE_INT8).handle())).ok());
}

TEST_F(SharedMemoryTest, RegionsAreReleasedWithTheirSession) {
  ClientObject object(1024);
  const int before = OpenDescriptors();
  const std::string session = OpenSession();
  ASSERT_TRUE(Register("a", object, 1024, session).ok());
  ASSERT_TRUE(Register("b", object, 512, session).ok());
  EXPECT_EQ(OpenDescriptors(), before + 2);
  ASSERT_TRUE(Register("c", object, 1024).ok());
  ASSERT_TRUE(Unregister("c").ok());
  EXPECT_EQ(OpenDescriptors(), before + 2);

  v1::CloseSessionResponse closed;
  ASSERT_TRUE(stub_->CloseSession(Context(session).get(), v1::CloseSessionRequest(), &closed).ok());
  EXPECT_EQ(OpenDescriptors(), before);
}

TEST_F(SharedMemoryTest, RegionsAreReleasedWhenTheLeaseRunsOut) {
  ClientObject object(1024);
  const int before = OpenDescriptors();
  grpc::ClientContext context;
  v1::OpenSessionRequest open;
  open.set_lease_seconds(1);
  v1::OpenSessionResponse opened;
  ASSERT_TRUE(stub_->OpenSession(&context, open, &opened).ok());
  ASSERT_TRUE(Register("a", object, 1024, opened.session_id()).ok());
  EXPECT_EQ(OpenDescriptors(), before + 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  // The server's own reaper may have closed the session already (CI's sanitizer run saw it
  // win), or may be closing it now: reap, then wait a little for the descriptor to go.
  server_->engine().ReapExpiredSessions();
  for (int i = 0; i < 100 && OpenDescriptors() != before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(OpenDescriptors(), before);
  v1::KeepAliveResponse renewed;
  EXPECT_EQ(stub_->KeepAlive(Context(opened.session_id()).get(), v1::KeepAliveRequest(), &renewed)
                .error_code(),
            grpc::StatusCode::NOT_FOUND);
}

class SharedMemoryLimitsTest : public SharedMemoryTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options;
    options.limits.max_shared_memory_regions = 2;
    options.limits.max_shared_memory_bytes = 4096;
    return options;
  }
};

TEST_F(SharedMemoryLimitsTest, RegionsPerSessionAndSizeAreLimited) {
  ClientObject object(8192);
  EXPECT_STATUS(Register("big", object, 4097), RESOURCE_EXHAUSTED,
                "byte_size 4097 exceeds the largest shared-memory region the server allows, 4096 "
                "bytes (--max-shared-memory-bytes)");
  ASSERT_TRUE(Register("a", object, 4096).ok());
  ASSERT_TRUE(Register("b", object, 4096).ok());
  EXPECT_STATUS(Register("c", object, 4096), RESOURCE_EXHAUSTED,
                "this session has 2 shared-memory regions registered, the most allowed "
                "(--max-shared-memory-regions 2)");
}

class SharedMemoryOffTest : public SharedMemoryTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options;
    options.limits.shared_memory = false;
    return options;
  }
};

TEST_F(SharedMemoryOffTest, EveryCallSaysTheFeatureIsOff) {
  ClientObject object(1024);
  const char* off = "shared memory is switched off on this server";
  EXPECT_STATUS(Register("a", object, 1024), FAILED_PRECONDITION, off);
  EXPECT_STATUS(Unregister("a"), FAILED_PRECONDITION, off);
  EXPECT_STATUS(CopyIn(Copy("a", 32, "", v1::DTYPE_INT8, {4})), FAILED_PRECONDITION, off);
  EXPECT_STATUS(CopyOut(Copy("a", 32, Arange(4, v1::DTYPE_INT8).handle())), FAILED_PRECONDITION,
                off);
}

}  // namespace
}  // namespace arrayhub::testing
