#include "server/core/peer_allowlist.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

// ::ffff:0:0/96, IPv4 addresses as IPv6 ones: a socket connects to the IPv4 address.
constexpr std::array<uint8_t, 12> kIPv4Mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

// Why a text is no HOST:PORT; the callers say which text.
absl::Status Malformed(const std::string& why) { return absl::InvalidArgumentError(why); }

struct HostPort {
  std::string_view host;  // Without the brackets.
  bool bracketed = false;
  std::string_view port;
};

absl::StatusOr<HostPort> SplitHostPort(std::string_view text) {
  HostPort parts;
  std::string_view rest;
  if (text.starts_with('[')) {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return Malformed("'[' without ']'");
    parts.host = text.substr(1, close - 1);
    parts.bracketed = true;
    rest = text.substr(close + 1);
  } else {
    const size_t colon = text.rfind(':');
    parts.host = text.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon);
    if (parts.host.find(':') != std::string_view::npos) {
      return Malformed("an IPv6 address goes in brackets: [ADDRESS]:PORT");
    }
  }
  if (!rest.starts_with(':')) return Malformed("no port");
  parts.port = rest.substr(1);
  return parts;
}

bool AllDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A number of at most `max` written in decimal digits only (no sign, no spaces).
bool ParseNumber(std::string_view text, unsigned max, unsigned& value) {
  if (!AllDigits(text) || text.size() > 5) return false;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value <= max;
}

absl::StatusOr<uint16_t> ParsePort(std::string_view text) {
  unsigned port = 0;
  if (!ParseNumber(text, 65535, port) || port == 0) {
    return Malformed(fmt::format("the port '{}' is not a number from 1 to 65535", text));
  }
  return static_cast<uint16_t>(port);
}

// Labels of letters, digits, '-' and '_' between dots, the last not all digits: getaddrinfo
// would read "127.1" or "2130706433" as IPv4 addresses, which are written as dotted quads here.
absl::Status CheckName(std::string_view name) {
  if (name.empty() || name.size() > 253) {
    return Malformed("the host is empty or longer than 253 characters");
  }
  std::string_view label;
  for (std::string_view rest = name; !rest.empty();) {
    const size_t dot = rest.find('.');
    label = rest.substr(0, dot);
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    const bool valid =
        !label.empty() && label.size() <= 63 && std::all_of(label.begin(), label.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_';
        });
    if (!valid || (dot != std::string_view::npos && rest.empty())) {
      return Malformed(fmt::format(
          "'{}' is neither a host name, a dotted-quad IPv4 address nor a bracketed IPv6 one",
          name));
    }
  }
  if (AllDigits(label)) {
    return Malformed(
        fmt::format("'{}' is no host name (its last label is a number) and no dotted-quad IPv4 "
                    "address",
                    name));
  }
  return absl::OkStatus();
}

absl::StatusOr<PeerAddress> ParseHost(std::string_view host, bool bracketed) {
  PeerAddress address;
  const std::string text(host);
  if (text.find('\0') != std::string::npos) {
    return Malformed("the host holds a NUL byte");  // inet_pton would stop at it.
  }
  if (bracketed) {
    if (inet_pton(AF_INET6, text.c_str(), address.bytes.data()) != 1) {
      return Malformed(fmt::format("'{}' in brackets is not an IPv6 address", host));
    }
    address.kind = PeerAddress::Kind::kIPv6;
    if (std::equal(kIPv4Mapped.begin(), kIPv4Mapped.end(), address.bytes.begin())) {
      std::copy_n(address.bytes.begin() + 12, 4, address.bytes.begin());
      std::fill(address.bytes.begin() + 4, address.bytes.end(), 0);
      address.kind = PeerAddress::Kind::kIPv4;
    }
  } else if (inet_pton(AF_INET, text.c_str(), address.bytes.data()) == 1) {
    address.kind = PeerAddress::Kind::kIPv4;
  } else {
    AH_RETURN_IF_ERROR(CheckName(host));
    address.kind = PeerAddress::Kind::kName;
    address.host = text;
    std::transform(text.begin(), text.end(), address.host.begin(), [](char c) {
      return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    });
    return address;
  }
  char canonical[INET6_ADDRSTRLEN] = {};
  const int family = address.kind == PeerAddress::Kind::kIPv4 ? AF_INET : AF_INET6;
  inet_ntop(family, address.bytes.data(), canonical, sizeof canonical);
  address.host = canonical;
  return address;
}

int AddressBits(const PeerAddress& address) {
  return address.kind == PeerAddress::Kind::kIPv4 ? 32 : 128;
}

bool Bit(const std::array<uint8_t, 16>& bytes, int index) {
  return (bytes[index / 8] >> (7 - index % 8)) & 1;
}

}  // namespace

std::string PeerAddress::ToString() const {
  return kind == Kind::kIPv6 ? fmt::format("[{}]:{}", host, port)
                             : fmt::format("{}:{}", host, port);
}

