#pragma once
// A minimal HTTP/1.1 GET client, for the guard to fetch Foyer's discovery document and JWKS,
// for drand rounds and for the site's invite keys: https:// (the certificate checked against the system's trusted
// roots and the host), or plain http:// (the caller keeps that to loopback or
// private-network addresses); one request per connection, a deadline and a cap on the body.

#include <chrono>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it

#include <boost/asio/awaitable.hpp>

#include "core/base/url.hpp"

namespace foyer::delivery {

namespace net = boost::asio;

// A 200 answer: its body, and its Cache-Control header (empty if none).
struct http_answer {
  std::string body;
  std::string cache_control;
};

// An answer with another status than 200 (the message names the URL and the status).
struct http_status_error : std::runtime_error {
  http_status_error(const std::string& what, unsigned status) : std::runtime_error(what), status(status) {}
  unsigned status;
};

// The 200 answer to a GET of `url`. Throws std::runtime_error naming the problem:
// unresolvable, unreachable, a certificate that does not check, no whole answer within
// `timeout`, another status (http_status_error; redirects are not followed), a body over
// `body_limit`.
net::awaitable<http_answer> http_get_answer(const http_url& url, std::chrono::milliseconds timeout,
                                            std::size_t body_limit);

// The body of http_get_answer's answer.
net::awaitable<std::string> http_get(const http_url& url, std::chrono::milliseconds timeout, std::size_t body_limit);

}  // namespace foyer::delivery
