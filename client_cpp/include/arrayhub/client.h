// The ArrayHub C++ client: a session on an arrayhubd server, and the calls that create,
// transfer, describe and free arrays in it. Every failed call throws arrayhub::client::Error.
//
//   auto client = arrayhub::client::Client::Connect("127.0.0.1:50051");
//   auto a = client.Upload(std::vector<float>{1, 2, 3, 4}, {2, 2});
//   auto t = client.Ufunc("multiply", {a, 2});  // Queued: returns at once.
//   auto b = client.Ufunc("add", {t, 1});
//   std::vector<float> back = client.Download<float>(b);  // One round trip runs both.
//
// arrayhub/arrayhub.h adds NumPy's functions and Python's operators on Arrays, which make the
// same calls: `auto b = a * 2 + 1;`, `sum(b)`, `matmul(a, b)` (functions.h, operators.h).
//
// Pipelining (the default; README, "Pipelining"): an op that a Batch can hold (ufuncs with or
// without out=, Matmul and MatmulOut, the tensor products, Reduce, the views, GetItem, ArrayOp
// and its named forms but Split, SplitAt and Nonzero, creation and random creation, and the
// Linalg routines giving one array: Cholesky, Eigvalsh, Solve, Inv, Det, Norm) is queued on
// the client and returns its Array at once, as a CUDA launch does. The queue goes to the server as
// one Batch when the caller waits for something: a Download, an Array's description (handle, shape,
// dtype, ...: lazy until the array exists), any other call (which runs after everything queued
// before it), Synchronize; and also when it holds 256 ops, and after about 1 ms without a new
// op (ClientOptions::idle_flush), so the server never waits on a quiet client. Destroying an
// Array frees it with the next batch rather than in a call of its own. Ops from several
// threads run in the order they were queued. A failed op throws its Error (the server's code
// and message, "ops[i] (<op>): " in front) at the next point where the caller waits; every op
// queued after it is discarded, and their Arrays throw that Error when used; then the client
// works as before. SetSync(true), or ARRAYHUB_SYNC=1 in the environment at Connect, makes
// every op one blocking call again, its error thrown by the call itself.
#pragma once

#include <chrono>
#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "arrayhub/array.h"
#include "arrayhub/dtype.h"
#include "arrayhub/error.h"
#include "arrayhub/ipc.h"
#include "arrayhub/pinned_buffer.h"

namespace arrayhub::client {

// Transport security of the connection (gRPC's SSL credentials).
struct TlsOptions {
  bool enabled = false;        // False: plaintext.
  std::string root_certs_pem;  // CAs to trust; empty: the system's roots.
  // Mutual TLS: the client's certificate chain and private key, both PEM, or both empty.
  std::string cert_chain_pem;
  std::string private_key_pem;
};

struct ClientOptions {
  std::string client_name = "arrayhub-cpp";  // Shown by the server's session listings.
  int64_t lease_seconds = 0;                 // 0 takes the server's default.
  std::string token;                         // Sent as `authorization: Bearer <token>` if set.
  int64_t chunk_bytes = 1 << 20;             // Upload chunk and requested download chunk size.
  // A streamed transfer of at least `stripe_min_bytes` goes as `transfer_streams` streams in
  // parallel, each moving one range of the array on a connection of its own: one connection
  // carries about 2 GB/s on a loopback. 1: always one stream; 0: one per two of this host's
  // cores, at most 4 (each stream keeps a core busy at either end).
  int transfer_streams = 0;
  int64_t stripe_min_bytes = int64_t{64} << 20;
  // Upload of at most this many bytes, pipelined, is queued with its bytes as an op of the next
  // Batch (no call of its own) where the server takes that much inline
  // (ServerInfo::limits' max_inline_create_bytes); 0: every upload is a transfer of its own.
  int64_t inline_upload_bytes = int64_t{256} << 10;
  TlsOptions tls{};
  // Pipelined ops still queued this long after the last one are sent without waiting for the
  // caller (the idle flush).
  std::chrono::microseconds idle_flush{1000};
  // The session's device (an index of ServerInfo::devices), where its calls run unless
  // Client::SetDevice names another; absent: the server picks its least used device.
  std::optional<int32_t> device{};
  // Whether transfers may go through shared memory with the server (UsesSharedMemory): set,
  // for this client whatever the environment says; absent, as ARRAYHUB_SHARED_MEMORY says
  // (1 or 0), else when the address is a loopback or unix one. A program with threads running
  // sets this rather than the variable: setenv beside another thread's getenv is a data race.
  std::optional<bool> shared_memory{};
};

// Who may attach to a published array (PublishRequest).
struct PublishOptions {
  std::vector<std::string> readers{};  // Other tenants allowed to attach.
  bool all_tenants = false;            // Every tenant may attach.
  bool writable = false;               // Attached tenants may write too.
  // Also written, as of the call, to the server's data directory (arrayhubd --data-dir), from
  // which a restarted server restores it; Publish returns once the write is queued, or with
  // `wait` once it is on disk (docs/operations.md).
  bool durable = false;
  bool wait = false;
};

// What Client::Checkpoint wrote (CheckpointResponse).
struct CheckpointInfo {
  int64_t publications = 0;       // Written, or queued to be.
  int64_t bytes = 0;              // Of their arrays.
  int64_t tenant_disk_bytes = 0;  // Disk charged to the tenant now.
};

// One compute device of the server's backend.
struct DeviceInfo {
  std::string name;         // "cpu", "cpu:N" (--cpu-devices) or "cuda:N".
  std::string description;  // e.g. "NVIDIA H100 80GB HBM3, compute capability 9.0".
  int64_t total_memory_bytes = 0;
  int64_t free_memory_bytes = 0;
  int64_t bytes_in_use = 0;  // Array memory the server holds on it (all tenants).
  int64_t sessions = 0;      // Open sessions whose device it is.
};

// Limits the server enforces on every request.
struct ServerLimits {
  int64_t max_rank = 0;
  int64_t max_array_bytes = 0;
  int64_t max_chunk_bytes = 0;  // Largest upload chunk; cap on download chunks.
  int64_t default_chunk_bytes = 0;
  int64_t max_message_bytes = 0;
};

struct ServerInfo {
  std::string version;
  std::string backend;  // "cuda" or "cpu".
  std::string tenant;   // The caller's tenant.
  std::vector<DeviceInfo> devices;
  int64_t bytes_in_use = 0;  // All tenants.
  int64_t arrays = 0;        // Live handles.
  int64_t sessions = 0;      // Open sessions.
  int64_t tenant_bytes_in_use = 0;
  ServerLimits limits;
};

// A fill value or bound. Which alternative it holds is the value's Python kind (bool, int,
// float or complex), which decides the result dtype when none is given, as in NumPy.
class Scalar {
 public:
  using Value = std::variant<bool, int64_t, uint64_t, double, std::complex<double>>;

