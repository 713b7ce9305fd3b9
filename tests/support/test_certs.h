// Throwaway certificates for TLS tests: a CA (and an unrelated one), a server certificate for
// localhost and 127.0.0.1, and a client certificate, made with the openssl command at test time, so
// that no private key is ever checked in.
#pragma once

#include <string>

namespace arrayhub::testing {

struct TestCerts {
  std::string dir;  // Where the files are: ca.pem, server.pem/.key, client.pem/.key.
  std::string ca_pem;
  std::string server_pem, server_key;
  std::string client_pem, client_key;
  std::string other_ca_pem;  // A CA that signed nothing here: trusting it trusts no one.

  std::string Path(const std::string& file) const { return dir + "/" + file; }
};

// Makes the certificates in a fresh temporary directory; fails the test (and returns an
// empty dir) when openssl is missing or fails.
TestCerts MakeTestCerts();

}  // namespace arrayhub::testing
