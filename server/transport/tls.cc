#include "server/transport/tls.h"

#include <fmt/format.h>
#include <grpcpp/security/server_credentials.h>

#include <fstream>
#include <sstream>

#include "server/common/status_macros.h"

namespace arrayhub {
absl::StatusOr<std::string> ReadPem(const std::string& path, std::string_view flag) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(fmt::format("cannot read {} file {}", flag, path));
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

namespace {

// The host part of "host:port", "[v6]:port" or "unix:..." (returned whole).
std::string HostOf(const std::string& address) {
  if (address.starts_with("[")) return address.substr(1, address.find(']') - 1);
  const size_t colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const TlsFiles& files) {
  if (files.cert.empty() && files.key.empty()) {
    if (!files.client_ca.empty()) {
      return absl::InvalidArgumentError("--tls-client-ca needs --tls-cert and --tls-key");
    }
    return grpc::InsecureServerCredentials();
  }
  if (files.cert.empty() || files.key.empty()) {
    return absl::InvalidArgumentError("TLS needs both --tls-cert and --tls-key");
  }
  grpc::SslServerCredentialsOptions options(
      files.client_ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                              : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  AH_ASSIGN_OR_RETURN(pair.cert_chain, ReadPem(files.cert, "--tls-cert"));
  AH_ASSIGN_OR_RETURN(pair.private_key, ReadPem(files.key, "--tls-key"));
  options.pem_key_cert_pairs.push_back(std::move(pair));
  if (!files.client_ca.empty()) {
    AH_ASSIGN_OR_RETURN(options.pem_root_certs, ReadPem(files.client_ca, "--tls-client-ca"));
  }
  return grpc::SslServerCredentials(options);
}

bool IsLoopbackAddress(const std::string& listen_address) {
  const std::string host = HostOf(listen_address);
  return host == "localhost" || host == "::1" || host.starts_with("127.") ||
         listen_address.starts_with("unix:");
}

absl::Status CheckExposure(const std::string& listen_address, bool authenticated, bool insecure) {
  if (authenticated || insecure || IsLoopbackAddress(listen_address)) return absl::OkStatus();
  return absl::FailedPreconditionError(fmt::format(
      "refusing to listen on {} without authentication: other hosts could use every array; "
      "pass --auth-file, or --insecure to accept that",
      listen_address));
}

}  // namespace arrayhub
