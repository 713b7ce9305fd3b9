// A stateful fuzzer: one input is a program that several tenants run over several sessions
// from 2 to 4 threads at once, against one in-process server with authentication on. Where
// request_fuzzer.cc finds what one request does to a fresh session, this one finds what
// requests do to each other: arrays changed, freed, published, attached or closed under a
// running call, and one tenant's handles, sessions and names in another tenant's requests.
//
// An input is three bytes of setup, then requests (at most kMaxRequestsPerThread per thread):
//   tenants   1 + b % 3 of alice, bob and carol, each with its bearer token;
//   sessions  1 + b % 3 sessions each tenant opens (through the RPC), each holding four arrays:
//             float64 (3, 4), int32 (5,), complex64 (2, 2), bool (3,);
//   threads   2 + b % 3;
//   request   [who] [session] [kind] [length: 2 bytes, little-endian] [payload: length bytes]
//             who, bits 0-1: the thread (modulo threads); bits 2-4, the credentials: 0-5 the
//             session's tenant's token, 6 another tenant's token, 7 a wrong token (none at all
//             when bit 5 is set). session: one of the sessions opened so far, modulo their
//             number, closed ones included. kind and payload: a request as request_driver.h
//             reads it (kind 14 opens a session the program keeps), or kind 30 KeepAlive,
//             31 CloseSession.
// The threads start together and each sends its requests in order.
//
// One-character fields are codes for what the program made (random bytes never form a handle):
//   handle, handles, out, array, target_handle: '0'-'3' the session's four arrays; 'a'-'p' the
//     thread's own results, newest first; any other character the handle, of any tenant, at
//     its value modulo the number of handles the program has seen;
//   owner, reader_tenants: a tenant; Attach's and Unpublish's name: a name the program
//     published (and Attach's owner, when empty or a code, its publisher);
//   shm_key, key: one of two shared-memory objects the harness made, and its key.
//
// Findings (abort): an answer UNKNOWN, INTERNAL or DATA_LOSS; a call with a wrong or missing
// token answered other than UNAUTHENTICATED; an OK answer to a call that used a session or a
// handle of another tenant, wrote through a read-only handle, or attached a name never
// published to the caller; an answer that shows another tenant's handle. And once every
// session is closed and every name unpublished: any array, buffer, byte or session left in
// the engine or charged to a tenant, a changed number of open file descriptors, or a server
// that no longer answers.
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <latch>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "server/transport/auth.h"
#include "server/transport/code_name.h"
#include "server/transport/service.h"
#include "tests/fuzz/fuzz_server.h"
#include "tests/fuzz/program_state.h"
#include "tests/fuzz/request_driver.h"

