#pragma once
// One HTTP/1.1 request and its answer on a client stream, and the connection it goes on,
// for the outbound calls (webhook sinks, witnesses). Every step is bounded by a timeout.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it

#include <openssl/err.h>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "delivery/tls_client.hpp"

namespace foyer::delivery {

using http_request = boost::beast::http::request<boost::beast::http::string_body>;
using answer_parser = boost::beast::http::response_parser<boost::beast::http::string_body>;

// Reads the final answer into `parser`, its body at most `body_limit` bytes. Interim 1xx
// answers (100 Continue, 103 Early Hints), which a peer may send unasked, are read past:
// taken for the answer, they would leave the real one to be read as the next request's.
template <class Stream>
boost::asio::awaitable<boost::beast::error_code> read_final_answer(Stream& stream, boost::beast::flat_buffer& buffer,
                                                                   std::optional<answer_parser>& parser,
                                                                   std::uint64_t body_limit) {
  boost::beast::error_code ec;
  do {
    parser.emplace();
    parser->body_limit(body_limit);
    co_await boost::beast::http::async_read(stream, buffer, *parser,
                                            boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  } while (!ec && parser->get().result_int() < 200);
  co_return ec;
}

// Sends the request and reads its final answer (read_final_answer), all within `timeout`.
template <class Stream>
boost::asio::awaitable<boost::beast::error_code> exchange(Stream& stream, boost::beast::flat_buffer& buffer,
                                                          http_request& req, std::optional<answer_parser>& parser,
                                                          std::uint64_t body_limit, std::chrono::milliseconds timeout) {
  boost::beast::error_code ec;
  boost::beast::get_lowest_layer(stream).expires_after(timeout);
  co_await boost::beast::http::async_write(stream, req, boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  if (ec) co_return ec;
  co_return co_await read_final_answer(stream, buffer, parser, body_limit);
}

// Connects to the first of `endpoints` (a resolver's results, or a list of tcp endpoints)
// that answers and, for TLS, names `host` to the peer and shakes hands, each step within
// `timeout`.
template <class Endpoints>
boost::asio::awaitable<boost::beast::error_code> connect(boost::beast::tcp_stream& stream, const Endpoints& endpoints,
                                                         std::chrono::milliseconds timeout) {
  boost::beast::error_code ec;
  stream.expires_after(timeout);
  co_await stream.async_connect(endpoints, boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  co_return ec;
}

// Names `host` to the peer of a connected stream and shakes hands, within `timeout`.
inline boost::asio::awaitable<boost::beast::error_code> handshake(
    boost::beast::ssl_stream<boost::beast::tcp_stream>& stream, const std::string& host,
    std::chrono::milliseconds timeout) {
  if (!name_tls_peer(stream, host)) {
    co_return boost::system::error_code(static_cast<int>(::ERR_get_error()), boost::asio::error::get_ssl_category());
  }
  boost::beast::error_code ec;
  boost::beast::get_lowest_layer(stream).expires_after(timeout);
  co_await stream.async_handshake(boost::asio::ssl::stream_base::client,
                                  boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  co_return ec;
}

template <class Endpoints>
boost::asio::awaitable<boost::beast::error_code> connect(boost::beast::ssl_stream<boost::beast::tcp_stream>& stream,
                                                         const std::string& host, const Endpoints& endpoints,
                                                         std::chrono::milliseconds timeout) {
  auto ec = co_await connect(boost::beast::get_lowest_layer(stream), endpoints, timeout);
  if (ec) co_return ec;
  co_return co_await handshake(stream, host, timeout);
}

}  // namespace foyer::delivery
