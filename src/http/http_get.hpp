#pragma once
// A minimal HTTP/1.1 GET client, for the guard to fetch Foyer's JWKS: plain http:// only (a
// loopback or private-network address; across the internet, keep a copy of the JWKS in a
// file instead), one request per connection, a deadline and a cap on the body.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/url.hpp"
#include "http/server.hpp"

namespace foyer::http {

using foyer::http_url;

// An http:// URL (parse_url); nullopt for anything else, https:// included.
std::optional<http_url> parse_http_url(std::string_view url);

// The body of a 200 answer. Throws std::runtime_error naming the problem: unresolvable,
// unreachable, no whole answer within `timeout`, another status, a body over `body_limit`.
net::awaitable<std::string> http_get(const http_url& url, std::chrono::milliseconds timeout, std::size_t body_limit);

}  // namespace foyer::http