namespace arrayhub {
namespace {

using fuzz::KnownHandle;
using fuzz::ProgramSession;
using fuzz::ProgramState;
using fuzz::PublishedName;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

constexpr std::string_view kFuzzer = "stateful_fuzzer";
constexpr std::array<std::string_view, 3> kTenants = {"alice", "bob", "carol"};
constexpr int kMaxThreads = 4;
// With the small arrays of fuzz_server.h this keeps an input well under a second.
constexpr size_t kMaxRequestsPerThread = 16;
constexpr int kKeepAliveKind = fuzz::kRpcKinds;
constexpr int kCloseSessionKind = fuzz::kRpcKinds + 1;
constexpr int64_t kShmBytes = (64 << 10) + 4096;  // The largest array, after the header.

std::string TokenOf(int tenant) { return std::string(kTenants[tenant]) + "-fuzz-token"; }

std::shared_ptr<const TokenTable> Tokens() {
  std::string text;
  for (int tenant = 0; tenant < int(kTenants.size()); ++tenant) {
    text += fmt::format("{} {}\n", kTenants[tenant], ToHex(Sha256(TokenOf(tenant))));
  }
  auto table = TokenTable::Parse(text, "fuzz tokens");
  if (!table.ok()) fuzz::Finding(kFuzzer, "bad token table: " + table.status().ToString());
  return std::make_shared<const TokenTable>(*std::move(table));
}

// A POSIX shared-memory object with its registration key in its header, as a client makes one,
// so that registrations and copies get past the proof of ownership. Made for each input and
// removed after it (the server keeps what it opened), so that a fuzzer killed between inputs
// leaves nothing in /dev/shm.
struct ShmObject {
  std::string name;
  std::string key;
};

ShmObject MakeShmObject(int index) {
  ShmObject object{.name = fmt::format("/arrayhub-stateful-fuzz-{}-{}", getpid(), index),
                   .key = fmt::format("{:.<32}", fmt::format("fuzz-key-{}", index))};
  const int fd = shm_open(object.name.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0600);
  if (fd < 0 || ftruncate(fd, kShmBytes) != 0 ||
      pwrite(fd, object.key.data(), object.key.size(), 0) != ssize_t(object.key.size())) {
    fuzz::Finding(kFuzzer, "cannot make the shared-memory object " + object.name);
  }
  close(fd);
  return object;
}

// The process's open file descriptors (but the one that lists them) and what each refers to.
std::map<int, std::string> OpenDescriptors() {
  std::map<int, std::string> open;
  DIR* directory = opendir("/proc/self/fd");
  if (directory == nullptr) fuzz::Finding(kFuzzer, "cannot list /proc/self/fd");
  while (const dirent* entry = readdir(directory)) {
    const int fd = std::atoi(entry->d_name);
    if (entry->d_name[0] == '.' || fd == dirfd(directory)) continue;
    std::error_code error;  // A descriptor closed meanwhile has no target.
    open[fd] = std::filesystem::read_symlink(fmt::format("/proc/self/fd/{}", fd), error).string();
  }
  closedir(directory);
  return open;
}

struct Request {
  uint8_t who;
  uint8_t session;
  uint8_t kind;
  std::string_view payload;
};

struct Program {
  int tenants;
  int sessions_each;
  int threads;
  std::vector<std::vector<Request>> requests;  // By thread.
};

std::optional<Program> Decode(std::string_view input) {
  if (input.size() < 3) return std::nullopt;
  Program program{.tenants = 1 + uint8_t(input[0]) % 3,
                  .sessions_each = 1 + uint8_t(input[1]) % 3,
                  .threads = 2 + uint8_t(input[2]) % 3,
                  .requests = {}};
  program.requests.resize(program.threads);
  input.remove_prefix(3);
  while (input.size() >= 5) {
    const size_t length =
        std::min<size_t>(input.size() - 5, uint8_t(input[3]) | size_t{uint8_t(input[4])} << 8);
    const Request request{.who = uint8_t(input[0]),
                          .session = uint8_t(input[1]),
                          .kind = uint8_t(input[2]),
                          .payload = input.substr(5, length)};
    input.remove_prefix(5 + length);
    std::vector<Request>& thread = program.requests[(request.who & 3) % program.threads];
    if (thread.size() < kMaxRequestsPerThread) thread.push_back(request);
  }
  return program;
}

bool IsHandleField(const FieldDescriptor& field) {
  const std::string& name = field.name();
  return field.type() == FieldDescriptor::TYPE_STRING &&
         (name == "handle" || name == "handles" || name == "out" || name == "array" ||
          name == "target_handle");
}

// Whether `field` names the array that the call `rpc` writes.
bool IsWrittenField(std::string_view rpc, const FieldDescriptor& field) {
  const std::string& name = field.name();
  const std::string& message = field.containing_type()->name();
  return name == "out" || name == "target_handle" ||
         (name == "handle" && (message == "SetItemRequest" || rpc == "CopyFromSharedMemory"));
}

// One thread of a program: the Client of fuzz::SendRequest.
class Actor {
 public:
  Actor(ProgramState& state, v1::ArrayHub::Stub& stub, const std::vector<ShmObject>& shm)
      : state_(state), stub_(stub), shm_(shm) {}

