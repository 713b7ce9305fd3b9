#include "server/transport/http_request.h"

#include <fmt/format.h>

namespace arrayhub::http {
namespace {

bool IsTokenChar(char c) {  // RFC 9110 tchar, as far as methods need it.
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '!' || c == '~' || c == '*' || c == '+';
}

bool IsTargetChar(char c) { return c > ' ' && c < 0x7f; }

}  // namespace

std::variant<Request, Error> ParseRequestHead(std::string_view head) {
  const size_t line_end = head.find("\r\n");
  if (line_end == std::string_view::npos) return Error{400};
  const std::string_view line = head.substr(0, line_end);

  const size_t first_space = line.find(' ');
  const size_t last_space = line.rfind(' ');
  if (first_space == std::string_view::npos || first_space == 0 || last_space == first_space) {
    return Error{400};
  }
  const std::string_view method = line.substr(0, first_space);
  const std::string_view target = line.substr(first_space + 1, last_space - first_space - 1);
  const std::string_view version = line.substr(last_space + 1);
  for (char c : method) {
    if (!IsTokenChar(c)) return Error{400};
  }
  if (target.empty() || target.front() != '/') return Error{400};
  for (char c : target) {
    if (!IsTargetChar(c)) return Error{400};
  }
  if (!version.starts_with("HTTP/")) return Error{400};
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return Error{505};
  return Request{.method = std::string(method),
                 .path = std::string(target.substr(0, target.find('?')))};
}

std::string StatusLine(int status) {
  const char* reason = "Error";
  switch (status) {
    case 200:
      reason = "OK";
      break;
    case 400:
      reason = "Bad Request";
      break;
    case 404:
      reason = "Not Found";
      break;
    case 405:
      reason = "Method Not Allowed";
      break;
    case 408:
      reason = "Request Timeout";
      break;
    case 431:
      reason = "Request Header Fields Too Large";
      break;
    case 500:
      reason = "Internal Server Error";
      break;
    case 505:
      reason = "HTTP Version Not Supported";
      break;
  }
  return fmt::format("HTTP/1.1 {} {}", status, reason);
}

}  // namespace arrayhub::http
