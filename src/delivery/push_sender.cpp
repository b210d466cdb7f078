#include "delivery/push_sender.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

#include "core/gate/network.hpp"
#include "delivery/http_exchange.hpp"
#include "delivery/tls_client.hpp"

namespace foyer::delivery {
namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;

// A push service's answer is read only for its status: a larger body is its fault.
constexpr std::size_t push_answer_limit = 16 * 1024;
// RFC 8030 §5.2 leaves the longest TTL to the push service; none keeps a message longer.
constexpr std::chrono::seconds max_ttl{28 * 24 * 3600};
// RFC 8292 §2: at most 24 hours; half leaves room for a push service's clock running fast.
constexpr std::int64_t vapid_lifetime_seconds = 12 * 3600;

ip_address address_of(const net::ip::address& a) {
  if (a.is_v6()) return from_v6_bytes(a.to_v6().to_bytes());
  ip_address out;
  auto bytes = a.to_v4().to_bytes();
  std::copy(bytes.begin(), bytes.end(), out.bytes.begin());
  return out;
}

// RFC 8030 §5 and §8.3 and RFC 8292 §4 (403: a key that does not match the subscription).
notify::outcome outcome_of(unsigned status) {
  if (status / 100 == 2) return notify::outcome::delivered;
  if (status == 404 || status == 410) return notify::outcome::gone;
  if (status == 408 || status == 429 || status / 100 == 5) return notify::outcome::failed;
  return notify::outcome::refused;  // a redirect (never followed), or the request is wrong
}

}  // namespace

push_sender::push_sender(net::io_context& ioc, const clock& clock, pass::signing_key vapid_key, std::string subject,
                         push_reach reach)
    : ioc_(ioc),
      clock_(clock),
      vapid_key_(std::move(vapid_key)),
      subject_(std::move(subject)),
      reach_(std::move(reach)),
      tls_context_(verifying_client_context()) {}

net::awaitable<notify::outcome> push_sender::send(const notify::push_subscription& subscription,
                                                   std::string_view payload, std::chrono::seconds ttl,
                                                   std::string* problem) {
  auto finish = [problem](notify::outcome outcome, std::string text) {
    if (problem) *problem = std::move(text);
    return outcome;
  };
  if (subscription.endpoint.size() > notify::max_push_endpoint_bytes) {
    co_return finish(notify::outcome::refused, "the endpoint is longer than 1024 bytes");
  }
  auto url = parse_url(subscription.endpoint);
  if (!url || !url->tls) co_return finish(notify::outcome::refused, "the endpoint is not an https:// URL");
  auto where = notify::push_origin(*url);
  http_request req{bhttp::verb::post, url->target, 11};
  try {
    req.body() = [&] {
      auto body = notify::encrypt(subscription.p256dh, subscription.auth, payload);
      return std::string(as_chars(body));
    }();
    req.set(bhttp::field::authorization,
            notify::vapid_authorization(where, subject_, clock_.now_ms() / 1000 + vapid_lifetime_seconds, vapid_key_));
  } catch (const std::invalid_argument& e) {
    co_return finish(notify::outcome::refused, fmt::format("{}: {}", where, e.what()));
  }
  req.set(bhttp::field::host, url->authority);
  req.set(bhttp::field::user_agent, "foyer");
  req.set(bhttp::field::content_type, "application/octet-stream");
  req.set(bhttp::field::content_encoding, "aes128gcm");
  req.set("TTL", std::to_string(std::clamp(ttl, std::chrono::seconds(0), max_ttl).count()));
  // A visitor's turn is news that cannot wait: RFC 8030 §5.3's "high".
  req.set("Urgency", "high");
  req.keep_alive(false);
  req.prepare_payload();

  beast::error_code ec;
  std::vector<tcp::endpoint> candidates;
  if (loopback_name(url->host)) {
    auto port = static_cast<std::uint16_t>(std::stoi(url->port));
    candidates = {{net::ip::address_v4::loopback(), port}, {net::ip::address_v6::loopback(), port}};
  } else {
    tcp::resolver resolver(ioc_);
    auto resolved = co_await resolver.async_resolve(url->host, url->port, net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return finish(notify::outcome::failed, fmt::format("{}: cannot resolve: {}", where, ec.message()));
    for (const auto& entry : resolved) candidates.push_back(entry.endpoint());
  }
  // Only the addresses checked here are connected to: a name cannot resolve again to another.
  bool private_allowed = std::find(reach_.private_hosts.begin(), reach_.private_hosts.end(), url->host) !=
                         reach_.private_hosts.end();
  std::vector<tcp::endpoint> endpoints;
  for (const auto& endpoint : candidates) {
    if (private_allowed || public_address(address_of(endpoint.address()))) endpoints.push_back(endpoint);
  }
  if (endpoints.empty()) {
    co_return finish(notify::outcome::refused,
                     fmt::format("{}: resolves to no public address (allow_private_push_hosts lists the hosts that "
                                 "may)",
                                 where));
  }

  beast::ssl_stream<beast::tcp_stream> stream(ioc_, tls_context_);
  ec = co_await delivery::connect(beast::get_lowest_layer(stream), endpoints, reach_.timeout);
  if (ec) co_return finish(notify::outcome::failed, fmt::format("{}: cannot connect: {}", where, ec.message()));
  ec = co_await delivery::handshake(stream, url->host, reach_.timeout);
  if (ec) co_return finish(notify::outcome::failed, fmt::format("{}: TLS handshake failed: {}", where, ec.message()));
  beast::flat_buffer buffer;
  std::optional<answer_parser> parser;
  ec = co_await exchange(stream, buffer, req, parser, push_answer_limit, reach_.timeout);
  // The connection closes with the stream: one request each, so no TLS close is awaited.
  if (ec) co_return finish(notify::outcome::failed, fmt::format("{}: no answer: {}", where, ec.message()));
  auto status = parser->get().result_int();
  auto outcome = outcome_of(status);
  co_return finish(outcome, outcome == notify::outcome::delivered ? "" : fmt::format("{}: answered {}", where, status));
}

}  // namespace foyer::delivery
