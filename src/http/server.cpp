#include "http/server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <fmt/core.h>

#include "core/json.hpp"

namespace foyer::http {
namespace {

namespace bhttp = beast::http;
using net::redirect_error;
using net::use_awaitable;

constexpr std::size_t read_chunk = 4096;

void log_session_error(std::exception_ptr e) {
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    fmt::print(stderr, "foyer: connection ended by an error: {}\n", ex.what());
  }
}

}  // namespace

response json_error(unsigned status, std::string_view code, std::string_view message,
                    unsigned version, bool keep_alive) {
  response res{static_cast<bhttp::status>(status), version};
  res.set(bhttp::field::content_type, "application/json");
  res.set(bhttp::field::cache_control, "no-store");
  res.body() = json_object().str("error", code).str("message", message).done();
  res.keep_alive(keep_alive);
  res.prepare_payload();
  return res;
}

server::server(net::io_context& ioc, const tcp::endpoint& endpoint, server_limits limits, handler h)
    : ioc_(ioc), acceptor_(ioc), limits_(limits), handler_(std::move(h)) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
}

void server::start() {
  net::co_spawn(ioc_, accept_loop(), log_session_error);
}

void server::stop(std::function<void()> on_drained) {
  stopping_ = true;
  on_drained_ = std::move(on_drained);
  beast::error_code ignored;
  acceptor_.close(ignored);
  for (auto& s : sessions_) {
    if (s.idle) s.stream->socket().close(ignored);
  }
  if (sessions_.empty() && on_drained_) std::exchange(on_drained_, nullptr)();
}

net::awaitable<void> server::accept_loop() {
  for (;;) {
    beast::error_code ec;
    tcp::socket socket = co_await acceptor_.async_accept(redirect_error(use_awaitable, ec));
    if (ec) {
      if (stopping_) co_return;
      // Out of file descriptors and the like: keep serving the connections we have.
      fmt::print(stderr, "foyer: accept failed: {}\n", ec.message());
      continue;
    }
    if (sessions_.size() >= limits_.max_connections) {
      auto res = json_error(503, "too_many_connections", "The server is at its connection limit; retry shortly.");
      res.set(bhttp::field::retry_after, "5");
      // Best effort: a socket this far over the limit gets one short answer, then closes.
      net::co_spawn(ioc_, [s = std::move(socket), res = std::move(res)]() mutable -> net::awaitable<void> {
        beast::error_code ignored;
        co_await bhttp::async_write(s, res, redirect_error(use_awaitable, ignored));
        s.close(ignored);
      }, log_session_error);
      continue;
    }
    net::co_spawn(ioc_, session(std::move(socket)), log_session_error);
  }
}

void server::session_ended(std::list<session_state>::iterator it) {
  sessions_.erase(it);
  if (stopping_ && sessions_.empty() && on_drained_) std::exchange(on_drained_, nullptr)();
}

net::awaitable<void> server::session(tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  auto self = sessions_.insert(sessions_.end(), session_state{&stream, true});
  struct guard {
    server* s;
    std::list<session_state>::iterator it;
    ~guard() { s->session_ended(it); }
  } on_exit{this, self};

  beast::error_code ec;
  peer who{stream.socket().remote_endpoint(ec).address()};
  beast::flat_buffer buffer;
  while (!stopping_) {
    self->idle = true;
    if (buffer.size() == 0) {
      stream.expires_after(limits_.idle_timeout);
      std::size_t n = co_await stream.async_read_some(buffer.prepare(read_chunk), redirect_error(use_awaitable, ec));
      if (ec) co_return;  // closed, idle too long, or stopped
      buffer.commit(n);
    }
    self->idle = false;

    // One deadline from the first byte covers reading the request and writing the
    // answer: a slow sender, or a reader that stops reading, is cut off by it.
    stream.expires_after(limits_.header_timeout);
    bhttp::request_parser<bhttp::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(limits_.header_limit));
    parser.body_limit(limits_.body_limit);
    co_await bhttp::async_read(stream, buffer, parser, redirect_error(use_awaitable, ec));

    response res;
    if (ec == bhttp::error::header_limit) {
      res = json_error(431, "headers_too_large", fmt::format("Request headers must fit in {} bytes.", limits_.header_limit));
    } else if (ec == bhttp::error::body_limit) {
      res = json_error(413, "body_too_large", fmt::format("The request body must fit in {} bytes.", limits_.body_limit));
    } else if (ec == beast::error::timeout) {
      res = json_error(408, "request_timeout", "The request did not arrive in time.");
    } else if (ec == bhttp::error::end_of_stream) {
      co_return;
    } else if (ec) {
      if (ec == net::error::operation_aborted || ec.category() != bhttp::make_error_code(bhttp::error::end_of_stream).category()) co_return;
      res = json_error(400, "bad_request", fmt::format("The request is not valid HTTP/1.1: {}.", ec.message()));
    } else {
      request req = parser.release();
      res = co_await handler_(req, who);
      res.keep_alive(req.keep_alive() && !stopping_);
    }
    co_await bhttp::async_write(stream, res, redirect_error(use_awaitable, ec));
    if (ec || !res.keep_alive()) break;
  }
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
}

}  // namespace foyer::http
