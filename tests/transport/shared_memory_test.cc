// RegisterSharedMemory, UnregisterSharedMemory, CopyFromSharedMemory, CopyToSharedMemory over
// the in-process server: objects handed over the descriptor socket, round trips, every refusal
// with its code and message (one message for every refused object, whoever's it is), uploads
// that are all or nothing, and descriptors counted, limited and released with their session.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <thread>

#include "client_cpp/src/descriptor_socket.h"
#include "server/transport/metrics.h"
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

// What every refused object or ticket is answered.
constexpr char kRefused[] = "descriptor_ticket refused: a ticket is good once";

// A shared-memory object as the clients make it: a memfd sealed against shrinking (unless
// `sealed` is false), mapped here. Closed and unmapped when the test ends.
class ClientObject {
 public:
  explicit ClientObject(int64_t size, bool sealed = true) : size_(size) {
    fd_ = memfd_create("arrayhub-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    EXPECT_GE(fd_, 0) << std::strerror(errno);
    EXPECT_EQ(ftruncate(fd_, size), 0);
    if (sealed) {
      EXPECT_EQ(fcntl(fd_, F_ADD_SEALS, F_SEAL_SHRINK), 0) << std::strerror(errno);
    }
    data_ = static_cast<char*>(
        mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0));
    EXPECT_NE(data_, MAP_FAILED);
  }
  ~ClientObject() {
    munmap(data_, static_cast<size_t>(size_));
    close(fd_);
  }

  int fd() const { return fd_; }
  char* data() { return data_; }

 private:
  int fd_;
  int64_t size_;
  char* data_;
};

// Descriptors the daemon process keeps per registered region: the CPU backend reads and writes
// through the object's descriptor; the CUDA backend maps it and closes it (the engine's count
// of held descriptors, HeldDescriptors, still counts it against the limits).
int DescriptorsPerRegion() { return testing::TestBackendIsCuda() ? 0 : 1; }

int OpenDescriptors() {
  return static_cast<int>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                        std::filesystem::directory_iterator()));
}

// The open descriptors once they are `expected`, or after a second: the socket's thread closes
// a connection just after its reply, which the test may read first.
int OpenDescriptorsSettled(int expected) {
  for (int i = 0; i < 100 && OpenDescriptors() != expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return OpenDescriptors();
}

// The open descriptors before a test's own, without the transient ones: the fewest seen over
// 200 ms. gRPC's and the socket's threads open and close descriptors of their own at times
// (CI's ASan run counted two more at the start than ever after).
int QuietDescriptors() {
  int fewest = OpenDescriptors();
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    fewest = std::min(fewest, OpenDescriptors());
  }
  return fewest;
}

class SharedMemoryTest : public RpcTest {
 protected:
  // The daemon's descriptor socket, as clients learn it.
  std::string SocketPath() {
    grpc::ClientContext context;
    v1::ServerInfo info;
    EXPECT_TRUE(stub_->GetServerInfo(&context, v1::ServerInfoRequest(), &info).ok());
    return info.shared_memory_socket();
  }
  // The socket's reply to "REGION" with `fd` attached.
  std::string HandOver(int fd) {
    return client::detail::AskDescriptorSocket(SocketPath(), "REGION", fd).line;
  }
  // The ticket for `fd`; fails the test if the socket refuses it.
  std::string Ticket(int fd) {
    const std::string reply = HandOver(fd);
    EXPECT_TRUE(reply.starts_with("OK ")) << reply;
    return reply.substr(3);
  }