  // Templates rather than plain overloads, so that every arithmetic type maps to its own kind
  // exactly (no ambiguity for int, no pointer-to-bool conversions).
  template <std::same_as<bool> T>
  Scalar(T value) : value_(value) {}
  template <std::signed_integral T>
  Scalar(T value) : value_(static_cast<int64_t>(value)) {}
  template <std::unsigned_integral T>
  requires(!std::same_as<T, bool>) Scalar(T value) : value_(static_cast<uint64_t>(value)) {}
  template <std::floating_point T>
  Scalar(T value) : value_(static_cast<double>(value)) {}
  template <std::floating_point T>
  Scalar(std::complex<T> value) : value_(std::complex<double>(value)) {}

  const Value& value() const { return value_; }

 private:
  Value value_;
};

class Batch;

// The result of an op recorded in a Batch (arrayhub/batch.h): an operand of the later ops of
// that batch, and what Batch::Run is told to keep. A call outside the batch refuses it.
class Step {
 public:
  // The op's position in its batch.
  int32_t index() const { return index_; }

 private:
  friend class Batch;
  Step(uint64_t batch, int32_t index) : batch_(batch), index_(index) {}

  uint64_t batch_;  // The id of the Batch that recorded it.
  int32_t index_;
};

// An operand of a ufunc: an array (by reference; it must outlive the call), a scalar, which
// is "weak" as in NumPy 2: `a + 1` keeps a's dtype, or in a Batch the result of an earlier op.
class Operand {
 public:
  Operand(const Array& array) : value_(&array) {}
  Operand(Step step) : value_(step) {}
  template <typename T>
  requires std::constructible_from<Scalar, T> Operand(T value) : value_(Scalar(value)) {}

  const std::variant<const Array*, Scalar, Step>& value() const { return value_; }

 private:
  std::variant<const Array*, Scalar, Step> value_;
};

// NumPy's reduction arguments.
// numpy.fft's options (Client::Fft).
struct FftOptions {
  // The axes transformed; absent: the last s->size() axes, or every axis (numpy.fft.fftn).
  std::optional<std::vector<int64_t>> axes = std::nullopt;
  // NumPy's n and s: each axis's transform length, the input cut or zero-padded to it (-1:
  // the whole axis); absent: the input's extents (2 (m - 1) along irfft's and hfft's last).
  std::optional<std::vector<int64_t>> s = std::nullopt;
  std::string norm;  // "backward" (also ""), "ortho" or "forward".
};

// A user kernel: CuPy's ElementwiseKernel or ReductionKernel arguments, verbatim (the bodies
// in the safe subset of CUDA C that docs/user-kernels.md describes; Client::RunKernel).
struct KernelSource {
  bool reduction = false;       // A ReductionKernel, else an ElementwiseKernel.
  std::string in_params{};      // "T x, raw T y, float32 alpha"
  std::string out_params{};     // "T z"
  std::string operation{};      // Elementwise: the statements run for each index i.
  std::string map_expr{};       // Reduction: element i's value,
  std::string reduce_expr{};    // combining a and b,
  std::string post_map_expr{};  // assigning the outputs from a;
  std::string identity{};       // a before anything is reduced ("": none);
  std::string reduce_type{};    // the type of a and b ("": the first output's).
  std::string preamble{};       // __device__ functions the bodies call.
  std::string name = "kernel";
};

// One argument of a raw CUDA kernel (Client::RunRawKernel): an array, passed as a pointer to its
// first element, or a scalar passed by value in its C++ type's dtype (a float as float32, an
// int64_t as int64, ...), which must match the kernel's parameter.
class RawKernelArgument {
 public:
  RawKernelArgument(const Array& array) : array_(&array), scalar_(false), dtype_(DType::kBool) {}
  template <ArrayElement T>
  requires std::constructible_from<Scalar, T> RawKernelArgument(T value)
      : array_(nullptr), scalar_(value), dtype_(DTypeOf<T>::value) {}