  void Send(const Request& request) {
    call_ = {.session = state_.Session(request.session)};
    switch ((request.who >> 2) & 7) {
      case 6:  // Another tenant, with its own valid token.
        call_.tenant = (call_.session.tenant + 1 + ((request.who >> 5) & 1)) % 3;
        break;
      case 7:
        call_.tenant = -1;
        call_.missing_token = (request.who & 0x20) != 0;
        break;
      default:
        call_.tenant = call_.session.tenant;
    }
    const int kind = request.kind % (fuzz::kRpcKinds + 2);
    if (kind == kKeepAliveKind) {
      fuzz::SendUnary(*this, &v1::ArrayHub::Stub::KeepAlive, request.payload, "KeepAlive");
    } else if (kind == kCloseSessionKind) {
      fuzz::SendUnary(*this, &v1::ArrayHub::Stub::CloseSession, request.payload, "CloseSession");
    } else {
      fuzz::SendRequest(*this, uint8_t(kind), request.payload);
    }
  }

  v1::ArrayHub::Stub& stub() { return stub_; }

  std::unique_ptr<grpc::ClientContext> Context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    if (call_.tenant >= 0) {
      context->AddMetadata(kAuthorizationMetadataKey,
                           std::string(kBearerPrefix) + TokenOf(call_.tenant));
    } else if (!call_.missing_token) {
      context->AddMetadata(kAuthorizationMetadataKey, std::string(kBearerPrefix) + "not-a-token");
    }
    context->AddMetadata(kSessionMetadataKey, call_.session.id);
    return context;
  }

  bool Prepare(std::string_view rpc, Message& request) {
    std::optional<PublishedName> attached;
    fuzz::SubstituteStrings(request, [&](const FieldDescriptor& field, const std::string& value) {
      return Substitute(rpc, field, value, attached);
    });
    if (rpc == "Attach") {
      auto& attach = static_cast<v1::AttachRequest&>(request);
      if (attached && attach.owner().empty()) {
        attach.set_owner(std::string(kTenants[attached->owner]));
      }
      Note(attach);
    } else if (rpc == "Publish" && call_.tenant >= 0) {
      const auto& publish = static_cast<const v1::PublishRequest&>(request);
      state_.Grant({.owner = call_.tenant, .name = publish.name()},
                   {publish.reader_tenants().begin(), publish.reader_tenants().end()},
                   publish.all_tenants());
    }
    return true;
  }

  void Answered(std::string_view rpc, const grpc::Status& status, const Message*,
                const Message* response) {
    CheckAuthentication(rpc, status);
    if (!status.ok() || call_.tenant < 0) return;
    if (call_.session.tenant != call_.tenant) {
      Finding(rpc, fmt::format("answered OK in session {} of tenant '{}'", call_.session.id,
                               kTenants[call_.session.tenant]));
    }
    if (!call_.foreign.empty()) Finding(rpc, "answered OK with " + call_.foreign);
    if (!call_.read_only_write.empty()) {
      Finding(rpc, "answered OK writing through the read-only handle " + call_.read_only_write);
    }
    if (call_.attach &&
        !state_.MayAttach(call_.tenant, std::string(kTenants[call_.tenant]), *call_.attach)) {
      Finding(rpc, fmt::format("attached '{}' of tenant '{}', never published to it",
                               call_.attach->name, kTenants[call_.attach->owner]));
    }
    if (response != nullptr) Learn(rpc, *response);
  }

  // Opens a session the program keeps (closed at the end), or closes it at once when the
  // program has enough.
  void OpenSession(std::string_view payload) {
    v1::OpenSessionRequest request;
    if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return;
    v1::OpenSessionResponse response;
    const grpc::Status status = stub_.OpenSession(Context().get(), request, &response);
    CheckAuthentication("OpenSession", status);
    if (!status.ok() || call_.tenant < 0) return;
    if (response.tenant() != kTenants[call_.tenant]) {
      Finding("OpenSession", "answered the tenant '" + response.tenant() + "'");
    }
    if (state_.AddSession({.id = response.session_id(), .tenant = call_.tenant, .premade = {}})) {
      return;
    }
    call_.session = {.id = response.session_id(), .tenant = call_.tenant, .premade = {}};
    v1::CloseSessionResponse closed;
    CheckAuthentication("CloseSession", stub_.CloseSession(Context().get(), {}, &closed));
  }

