// RPCs of the v1 contract that this server does not implement yet. Each answers UNIMPLEMENTED
// with a message naming the RPC, never a made-up result.
#include <fmt/format.h>

#include "server/transport/service.h"

namespace arrayhub {
namespace {

grpc::Status NotImplementedYet(std::string_view rpc) {
  return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                      fmt::format("{} is not implemented by this server yet", rpc));
}

}  // namespace

grpc::Status ArrayHubService::WatchSession(grpc::ServerContext*, const v1::WatchSessionRequest*,
                                           grpc::ServerWriter<v1::SessionEvent>*) {
  return NotImplementedYet("WatchSession");
}

}  // namespace arrayhub
