// The egress allowlist of daemon-to-daemon pulls (--peer-allow, docs/scale-out.md): the daemons
// a PullArray may make this daemon connect to, since the origin comes from the caller. The
// check is on the address that will be dialled, parsed and normalised (a name, an IPv4 or an
// IPv6 address, and a port), never on a prefix of the string; and it asks no DNS, whose answer
// could change between the check and the dial: a name is allowed only by the same name, an
// address only by an entry for that address or a block that holds it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace arrayhub {

// An origin daemon's address, as it is dialled.
struct PeerAddress {
  enum class Kind { kName, kIPv4, kIPv6 };
  Kind kind = Kind::kName;
  // A name in lower case, or the address's canonical text (IPv4-mapped IPv6 ones as IPv4).
  std::string host;
  std::array<uint8_t, 16> bytes{};  // An address's bytes (the first 4 for IPv4).
  uint16_t port = 0;                // 1-65535.

  // "host:port", or "[v6]:port": what the daemon dials.
  std::string ToString() const;
};

// INVALID_ARGUMENT unless `text` is HOST:PORT with HOST a host name, a dotted-quad IPv4 address
// or an IPv6 address in brackets, and PORT 1-65535; the message names `text`.
absl::StatusOr<PeerAddress> ParsePeerAddress(std::string_view text);

class PeerAllowlist {
 public:
  // From entries HOST:PORT, HOST as in ParsePeerAddress or a block of addresses
  // (10.0.0.0/8, [fd00::/8]), PORT a port or * for any. INVALID_ARGUMENT naming the first bad
  // entry. No entries: no origin is allowed.
  static absl::StatusOr<PeerAllowlist> Parse(const std::vector<std::string>& entries);

  // The origin as it is to be dialled, when an entry allows it; INVALID_ARGUMENT when it is
  // no HOST:PORT; PERMISSION_DENIED naming it and --peer-allow otherwise.
  absl::StatusOr<PeerAddress> Admit(std::string_view origin) const;

  bool empty() const { return entries_.empty(); }
  // The entries, normalised, separated by ", ": for the log.
  std::string ToString() const;

 private:
  struct Entry {
    PeerAddress address;  // A block's first address.
    int prefix_bits = 0;  // Addresses only: the leading bits that must match.
    bool any_port = false;
    bool Allows(const PeerAddress& origin) const;
    std::string ToString() const;
  };
  std::vector<Entry> entries_;
};

}  // namespace arrayhub