  const Array* array() const { return array_; }
  const Scalar& scalar() const { return scalar_; }
  DType dtype() const { return dtype_; }

 private:
  const Array* array_;
  Scalar scalar_;
  DType dtype_;
};

// A raw CUDA kernel launch (Client::RunRawKernel; CuPy's RawKernel): grid and block have 1 to
// 3 entries, options are NVRTC options from the server's allowlist (docs/user-kernels.md).
struct RawKernelLaunch {
  std::string code{};  // CUDA C source.
  std::string name{};  // The kernel's extern "C" name.
  std::vector<std::string> options{};
  std::vector<int64_t> grid{1};
  std::vector<int64_t> block{1};
  int64_t shared_mem = 0;
};

// One call's options (Client::RunKernel).
struct KernelOptions {
  // Empty: every output is a new array. Else one entry per out_params entry: the array to
  // write (CuPy's out=), or null for a new one.
  std::vector<const Array*> out{};
  std::optional<int64_t> size{};               // Elementwise: CuPy's size=.
  std::optional<std::vector<int64_t>> axis{};  // Reduction: absent reduces every axis.
  bool keepdims = false;                       // Reduction.
};

struct ReduceOptions {
  std::optional<std::vector<int64_t>> axis{};  // Absent: all axes (axis=None).
  bool keepdims = false;
  std::optional<DType> dtype{};  // sum, prod, mean, var, std.
  int64_t ddof = 0;              // var, std.
};

// How much precision a float32 product may give up for speed.
enum class Precision {
  kDefault,  // The session's choice: true float32 (sessions cannot choose TF32 yet).
  kHighest,  // True float32; float16 products accumulate in float32.
  kTF32,     // TensorFloat-32 tensor cores for float32 on GPUs (about 1e-3 relative error).
};

// numpy.matmul's arguments, and views of the operands it can take without a copy.
struct MatmulOptions {
  bool transpose_a = false;  // a's last two axes swapped.
  bool transpose_b = false;
  bool conjugate_a = false;  // A complex a conjugated (with transpose_a: the adjoint).
  bool conjugate_b = false;
  Precision precision = Precision::kDefault;
};

// One entry of a NumPy index expression a[...]: slices, integers, an ellipsis, newaxis, and
// integer or boolean index arrays, written as in Python. a[1:, ::-1, None, 3] is
//   client.GetItem(a, {Slice{.start = 1}, Slice{.step = -1}, kNewAxis, 3})
// Slice bounds left out take NumPy's defaults for the sign of the step; a step of 0 throws
// kInvalidArgument ("slice step cannot be zero") before anything is sent.
struct Slice {
  std::optional<int64_t> start{};
  std::optional<int64_t> stop{};
  int64_t step = 1;
};
struct EllipsisIndex {};  // Python's `...`.
struct NewAxisIndex {};   // numpy.newaxis (None).
inline constexpr EllipsisIndex kEllipsis{};
inline constexpr NewAxisIndex kNewAxis{};

class IndexItem {
 public:
  // bool is left out on purpose: NumPy reads a[True] as a 0-d boolean mask, not as a[1].
  template <std::integral T>
  requires(!std::same_as<T, bool>) IndexItem(T index) : value_(static_cast<int64_t>(index)) {}
  IndexItem(Slice slice) : value_(slice) {}
  IndexItem(EllipsisIndex) : value_(EllipsisIndex{}) {}
  IndexItem(NewAxisIndex) : value_(NewAxisIndex{}) {}
  // An integer or boolean array (fancy indexing: the result is a copy). By reference; it must
  // outlive the call.
  IndexItem(const Array& array) : value_(&array) {}

  const std::variant<int64_t, Slice, EllipsisIndex, NewAxisIndex, const Array*>& value() const {
    return value_;
  }

 private:
  std::variant<int64_t, Slice, EllipsisIndex, NewAxisIndex, const Array*> value_;
};

// The order elements are read and written in by Reshape and Ravel (NumPy's order=).
enum class Order { kC, kF };

// The arguments of Client::ArrayOp, as the ArrayOp RPC takes them.
struct ArrayOpOptions {
  std::optional<DType> dtype{};                // astype, cumsum/cumprod, concatenate/stack.
  std::optional<std::vector<int64_t>> axis{};  // Absent: NumPy's axis=None.
  std::vector<int64_t> ints{};  // split sections or indices, tile reps, repeat count, roll shifts.
  std::string side{};           // searchsorted: "left" (the default when empty) or "right".
  bool split_at_indices = false;  // split: `ints` are indices to split at, not a section count.
};

class Linalg;

class Client;

// The reduction of a collective (Client::AllReduce, Reduce, ReduceScatter): elementwise in the
// dtype, as NumPy's add, multiply, fmin and fmax (kMin and kMax ignore NaN unless every value is
// NaN, as NCCL does); kAvg is the sum divided by the number of ranks.
enum class ReduceOp { kSum, kProd, kMin, kMax, kAvg };

namespace detail {
struct OpBuilder;  // Builds one wire op of a pipelined call (src/pipeline.h).
// A Client on `array`'s connection that leaves its session open when destroyed: the client the
// free functions (functions.h, ufuncs.h) and the operators (operators.h) call. Throws
// kFailedPrecondition for an empty Array.
Client ClientOf(const Array& array);
}  // namespace detail

class Client {
 public:
  // Dials `address` ("host:port"), over TLS when options.tls says so, and opens a session.
  static Client Connect(const std::string& address, ClientOptions options = {});

