#pragma once
// Sends one Web Push message (RFC 8030 §5) to the push service a browser named: a POST of the
// RFC 8291 encrypted payload to the subscription's endpoint, with TTL, Urgency and the VAPID
// Authorization of RFC 8292. One connection per message, closed after the answer.
//
// The endpoint comes from a visitor, so it is held to the rules of a request anyone can aim:
// https:// only (the certificate checked as tls_client.hpp says), its name resolved and only
// public addresses connected to (core/gate/network.hpp, public_address), unless the operator
// listed the endpoint's host in `private_hosts` (a push service on the operator's own network,
// or on loopback for tests). Redirects are never followed. Every step has a deadline and the
// answer is read up to 16 KiB.
//
// Single-threaded: every member runs on the event loop. The payload a send() is given must
// stay alive until it completes (it is encrypted before the first suspension).

#include <chrono>
#include <string>
#include <string_view>
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <foyer/clock.hpp>

#include "core/notify/web_push.hpp"
#include "core/passes/pass.hpp"
#include "core/notify/notice.hpp"

namespace foyer::delivery {

namespace net = boost::asio;

// Where pushes may go, and how long each may take.
struct push_reach {
  // Endpoint hosts (as written in the URL, e.g. "127.0.0.1" or "push.internal") that may
  // resolve to loopback, private or other non-public addresses. Default: none.
  std::vector<std::string> private_hosts;
  std::chrono::milliseconds timeout{10'000};  // Default: 10 s to connect, and 10 s for the answer
};

class push_sender {
 public:
  // `vapid_key`: the key ring's ES256 VAPID key; `subject`: the VAPID sub, a mailto: or
  // https: URI where the push service can reach the operator. `clock` dates the VAPID tokens.
  push_sender(net::io_context& ioc, const clock& clock, pass::signing_key vapid_key, std::string subject,
              push_reach reach);

  // Delivers `payload` (at most notify::max_push_payload_bytes) to the subscription, kept by
  // the push service for `ttl` at most (capped at four weeks). A 2xx answer: delivered; 404 or
  // 410: gone; an endpoint that is not https, too long, names a non-public address or answers
  // with a redirect, keys that are no keys, or another 4xx but 408 and 429: refused; no
  // answer, 408, 429 or 5xx: failed. `problem`, if given, receives what went wrong (empty
  // when delivered), for the log.
  net::awaitable<notify::outcome> send(const notify::push_subscription& subscription, std::string_view payload,
                                        std::chrono::seconds ttl, std::string* problem = nullptr);

 private:
  net::io_context& ioc_;
  const clock& clock_;
  pass::signing_key vapid_key_;
  std::string subject_;
  push_reach reach_;
  net::ssl::context tls_context_;
};

}  // namespace foyer::delivery