 private:
  // What the checks of the call being made need.
  struct Call {
    ProgramSession session;
    int tenant = -1;  // Whose token it sends; -1: a wrong token, or none.
    bool missing_token = false;
    std::string foreign;          // Another tenant's handle it names, described; empty if none.
    std::string read_only_write;  // A read-only handle it writes through; empty if none.
    std::optional<PublishedName> attach;  // The name an Attach asks for.
  };

  [[noreturn]] void Finding(std::string_view rpc, const std::string& what) const {
    const std::string caller =
        call_.tenant >= 0 ? fmt::format("tenant '{}'", kTenants[call_.tenant]) : "no tenant";
    fuzz::Finding(kFuzzer, fmt::format("{} of {}: {}", rpc, caller, what));
  }

  std::optional<std::string> Substitute(std::string_view rpc, const FieldDescriptor& field,
                                        const std::string& value,
                                        std::optional<PublishedName>& attached) {
    if (value.size() != 1) return std::nullopt;
    const char code = value[0];
    const std::string& name = field.name();
    const std::string& message = field.containing_type()->name();
    if (IsHandleField(field)) {
      std::optional<KnownHandle> known = state_.Resolve(code, call_.session, results_);
      if (!known) return std::nullopt;
      if (call_.tenant >= 0 && known->holder != call_.tenant) {
        call_.foreign = fmt::format("the handle {} of tenant '{}' in {}", known->handle,
                                    kTenants[known->holder], name);
      }
      if (known->read_only && IsWrittenField(rpc, field)) call_.read_only_write = known->handle;
      return known->handle;
    }
    if (name == "name" && (message == "AttachRequest" || message == "UnpublishRequest")) {
      attached = state_.PublishedByCode(code);
      if (!attached) return std::nullopt;
      return attached->name;
    }
    if (name == "owner" && attached) return std::string(kTenants[attached->owner]);
    if (name == "owner" || name == "reader_tenants") {
      return std::string(kTenants[uint8_t(code) % kTenants.size()]);
    }
    if (name == "shm_key") return shm_[uint8_t(code) % shm_.size()].name;
    if (name == "key" && message == "RegisterSharedMemoryRequest") {
      return shm_[uint8_t(code) % shm_.size()].key;
    }
    return std::nullopt;
  }

  void Note(const v1::AttachRequest& attach) {
    if (call_.tenant < 0) return;
    const std::string_view owner =
        attach.owner().empty() ? kTenants[call_.tenant] : std::string_view(attach.owner());
    for (int tenant = 0; tenant < int(kTenants.size()); ++tenant) {
      if (owner == kTenants[tenant]) call_.attach = PublishedName{tenant, attach.name()};
    }
  }

  void CheckAuthentication(std::string_view rpc, const grpc::Status& status) const {
    if (fuzz::IsUnclear(status.error_code())) {
      Finding(rpc, fmt::format("answered {}: {}", CodeName(status.error_code()),
                               status.error_message()));
    }
    if (call_.tenant < 0 && status.error_code() != grpc::StatusCode::UNAUTHENTICATED) {
      Finding(rpc, fmt::format("answered {} to a call with {} token", CodeName(status.error_code()),
                               call_.missing_token ? "no" : "a wrong"));
    }
  }