  // Closes the session, which frees the arrays it still holds; errors are ignored.
  ~Client();
  Client(Client&& other) noexcept;
  Client& operator=(Client&& other) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const std::string& session_id() const;
  // Whether transfers go through a shared-memory region registered with the server now. The
  // region is made at the first transfer when the server is on this host (a loopback or unix
  // address, or ARRAYHUB_SHARED_MEMORY=1; =0 never; ClientOptions::shared_memory decides over
  // both); if the server cannot use it the client streams from then on.
  bool UsesSharedMemory() const;
  // How many streams a large streamed transfer uses (ClientOptions::transfer_streams).
  int TransferStreams() const;
  // Renews the session's lease.
  void KeepAlive();
  // One round trip that does nothing (grpc.health.v1.Health/Check on this client's channel):
  // a liveness check, and the floor that benchmarks compare calls with. Throws kUnavailable
  // when the server answers that it is not serving (draining).
  void Ping();
  ServerInfo Info();

  // Sends what is queued (frees of dropped Arrays included) and waits for the server's answer:
  // then every op issued before has been accepted in order (as a blocking call would be; the
  // device may still be computing), its arrays exist, and an op that failed has thrown here.
  void Synchronize();
  // Events (docs/execution.md, "Events"): CUDA's cudaEventRecord for this session. Records
  // event `event_id` (any id but 0, this session's own) after the ops issued so far, queued
  // like them; recording an id again moves it. The server refuses (kResourceExhausted) a new id
  // past --max-session-events ids; the ids go with the session.
  void RecordEvent(uint64_t event_id);
  // Milliseconds the server measured from event `start_id` to `end_id` (cudaEventElapsedTime),
  // once the work before both has run; kNotFound for an id this session has not recorded.
  // Asked with the queued ops when there are some: the end record of a timing loop and its
  // reading cost one round trip.
  double ElapsedMilliseconds(uint64_t start_id, uint64_t end_id);
  // Sync mode: every op is one blocking call, its error thrown at once (for debugging). Turning
  // it on synchronizes first. Not to be called while other threads issue ops.
  void SetSync(bool sync);
  bool sync() const;

  // Devices (docs/devices.md): every call runs on one device of the server (an index of
  // ServerInfo::devices), and the arrays it makes go there; an op whose operand lies on another
  // device throws kInvalidArgument naming both. device() is the session's device
  // (ClientOptions::device, else the server's choice); CurrentDevice() the one calls run on
  // now: the session's unless SetDevice chose another. The choice is this Client's (its
  // connection's: the Arrays it made and the free functions and operators on them share it),
  // for every thread that uses it; DeviceGuard sets it for a scope. SetDevice throws
  // kInvalidArgument for a device the server does not have, and changes nothing then. Ops
  // queued on one device go in a Batch of their own, sent before the first op on another.
  int32_t device() const;
  int32_t CurrentDevice() const;
  void SetDevice(int32_t device);
  // A C-contiguous copy of `array` on `device`, in this session, made device to device by the
  // server (peer to peer between GPUs, never through this host). Queued like any op.
  Array CopyToDevice(const Array& array, int32_t device);

  // Collectives across the server's devices (docs/devices.md, "Collectives"), NCCL's on GPUs:
  // each is one call, after what is queued. Rank i is the device of arrays[i]: one array per
  // rank, on distinct devices, all of one dtype and shape. The results are new C-contiguous
  // arrays of this session, one per rank on that rank's device, in rank order. The reductions
  // take bool (kMin, kMax), int8, uint8, int32, uint32, int64, uint64, float16, float32,
  // float64, and complex64/complex128 for kSum and kAvg; kAvg needs a floating or complex
  // dtype. Broadcast, AllGather and AllToAll move bytes and take every dtype. What the server
  // refuses (a dtype, shapes that differ, two arrays on one device) throws kInvalidArgument
  // before anything runs; no arrays at all throw it here.
  //
  // Every rank gets `op` over all the inputs, elementwise.
  std::vector<Array> AllReduce(const std::vector<std::reference_wrapper<const Array>>& arrays,
                               ReduceOp op = ReduceOp::kSum);
  // The same, for rank `root` (an index of `arrays`) only: one array, on arrays[root]'s device.
  Array Reduce(const std::vector<std::reference_wrapper<const Array>>& arrays, int32_t root = 0,
               ReduceOp op = ReduceOp::kSum);
  // A copy of `array` on each of `devices` (distinct, including the array's own), in that order.
  std::vector<Array> Broadcast(const Array& array, const std::vector<int32_t>& devices);
  // Every rank gets the inputs (at least 1-d) concatenated along axis 0, in rank order.
  std::vector<Array> AllGather(const std::vector<std::reference_wrapper<const Array>>& arrays);
  // The reduced array split along axis 0 into as many equal parts as there are ranks: rank i
  // gets part i (shape[0] a multiple of the number of ranks).
  std::vector<Array> ReduceScatter(const std::vector<std::reference_wrapper<const Array>>& arrays,
                                   ReduceOp op = ReduceOp::kSum);
  // Each input split along axis 0 into as many equal parts as there are ranks: rank j gets part
  // j of every input, concatenated in rank order (shape[0] a multiple of the number of ranks).
  std::vector<Array> AllToAll(const std::vector<std::reference_wrapper<const Array>>& arrays);
  // Not collectives, but built from SplitAt, CopyToDevice and Concatenate: `array` split along
  // `axis` as numpy.array_split splits it into devices.size() parts (the first
  // shape[axis] % devices.size() one longer), part i copied to devices[i] (a new C-contiguous
  // array, on the array's own device too); and Gather, its inverse: the arrays concatenated
  // along `axis` on `device` (default: CurrentDevice()), each of another device copied there
  // first.
  std::vector<Array> Scatter(const Array& array, const std::vector<int32_t>& devices,
                             int64_t axis = 0);
  Array Gather(const std::vector<std::reference_wrapper<const Array>>& arrays,
               std::optional<int32_t> device = std::nullopt, int64_t axis = 0);