absl::StatusOr<PeerAddress> ParsePeerAddress(std::string_view text) {
  absl::StatusOr<PeerAddress> parsed = [text]() -> absl::StatusOr<PeerAddress> {
    AH_ASSIGN_OR_RETURN(HostPort parts, SplitHostPort(text));
    AH_ASSIGN_OR_RETURN(PeerAddress address, ParseHost(parts.host, parts.bracketed));
    AH_ASSIGN_OR_RETURN(address.port, ParsePort(parts.port));
    return address;
  }();
  if (parsed.ok()) return parsed;
  return absl::InvalidArgumentError(fmt::format("origin '{}' is not HOST:PORT: {}", text,
                                                std::string(parsed.status().message())));
}

bool PeerAllowlist::Entry::Allows(const PeerAddress& origin) const {
  if ((!any_port && origin.port != address.port) || origin.kind != address.kind) return false;
  if (origin.kind == PeerAddress::Kind::kName) return origin.host == address.host;
  for (int bit = 0; bit < prefix_bits; ++bit) {
    if (Bit(origin.bytes, bit) != Bit(address.bytes, bit)) return false;
  }
  return true;
}

std::string PeerAllowlist::Entry::ToString() const {
  std::string host = address.host;
  if (address.kind != PeerAddress::Kind::kName && prefix_bits < AddressBits(address)) {
    host += fmt::format("/{}", prefix_bits);
  }
  if (address.kind == PeerAddress::Kind::kIPv6) host = "[" + host + "]";
  return any_port ? host + ":*" : fmt::format("{}:{}", host, address.port);
}

absl::StatusOr<PeerAllowlist> PeerAllowlist::Parse(const std::vector<std::string>& entries) {
  PeerAllowlist allowlist;
  for (const std::string& text : entries) {
    absl::StatusOr<Entry> entry = [&text]() -> absl::StatusOr<Entry> {
      AH_ASSIGN_OR_RETURN(HostPort parts, SplitHostPort(text));
      std::string_view host = parts.host;
      std::string_view prefix;
      const size_t slash = host.find('/');
      if (slash != std::string_view::npos) {
        prefix = host.substr(slash + 1);
        host = host.substr(0, slash);
      }
      Entry parsed;
      AH_ASSIGN_OR_RETURN(parsed.address, ParseHost(host, parts.bracketed));
      if (parts.bracketed && parsed.address.kind == PeerAddress::Kind::kIPv4) {
        return Malformed("write an IPv4-mapped address as the IPv4 address");
      }
      if (parsed.address.kind != PeerAddress::Kind::kName) {
        const int bits = AddressBits(parsed.address);
        unsigned prefix_bits = bits;
        if (slash != std::string_view::npos && !ParseNumber(prefix, bits, prefix_bits)) {
          return Malformed(
              fmt::format("the prefix length '{}' is not a number from 0 to {}", prefix, bits));
        }
        parsed.prefix_bits = static_cast<int>(prefix_bits);
        for (int bit = parsed.prefix_bits; bit < bits; ++bit) {
          if (Bit(parsed.address.bytes, bit)) {
            return Malformed(fmt::format("{} has address bits set past the prefix /{}",
                                         parsed.address.host, prefix_bits));
          }
        }
      } else if (slash != std::string_view::npos) {
        return Malformed("a block (/N) needs an IP address");
      }
      parsed.any_port = parts.port == "*";
      if (!parsed.any_port) {
        AH_ASSIGN_OR_RETURN(parsed.address.port, ParsePort(parts.port));
      }
      return parsed;
    }();
    if (!entry.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("--peer-allow entry '{}' is invalid: {} (an entry is HOST:PORT, HOST a host "
                      "name, an IPv4 address or block, or an IPv6 one in brackets, PORT a number "
                      "or *)",
                      text, std::string(entry.status().message())));
    }
    allowlist.entries_.push_back(*std::move(entry));
  }
  return allowlist;
}

absl::StatusOr<PeerAddress> PeerAllowlist::Admit(std::string_view origin) const {
  AH_ASSIGN_OR_RETURN(PeerAddress address, ParsePeerAddress(origin));
  for (const Entry& entry : entries_) {
    if (entry.Allows(address)) return address;
  }
  const std::string named = address.ToString() == origin
                                ? std::string(origin)
                                : fmt::format("{} ({})", origin, address.ToString());
  if (entries_.empty()) {
    return absl::PermissionDeniedError(fmt::format(
        "origin {} refused: this daemon pulls from no other daemon (its --peer-allow is empty)",
        named));
  }
  return absl::PermissionDeniedError(fmt::format(
      "origin {} refused: not in this daemon's --peer-allow{}", named,
      address.kind == PeerAddress::Kind::kName
          ? " (a name is allowed by the same name only: names are not resolved for the check)"
          : ""));
}

std::string PeerAllowlist::ToString() const {
  std::string joined;
  for (const Entry& entry : entries_) {
    if (!joined.empty()) joined += ", ";
    joined += entry.ToString();
  }
  return joined;
}

}  // namespace arrayhub
