#include "http/server.hpp"

#include <algorithm>
#include <ctime>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <fmt/core.h>

#include "http/problem.hpp"
#include "http/session_loop.hpp"

namespace foyer::http {
namespace {

namespace bhttp = beast::http;
using net::redirect_error;
using std::chrono::milliseconds;

// Deadlines are checked a few times a second: the coarse clock (a few ms) is precise
// enough and costs less than the fine one, read three times per request.
std::chrono::steady_clock::time_point coarse_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return std::chrono::steady_clock::time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
}

}  // namespace

response json_error(unsigned status, std::string_view code, std::string_view message,
                    unsigned version, bool keep_alive) {
  auto reason = bhttp::obsolete_reason(static_cast<bhttp::status>(status));
  return problem(version, keep_alive, status, code, std::string_view(reason.data(), reason.size()), message);
}

void apply_limits(request_parser& parser, const server_limits& limits) {
  parser.eager(true);
  parser.header_limit(static_cast<std::uint32_t>(limits.header_limit));
  parser.body_limit(limits.body_limit);
}

bool parse_buffered(request_parser& parser, beast::flat_buffer& buffer, beast::error_code& ec) {
  while (buffer.size() > 0) {
    buffer.consume(parser.put(buffer.data(), ec));
    if (ec == bhttp::error::need_more) {
      ec = {};
      return false;
    }
    if (ec || parser.is_done()) return true;
  }
  return false;
}

server::server(net::io_context& ioc, const tcp::endpoint& endpoint, server_limits limits, handler h, error_log log)
    : ioc_(ioc),
      acceptor_(ioc),
      sweeper_(ioc),
      limits_(limits),
      handler_(std::move(h)),
      log_(log ? std::move(log) : [](std::string_view line) { fmt::print(stderr, "foyer: {}\n", line); }) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
}

void server::report_end(std::exception_ptr e) const {
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    log_(fmt::format("connection ended by an error: {}", ex.what()));
  }
}

void server::start() {
  net::co_spawn(ioc_, accept_loop(), [this](std::exception_ptr e) { report_end(e); });
  net::co_spawn(ioc_, sweep_loop(), [this](std::exception_ptr e) { report_end(e); });
}

void server::stop(std::function<void()> on_drained) {
  stopping_ = true;
  on_drained_ = std::move(on_drained);
  beast::error_code ignored;
  acceptor_.close(ignored);
  for (auto& s : sessions_) {
    // A session not yet started has no socket here; it sees stopping_ and ends.
    if (s.now == phase::idle && s.socket) s.socket->close(ignored);
  }
  finish_if_drained();
}

task<void> server::accept_loop() {
  beast::error_code ec;
  // Non-blocking for the synchronous accepts below; async_accept is unaffected.
  acceptor_.non_blocking(true, ec);
  for (;;) {
    tcp_socket socket = co_await acceptor_.async_accept(redirect_error(use_task, ec));
    if (ec) {
      if (stopping_) co_return;
      // Out of file descriptors and the like: keep serving the connections we have.
      log_(fmt::format("accept failed: {}", ec.message()));
      continue;
    }
    admit(std::move(socket));
    // In a rush, take the whole backlog now: one connection per turn of the loop
    // leaves new visitors queued behind every request of the connected ones.
    for (;;) {
      tcp_socket next(ioc_);
      acceptor_.accept(next, ec);
      if (ec) break;
      admit(std::move(next));
    }
  }
}

void server::admit(tcp_socket socket) {
  if (sessions_.size() < limits_.max_connections) {
    beast::error_code ec;
    socket.set_option(tcp::no_delay(true), ec);
    socket.non_blocking(true, ec);
    peer who{socket.remote_endpoint(ec).address()};
    serve(std::move(socket), std::move(who));
    return;
  }
  auto res = problem(11, /*keep_alive=*/false, errc::too_many_connections,
                     "The server is at its connection limit; retry shortly.");
  std::string bytes;
  res.serialize(bytes);
  // Best effort and never waited for: one short answer into the socket's buffer.
  beast::error_code ec;
  socket.non_blocking(true, ec);
  socket.write_some(net::buffer(bytes), ec);
  socket.close(ec);
}

task<void> server::sweep_loop() {
  auto period = std::clamp(std::min(limits_.header_timeout, limits_.idle_timeout) / 4, milliseconds(50), milliseconds(1000));
  for (;;) {
    beast::error_code ec;
    sweeper_.expires_after(period);
    co_await sweeper_.async_wait(redirect_error(use_task, ec));
    if (ec || (stopping_ && sessions_.empty())) co_return;
    auto now = coarse_now();
    for (auto& s : sessions_) {
      if (s.deadline > now || !s.socket) continue;
      if (s.now == phase::reading && !s.timed_out) {
        // A slow sender gets its 408 before the connection closes.
        s.timed_out = true;
        s.deadline = now + limits_.header_timeout;
        s.socket->cancel(ec);
      } else {
        s.socket->close(ec);
      }
    }
  }
}

void server::enter(session_ref s, phase p) {
  s->now = p;
  switch (p) {
    case phase::idle: s->deadline = coarse_now() + limits_.idle_timeout; break;
    // One deadline from the first byte covers the whole request; the answer gets as long.
    case phase::reading:
    case phase::writing: s->deadline = coarse_now() + limits_.header_timeout; break;
    // Once accepted, a request is answered however long the work takes (a durable
    // write waits for the disk): cutting it would lose an answer already decided.
    case phase::handling: s->deadline = time_point::max(); break;
  }
}

void server::session_ended(session_ref it) {
  sessions_.erase(it);
  finish_if_drained();
}

void server::finish_if_drained() {
  if (!stopping_ || !sessions_.empty()) return;
  sweeper_.cancel();
  if (on_drained_) std::exchange(on_drained_, nullptr)();
}

}  // namespace foyer::http