  // Creation, as NumPy's functions of the same names. Without a dtype, NumPy's choice is made.
  Array Empty(const Shape& shape, DType dtype = DType::kFloat64);
  Array Zeros(const Shape& shape, DType dtype = DType::kFloat64);
  Array Ones(const Shape& shape, DType dtype = DType::kFloat64);
  Array Full(const Shape& shape, Scalar value, std::optional<DType> dtype = std::nullopt);
  Array Arange(Scalar start, Scalar stop, Scalar step = 1,
               std::optional<DType> dtype = std::nullopt);
  Array Linspace(Scalar start, Scalar stop, int64_t num, bool endpoint = true,
                 std::optional<DType> dtype = std::nullopt);
  Array Eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
            std::optional<DType> dtype = std::nullopt);

  // Pseudo-random arrays (numpy.random.Generator's uniform, normal and integers). Without a
  // seed the server draws a fresh one.
  Array RandomUniform(const Shape& shape, double low = 0.0, double high = 1.0,
                      std::optional<DType> dtype = std::nullopt,
                      std::optional<uint64_t> seed = std::nullopt);
  Array RandomNormal(const Shape& shape, double mean = 0.0, double stddev = 1.0,
                     std::optional<DType> dtype = std::nullopt,
                     std::optional<uint64_t> seed = std::nullopt);
  Array RandomIntegers(const Shape& shape, int64_t low, int64_t high,
                       std::optional<DType> dtype = std::nullopt,
                       std::optional<uint64_t> seed = std::nullopt);

  // A NumPy ufunc by name ("add", "exp", "less", "where", ...) with broadcasting and NumPy 2's
  // type promotion; `dtype` is NumPy's dtype= argument.
  Array Ufunc(std::string_view name, const std::vector<Operand>& operands,
              std::optional<DType> dtype = std::nullopt);
  // The same, writing into an existing array (NumPy's out=; `a *= 2` is
  // UfuncOut(a, "multiply", {a, 2})). No new memory is used.
  void UfuncOut(Array& out, std::string_view name, const std::vector<Operand>& operands,
                std::optional<DType> dtype = std::nullopt);
  // A reduction by name: sum, prod, min, max, mean, var, std, argmin, argmax, any, all.
  Array Reduce(std::string_view name, const Array& array, const ReduceOptions& options = {});

  // Matrix products with NumPy's rules: numpy.matmul (1-D operands, broadcast stacks), and
  // dot, vdot, inner, outer and tensordot on top of it. A scalar operand is a 0-d array of
  // its default dtype, as NumPy's asarray makes it.
  Array Matmul(const Operand& a, const Operand& b, const MatmulOptions& options = {});
  // matmul(a, b, out=out): the result converted to out's dtype (same_kind casting).
  void MatmulOut(Array& out, const Operand& a, const Operand& b, const MatmulOptions& options = {});
  Array Dot(const Operand& a, const Operand& b, Precision precision = Precision::kDefault);
  Array Vdot(const Operand& a, const Operand& b, Precision precision = Precision::kDefault);
  Array Inner(const Operand& a, const Operand& b, Precision precision = Precision::kDefault);
  Array Outer(const Operand& a, const Operand& b, Precision precision = Precision::kDefault);
  Array Tensordot(const Operand& a, const Operand& b, int64_t axes = 2,
                  Precision precision = Precision::kDefault);
  // numpy.linalg's routines on this client's session; the Linalg refers to this Client.
  Linalg linalg();
  // numpy.fft's transforms (fft.cc): `op` is fft, ifft, rfft, irfft, hfft or ihfft, over the
  // options' axes as numpy.fft.fftn, rfftn, irfftn run them (hfft and ihfft take one axis);
  // fft2 is Fft("fft", a, {.axes = {{-2, -1}}}). NumPy 2's result dtypes.
  Array Fft(std::string_view op, const Array& a, const FftOptions& options = {});
  // Runs a user kernel (kernels.cc) on `arguments` (one per in_params entry: arrays or
  // scalars), waiting for it. Answers the new outputs in out_params order (those written into
  // options.out are not repeated). A refusal is kInvalidArgument "operation:L:C: ...".
  std::vector<Array> RunKernel(const KernelSource& source, const std::vector<Operand>& arguments,
                               const KernelOptions& options = {});
  // Runs a raw CUDA kernel (kernels.cc) after the queued work, enqueued on the session's
  // stream. Only on a daemon started with --allow-raw-kernels: else kPermissionDenied;
  // kFailedPrecondition on the CPU backend.
  void RunRawKernel(const RawKernelLaunch& launch, const std::vector<RawKernelArgument>& arguments);

