#include "server/transport/peer_client.h"

#include <fmt/format.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <span>

#include "server/common/status_macros.h"

namespace arrayhub {
absl::StatusOr<std::unique_ptr<PeerClient>> PeerClient::Create(const PeerOptions& options,
                                                               const TlsFiles& own) {
  AH_ASSIGN_OR_RETURN(PeerAllowlist allowlist, PeerAllowlist::Parse(options.allow));
  if (options.tls_ca.empty()) {
    return std::unique_ptr<PeerClient>(
        new PeerClient(grpc::InsecureChannelCredentials(), std::move(allowlist)));
  }
  grpc::SslCredentialsOptions ssl;
  AH_ASSIGN_OR_RETURN(ssl.pem_root_certs, ReadPem(options.tls_ca, "--peer-tls-ca"));
  if (!own.cert.empty() && !own.key.empty()) {
    AH_ASSIGN_OR_RETURN(ssl.pem_cert_chain, ReadPem(own.cert, "--tls-cert"));
    AH_ASSIGN_OR_RETURN(ssl.pem_private_key, ReadPem(own.key, "--tls-key"));
  }
  return std::unique_ptr<PeerClient>(
      new PeerClient(grpc::SslCredentials(ssl), std::move(allowlist)));
}

std::shared_ptr<grpc::Channel> PeerClient::ChannelTo(const PeerAddress& origin) {
  const std::string address = origin.ToString();
  absl::MutexLock lock(&mutex_);
  auto found = channels_.find(address);
  if (found != channels_.end()) return found->second;
  if (channels_.size() >= kMaxChannels) channels_.erase(channels_.begin());
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);  // Chunks are bounded by the request's chunk_bytes.
  // The scheme is spelt out so that gRPC dials exactly the host and port that were checked.
  auto channel = grpc::CreateCustomChannel("dns:///" + address, credentials_, arguments);
  channels_[address] = channel;
  return channel;
}

absl::StatusOr<int64_t> PeerClient::Read(const PeerAddress& origin,
                                         const v1::ReadCapabilityRequest& request,
                                         grpc::ClientContext& context, PendingUpload& upload,
                                         TransferRegistry::Ticket& ticket) {
  auto stub = v1::ArrayHub::NewStub(ChannelTo(origin));
  std::unique_ptr<grpc::ClientReader<v1::DownloadResponse>> reader =
      stub->ReadCapability(&context, request);
  v1::DownloadResponse message;
  int64_t received = 0;
  absl::Status failure;
  while (failure.ok() && reader->Read(&message)) {
    if (message.part_case() != v1::DownloadResponse::kChunk) continue;  // The info first.
    ticket.Touch();
    failure = upload.Append(std::as_bytes(std::span(message.chunk())));
    received += static_cast<int64_t>(message.chunk().size());
  }
  if (!failure.ok()) {
    context.TryCancel();
    (void)reader->Finish();  // The origin's answer no longer matters.
    return failure;
  }
  const grpc::Status status = reader->Finish();
  if (!status.ok()) {
    return absl::Status(
        static_cast<absl::StatusCode>(status.error_code()),
        fmt::format("pulling from {}: {}", origin.ToString(), status.error_message()));
  }
  return received;
}

}  // namespace arrayhub
