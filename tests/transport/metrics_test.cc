// The operator's view of a running server: the HTTP side of /metrics (including bad requests),
// and the metrics it serves after real RPCs: requests by method and code, latencies, bytes
// moved, memory and per-tenant figures, with label values escaped.
#include "server/transport/metrics.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <grpcpp/generic/generic_stub.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "server/transport/http_request.h"
#include "server/transport/metrics_endpoint.h"
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

using namespace std::chrono_literals;

// The value of the sample whose name and labels are exactly `series`, if the text has it.
std::optional<double> Sample(const std::string& text, const std::string& series) {
  const std::string prefix = series + " ";
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line(text.data() + start, end - start);
    if (line.starts_with(prefix)) {
      double value = 0;
      const std::string_view number = line.substr(prefix.size());
      if (std::from_chars(number.data(), number.data() + number.size(), value).ec == std::errc()) {
        return value;
      }
      return std::nullopt;
    }
    start = end + 1;
  }
  return std::nullopt;
}

// A socket connected to the loopback port.
int ConnectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  return fd;
}

// Connects to the loopback port, sends `request`, and reads the answer until the server closes.
std::string Exchange(int port, std::string_view request, bool half_close = true) {
  const int fd = ConnectLoopback(port);
  EXPECT_EQ(send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  if (half_close) shutdown(fd, SHUT_WR);
  std::string answer;
  char buffer[4096];
  pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
  while (poll(&ready, 1, 5000) > 0) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    answer.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return answer;
}

std::string Get(int port, const std::string& path) {
  return Exchange(port, "GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n");
}

TEST(HttpRequestTest, ParsesTheRequestLineStrictly) {
  auto parsed = http::ParseRequestHead("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n");
  ASSERT_TRUE(std::holds_alternative<http::Request>(parsed));
  EXPECT_EQ(std::get<http::Request>(parsed).method, "GET");
  EXPECT_EQ(std::get<http::Request>(parsed).path, "/metrics");
  EXPECT_TRUE(std::holds_alternative<http::Request>(
      http::ParseRequestHead("HEAD /metrics HTTP/1.0\r\n\r\n")));

  for (const char* bad : {"", "GET\r\n\r\n", "GET /metrics\r\n\r\n", " /metrics HTTP/1.1\r\n\r\n",
                          "GET metrics HTTP/1.1\r\n\r\n", "G(T /metrics HTTP/1.1\r\n\r\n",
                          "GET /met rics HTTP/1.1\r\n\r\n", "GET /metrics FTP/1.1\r\n\r\n",
                          "GET /m\x01 HTTP/1.1\r\n\r\n", "GET /metrics HTTP/1.1"}) {
    auto result = http::ParseRequestHead(bad);
    ASSERT_TRUE(std::holds_alternative<http::Error>(result)) << bad;
    EXPECT_EQ(std::get<http::Error>(result).status, 400) << bad;
  }
  auto version = http::ParseRequestHead("GET /metrics HTTP/2.0\r\n\r\n");
  ASSERT_TRUE(std::holds_alternative<http::Error>(version));
  EXPECT_EQ(std::get<http::Error>(version).status, 505);
  EXPECT_EQ(http::StatusLine(431), "HTTP/1.1 431 Request Header Fields Too Large");
}

class MetricsTest : public RpcTest {
 protected:
  std::string Text() { return server_->metrics().Text(); }

  std::unique_ptr<MetricsEndpoint> StartEndpoint() {
    auto endpoint = MetricsEndpoint::Start("127.0.0.1:0", server_->metrics(), 300ms);
    EXPECT_TRUE(endpoint.ok()) << endpoint.status();
    return endpoint.ok() ? std::move(endpoint).value() : nullptr;
  }
};

TEST_F(MetricsTest, EndpointServesTheTextFormatToGetAndHead) {
  auto endpoint = StartEndpoint();
  ASSERT_NE(endpoint, nullptr);
  const std::string answer = Get(endpoint->port(), "/metrics");
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 OK\r\n")) << answer;
  EXPECT_NE(answer.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
            std::string::npos);
  const std::string body = answer.substr(answer.find("\r\n\r\n") + 4);
  EXPECT_NE(answer.find(fmt::format("Content-Length: {}\r\n", body.size())), std::string::npos);
  EXPECT_NE(body.find("# TYPE arrayhub_requests_total counter\n"), std::string::npos) << body;
  EXPECT_NE(body.find("# HELP arrayhub_sessions "), std::string::npos) << body;

  const std::string head = Exchange(endpoint->port(), "HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(head.starts_with("HTTP/1.1 200 OK\r\n")) << head;
  EXPECT_TRUE(head.ends_with("\r\n\r\n")) << "HEAD has no body: " << head;
}

TEST_F(MetricsTest, EndpointAnswersBadRequestsAndKeepsServing) {
  auto endpoint = StartEndpoint();
  ASSERT_NE(endpoint, nullptr);
  const int port = endpoint->port();
  EXPECT_TRUE(Get(port, "/").starts_with("HTTP/1.1 404 Not Found\r\n"));
  EXPECT_TRUE(Get(port, "/metricsx").starts_with("HTTP/1.1 404 "));
  const std::string post = Exchange(port, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  EXPECT_TRUE(post.starts_with("HTTP/1.1 405 ")) << post;
  EXPECT_NE(post.find("Allow: GET, HEAD\r\n"), std::string::npos) << post;
  EXPECT_TRUE(
      Exchange(port, std::string("\x16\x03\x01\x02\x00\r\n\r\n", 9)).starts_with("HTTP/1.1 400 "));
  EXPECT_TRUE(Exchange(port, "GET /metrics HTTP/2.0\r\n\r\n").starts_with("HTTP/1.1 505 "));
  // A head that never ends, and one that ends too late.
  EXPECT_TRUE(Exchange(port, "GET /metrics HTTP/1.1\r\nX: " + std::string(20000, 'a'))
                  .starts_with("HTTP/1.1 431 "));
  EXPECT_TRUE(Exchange(port, "GET /metrics HTTP/1.1\r\nX: " + std::string(9000, 'a') + "\r\n\r\n")
                  .starts_with("HTTP/1.1 431 "));
  // A client that sends half a request and waits is cut off at the read deadline.
  EXPECT_TRUE(Exchange(port, "GET /metr", /*half_close=*/false).starts_with("HTTP/1.1 408 "));
  // One that sends half and hangs up gets nothing.
  EXPECT_EQ(Exchange(port, "GET /metr"), "");

  EXPECT_TRUE(Get(port, "/metrics").starts_with("HTTP/1.1 200 OK\r\n"));
}

// Idle connections (opened, never a byte sent) cost a scrape nothing: each waits out its own
// deadline while others are served, and past the cap the oldest make room for new ones.
TEST_F(MetricsTest, IdleConnectionsDoNotStallScrapes) {
  auto started = MetricsEndpoint::Start("127.0.0.1:0", server_->metrics(), 2s);
  ASSERT_TRUE(started.ok()) << started.status();
  const int port = (*started)->port();
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(ConnectLoopback(port));
  auto timed_scrape = [port] {
    const auto start = std::chrono::steady_clock::now();
    const std::string answer = Get(port, "/metrics");
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 OK\r\n")) << answer;
    return std::chrono::steady_clock::now() - start;
  };
  EXPECT_LT(timed_scrape(), 1s);  // One at a time, it waited 2 s per idle connection.
  for (size_t i = 0; i < MetricsEndpoint::kMaxConnections + 8; ++i)
    idle.push_back(ConnectLoopback(port));
  EXPECT_LT(timed_scrape(), 1s);
  for (int fd : idle) close(fd);
}

TEST_F(MetricsTest, EndpointRejectsAddressesItCannotUse) {
  for (const char* address : {"9464", "localhost", "127.0.0.1:", "127.0.0.1:99999",
                              "127.0.0.1:12ab", "[::1:9464", ":9464"}) {
    auto endpoint = MetricsEndpoint::Start(address, server_->metrics());
    EXPECT_EQ(endpoint.status().code(), absl::StatusCode::kInvalidArgument) << address;
    EXPECT_NE(endpoint.status().message().find("host:port"), std::string_view::npos)
        << endpoint.status();
  }
  auto first = StartEndpoint();
  ASSERT_NE(first, nullptr);
  auto taken =
      MetricsEndpoint::Start(fmt::format("127.0.0.1:{}", first->port()), server_->metrics());
  EXPECT_EQ(taken.status().code(), absl::StatusCode::kUnavailable) << taken.status();
  EXPECT_NE(taken.status().message().find("cannot serve metrics"), std::string_view::npos);
}

TEST_F(MetricsTest, CountsRequestsByMethodAndCodeWithLatencies) {
  v1::ServerInfo info;
  for (int i = 0; i < 2; ++i) {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->GetServerInfo(&context, v1::ServerInfoRequest(), &info).ok());
  }
  v1::DescribeRequest describe;
  describe.set_handle("not-a-handle");
  v1::ArrayInfo array;
  EXPECT_FALSE(stub_->Describe(Context().get(), describe, &array).ok());

  const std::string text = Text();
  const std::string service = R"(service="arrayhub.v1.ArrayHub")";
  EXPECT_EQ(
      Sample(text, R"(arrayhub_requests_total{code="OK",method="GetServerInfo",)" + service + "}"),
      2)
      << text;
  EXPECT_EQ(Sample(text, R"(arrayhub_requests_total{code="INVALID_ARGUMENT",method="Describe",)" +
                             service + "}"),
            1)
      << text;
  EXPECT_EQ(
      Sample(text, R"(arrayhub_requests_total{code="OK",method="OpenSession",)" + service + "}"), 1)
      << text;
  EXPECT_EQ(Sample(text, R"(arrayhub_request_duration_seconds_count{method="GetServerInfo",)" +
                             service + "}"),
            2)
      << text;
  EXPECT_EQ(Sample(text, R"(arrayhub_request_duration_seconds_bucket{method="Describe",)" +
                             service + R"(,le="+Inf"})"),
            1)
      << text;
}

TEST_F(MetricsTest, CountsArrayBytesMovedByUploadAndDownload) {
  const std::string bytes(3 << 20, '\x7f');
  v1::ArrayInfo info;
  ASSERT_TRUE(Upload(v1::DTYPE_UINT8, {3 << 20}, bytes, &info).ok());
  ASSERT_EQ(DownloadAll(info.handle(), 1 << 20), bytes);
  ASSERT_EQ(DownloadAll(info.handle(), 1 << 20), bytes);

  const std::string text = Text();
  EXPECT_EQ(Sample(text, R"(arrayhub_transfer_bytes_total{direction="upload"})"), 3 << 20);
  EXPECT_EQ(Sample(text, R"(arrayhub_transfer_bytes_total{direction="download"})"), 6 << 20);
}

TEST_F(MetricsTest, MethodsTheServerDoesNotHaveNeverBecomeLabels) {
  EXPECT_EQ(CallGeneric("/arrayhub.v1.ArrayHub/NoSuchMethod").error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(CallGeneric("/made.up.Service/Anything").error_code(), grpc::StatusCode::UNIMPLEMENTED);
  const std::string text = Text();
  EXPECT_EQ(text.find("NoSuchMethod"), std::string::npos) << text;
  EXPECT_EQ(text.find("made.up"), std::string::npos) << text;
}

TEST_F(MetricsTest, ReportsMemoryArraysAndSessionsPerTenant) {
  v1::CreateRequest zeros;
  zeros.set_dtype(v1::DTYPE_FLOAT64);
  zeros.add_shape(1000);
  zeros.mutable_zeros();
  Create(zeros);
  Create(zeros);

  const std::string text = Text();
  EXPECT_EQ(Sample(text, R"(arrayhub_tenant_arrays{tenant="anonymous"})"), 2) << text;
  EXPECT_EQ(Sample(text, R"(arrayhub_tenant_memory_bytes{tenant="anonymous"})"), 16000) << text;
  EXPECT_EQ(Sample(text, R"(arrayhub_tenant_sessions{tenant="anonymous"})"), 1) << text;
  EXPECT_EQ(Sample(text, "arrayhub_arrays"), baseline_.arrays + 2);
  EXPECT_EQ(Sample(text, "arrayhub_sessions"), 1);
  EXPECT_EQ(Sample(text, "arrayhub_shared_memory_descriptors"),
            server_->engine().Stats().shared_memory_descriptors);
  EXPECT_EQ(Sample(text, "arrayhub_memory_in_use_bytes"), baseline_.bytes_in_use + 16000);
  const std::string device = server_->engine().backend().Devices().front().name;
  EXPECT_GT(Sample(text, R"(arrayhub_device_memory_total_bytes{device=")" + device + "\"}"), 0);
  EXPECT_GE(Sample(text, R"(arrayhub_device_memory_free_bytes{device=")" + device + "\"}"), 0);
  EXPECT_EQ(Sample(text, R"(arrayhub_device_memory_in_use_bytes{device=")" + device + "\"}"),
            baseline_.bytes_in_use + 16000);
  EXPECT_EQ(Sample(text, R"(arrayhub_device_sessions{device=")" + device + "\"}"), 1);
}