  // Views, as NumPy's functions of the same names: the result shares a's memory (a write
  // through one is seen through the other) and stays valid after a is freed. Reshape and
  // Ravel copy when no strides can express the result, as NumPy does; BroadcastTo and
  // Diagonal are read-only. An empty `axes` transposes by reversing the axes.
  Array Reshape(const Array& a, const Shape& shape, Order order = Order::kC);
  Array Transpose(const Array& a, const std::vector<int64_t>& axes = {});
  Array SwapAxes(const Array& a, int64_t axis1, int64_t axis2);
  // Without axes: every axis of length 1.
  Array Squeeze(const Array& a, std::optional<std::vector<int64_t>> axes = std::nullopt);
  Array ExpandDims(const Array& a, const std::vector<int64_t>& axes);
  Array BroadcastTo(const Array& a, const Shape& shape);
  Array Diagonal(const Array& a, int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1);
  Array Ravel(const Array& a, Order order = Order::kC);

  // a[index]: a view for basic indexing (integers, slices, kEllipsis, kNewAxis), a copy when
  // an index is an array. Indexing every axis with an integer gives a 0-d array.
  Array GetItem(const Array& a, const std::vector<IndexItem>& index);
  // a[index] = value, the value broadcast to the selection and cast to a's dtype. With
  // repeated fancy indices the last write wins, as in NumPy (so `a[[0, 0]] += 1` adds once).
  void SetItem(Array& a, const std::vector<IndexItem>& index, const Operand& value);
  // NumPy's ufunc.at(a, index, value) for `ufunc` add, subtract, multiply, maximum, minimum,
  // fmax or fmin: each selected element is combined with its value as many times as the index
  // selects it, in C order (so At("add", a, {idx}, 1) counts repeats), in a's dtype.
  void At(std::string_view ufunc, Array& a, const std::vector<IndexItem>& index,
          const Operand& value);

  // NumPy's array-manipulation function `op` (copy, ascontiguousarray, astype, take,
  // compress, nonzero, concatenate, stack, split, tile, repeat, flip, roll, sort, argsort,
  // cumsum, cumprod, unique, searchsorted, histogram) on operands in the ArrayOp RPC's order (see
  // proto/arrayhub/v1/compute.proto). Returns its results: several for split and nonzero.
  std::vector<Array> ArrayOp(std::string_view op, const std::vector<Operand>& operands,
                             const ArrayOpOptions& options = {});
  // Named forms of the common ones, with NumPy's defaults. Split and SplitAt give views.
  Array Copy(const Array& a);
  Array Astype(const Array& a, DType dtype);
  // numpy.take: `indices` an integer array or one integer; without an axis, of the flattened a.
  Array Take(const Array& a, const Operand& indices, std::optional<int64_t> axis = std::nullopt);
  // Without an axis, Concatenate joins the flattened arrays. `dtype` must be a same_kind cast.
  Array Concatenate(const std::vector<std::reference_wrapper<const Array>>& arrays,
                    std::optional<int64_t> axis = 0, std::optional<DType> dtype = std::nullopt);
  Array Stack(const std::vector<std::reference_wrapper<const Array>>& arrays, int64_t axis = 0,
              std::optional<DType> dtype = std::nullopt);
  // numpy.split(a, sections, axis): equal sections.
  std::vector<Array> Split(const Array& a, int64_t sections, int64_t axis = 0);
  // numpy.split(a, [i, j, ...], axis): a[:i], a[i:j], ..., a[last:].
  std::vector<Array> SplitAt(const Array& a, const std::vector<int64_t>& indices, int64_t axis = 0);
  // A stable sort along `axis`; nullopt sorts the flattened array.
  Array Sort(const Array& a, std::optional<int64_t> axis = -1);
  Array Argsort(const Array& a, std::optional<int64_t> axis = -1);
  // numpy.partition / argpartition: the kth positions (negative from the end) hold what a sort
  // puts there, smaller-or-equal elements before, greater-or-equal after; nullopt: flattened.
  Array Partition(const Array& a, const std::vector<int64_t>& kth,
                  std::optional<int64_t> axis = -1);
  Array Argpartition(const Array& a, const std::vector<int64_t>& kth,
                     std::optional<int64_t> axis = -1);
  Array Cumsum(const Array& a, std::optional<int64_t> axis = std::nullopt,
               std::optional<DType> dtype = std::nullopt);
  // The sorted distinct values of the flattened a (NaNs collapse into one).
  Array Unique(const Array& a);
  // One int64 array of positions per axis of a.
  std::vector<Array> Nonzero(const Array& a);
  // `v` an array or a scalar; side "left" or "right".
  Array SearchSorted(const Array& a, const Operand& v, std::string_view side = "left");

