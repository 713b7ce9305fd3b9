// Bearer-token authentication: the token file that maps tokens to tenants, and the check of
// a call's `authorization` metadata against it.
//
// Token file: one `<tenant> <sha256-hex>` per line, where the hex is the SHA-256 of the token
// (`printf %s "$TOKEN" | sha256sum`, or `arrayhubd --hash-token`); blank lines and lines
// starting with '#' are ignored; a tenant may have several tokens. The server keeps only the
// digests, compares them in constant time, and never logs a token.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace grpc {
class ServerContextBase;
}

namespace arrayhub {

// Metadata key and scheme of the bearer token (RFC 6750), as the v1 contract specifies.
inline constexpr char kAuthorizationMetadataKey[] = "authorization";
inline constexpr std::string_view kBearerPrefix = "Bearer ";

using TokenDigest = std::array<uint8_t, 32>;

TokenDigest Sha256(std::string_view data);
std::string ToHex(const TokenDigest& digest);

class TokenTable {
 public:
  // Reads a token file. FAILED_PRECONDITION when other users may read or write it (it would
  // let them learn the digests or add tokens); INVALID_ARGUMENT, naming the line, when a line
  // is malformed.
  static absl::StatusOr<TokenTable> Load(const std::string& path);
  // Parses the file's text; `source` names it in error messages.
  static absl::StatusOr<TokenTable> Parse(std::string_view text, std::string_view source);

  // The tenant of `token`, or UNAUTHENTICATED. Every entry is compared, in constant time, so
  // the time taken reveals nothing about which digest matched or how closely.
  absl::StatusOr<std::string> TenantFor(std::string_view token) const;

  size_t size() const { return entries_.size(); }
  // Distinct tenants (a tenant may have several tokens).
  size_t tenant_count() const;

 private:
  struct Entry {
    std::string tenant;
    TokenDigest digest;
  };
  std::vector<Entry> entries_;
};

// The tenant of a call: kAnonymousTenant when `tokens` is null (authentication off), else the
// tenant of its bearer token, or UNAUTHENTICATED saying what was missing (never the token).
absl::StatusOr<std::string> AuthenticateCall(const grpc::ServerContextBase& context,
                                             const TokenTable* tokens);

}  // namespace arrayhub
