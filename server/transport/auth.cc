#include "server/transport/auth.h"

#include <fmt/format.h>
#include <grpcpp/server_context.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <sys/stat.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "server/common/status_macros.h"
#include "server/core/tenants.h"
#include "server/transport/service.h"

namespace arrayhub {
namespace {

absl::StatusOr<TokenDigest> ParseDigest(std::string_view hex) {
  TokenDigest digest{};
  if (hex.size() != 2 * digest.size()) {
    return absl::InvalidArgumentError(
        fmt::format("the digest must be 64 hex characters (SHA-256), got {}", hex.size()));
  }
  for (size_t i = 0; i < digest.size(); ++i) {
    uint8_t byte = 0;
    for (char c : hex.substr(2 * i, 2)) {
      const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!std::isxdigit(static_cast<unsigned char>(lower))) {
        return absl::InvalidArgumentError("the digest must be hexadecimal");
      }
      byte = static_cast<uint8_t>(byte * 16 + (lower <= '9' ? lower - '0' : lower - 'a' + 10));
    }
    digest[i] = byte;
  }
  return digest;
}

}  // namespace

TokenDigest Sha256(std::string_view data) {
  TokenDigest digest;
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data());
  return digest;
}

std::string ToHex(const TokenDigest& digest) {
  std::string hex;
  for (uint8_t byte : digest) hex += fmt::format("{:02x}", byte);
  return hex;
}

absl::StatusOr<TokenTable> TokenTable::Load(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    return absl::NotFoundError(fmt::format("cannot read token file {}", path));
  }
  if ((info.st_mode & (S_IRWXO | S_IWGRP)) != 0) {
    return absl::FailedPreconditionError(
        fmt::format("token file {} has mode {:04o}: other users may read or change it; "
                    "run `chmod 600 {}`",
                    path, info.st_mode & 07777, path));
  }
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(fmt::format("cannot read token file {}", path));
  std::stringstream text;
  text << file.rdbuf();
  return Parse(text.str(), path);
}

absl::StatusOr<TokenTable> TokenTable::Parse(std::string_view text, std::string_view source) {
  TokenTable table;
  std::istringstream lines{std::string(text)};
  std::string line;
  for (int line_number = 1; std::getline(lines, line); ++line_number) {
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string word; words >> word;) fields.push_back(word);
    if (fields.empty() || fields.front().starts_with("#")) continue;
    auto at_line = [&](const absl::Status& status) {
      return absl::InvalidArgumentError(
          fmt::format("{} line {}: {}", source, line_number, std::string(status.message())));
    };
    if (fields.size() != 2) {
      return at_line(absl::InvalidArgumentError(
          fmt::format("expected `<tenant> <sha256-hex>`, got {} fields", fields.size())));
    }
    if (absl::Status valid = ValidateTenantName(fields[0], "the tenant"); !valid.ok()) {
      return at_line(valid);
    }
    absl::StatusOr<TokenDigest> digest = ParseDigest(fields[1]);
    if (!digest.ok()) return at_line(digest.status());
    for (const Entry& entry : table.entries_) {
      if (entry.digest == *digest) {
        return at_line(absl::InvalidArgumentError(
            fmt::format("the same token is listed already, for tenant '{}'", entry.tenant)));
      }
    }
    table.entries_.push_back({.tenant = fields[0], .digest = *digest});
  }
  if (table.entries_.empty()) {
    return absl::InvalidArgumentError(fmt::format("token file {} lists no tokens", source));
  }
  return table;
}

size_t TokenTable::tenant_count() const {
  absl::flat_hash_set<std::string_view> tenants;
  for (const Entry& entry : entries_) tenants.insert(entry.tenant);
  return tenants.size();
}

absl::StatusOr<std::string> TokenTable::TenantFor(std::string_view token) const {
  const TokenDigest presented = Sha256(token);
  const Entry* match = nullptr;
  for (const Entry& entry : entries_) {
    const bool equal = CRYPTO_memcmp(entry.digest.data(), presented.data(), presented.size()) == 0;
    if (equal) match = &entry;
  }
  if (match == nullptr) return absl::UnauthenticatedError("unknown bearer token");
  return match->tenant;
}

absl::StatusOr<std::string> AuthenticateCall(const grpc::ServerContextBase& context,
                                             const TokenTable* tokens) {
  if (tokens == nullptr) return std::string(kAnonymousTenant);
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kAuthorizationMetadataKey);
  if (it == metadata.end()) {
    return absl::UnauthenticatedError(
        "this server requires authentication: send the metadata `authorization: Bearer <token>`");
  }
  const std::string_view value(it->second.data(), it->second.size());
  if (!value.starts_with(kBearerPrefix)) {
    return absl::UnauthenticatedError(
        "the authorization metadata must be `Bearer <token>` (another scheme was sent)");
  }
  return tokens->TenantFor(value.substr(kBearerPrefix.size()));
}

}  // namespace arrayhub