  // Uploads C-order elements; data.size() must equal the shape's element count.
  template <ArrayElement T>
  Array Upload(std::span<const T> data, const Shape& shape) {
    return UploadBytes(std::as_bytes(data), DTypeOf<T>::value, shape);
  }
  template <ArrayElement T>
  Array Upload(const std::vector<T>& data, const Shape& shape) {
    return Upload(std::span<const T>(data), shape);
  }
  // std::vector<bool> packs bits, so it is converted to one byte per element first.
  Array Upload(const std::vector<bool>& data, const Shape& shape);
  // Uploads raw little-endian C-order bytes (the only way to upload float16).
  Array UploadBytes(std::span<const std::byte> data, DType dtype, const Shape& shape);

  // `bytes` of host memory that the server copies to and from directly (pinned_buffer.h):
  // uploads from it and downloads into it, or into any part of it, cost no copy here. Throws
  // kResourceExhausted at the server's limits (--max-shared-memory-regions per session,
  // --max-shared-memory-bytes); ordinary memory where the server cannot use shared memory.
  PinnedBuffer AllocatePinned(int64_t bytes);

  // Downloads the elements in C order. Throws kInvalidArgument if T is not the array's type.
  template <ArrayElement T>
  std::vector<T> Download(const Array& array);
  std::vector<std::byte> DownloadBytes(const Array& array);
  // Downloads into a buffer the caller owns, which must hold exactly array.nbytes() bytes.
  void DownloadInto(const Array& array, std::span<std::byte> destination);

  ArrayInfo Describe(const std::string& handle);
  // This session's arrays, or with all_sessions those of every session of the tenant; with
  // include_shared also the publications it may attach, its tenant's own and those other tenants
  // published to it (with an empty handle: Attach them by owner and name).
  std::vector<ArrayInfo> List(bool all_sessions = false, bool include_shared = false);
  // Frees an array by handle (one given up with Array::Release, or listed).
  void Free(const std::string& handle);

  // Sharing by name (see the README). Publish makes `array` attachable as `name` (1-128
  // characters of [A-Za-z0-9._/-]) and keeps its data alive until Unpublish, whatever happens
  // to this session; the publishing tenant pays for its memory. Returns the array's
  // description with the name.
  ArrayInfo Publish(const Array& array, const std::string& name,
                    const PublishOptions& options = {});
  void Unpublish(const std::string& name);
  // Writes every publication of this client's tenant, as of the call, to the server's data
  // directory and makes each durable; returns once queued, or with `wait` once on disk.
  // Throws kFailedPrecondition without --data-dir, kResourceExhausted past a quota.
  CheckpointInfo Checkpoint(bool wait = false);
  // A new Array, in this session, of the array tenant `owner` (empty: this client's tenant)
  // published as `name`; read-only (info().writable false) unless shared writable.
  Array Attach(const std::string& name, const std::string& owner = "");

  // CUDA IPC (docs/ipc.md): a lease on `array`'s device memory for a process on the server's
  // host, taken once the work queued on it is done. Import the pool (FetchPoolDescriptor, then
  // cudaMemPoolImportFromShareableHandle) once per process and pool id, then the allocation
  // (cudaMemPoolImportPointer); cudaFree the pointer before ReleaseIpc. Exporting memory this
  // session already leases returns the same lease. Throws kFailedPrecondition on the CPU
  // backend, with export off, or for another tenant's array.
  IpcExport ExportIpc(const Array& array);
  void ReleaseIpc(const std::string& lease);

 private:
  friend class Linalg;
  friend class Batch;
  friend Client detail::ClientOf(const Array& array);
  // `owns_session`: whether destroying this Client closes the session (false for ClientOf's).
  explicit Client(std::shared_ptr<detail::Connection> connection, bool owns_session = true);
  // The connection; throws kFailedPrecondition on a moved-from Client.
  detail::Connection& connection() const;
  // The connection once everything queued has run, for a call a Batch cannot hold, so that it
  // comes after them; throws the error of a queued op that failed.
  detail::Connection& Synced() const;
  // A call that a Batch can hold and that makes an array reading `inputs`: queued, or in sync
  // mode one blocking call.
  Array Issue(const std::vector<const Array*>& inputs, const detail::OpBuilder& op);
  // The same for a call that writes into an existing array (out=).
  void IssueOut(const std::vector<const Array*>& inputs, const detail::OpBuilder& op);
  // Downloads `array` into the buffer `destination(nbytes)` gives; with `expected`, first
  // throws kInvalidArgument if the array has another dtype. A queued array's data comes back
  // with the batch that computes it.
  void Fetch(const Array& array, std::optional<DType> expected,
             const std::function<std::span<std::byte>(int64_t nbytes)>& destination);
  // An Array owning `info`, sharing this client's connection.
  Array Adopt(ArrayInfo info) const;
  // One Array per result of a call that makes several (a collective's).
  std::vector<Array> AdoptAll(const std::vector<ArrayInfo>& results) const;
  // Closes the session, if any, ignoring errors.
  void Close() noexcept;
  static void RequireDType(const Array& array, DType expected);

  std::shared_ptr<detail::Connection> connection_;
  bool owns_session_ = true;
};

