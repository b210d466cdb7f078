#pragma once
// HTTP/1.1 server on Beast's parser: one coroutine per connection, keep-alive, limits,
// and a graceful stop. Runs on one io_context thread; handlers run there too.

#include <chrono>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "http/response.hpp"

namespace foyer::http {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

// Coroutines and I/O objects name the io_context's own executor type. Asio's default,
// any_io_executor, erases the type and pays an indirect call and a copy at every
// suspension and every socket operation: a visible share of a status poll.
using executor = net::io_context::executor_type;
template <typename T>
using task = net::awaitable<T, executor>;
inline constexpr net::use_awaitable_t<executor> use_task;
using tcp_socket = net::basic_stream_socket<tcp, executor>;
using request = beast::http::request<beast::http::string_body>;

struct peer {
  net::ip::address address;
};

using handler = std::function<task<response>(request&, const peer&)>;

struct server_limits {
  // Apply reasonable limits to the size of a request to prevent abuse.
  std::size_t header_limit = 8 * 1024;  // Default: 8 KiB of request line and headers
  std::size_t body_limit = 16 * 1024;   // Default: 16 KiB of body
  // A request must arrive whole this soon after its first byte (slow senders are cut).
  std::chrono::milliseconds header_timeout{10'000};  // Default: 10 s
  // A keep-alive connection may wait this long for its next request.
  std::chrono::milliseconds idle_timeout{60'000};  // Default: 60 s
  std::size_t max_connections = 10'000;  // Default: 10,000 open connections
};

using request_parser = beast::http::request_parser<beast::http::string_body>;

// A parser for the next request on a connection, bounded by the limits.
void apply_limits(request_parser& parser, const server_limits& limits);

// Feeds what has arrived in `buffer` to the parser, as the session reads: true once the
// request is complete or refused (ec set), false when the parser needs more bytes. What
// it parsed is consumed; pipelined bytes after the request stay in the buffer.
bool parse_buffered(request_parser& parser, beast::flat_buffer& buffer, beast::error_code& ec);

// A problem-details answer (http/problem.hpp) for callers that name the error by its
// code string; titled by the status's reason phrase.
response json_error(unsigned status, std::string_view code, std::string_view message,
                    unsigned version = 11, bool keep_alive = false);

// Where the server reports a failed accept, connection or answer, one line each.
using error_log = std::function<void(std::string_view)>;

class server {
 public:
  // Without `log`, errors go to stderr as plain text.
  server(net::io_context& ioc, const tcp::endpoint& endpoint, server_limits limits, handler h, error_log log = {});
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }
  void start();
  // Stops accepting and closes idle connections; requests in flight finish and are
  // answered, then their connections close. `on_drained` runs once none is left.
  void stop(std::function<void()> on_drained);

  // Serves one connection over `stream` until it ends, as each accepted socket is served:
  // the seam through which the session is tested with beast::test::stream. `Stream` reads
  // and writes like a socket (AsyncReadStream, SyncWriteStream, AsyncWriteStream) on this
  // io_context and has close(); as an lvalue reference it stays its owner's, who keeps it
  // until the session ends (a test, to count its reads and writes). Defined in
  // http/session_loop.hpp, which callers include. The timeouts and stop() reach sockets
  // only: another stream is served until it ends.
  template <typename Stream>
  void serve(Stream stream, peer who);
  // The connections being served, counted from their acceptance.
  std::size_t session_count() const { return sessions_.size(); }

 private:
  using time_point = std::chrono::steady_clock::time_point;
  enum class phase { idle, reading, handling, writing };
  struct session_state {
    tcp_socket* socket = nullptr;  // what the sweeper and stop() close; none for other streams
    phase now = phase::idle;
    // Checked by the sweeper rather than armed per request: a timer per read and per
    // write costs more than the request it guards.
    time_point deadline = time_point::max();
    bool timed_out = false;
  };
  using session_ref = std::list<session_state>::iterator;

  // One of the server's coroutines ended: by an exception, which is logged, or normally.
  void report_end(std::exception_ptr e) const;
  task<void> accept_loop();
  // Starts a session, or refuses the connection when at the limit.
  void admit(tcp_socket socket);
  // One connection's loop: read, parse, answer, write, while the client keeps it alive.
  template <typename Stream>
  task<void> session(Stream stream, session_ref self, peer who);
  task<void> sweep_loop();
  void enter(session_ref s, phase p);
  void session_ended(session_ref it);
  // Once stopping and no session is left: ends the sweeper and reports the drain.
  void finish_if_drained();

  net::io_context& ioc_;
  net::basic_socket_acceptor<tcp, executor> acceptor_;
  net::basic_waitable_timer<std::chrono::steady_clock, net::wait_traits<std::chrono::steady_clock>, executor> sweeper_;
  server_limits limits_;
  handler handler_;
  error_log log_;
  std::list<session_state> sessions_;
  bool stopping_ = false;
  std::function<void()> on_drained_;
};

}  // namespace foyer::http
