#include "tests/support/test_certs.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace arrayhub::testing {
namespace {

std::string Read(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

TestCerts MakeTestCerts() {
  char pattern[] = "/tmp/arrayhub-certs-XXXXXX";
  const char* dir = mkdtemp(pattern);
  if (dir == nullptr) {
    ADD_FAILURE() << "mkdtemp failed";
    return {};
  }
  // P-256 keys: quick to make. The server certificate names both localhost and 127.0.0.1.
  const std::string script = std::string("set -e\ncd ") + dir + R"(
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
key ca.key
openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj /CN=arrayhub-test-ca 2>/dev/null
key other-ca.key
openssl req -x509 -new -key other-ca.key -out other-ca.pem -days 2 -subj /CN=other-ca 2>/dev/null
key server.key
openssl req -new -key server.key -out server.csr -subj /CN=localhost 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -extfile server.ext -out server.pem 2>/dev/null
key client.key
openssl req -new -key client.key -out client.csr -subj /CN=arrayhub-test-client 2>/dev/null
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -out client.pem 2>/dev/null
)";
  const std::string script_path = std::string(dir) + "/make.sh";
  std::ofstream(script_path) << script;
  if (std::system(("bash " + script_path).c_str()) != 0) {
    ADD_FAILURE() << "openssl could not make the test certificates in " << dir;
    return {};
  }
  TestCerts certs{.dir = dir};
  certs.ca_pem = Read(certs.Path("ca.pem"));
  certs.server_pem = Read(certs.Path("server.pem"));
  certs.server_key = Read(certs.Path("server.key"));
  certs.client_pem = Read(certs.Path("client.pem"));
  certs.client_key = Read(certs.Path("client.key"));
  certs.other_ca_pem = Read(certs.Path("other-ca.pem"));
  return certs;
}

}  // namespace arrayhub::testing
