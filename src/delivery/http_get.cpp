#include "delivery/http_get.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <fmt/core.h>

#include <stdexcept>

#include "delivery/http_exchange.hpp"
#include "delivery/tls_client.hpp"

namespace foyer::delivery {
namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace ssl = net::ssl;
using net::redirect_error;
using net::use_awaitable;
using tcp = net::ip::tcp;

// Sends the GET on a connected `stream` and reads the answer (see http_get).
template <typename Stream>
net::awaitable<http_answer> exchange(Stream& stream, const http_url& url, std::size_t body_limit,
                                     const std::string& where) {
  beast::error_code ec;
  bhttp::request<bhttp::empty_body> req{bhttp::verb::get, url.target, 11};
  req.set(bhttp::field::host, url.authority);
  req.set(bhttp::field::user_agent, "foyer");
  req.set(bhttp::field::accept, "application/json");
  req.keep_alive(false);
  co_await bhttp::async_write(stream, req, redirect_error(use_awaitable, ec));
  if (ec) throw std::runtime_error(fmt::format("{}: cannot send the request: {}", where, ec.message()));

  beast::flat_buffer buffer;
  std::optional<answer_parser> parser;
  ec = co_await read_final_answer(stream, buffer, parser, body_limit);
  if (ec == bhttp::error::body_limit) {
    throw std::runtime_error(fmt::format("{}: the answer is larger than {} bytes", where, body_limit));
  }
  if (ec) throw std::runtime_error(fmt::format("{}: no whole answer: {}", where, ec.message()));
  auto res = parser->release();
  if (res.result() != bhttp::status::ok) {
    throw http_status_error(fmt::format("{}: answered {}", where, res.result_int()), res.result_int());
  }
  co_return http_answer{std::move(res.body()), std::string(res[bhttp::field::cache_control])};
}

}  // namespace

net::awaitable<http_answer> http_get_answer(const http_url& url, std::chrono::milliseconds timeout,
                                            std::size_t body_limit) {
  auto executor = co_await net::this_coro::executor;
  auto where = fmt::format("{}://{}{}", url.tls ? "https" : "http", url.authority, url.target);
  beast::error_code ec;
  tcp::resolver resolver(executor);
  auto endpoints = co_await resolver.async_resolve(url.host, url.port, redirect_error(use_awaitable, ec));
  if (ec) throw std::runtime_error(fmt::format("{}: cannot resolve {}: {}", where, url.host, ec.message()));

  beast::tcp_stream tcp_stream(executor);
  tcp_stream.expires_after(timeout);  // one deadline for connecting, the handshake, sending and reading
  co_await tcp_stream.async_connect(endpoints, redirect_error(use_awaitable, ec));
  if (ec) throw std::runtime_error(fmt::format("{}: cannot connect: {}", where, ec.message()));
  if (!url.tls) {
    auto answer = co_await exchange(tcp_stream, url, body_limit, where);
    tcp_stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    co_return answer;
  }

  auto context = verifying_client_context();
  beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp_stream), context);
  if (!name_tls_peer(stream, url.host)) {
    throw std::runtime_error(fmt::format("{}: cannot name the host for TLS", where));
  }
  co_await stream.async_handshake(ssl::stream_base::client, redirect_error(use_awaitable, ec));
  if (ec) throw std::runtime_error(fmt::format("{}: TLS handshake failed: {}", where, ec.message()));
  // The connection closes with the stream: one request each, so no TLS close is awaited.
  co_return co_await exchange(stream, url, body_limit, where);
}

net::awaitable<std::string> http_get(const http_url& url, std::chrono::milliseconds timeout, std::size_t body_limit) {
  co_return (co_await http_get_answer(url, timeout, body_limit)).body;
}

}  // namespace foyer::delivery
