// The little of HTTP/1.x that the metrics endpoint needs: the request line of a request head,
// checked strictly, and the status line of the answer. No bodies, no keep-alive.
#pragma once

#include <string>
#include <string_view>
#include <variant>

namespace arrayhub::http {

// Largest request head (request line and headers) read before answering 431.
inline constexpr size_t kMaxHeadBytes = 8192;

struct Request {
  std::string method;  // "GET", "HEAD", ...
  std::string path;    // The target without its query string.
};

// An HTTP status to answer with instead of a result.
struct Error {
  int status = 400;
};

// Parses `head`: everything up to and including the blank line that ends the headers.
// 400 for anything that is not "METHOD SP /target SP HTTP/1.x", 505 for another version.
std::variant<Request, Error> ParseRequestHead(std::string_view head);

// "HTTP/1.1 404 Not Found" for the statuses the endpoint uses.
std::string StatusLine(int status);

}  // namespace arrayhub::http
