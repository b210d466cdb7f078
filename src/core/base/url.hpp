#pragma once
// http:// and https:// URLs split into what a client needs to connect and ask.

#include <optional>
#include <string>
#include <string_view>

namespace foyer {

struct http_url {
  bool tls = false;       // https://
  std::string host;       // a name or an address, without IPv6 brackets
  std::string port;       // "80" (or "443" for https) when the URL names none
  std::string authority;  // as written in the URL, for the Host header
  std::string target;     // path and query, "/" at least
};

// "http[s]://host[:port][/path][?query]" (an IPv6 host in brackets); nullopt for anything
// else, user info included, and any URL with a space or a control character (CR, LF, NUL
// and the others, DEL too).
std::optional<http_url> parse_url(std::string_view url);

// The URL's origin as one server answers it: "http[s]://host:port", the host in lower case
// without a trailing dot, the port always written (the default one too), no path. Two URLs
// of one origin reach the same server.
std::string origin_of(const http_url& url);

}  // namespace foyer