// With a data directory, each tenant's disk (its durable publications' files) is a gauge, and
// GetServerInfo tells the caller its own.
class DurableMetricsTest : public MetricsTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options;
    options.data_dir = data_dir_.string();
    return options;
  }
  const std::filesystem::path data_dir_ =
      std::filesystem::path(::testing::TempDir()) /
      ("metrics-data-" + std::to_string(::getpid()) + "-" +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
};

TEST_F(DurableMetricsTest, ReportsEachTenantsDisk) {
  v1::CreateRequest zeros;
  zeros.set_dtype(v1::DTYPE_FLOAT32);
  zeros.add_shape(500);
  zeros.mutable_zeros();
  v1::PublishRequest publish;
  publish.set_handle(Create(zeros).handle());
  publish.set_name("kept");
  publish.set_durable(true);
  publish.set_wait_durable(true);
  v1::PublishResponse published;
  ASSERT_TRUE(stub_->Publish(Context().get(), publish, &published).ok());

  // 2000 bytes of data and the 128-byte .npy header.
  EXPECT_EQ(Sample(Text(), R"(arrayhub_tenant_disk_bytes{tenant="anonymous"})"), 2128);
  v1::ServerInfo info;
  ASSERT_TRUE(stub_->GetServerInfo(Context().get(), {}, &info).ok());
  EXPECT_EQ(info.tenant_disk_bytes(), 2128);
  std::filesystem::remove_all(data_dir_);
}

// Tenant names come from operators' token files; the text format escapes \, " and newline in
// label values, so no name can forge a sample.
TEST_F(MetricsTest, EscapesLabelValues) {
  const std::string tenant = "we\"ird\\ten\nant";
  const Session session =
      server_->engine().OpenSession(tenant, "test", std::chrono::seconds(0)).value();
  const CreateSpec zeros{.dtype = DType::kFloat32, .shape = {4}, .kind = ZerosKind{}};
  ASSERT_TRUE(server_->engine().Create({.tenant = tenant, .session = session.id}, zeros).ok());

  const std::string text = Text();
  EXPECT_EQ(Sample(text, R"(arrayhub_tenant_arrays{tenant="we\"ird\\ten\nant"})"), 1) << text;
  EXPECT_EQ(text.find("ten\nant"), std::string::npos) << "raw newline in the exposition";
}

}  // namespace
}  // namespace arrayhub::testing