  grpc::Status Register(const std::string& region, const std::string& ticket, int64_t byte_size,
                        const std::string& session = "") {
    v1::RegisterSharedMemoryRequest request;
    request.set_region_name(region);
    request.set_byte_size(byte_size);
    request.set_descriptor_ticket(ticket);
    return Register(request, session);
  }
  grpc::Status Register(const v1::RegisterSharedMemoryRequest& request,
                        const std::string& session = "") {
    v1::RegisterSharedMemoryResponse response;
    return stub_->RegisterSharedMemory(Context(session).get(), request, &response);
  }
  // Hands `object` over and registers it.
  grpc::Status Register(const std::string& region, const ClientObject& object, int64_t byte_size,
                        const std::string& session = "") {
    return Register(region, Ticket(object.fd()), byte_size, session);
  }
  grpc::Status Unregister(const std::string& region, const std::string& session = "") {
    v1::UnregisterSharedMemoryRequest request;
    request.set_region_name(region);
    v1::UnregisterSharedMemoryResponse response;
    return stub_->UnregisterSharedMemory(Context(session).get(), request, &response);
  }
  void CloseSession(const std::string& session) {
    v1::CloseSessionResponse closed;
    ASSERT_TRUE(
        stub_->CloseSession(Context(session).get(), v1::CloseSessionRequest(), &closed).ok());
  }
  int64_t HeldDescriptors() { return server_->engine().Stats().shared_memory_descriptors; }

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
  EXPECT_STATUS(Register("r", object, 0), INVALID_ARGUMENT, "byte_size must be positive, got 0");
  EXPECT_STATUS(Register("r", object, -5), INVALID_ARGUMENT, "byte_size must be positive, got -5");
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

TEST_F(SharedMemoryTest, ATicketIsUsedUpByTheFirstCallThatNamesIt) {
  ClientObject object(1024);
  const std::string ticket = Ticket(object.fd());
  ASSERT_TRUE(Register("b", ticket, 1024).ok());
  EXPECT_STATUS(Register("c", ticket, 1024), PERMISSION_DENIED, kRefused);
  // A refused call uses its ticket up too: no descriptor is left waiting.
  ASSERT_TRUE(Register("a", object, 1024).ok());
  const std::string refused = Ticket(object.fd());
  EXPECT_EQ(HeldDescriptors(), 3);
  EXPECT_STATUS(Register("a", refused, 1024), ALREADY_EXISTS, "region_name 'a'");
  EXPECT_EQ(HeldDescriptors(), 2);
  EXPECT_STATUS(Register("d", refused, 1024), PERMISSION_DENIED, kRefused);
}

// The attack this replaced: a tenant named another process's /dev/shm object and "proved" it
// with 32 header bytes, which such an object has as zeros. Now no request can name an object,
// and every object that is not the sender's own sealed memfd is refused with one message,
// whoever owns it and whether or not it exists.
TEST_F(SharedMemoryTest, ForeignObjectsAreRefusedAndEveryRefusalLooksTheSame) {
  const std::string victim = "/arrayhub-test-victim-" + std::to_string(getpid());
  const int foreign = shm_open(victim.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  ASSERT_GE(foreign, 0) << std::strerror(errno);
  ASSERT_EQ(ftruncate(foreign, 4096), 0);  // A zero header, as every fresh object has.
  std::vector<std::pair<std::string, grpc::Status>> refusals;

  // A request as the old protocol had it (shm_key = 2, key = 4), for an object that exists
  // and for one that does not: the fields are no longer read.
  for (const std::string& name : {victim, std::string("/arrayhub-test-no-such-object")}) {
    v1::RegisterSharedMemoryRequest old;
    old.set_region_name("stolen");
    old.set_byte_size(4096);
    google::protobuf::UnknownFieldSet* fields = old.GetReflection()->MutableUnknownFields(&old);
    fields->AddLengthDelimited(2, name);
    fields->AddLengthDelimited(4, std::string(32, '\0'));
    refusals.emplace_back("old request for " + name, Register(old));
  }
  refusals.emplace_back("no ticket", Register("r", "", 4096));
  refusals.emplace_back("unknown ticket", Register("r", std::string(32, 'a'), 4096));
  // The object's own descriptor, handed over: an shm_open object cannot be sealed.
  refusals.emplace_back("shm_open object", Register("r", Ticket(foreign), 4096));
  {
    ClientObject unsealed(4096, /*sealed=*/false);
    refusals.emplace_back("unsealed memfd", Register("r", unsealed, 4096));
  }
  {
    ClientObject small(4096);
    refusals.emplace_back("too small", Register("r", small, 4097));
  }
  {
    const int write_sealed = memfd_create("write-sealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    ASSERT_EQ(ftruncate(write_sealed, 4096), 0);
    ASSERT_EQ(fcntl(write_sealed, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_WRITE), 0);
    refusals.emplace_back("sealed against writing", Register("r", Ticket(write_sealed), 4096));
    close(write_sealed);
  }
  {
    ClientObject object(4096);
    const int read_only =
        open(("/proc/self/fd/" + std::to_string(object.fd())).c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(read_only, 0) << std::strerror(errno);
    refusals.emplace_back("read-only descriptor", Register("r", Ticket(read_only), 4096));
    close(read_only);
  }
  if (geteuid() == 0) {
    // Another user's object, which only root could open: refused even so.
    ClientObject others(4096);
    ASSERT_EQ(fchown(others.fd(), 65534, 65534), 0) << std::strerror(errno);
    refusals.emplace_back("another user's memfd", Register("r", others, 4096));
  }
  for (const auto& [what, status] : refusals) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << what;
    EXPECT_EQ(status.error_message(), refusals.front().second.error_message()) << what;
  }
  EXPECT_NE(refusals.front().second.error_message().find(kRefused), std::string::npos)
      << refusals.front().second.error_message();
  // Nothing was registered, and no descriptor is kept.
  EXPECT_STATUS(CopyIn(Copy("stolen", 0, "", v1::DTYPE_INT8, {4})), NOT_FOUND, "region_name");
  EXPECT_STATUS(CopyIn(Copy("r", 0, "", v1::DTYPE_INT8, {4})), NOT_FOUND, "region_name");
  EXPECT_EQ(HeldDescriptors(), 0);
  close(foreign);
  shm_unlink(victim.c_str());
}

TEST_F(SharedMemoryTest, TheSocketTakesExactlyOneDescriptorPerRegion) {
  EXPECT_EQ(client::detail::AskDescriptorSocket(SocketPath(), "REGION").line,
            "ERROR attach exactly one descriptor to REGION");
  EXPECT_EQ(HeldDescriptors(), 0);
}

TEST_F(SharedMemoryTest, CopyRefusals) {
  ClientObject object(1024);
  ASSERT_TRUE(Register("io", object, 1000).ok());
  const v1::ArrayInfo array = Arange(8, v1::DTYPE_INT64);  // 64 bytes.

  EXPECT_STATUS(CopyIn(Copy("nope", 32, "", v1::DTYPE_INT64, {8})), NOT_FOUND,
                "region_name 'nope': no shared-memory region");
  EXPECT_STATUS(CopyOut(Copy("nope", 32, array.handle())), NOT_FOUND, "region_name 'nope'");
  EXPECT_STATUS(CopyOut(Copy("io", -8, array.handle())), INVALID_ARGUMENT,
                "offset_bytes must not be negative, got -8");
  // Within the registered 1000 bytes, not the object's 1024.
  EXPECT_STATUS(CopyIn(Copy("io", 937, "", v1::DTYPE_INT64, {8})), INVALID_ARGUMENT,
                "offset_bytes 937 plus the array's 64 bytes exceeds region 'io' of 1000 bytes");
  EXPECT_TRUE(CopyIn(Copy("io", 936, "", v1::DTYPE_INT64, {8})).ok());
  EXPECT_TRUE(CopyIn(Copy("io", 0, "", v1::DTYPE_INT64, {8})).ok());
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

// What used to leave an array half written: the client shrank its object under an upload into
// the array, and the copy stopped part-way. A registered object is sealed against shrinking,
// so the copy either is refused before it starts or writes everything.
TEST_F(SharedMemoryTest, AnUploadIntoAnArrayIsAllOrNothing) {
  ClientObject object(1 << 16);
  ASSERT_TRUE(Register("io", object, 1 << 16).ok());
  const v1::ArrayInfo array = Arange(1024, v1::DTYPE_FLOAT64);  // 8 KiB.
  const std::string before = DownloadAll(array.handle());
  EXPECT_NE(ftruncate(object.fd(), 4096), 0);
  EXPECT_EQ(errno, EPERM);
  // Refused before anything is written.
  EXPECT_STATUS(CopyIn(Copy("io", (1 << 16) - 4096, array.handle())), INVALID_ARGUMENT,
                "exceeds region 'io'");
  EXPECT_EQ(DownloadAll(array.handle()), before);
  // Pages the client punches out read as zeros: the copy still writes all of the array.
  std::vector<double> fresh(1024);
  for (size_t i = 0; i < fresh.size(); ++i) fresh[i] = 0.25 * static_cast<double>(i) + 1;
  std::memcpy(object.data() + 8192, fresh.data(), 8192);
  ASSERT_EQ(fallocate(object.fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8192, 4096), 0);
  ASSERT_TRUE(CopyIn(Copy("io", 8192, array.handle())).ok());
  std::fill(fresh.begin(), fresh.begin() + 512, 0.0);
  EXPECT_EQ(DownloadAll(array.handle()), Bytes(fresh));
}

TEST_F(SharedMemoryTest, RegionsAreReleasedWithTheirSession) {
  ClientObject object(1024);
  SocketPath();  // Starts the socket first: its own descriptors are not the regions'.
  const int before = QuietDescriptors();
  const std::string session = OpenSession();
  ASSERT_TRUE(Register("a", object, 1024, session).ok());
  ASSERT_TRUE(Register("b", object, 512, session).ok());
  EXPECT_EQ(OpenDescriptorsSettled(before + 2 * DescriptorsPerRegion()),
            before + 2 * DescriptorsPerRegion());
  EXPECT_EQ(HeldDescriptors(), 2);
  ASSERT_TRUE(Register("c", object, 1024).ok());
  ASSERT_TRUE(Unregister("c").ok());
  EXPECT_EQ(OpenDescriptorsSettled(before + 2 * DescriptorsPerRegion()),
            before + 2 * DescriptorsPerRegion());

  CloseSession(session);
  EXPECT_EQ(OpenDescriptorsSettled(before), before);
  EXPECT_EQ(HeldDescriptors(), 0);
}

TEST_F(SharedMemoryTest, RegionsAreReleasedWhenTheLeaseRunsOut) {
  ClientObject object(1024);
  SocketPath();  // Starts the socket first: its own descriptors are not the regions'.
  const int before = QuietDescriptors();
  grpc::ClientContext context;
  v1::OpenSessionRequest open;
  open.set_lease_seconds(1);
  v1::OpenSessionResponse opened;
  ASSERT_TRUE(stub_->OpenSession(&context, open, &opened).ok());
  ASSERT_TRUE(Register("a", object, 1024, opened.session_id()).ok());
  EXPECT_EQ(OpenDescriptorsSettled(before + 1 * DescriptorsPerRegion()),
            before + 1 * DescriptorsPerRegion());
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  // The server's own reaper may have closed the session already (CI's sanitizer run saw it
  // win), or may be closing it now: reap, then wait a little for the descriptor to go.
  server_->engine().ReapExpiredSessions();
  EXPECT_EQ(OpenDescriptorsSettled(before), before);
  EXPECT_EQ(HeldDescriptors(), 0);
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
    options.limits.tenant_max_shared_memory_regions = 3;
    options.limits.max_shared_memory_bytes = 4096;
    options.limits.max_shared_memory_descriptors = 5;
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

// One tenant, however many sessions it opens, holds a bounded number of regions, and all
// tenants together a bounded number of descriptors; every one comes back when its session ends.
TEST_F(SharedMemoryLimitsTest, DescriptorsAreBoundedPerTenantAndInAllAndComeBack) {
  ClientObject object(4096);
  SocketPath();  // Starts the socket first: its own descriptors are not the regions'.
  const int before = QuietDescriptors();
  const std::string first = OpenSession(), second = OpenSession();
  ASSERT_TRUE(Register("a", object, 4096, first).ok());
  ASSERT_TRUE(Register("b", object, 4096, first).ok());
  ASSERT_TRUE(Register("a", object, 4096, second).ok());
  EXPECT_STATUS(Register("b", object, 4096, second), RESOURCE_EXHAUSTED,
                "tenant 'anonymous' has 3 shared-memory regions registered in its sessions, the "
                "most allowed (--tenant-max-shared-memory-regions 3)");
  // 3 descriptors held (the refused registration's went with it): room for 2 more.
  EXPECT_EQ(HeldDescriptors(), 3);
  EXPECT_TRUE(HandOver(object.fd()).starts_with("OK "));
  EXPECT_TRUE(HandOver(object.fd()).starts_with("OK "));
  EXPECT_EQ(HandOver(object.fd()),
            "ERROR the server holds 5 descriptors of shared-memory objects, the most its "
            "descriptor limit leaves room for; unregister regions or stream instead");
  // Three registered regions, and two objects handed over and waiting for their tickets.
  EXPECT_EQ(OpenDescriptorsSettled(before + 3 * DescriptorsPerRegion() + 2),
            before + 3 * DescriptorsPerRegion() + 2);

  CloseSession(first);
  CloseSession(second);
  EXPECT_EQ(HeldDescriptors(), 2);  // The two tickets nobody redeemed, until they expire.
  server_->engine().ReapExpiredSessions();
  EXPECT_EQ(HeldDescriptors(), 2);
  EXPECT_EQ(OpenDescriptorsSettled(before + 2), before + 2);
}

using SharedMemoryOffTest = WithLimit<SharedMemoryTest, &Limits::shared_memory, false>;

TEST_F(SharedMemoryOffTest, EveryCallSaysTheFeatureIsOff) {
  const char* off = "shared memory is switched off on this server";
  EXPECT_EQ(SocketPath(), "");  // Clients are not even shown a socket.
  EXPECT_STATUS(Register("a", std::string(32, 'a'), 1024), FAILED_PRECONDITION, off);
  EXPECT_STATUS(Unregister("a"), FAILED_PRECONDITION, off);
  EXPECT_STATUS(CopyIn(Copy("a", 32, "", v1::DTYPE_INT8, {4})), FAILED_PRECONDITION, off);
  EXPECT_STATUS(CopyOut(Copy("a", 32, Arange(4, v1::DTYPE_INT8).handle())), FAILED_PRECONDITION,
                off);
}

}  // namespace
}  // namespace arrayhub::testing