// Runs the calls of `client` on `device` for its lifetime (Client::SetDevice), then on the
// device current before: CuPy's `with cupy.cuda.Device(i):`.
class DeviceGuard {
 public:
  DeviceGuard(Client& client, int32_t device) : client_(client), previous_(client.CurrentDevice()) {
    client_.SetDevice(device);
  }
  ~DeviceGuard() {
    try {
      client_.SetDevice(previous_);
    } catch (...) {
      // The previous device was valid; nothing may escape a destructor.
    }
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  Client& client_;
  int32_t previous_;
};

// numpy.linalg results. Arrays a call does not compute stay empty.
struct SvdResult {
  Array u;   // (..., m, m) or (..., m, k) with full_matrices false; empty without compute_uv.
  Array s;   // (..., k) singular values, descending, of the real dtype.
  Array vh;  // (..., n, n) or (..., k, n).
};
struct QrResult {
  Array q;  // Empty for mode "r".
  Array r;
};
struct EighResult {
  Array eigenvalues;   // Ascending, of the real dtype.
  Array eigenvectors;  // As columns.
};
struct EigResult {
  Array eigenvalues;   // Complex of a's precision, in LAPACK's order.
  Array eigenvectors;  // Complex, as unit-norm columns.
};
struct SlogdetResult {
  Array sign;       // Of a's dtype (a unit complex number for complex a); 0 when singular.
  Array logabsdet;  // Of the real dtype; -inf when singular.
};
struct LstsqResult {
  Array x;          // (n,) or (n, k).
  Array residuals;  // (k,) squared residual norms ((1,) for a 1-D b); (0,) unless a has full
                    // column rank and more rows than columns.
  Array rank;       // 0-d int32.
  Array s;          // Singular values of a.
};
struct NormOptions {
  // NumPy's ord: "" (None: Frobenius / 2-norm), "fro", "nuc", "inf", "-inf", or a number
  // such as "1", "-2", "0.5".
  std::string ord;
  // One axis (vector norm) or two (matrix norm); absent: NumPy's axis=None.
  std::optional<std::vector<int64_t>> axis = std::nullopt;
  bool keepdims = false;
};

// numpy.linalg, as client.linalg().Svd(a). Integer inputs compute in float64; float16 is
// refused, as NumPy refuses it. A singular or indefinite matrix, or a failed convergence,
// throws kFailedPrecondition with NumPy's LinAlgError message ("Singular matrix").
class Linalg {
 public:
  SvdResult Svd(const Array& a, bool full_matrices = true, bool compute_uv = true);
  // mode: "reduced", "complete" or "r".
  QrResult Qr(const Array& a, std::string_view mode = "reduced");
  Array Cholesky(const Array& a, bool upper = false);
  // uplo: the triangle read, "L" or "U".
  EighResult Eigh(const Array& a, std::string_view uplo = "L");
  Array Eigvalsh(const Array& a, std::string_view uplo = "L");
  // A general square matrix; the results are complex whatever a's dtype (as CuPy's).
  EigResult Eig(const Array& a);
  Array Eigvals(const Array& a);
  // b of shape (..., m, k), or (m,) for a single right-hand side.
  Array Solve(const Array& a, const Array& b);
  Array Inv(const Array& a);
  Array Det(const Array& a);
  SlogdetResult Slogdet(const Array& a);
  Array Norm(const Array& x, const NormOptions& options = {});
  // Without rcond, NumPy's default: eps(float64) * max(m, n).
  LstsqResult Lstsq(const Array& a, const Array& b, std::optional<double> rcond = std::nullopt);

  // Composed from the routines above on the server (linalg_extras.cc), as numpy.linalg's:
  // the Moore-Penrose pseudo-inverse from the SVD, singular values at most rcond times the
  // largest counted as zero;
  Array Pinv(const Array& a, double rcond = 1e-15);
  // a multiplied by itself n times by repeated squaring (the inverse's powers for a negative n,
  // the identity for 0);
  Array MatrixPower(const Array& a, int64_t n);
  // the number of singular values above tol (default: the largest times max(M, N) times the
  // dtype's eps), int64; of a vector or scalar, whether one element is nonzero;
  Array MatrixRank(const Array& a, std::optional<double> tol = std::nullopt);
  // the condition number in the norm p (Norm's ord; "": the 2-norm from the singular values,
  // as "2" and "-2"), else norm(x, p) * norm(inv(x), p): a singular matrix throws there, where
  // NumPy answers inf;
  Array Cond(const Array& x, const std::string& p = "");
  // the product of two or more matrices in the cheapest order (the first and last may be 1-D,
  // as a row and a column vector): one matmul per product.
  Array MultiDot(const std::vector<std::reference_wrapper<const Array>>& arrays);

 private:
  friend class Client;
  explicit Linalg(Client& client) : client_(&client) {}
  // Adopts the results of a call in the client's session.
  std::vector<Array> Adopt(const std::vector<ArrayInfo>& results) const;
  detail::Connection& connection() const;

  Client* client_;
};

template <ArrayElement T>
std::vector<T> Client::Download(const Array& array) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<std::byte> bytes;
    Fetch(array, DType::kBool, [&bytes](int64_t nbytes) {
      bytes.resize(static_cast<size_t>(nbytes));
      return std::span<std::byte>(bytes);
    });
    std::vector<bool> values(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i) values[i] = bytes[i] != std::byte{0};
    return values;
  } else {
    std::vector<T> values;
    Fetch(array, DTypeOf<T>::value, [&values](int64_t nbytes) {
      values.resize(static_cast<size_t>(nbytes) / sizeof(T));
      return std::as_writable_bytes(std::span<T>(values));
    });
    return values;
  }
}

}  // namespace arrayhub::client