  // Checks and keeps every array an answer shows.
  void Learn(std::string_view rpc, const Message& message) {
    if (message.GetDescriptor() == v1::ArrayInfo::descriptor()) {
      return LearnArray(rpc, static_cast<const v1::ArrayInfo&>(message));
    }
    const auto* descriptor = message.GetDescriptor();
    const auto* reflection = message.GetReflection();
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const FieldDescriptor* field = descriptor->field(i);
      if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
      if (field->is_repeated()) {
        for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
          Learn(rpc, reflection->GetRepeatedMessage(message, field, j));
        }
      } else if (reflection->HasField(message, field)) {
        Learn(rpc, reflection->GetMessage(message, field));
      }
    }
  }

  void LearnArray(std::string_view rpc, const v1::ArrayInfo& info) {
    for (const auto& [field, shown] :
         {std::pair{"handle", &info.handle()}, std::pair{"base_handle", &info.base_handle()}}) {
      std::optional<KnownHandle> known = state_.Find(*shown);
      if (known && known->holder != call_.tenant) {
        Finding(rpc, fmt::format("answered the handle {} of tenant '{}' as {}", *shown,
                                 kTenants[known->holder], field));
      }
    }
    if (info.handle().empty()) return;
    // A view of a read-only array is read-only too, whatever its info says.
    std::optional<KnownHandle> base = state_.Find(info.base_handle());
    const bool read_only = !info.writable() || (!info.owns_data() && base && base->read_only);
    if (state_.Learn(info.handle(), call_.tenant, read_only)) results_.push_back(info.handle());
  }

  ProgramState& state_;
  v1::ArrayHub::Stub& stub_;
  const std::vector<ShmObject>& shm_;
  std::vector<std::string> results_;  // Handles this thread's calls made, oldest first.
  Call call_;
};

class Harness {
 public:
  Harness() {
    ServerOptions options;
    options.tokens = Tokens();
    options.quotas = {.max_bytes = 1 << 20, .max_arrays = 64, .max_sessions = 8};
    options.limits.max_shared_memory_regions = 4;
    options.limits.max_shared_memory_bytes = kShmBytes;
    server_ = fuzz::StartFuzzServer(kFuzzer, std::move(options));
    // A connection per thread, as separate clients would have.
    grpc::ChannelArguments arguments;
    arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    for (int i = 0; i < kMaxThreads; ++i) {
      stubs_.push_back(v1::ArrayHub::NewStub(grpc::CreateCustomChannel(
          server_->address(), grpc::InsecureChannelCredentials(), arguments)));
      // Connects now, so that the baseline counts the connection's descriptors.
      grpc::ClientContext context;
      context.AddMetadata(kAuthorizationMetadataKey, std::string(kBearerPrefix) + TokenOf(0));
      v1::ServerInfo info;
      if (!stubs_.back()->GetServerInfo(&context, {}, &info).ok()) {
        fuzz::Finding(kFuzzer, "the server does not answer");
      }
    }
    baseline_ = server_->engine().Stats();
  }

  void Run(const Program& program) {
    // Counted anew for each input: between inputs libFuzzer itself may open descriptors (the
    // pipes to the symbolizer that names new functions).
    descriptors_ = OpenDescriptors();
    shm_ = {MakeShmObject(0), MakeShmObject(1)};
    ProgramState state;
    for (int tenant = 0; tenant < program.tenants; ++tenant) {
      for (int i = 0; i < program.sessions_each; ++i) Open(state, tenant);
    }
    std::latch start(program.threads);
    std::vector<std::thread> threads;
    for (int i = 0; i < program.threads; ++i) {
      threads.emplace_back([&, i] {
        Actor actor(state, *stubs_[i], shm_);
        start.arrive_and_wait();
        for (const Request& request : program.requests[i]) actor.Send(request);
      });
    }
    for (std::thread& thread : threads) thread.join();
    CleanUp(state);
  }

