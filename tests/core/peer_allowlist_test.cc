// The egress allowlist of daemon-to-daemon pulls (--peer-allow): origins are parsed into what
// is dialled and matched exactly, names against names and addresses against addresses or
// blocks, with the port; everything else is refused with a code that says why.

#include "server/core/peer_allowlist.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace arrayhub {
namespace {

PeerAllowlist Allow(const std::vector<std::string>& entries) {
  absl::StatusOr<PeerAllowlist> allowlist = PeerAllowlist::Parse(entries);
  EXPECT_TRUE(allowlist.ok()) << allowlist.status();
  return *std::move(allowlist);
}

TEST(PeerAllowlistTest, ParsesWhatIsDialled) {
  struct Case {
    std::string text, dialled;
  };
  for (const Case& c : std::vector<Case>{{"10.0.0.5:50051", "10.0.0.5:50051"},
                                         {"Peer-A.Example:443", "peer-a.example:443"},
                                         {"localhost:1", "localhost:1"},
                                         {"[::1]:50051", "[::1]:50051"},
                                         {"[2001:DB8:0::1]:7", "[2001:db8::1]:7"},
                                         {"[::ffff:10.0.0.5]:50051", "10.0.0.5:50051"},
                                         {"[::ffff:a00:5]:50051", "10.0.0.5:50051"}}) {
    absl::StatusOr<PeerAddress> address = ParsePeerAddress(c.text);
    ASSERT_TRUE(address.ok()) << c.text << ": " << address.status();
    EXPECT_EQ(address->ToString(), c.dialled) << c.text;
  }
}

TEST(PeerAllowlistTest, RefusesWhatIsNoHostAndPort) {
  // gRPC target schemes, bare IPv6, missing or bad ports, other notations of IPv4 addresses,
  // names with characters that a target URI would read otherwise.
  std::vector<std::string> malformed = {"10.0.0.5",
                                        "localhost",
                                        "",
                                        "10.0.0.5:",
                                        "10.0.0.5:0",
                                        "10.0.0.5:65536",
                                        "10.0.0.5:+1",
                                        "10.0.0.5:80x",
                                        "::1:50051",
                                        "[::1]",
                                        "[::1]50051",
                                        "[::1:50051",
                                        "[10.0.0.5]:1",
                                        "[fe80::1%eth0]:1",
                                        "unix:/run/docker.sock",
                                        "unix-abstract:x",
                                        "dns:///evil:1",
                                        "dns://8.8.8.8/evil:1",
                                        "ipv4:10.0.0.5:1",
                                        "127.1:50051",
                                        "2130706433:50051",
                                        "010.0.0.5:50051",
                                        "a..b:1",
                                        "a.:1",
                                        ".a:1",
                                        "host/x:1",
                                        "host?x:1",
                                        "ho st:1",
                                        "h%41:1",
                                        "10.0.0.0/8:1"};
  // A NUL byte, at which inet_pton would stop reading.
  malformed.push_back(std::string("10.0.0.5\0.evil:1", 15));
  malformed.push_back(std::string("[::1\0]:1", 8));
  for (const std::string& text : malformed) {
    absl::StatusOr<PeerAddress> address = ParsePeerAddress(text);
    EXPECT_EQ(address.status().code(), absl::StatusCode::kInvalidArgument)
        << "'" << text << "' parsed as " << (address.ok() ? address->ToString() : "");
    EXPECT_NE(address.status().message().find("origin '" + text + "' is not HOST:PORT"),
              std::string::npos)
        << address.status();
  }
}

TEST(PeerAllowlistTest, MatchesAddressesBlocksNamesAndPorts) {
  const PeerAllowlist allowlist =
      Allow({"10.1.0.0/16:50051", "192.168.1.7:*", "peer-a:50051", "[fd00::/8]:50051", "[::1]:7"});
  for (const std::string origin :
       {"10.1.0.1:50051", "10.1.255.255:50051", "[::ffff:10.1.2.3]:50051", "192.168.1.7:1",
        "192.168.1.7:65535", "peer-a:50051", "PEER-A:50051", "[fd12:3456::1]:50051",
        "[0:0:0:0:0:0:0:1]:7"}) {
    absl::StatusOr<PeerAddress> admitted = allowlist.Admit(origin);
    EXPECT_TRUE(admitted.ok()) << origin << ": " << admitted.status();
  }
  for (const std::string origin :
       {"10.2.0.1:50051", "10.1.0.1:50052", "10.1.0.1.nip.io:50051", "192.168.1.70:1",
        "peer-a.evil:50051", "peer-ab:50051", "peer-a:50052", "[fe00::1]:50051", "[::1]:8",
        "[::ffff:192.168.1.70]:1"}) {
    absl::StatusOr<PeerAddress> admitted = allowlist.Admit(origin);
    ASSERT_EQ(admitted.status().code(), absl::StatusCode::kPermissionDenied) << origin;
    EXPECT_NE(admitted.status().message().find("origin " + origin), std::string::npos);
    EXPECT_NE(admitted.status().message().find("--peer-allow"), std::string::npos);
  }
  // A malformed origin is an argument error, whatever the list.
  EXPECT_EQ(allowlist.Admit("unix:/run/x").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PeerAllowlistTest, NamesAreNeverResolved) {
  // localhost dials the loopback addresses, but the check does not ask the resolver, whose
  // answer could change before the dial: only the name allows the name, and the other way.
  const PeerAllowlist addresses = Allow({"127.0.0.0/8:*", "[::1]:*"});
  absl::Status refused = addresses.Admit("localhost:50051").status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(refused.message().find("names are not resolved"), std::string::npos) << refused;
  EXPECT_TRUE(addresses.Admit("127.0.0.1:50051").ok());
  const PeerAllowlist name = Allow({"localhost:*"});
  EXPECT_TRUE(name.Admit("localhost:50051").ok());
  EXPECT_EQ(name.Admit("127.0.0.1:50051").status().code(), absl::StatusCode::kPermissionDenied);
}

TEST(PeerAllowlistTest, AnEmptyListAllowsNothing) {
  const PeerAllowlist none = Allow({});
  EXPECT_TRUE(none.empty());
  absl::Status refused = none.Admit("127.0.0.1:50051").status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(refused.message(),
            "origin 127.0.0.1:50051 refused: this daemon pulls from no other daemon (its "
            "--peer-allow is empty)");
  // The message names what is dialled when it differs from what the caller wrote.
  EXPECT_NE(none.Admit("[::ffff:127.0.0.1]:1")
                .status()
                .message()
                .find("origin [::ffff:127.0.0.1]:1 (127.0.0.1:1) refused"),
            std::string::npos);
}

TEST(PeerAllowlistTest, RefusesBadEntriesNamingThem) {
  for (const std::string entry :
       {"10.0.0.5", "10.0.0.5:0", "*:50051", "*", "10.0.0.1/8:1", "10.0.0.0/33:1", "10.0.0.0/:1",
        "10.0.0.0/-1:1", "peer/8:1", "[fd00::1/8]:1", "[fd00::/129]:1", "[::ffff:10.0.0.0/104]:1",
        "fd00::/8:1", "unix:/run/x", "10.0.0.5:**"}) {
    absl::StatusOr<PeerAllowlist> parsed = PeerAllowlist::Parse({"10.0.0.1:1", entry});
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << entry;
    EXPECT_NE(parsed.status().message().find("--peer-allow entry '" + entry + "'"),
              std::string::npos)
        << parsed.status();
  }
}

TEST(PeerAllowlistTest, DescribesItsEntriesNormalised) {
  EXPECT_EQ(
      Allow({"10.0.0.0/8:50051", "Peer-A:*", "[FD00::/8]:1", "[::1]:2", "0.0.0.0/0:*"}).ToString(),
      "10.0.0.0/8:50051, peer-a:*, [fd00::/8]:1, [::1]:2, 0.0.0.0/0:*");
}

}  // namespace
}  // namespace arrayhub
