#pragma once
// HTTP/1.1 server on Beast's parser: one coroutine per connection, keep-alive, limits,
// and a graceful stop. Handlers run on the owner's io_context thread; connections are
// carried there too, or by I/O threads of their own.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstddef>
#include <exception>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>  // boost/asio/awaitable.hpp uses std::exchange without it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "core/base/unique_function.hpp"
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
using steady_timer = net::basic_waitable_timer<std::chrono::steady_clock, net::wait_traits<std::chrono::steady_clock>, executor>;
using time_point = std::chrono::steady_clock::time_point;
using request = beast::http::request<beast::http::string_body>;

struct peer {
  net::ip::address address;
};

using handler = std::function<task<response>(request&, const peer&)>;

struct server_limits {
  // Apply reasonable limits to the size of a request to prevent abuse.
  std::size_t header_limit = 8 * 1024;  // Default: 8 KiB of request line and headers
  std::size_t body_limit = 16 * 1024;   // Default: 16 KiB of body
  // Beast keeps each field in a node of its own, about 80 bytes: without a count, 8 KiB of
  // tiny fields would cost 160 KiB.
  std::size_t max_header_fields = 100;  // Default: 100 fields
  // A chunked body's last chunk line and trailer (whose fields are read and dropped).
  std::size_t trailer_limit = 4 * 1024;  // Default: 4 KiB
  // One chunk's size line, extensions included.
  std::size_t chunk_line_limit = 1024;  // Default: 1 KiB
  // A connection keeps its answer buffer between requests up to this capacity; a larger
  // answer's buffer is freed once written.
  std::size_t kept_answer_buffer = 16 * 1024;  // Default: 16 KiB
  // A request must arrive whole this soon after its first byte (slow senders are cut).
  std::chrono::milliseconds header_timeout{10'000};  // Default: 10 s
  // A keep-alive connection may wait this long for its next request.
  std::chrono::milliseconds idle_timeout{60'000};  // Default: 60 s
  std::size_t max_connections = 10'000;  // Default: 10,000 open connections
  // Threads that carry connections beside the owner's loop: they read, parse and write,
  // and hand each request to the loop. 0: the loop does it all.
  std::size_t io_threads = 0;
  // Requests each I/O thread may have waiting on the loop at once; past it, 503 overloaded
  // with Retry-After, at once from the I/O thread. The loop's own connections are bounded
  // by max_connections alone.
  std::size_t loop_queue = 1024;  // Default: 1,024
};

// Bytes a connection reads per read.
inline constexpr std::size_t read_chunk = 4096;

// The most a connection's read buffer holds: the largest unit the parser waits for whole
// (the header, a chunk line, or the last chunk and trailer), a read past it, and no more.
// Pipelined requests wait in the buffer under the same bound, then in the kernel's.
std::size_t read_buffer_limit(const server_limits& limits);

using request_parser = beast::http::request_parser<beast::http::string_body>;

// Descriptors the server needs besides its connections: RocksDB's table files (it keeps at
// most 512 open), its log, manifest and lock, the listener, the reactor's own, stdio, the
// sinks' files and sockets, and outbound calls, with room to spare.
inline constexpr std::size_t descriptor_headroom = 640;

// The connections that fit in `descriptors` (the process's limit) beside the headroom: all
// of max_connections if they do, else what is left, or half the descriptors where the
// headroom alone would not fit (a small test limit; the accept loop's pause covers the rest).
std::size_t connections_that_fit(std::size_t max_connections, std::size_t descriptors);

// Out of descriptors, the accept loop waits this long before it accepts again (nginx's
// accept_mutex_delay does the same), and says so at most once per report period.
inline constexpr std::chrono::milliseconds accept_pause{200};
inline constexpr std::chrono::seconds accept_report_period{10};

// A refused request's remaining bytes are read and dropped this long before the
// connection closes, so that the refusal reaches the client (see session_loop.hpp).
inline constexpr std::chrono::milliseconds lingering_time{2000};

// What a request is refused for beyond Beast's parser's own errors.
enum class request_error {
  too_many_fields = 1,    // 431
  trailer_too_large,      // 431
  chunk_line_too_large,   // 400
  bad_transfer_coding,    // 400: anything but a sole, final "chunked" (RFC 9112, 6.1)
  bad_host,               // 400: one valid Host, always in HTTP/1.1 (RFC 9112, 3.2)
};
beast::error_code make_error_code(request_error e);

// One request read from a connection's buffer, as the session reads: Beast's parser bound
// by the limits, with the framing checked and the fields of a chunked trailer dropped (a
// credential there would otherwise count as a header).
class request_reader {
 public:
  explicit request_reader(const server_limits& limits);
  request_reader(const request_reader&) = delete;
  request_reader& operator=(const request_reader&) = delete;

  // Feeds what has arrived in `buffer` to the parser: true once the request is complete
  // or refused (ec set), false when the parser needs more bytes. What it parsed is
  // consumed; pipelined bytes after the request stay in the buffer.
  bool parse(beast::flat_buffer& buffer, beast::error_code& ec);
  request release() { return parser_.release(); }

 private:
  // Beast calls it for each chunk's line; the last one (size 0) comes before its trailer.
  struct chunk_seen {
    request_reader* reader;
    void operator()(std::uint64_t size, beast::string_view extensions, beast::error_code& ec) const;
  };
  // Refuses a chunk line or trailer that has grown past its limit unfinished.
  beast::error_code check_pending(const beast::flat_buffer& buffer) const;
  // Once the header is parsed: its field count and framing. A refused request's fields
  // are freed at once, not kept while the refusal is written.
  beast::error_code check_header();
  // Once the request is whole: drops the trailer's fields.
  void drop_trailer();

  const server_limits& limits_;
  request_parser parser_;
  chunk_seen on_chunk_{this};
  // The header as it was before the trailer, once the last chunk is seen: Beast merges a
  // trailer's fields into the header's, filing a repeated name beside its first.
  std::optional<beast::http::request_header<>> before_trailer_;
  bool header_checked_ = false;
};

// A problem-details answer (http/problem.hpp) for callers that name the error by its
// code string; titled by the status's reason phrase.
response json_error(unsigned status, std::string_view code, std::string_view message,
                    unsigned version = 11, bool keep_alive = false);

// Where the server reports a failed accept, connection or answer, one line each.
using error_log = std::function<void(std::string_view)>;

// Logs how one of the server's coroutines ended: an exception is logged, a normal end is not.
void log_end(const error_log& log, std::exception_ptr e);

// Answers, on a connection's own I/O thread, the requests it can without the owner's
// loop (http/poll_desk.hpp); none sends the request on to the loop. One per I/O thread,
// used on that thread only.
class near_answers {
 public:
  virtual ~near_answers() = default;
  virtual std::optional<response> answer(const request& req) = 0;
};

// The near answers for the I/O thread that runs `home`.
using near_answers_factory = std::function<std::unique_ptr<near_answers>(net::io_context& home)>;

// The connections one io_context carries: their sessions, the sweeper of their deadlines,
// and their drain. Everything here runs on that io_context's thread. With I/O threads each
// carries its share of the connections and runs every request's handler on the owner's
// loop, the one thread that holds the rooms; without, the owner's loop carries them all.
class connection_host {
 public:
  // `open` counts the server's connections over every host; `owner` runs the handlers.
  connection_host(net::io_context& ioc, net::io_context& owner, const server_limits& limits, const handler& h,
                  const error_log& log, std::atomic<std::size_t>& open);
  connection_host(const connection_host&) = delete;
  connection_host& operator=(const connection_host&) = delete;

  net::io_context& context() { return ioc_; }
  void start();
  // Closes idle connections; requests in flight finish and are answered, then their
  // connections close. `on_drained` runs on this host's thread once none is left.
  void stop(std::function<void()> on_drained);
  // Before start(): what this host answers on its own thread (an I/O thread's only).
  void answer_near(std::unique_ptr<near_answers> near) { near_ = std::move(near); }
  // A connection the server accepted: served when `admitted` (counted in `open`),
  // otherwise refused with 503.
  void take(tcp_socket socket, bool admitted);
  // Serves one connection, already counted in `open`, until it ends (server::serve).
  template <typename Stream>
  void serve(Stream stream, peer who);

 private:
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

  // One connection's loop: read, parse, answer, write, while the client keeps it alive.
  template <typename Stream>
  task<void> session(Stream stream, session_ref self, peer who);
  // The handler's answer, computed on the owner's loop.
  task<response> answer(request& req, const peer& who);
  // Off the owner's loop, requests and answers cross between the threads in batches: one
  // post each way per turn of a thread's loop, not one per request. The other thread then
  // wakes once for all of them and runs them in one of its turns: the two crossings of a
  // request cost less than what moving it off the loop saves.
  using answered = unique_function<void(std::exception_ptr, response)>;
  struct handed {  // a request on its way to the owner
    request* req;
    const peer* who;
    answered done;  // the session's completion, called on this host's thread
  };
  struct handed_back {  // an answer on its way back
    answered done;
    std::exception_ptr failure;
    response res;
  };
  // On this host's thread: gathers the request, and posts the turn's batch to the owner.
  void hand_over(handed h);
  // On the owner's loop: runs the handler; its answer goes to hand_back.
  void run_at_owner(handed h);
  // On the owner's loop: gathers the answer, and posts the turn's batch to this host.
  void hand_back(handed_back a);
  task<void> sweep_loop();
  void enter(session_ref s, phase p);
  // After a refusal: the sweeper closes the connection once lingering_time has passed.
  void linger(session_ref s);
  void session_ended(session_ref it);
  // Once stopping and no session is left: ends the sweeper and reports the drain.
  void finish_if_drained();

  net::io_context& ioc_;
  net::io_context& owner_;
  const server_limits& limits_;
  const handler& handler_;
  const error_log& log_;
  std::atomic<std::size_t>& open_;
  steady_timer sweeper_;
  std::list<session_state> sessions_;
  bool stopping_ = false;
  std::function<void()> on_drained_;
  std::unique_ptr<near_answers> near_;
  // Requests handed to the owner's loop and not yet answered (limits.loop_queue).
  std::size_t at_owner_ = 0;
  // This turn's requests for the owner, touched on this host's thread only; and this
  // turn's answers for this host, touched on the owner's loop only.
  std::vector<handed> to_owner_;
  std::vector<handed_back> from_owner_;
};

class server {
 public:
  // Without `log`, errors go to stderr as plain text. The I/O threads (limits.io_threads)
  // start with start().
  server(net::io_context& ioc, const tcp::endpoint& endpoint, server_limits limits, handler h, error_log log = {});
  server(const server&) = delete;
  server& operator=(const server&) = delete;
  // Ends the I/O threads. Destroy the server once drained (stop()), or before start().
  ~server();

  tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }
  // Before start(): each I/O thread answers what `make` gives it can, without the loop.
  // Nothing without I/O threads: the loop answers everything there.
  void answer_near(const near_answers_factory& make);
  void start();
  // Stops accepting and closes idle connections; requests in flight finish and are
  // answered, then their connections close. `on_drained` runs on the owner's loop once
  // none is left.
  void stop(std::function<void()> on_drained);

  // Serves one connection over `stream` until it ends, as each accepted socket is served:
  // the seam through which the session is tested with beast::test::stream. `Stream` reads
  // and writes like a socket (AsyncReadStream, SyncWriteStream, AsyncWriteStream) on this
  // io_context and has close(); as an lvalue reference it stays its owner's, who keeps it
  // until the session ends (a test, to count its reads and writes). Defined in
  // http/session_loop.hpp, which callers include. The timeouts and stop() reach sockets
  // only: another stream is served until it ends. Without I/O threads only.
  template <typename Stream>
  void serve(Stream stream, peer who);
  // The connections being served, counted from their acceptance.
  std::size_t session_count() const { return open_.load(); }

 private:
  // A thread of its own running an io_context, which carries connections.
  struct io_thread {
    net::io_context ioc{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO};
    std::thread thread;
  };

  task<void> accept_loop();
  // Out of descriptors: counts the failure, reports it at most once per period, and waits.
  task<void> pause_accepting(const beast::error_code& ec);
  // Hands the connection to `host`, or refuses it when at the limit.
  void admit(tcp_socket socket, connection_host& host);
  // The host the next connection goes to: the I/O threads take turns.
  connection_host& next_host();
  void host_drained();

  net::io_context& ioc_;
  net::basic_socket_acceptor<tcp, executor> acceptor_;
  steady_timer accept_pause_;
  // Accepts that failed for want of descriptors since the last report, and when the next
  // report may be written.
  std::size_t accept_failures_ = 0;
  time_point next_accept_report_{};
  server_limits limits_;
  handler handler_;
  error_log log_;
  std::atomic<std::size_t> open_{0};
  // Declared before the hosts, whose timers and sockets are destroyed before their contexts.
  std::vector<std::unique_ptr<io_thread>> io_threads_;
  std::vector<std::unique_ptr<connection_host>> hosts_;
  std::size_t next_host_ = 0;
  bool started_ = false;
  bool stopping_ = false;
  std::size_t hosts_running_ = 0;
  std::function<void()> on_drained_;
};

}  // namespace foyer::http

template <>
struct boost::system::is_error_code_enum<foyer::http::request_error> : std::true_type {};