 private:
  // Opens a session through the RPC (so that the token is checked) with the four arrays.
  void Open(ProgramState& state, int tenant) {
    grpc::ClientContext context;
    context.AddMetadata(kAuthorizationMetadataKey, std::string(kBearerPrefix) + TokenOf(tenant));
    v1::OpenSessionRequest request;
    request.set_client_name("stateful-fuzz");
    v1::OpenSessionResponse response;
    const grpc::Status status = stubs_[0]->OpenSession(&context, request, &response);
    if (!status.ok()) fuzz::Finding(kFuzzer, "cannot open a session: " + status.error_message());
    Engine& engine = server_->engine();
    const Caller caller =
        engine.ResolveSession(std::string(kTenants[tenant]), response.session_id()).value();
    ProgramSession session{.id = response.session_id(), .tenant = tenant, .premade = {}};
    for (const CreateSpec& spec : fuzz::PremadeArrays()) {
      session.premade.push_back(engine.Create(caller, spec).value()->handle.ToString());
      state.Learn(session.premade.back(), tenant, /*read_only=*/false);
    }
    state.AddSession(std::move(session));
  }

  // Unpublishes every name and closes every session, then checks that nothing is left.
  void CleanUp(const ProgramState& state) {
    Engine& engine = server_->engine();
    for (const PublishedName& published : state.Names()) {
      (void)engine.Unpublish({.tenant = std::string(kTenants[published.owner])}, published.name);
    }
    for (const ProgramSession& session : state.Sessions()) {
      auto caller = engine.ResolveSession(std::string(kTenants[session.tenant]), session.id);
      if (caller.ok()) (void)engine.CloseSession(*caller);
    }
    for (const ShmObject& object : shm_) shm_unlink(object.name.c_str());
    const EngineStats now = engine.Stats();
    if (now.arrays != baseline_.arrays || now.bytes_in_use != baseline_.bytes_in_use ||
        now.buffers != baseline_.buffers || now.sessions != baseline_.sessions) {
      fuzz::Finding(kFuzzer,
                    fmt::format("left {} arrays, {} buffers, {} bytes and {} sessions",
                                now.arrays - baseline_.arrays, now.buffers - baseline_.buffers,
                                now.bytes_in_use - baseline_.bytes_in_use,
                                now.sessions - baseline_.sessions));
    }
    for (const auto& [tenant, usage] : engine.UsageByTenant()) {
      if (usage.bytes != 0 || usage.arrays != 0 || usage.sessions != 0) {
        fuzz::Finding(kFuzzer, fmt::format("tenant '{}' is still charged {} bytes, {} arrays and "
                                           "{} sessions",
                                           tenant, usage.bytes, usage.arrays, usage.sessions));
      }
    }
    CheckDescriptors();
    grpc::ClientContext context;
    context.AddMetadata(kAuthorizationMetadataKey, std::string(kBearerPrefix) + TokenOf(0));
    v1::ServerInfo info;
    const grpc::Status status = stubs_[0]->GetServerInfo(&context, {}, &info);
    if (!status.ok())
      fuzz::Finding(kFuzzer, "the server stopped answering: " + status.error_message());
  }

  // gRPC may close a descriptor shortly after the call that used it returns, so a difference
  // counts only when it lasts.
  void CheckDescriptors() const {
    std::map<int, std::string> open = OpenDescriptors();
    for (int tries = 0; open.size() != descriptors_.size() && tries < 100; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      open = OpenDescriptors();
    }
    if (open.size() == descriptors_.size()) return;
    std::string changed;
    for (const auto& [fd, target] : open) {
      if (!descriptors_.contains(fd)) changed += fmt::format(" +{} {}", fd, target);
    }
    for (const auto& [fd, target] : descriptors_) {
      if (!open.contains(fd)) changed += fmt::format(" -{} {}", fd, target);
    }
    fuzz::Finding(kFuzzer, fmt::format("{} file descriptors are open, {} before the input:{}",
                                       open.size(), descriptors_.size(), changed));
  }

  std::unique_ptr<ArrayHubServer> server_;
  std::vector<std::unique_ptr<v1::ArrayHub::Stub>> stubs_;
  std::vector<ShmObject> shm_;
  EngineStats baseline_;
  std::map<int, std::string> descriptors_;
};

}  // namespace
}  // namespace arrayhub

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto* harness = new arrayhub::Harness();  // One server for the whole run.
  const auto program =
      arrayhub::Decode(std::string_view(reinterpret_cast<const char*>(data), size));
  if (program) harness->Run(*program);
  return 0;
}
