// The daemon as a gRPC client of other daemons: the receiving side of daemon-to-daemon
// transfer (proto/arrayhub/v1/peer.proto). Reads the array a capability names from the
// daemon that issued it into an upload of this daemon's.
#pragma once

#include <grpcpp/security/credentials.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "arrayhub/v1/service.grpc.pb.h"
#include "server/core/peer_allowlist.h"
#include "server/core/transfers.h"
#include "server/core/upload.h"
#include "server/transport/tls.h"

namespace arrayhub {

struct PeerOptions {
  // The address other daemons reach this one at, told to clients with each capability
  // (IssueCapabilityResponse.origin); empty: clients name the address they used.
  std::string advertise_address{};
  // PEM CA bundle that peer daemons' certificates are checked against; set: pulls use TLS,
  // presenting this daemon's own certificate (TlsFiles cert/key) when it has one, for peers
  // that require client certificates. Empty: pulls are plaintext.
  std::string tls_ca{};
  // The daemons this one may pull from (--peer-allow, PeerAllowlist::Parse): a caller names
  // the origin, so without a list it could make the daemon connect anywhere. Empty: none.
  std::vector<std::string> allow{};
};

class PeerClient {
 public:
  // Channels kept at most (one per peer address); past it, one of them is dropped.
  static constexpr size_t kMaxChannels = 256;

  // INVALID_ARGUMENT / NOT_FOUND when the TLS files cannot be read, INVALID_ARGUMENT for a
  // bad --peer-allow entry.
  static absl::StatusOr<std::unique_ptr<PeerClient>> Create(const PeerOptions& options,
                                                            const TlsFiles& own);

  // The origins Read may be given (PeerAllowlist::Admit turns a caller's text into one).
  const PeerAllowlist& allowlist() const { return allowlist_; }

  // Streams the array of `request` from the daemon at `origin` into `upload` (reserved by the
  // caller for the same dtype and shape). `context` bounds the call: created from the
  // incoming call's (ClientContext::FromServerContext) it ends when that call does. Answers
  // the bytes received; the origin's refusal comes back with its code and message. Each chunk
  // touches `ticket`, the pull's transfer slot, so that only an idle pull is cancelled.
  absl::StatusOr<int64_t> Read(const PeerAddress& origin, const v1::ReadCapabilityRequest& request,
                               grpc::ClientContext& context, PendingUpload& upload,
                               TransferRegistry::Ticket& ticket);

 private:
  PeerClient(std::shared_ptr<grpc::ChannelCredentials> credentials, PeerAllowlist allowlist)
      : credentials_(std::move(credentials)), allowlist_(std::move(allowlist)) {}
  std::shared_ptr<grpc::Channel> ChannelTo(const PeerAddress& origin);

  std::shared_ptr<grpc::ChannelCredentials> credentials_;
  const PeerAllowlist allowlist_;
  absl::Mutex mutex_;
  absl::flat_hash_map<std::string, std::shared_ptr<grpc::Channel>> channels_
      ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
