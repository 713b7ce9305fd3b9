// Transport security for the listening port: plaintext, TLS, or mutual TLS, through gRPC's
// SSL credentials; and the rule that a server reachable from other hosts needs
// authentication unless the operator opts out explicitly.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace grpc {
class ServerCredentials;
}

namespace arrayhub {

struct TlsFiles {
  std::string cert{};       // PEM certificate chain; empty: plaintext.
  std::string key{};        // PEM private key of the certificate.
  std::string client_ca{};  // PEM CA bundle; set: clients must present a certificate it signed.
};

// Credentials for TlsFiles; INVALID_ARGUMENT for an incomplete set, NOT_FOUND for an
// unreadable file.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const TlsFiles& files);

// The contents of the PEM file `path`; NOT_FOUND naming `flag` when it cannot be read.
absl::StatusOr<std::string> ReadPem(const std::string& path, std::string_view flag);

// True for addresses only this host can reach: 127.0.0.0/8, ::1 and localhost.
bool IsLoopbackAddress(const std::string& listen_address);

// FAILED_PRECONDITION when the server would accept unauthenticated calls from other hosts
// and `insecure` does not allow it.
absl::Status CheckExposure(const std::string& listen_address, bool authenticated, bool insecure);

}  // namespace arrayhub
