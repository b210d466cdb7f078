#include "core/base/url.hpp"

#include <algorithm>
#include <charconv>

namespace foyer {
namespace {

bool valid_port(std::string_view digits) {
  unsigned port = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  return !digits.empty() && ec == std::errc() && end == digits.data() + digits.size() && port >= 1 && port <= 65535;
}

}  // namespace

std::optional<http_url> parse_url(std::string_view url) {
  // The host goes into a Host field and the target into a request line: a CR or LF there
  // would add lines of its own to every request.
  bool controls = std::any_of(url.begin(), url.end(), [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return byte <= 0x20 || byte == 0x7f;
  });
  if (controls) return std::nullopt;
  http_url out;
  if (url.starts_with("https://")) {
    out.tls = true;
    url.remove_prefix(8);
  } else if (url.starts_with("http://")) {
    url.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  auto path_at = url.find_first_of("/?");
  out.authority = std::string(url.substr(0, path_at));
  auto target = path_at == std::string_view::npos ? std::string_view() : url.substr(path_at);
  out.target = target.starts_with('/') ? std::string(target) : std::string("/").append(target);
  std::string_view authority = out.authority;
  if (authority.find('@') != std::string_view::npos) return std::nullopt;
  std::string_view host = authority;
  std::string_view port = out.tls ? "443" : "80";
  if (authority.starts_with('[')) {
    auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(1, close - 1);
    auto rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
    }
  } else if (auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty() || !valid_port(port)) return std::nullopt;
  out.host = std::string(host);
  out.port = std::string(port);
  return out;
}

std::string origin_of(const http_url& url) {
  std::string host = url.host;
  std::transform(host.begin(), host.end(), host.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  if (host.size() > 1 && host.ends_with('.')) host.pop_back();
  bool v6 = host.find(':') != std::string::npos;
  return std::string(url.tls ? "https://" : "http://") + (v6 ? "[" + host + "]" : host) + ":" + url.port;
}

}  // namespace foyer
