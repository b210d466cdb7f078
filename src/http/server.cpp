#include "http/server.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <cassert>
#include <ctime>
#include <pthread.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <fmt/core.h>

#include "http/problem.hpp"
#include "http/request_fields.hpp"
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

// Once the turn's other ready work on `here` has run, sends what `pending` gathered in it
// to `there` in one post, where `each` takes every item in order.
template <class Item, class Each>
void send_turn(net::io_context& here, net::io_context& there, std::vector<Item>& pending, Each each) {
  net::post(here, [&there, &pending, each] {
    auto batch = std::exchange(pending, {});
    // One allocation for the next turn's items, not one per doubling.
    pending.reserve(batch.size());
    net::post(there, [batch = std::move(batch), each]() mutable {
      for (auto& item : batch) each(item);
    });
  });
}

}  // namespace

response json_error(unsigned status, std::string_view code, std::string_view message,
                    unsigned version, bool keep_alive) {
  auto reason = bhttp::obsolete_reason(static_cast<bhttp::status>(status));
  return problem(version, keep_alive, status, code, std::string_view(reason.data(), reason.size()), message);
}

std::size_t read_buffer_limit(const server_limits& limits) {
  return std::max({limits.header_limit, limits.trailer_limit, limits.chunk_line_limit}) + read_chunk;
}

namespace {

class request_error_category : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "foyer.http.request"; }
  std::string message(int e) const override {
    switch (static_cast<request_error>(e)) {
      case request_error::too_many_fields: return "too many header fields";
      case request_error::trailer_too_large: return "trailer too large";
      case request_error::chunk_line_too_large: return "chunk line too large";
      case request_error::bad_transfer_coding: return "unsupported transfer coding";
      case request_error::bad_host: return "no Host field, more than one, or an invalid one";
    }
    return "request refused";
  }
};

// A chunked body's next bytes, which the parser waits for whole: the last chunk (a size of
// zeros), whose line and trailer end the body, or another chunk's line.
bool is_last_chunk(std::string_view pending) {
  if (pending.starts_with("\r\n")) pending.remove_prefix(2);  // the end of the chunk before
  auto digits = pending.find_first_not_of("0123456789abcdefABCDEF");
  return digits != 0 && digits != std::string_view::npos && pending.find_first_not_of('0') >= digits;
}

// RFC 3986's uri-host [":" port]: the characters of a name, an IP literal and a port, or
// nothing (a target without an authority).
bool valid_host(std::string_view value) {
  constexpr std::string_view others = "-._~%!$&'()*+,;=:[]";
  return std::all_of(value.begin(), value.end(), [others](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || others.find(c) != std::string_view::npos;
  });
}

// RFC 9112: a request's body ends where a sole, final "chunked" coding or its length says
// (6.1; any other coding would leave the end to a guess, which is how requests are
// smuggled), and a request names one valid Host, HTTP/1.1 always (3.2). A field walk by
// code: no text compares.
beast::error_code check_fields(const request& req, std::size_t max_fields) {
  bool host = false;
  bool coded = false;
  std::size_t fields = 0;
  for (const auto& f : req) {
    if (++fields > max_fields) return request_error::too_many_fields;
    if (f.name() == bhttp::field::host) {
      if (host || !valid_host(f.value())) return request_error::bad_host;
      host = true;
    } else if (f.name() == bhttp::field::transfer_encoding) {
      if (coded || !beast::iequals(trim_ows(f.value()), "chunked")) return request_error::bad_transfer_coding;
      coded = true;
    }
  }
  if (!host && req.version() >= 11) return request_error::bad_host;
  return {};
}

}  // namespace

beast::error_code make_error_code(request_error e) {
  static const request_error_category category;
  return {static_cast<int>(e), category};
}

request_reader::request_reader(const server_limits& limits) : limits_(limits) {
  parser_.eager(true);
  parser_.header_limit(static_cast<std::uint32_t>(limits.header_limit));
  parser_.body_limit(limits.body_limit);
  parser_.on_chunk_header(on_chunk_);
}

void request_reader::chunk_seen::operator()(std::uint64_t size, beast::string_view, beast::error_code&) const {
  // A copy for chunked requests only, which browsers and sites rarely send.
  if (size == 0) reader->before_trailer_ = reader->parser_.get().base();
}

bool request_reader::parse(beast::flat_buffer& buffer, beast::error_code& ec) {
  while (buffer.size() > 0) {
    buffer.consume(parser_.put(buffer.data(), ec));
    if (!header_checked_ && parser_.is_header_done() && (!ec || ec == bhttp::error::need_more)) {
      header_checked_ = true;
      if (auto refused = check_header()) {
        ec = refused;
        return true;
      }
    }
    if (ec == bhttp::error::need_more) {
      ec = {};
      // Beast bounds the header but not a chunk's line or the trailer: held whole until
      // they end, they would grow without end.
      if (parser_.chunked() && parser_.is_header_done()) ec = check_pending(buffer);
      return static_cast<bool>(ec);
    }
    if (ec) return true;
    if (parser_.is_done()) {
      drop_trailer();
      return true;
    }
  }
  return false;
}

beast::error_code request_reader::check_header() {
  auto refused = check_fields(parser_.get(), limits_.max_header_fields);
  if (refused) (void)parser_.release();  // the message goes with the temporary
  return refused;
}

beast::error_code request_reader::check_pending(const beast::flat_buffer& buffer) const {
  if (buffer.size() <= std::min(limits_.chunk_line_limit, limits_.trailer_limit)) return {};
  std::string_view pending(static_cast<const char*>(buffer.data().data()), buffer.size());
  if (is_last_chunk(pending)) {
    if (buffer.size() > limits_.trailer_limit) return request_error::trailer_too_large;
  } else if (buffer.size() > limits_.chunk_line_limit) {
    return request_error::chunk_line_too_large;
  }
  return {};
}

void request_reader::drop_trailer() {
  if (before_trailer_) parser_.get().base() = std::move(*before_trailer_);
}

void log_end(const error_log& log, std::exception_ptr e) {
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    log(fmt::format("connection ended by an error: {}", ex.what()));
  }
}

server::server(net::io_context& ioc, const tcp::endpoint& endpoint, server_limits limits, handler h, error_log log)
    : ioc_(ioc),
      acceptor_(ioc),
      accept_pause_(ioc),
      limits_(limits),
      handler_(std::move(h)),
      log_(log ? std::move(log) : [](std::string_view line) { fmt::print(stderr, "foyer: {}\n", line); }) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
  for (std::size_t i = 0; i < limits_.io_threads; ++i) {
    auto& t = *io_threads_.emplace_back(std::make_unique<io_thread>());
    hosts_.push_back(std::make_unique<connection_host>(t.ioc, ioc_, limits_, handler_, log_, open_));
  }
  if (hosts_.empty()) hosts_.push_back(std::make_unique<connection_host>(ioc_, ioc_, limits_, handler_, log_, open_));
}

void server::answer_near(const near_answers_factory& make) {
  for (auto& host : hosts_) {
    if (&host->context() != &ioc_) host->answer_near(make(host->context()));
  }
}

server::~server() {
  for (auto& t : io_threads_) {
    t->ioc.stop();
    if (t->thread.joinable()) t->thread.join();
  }
}

void server::start() {
  started_ = true;
  for (std::size_t i = 0; i < io_threads_.size(); ++i) {
    // Kept running until the server ends, between connections too.
    io_threads_[i]->thread = std::thread([&ioc = io_threads_[i]->ioc, name = fmt::format("foyer-io-{}", i + 1)] {
      // Named for top and the bench's split of CPU by thread.
      ::pthread_setname_np(::pthread_self(), name.c_str());
      auto work = net::make_work_guard(ioc);
      ioc.run();
    });
  }
  for (auto& host : hosts_) host->start();
  net::co_spawn(ioc_, accept_loop(), [this](std::exception_ptr e) { log_end(log_, e); });
}

void server::stop(std::function<void()> on_drained) {
  stopping_ = true;
  on_drained_ = std::move(on_drained);
  beast::error_code ignored;
  acceptor_.close(ignored);
  accept_pause_.cancel();
  hosts_running_ = hosts_.size();
  for (auto& host : hosts_) {
    // A host is stopped on its own thread, which reports back to this one.
    if (&host->context() == &ioc_ || !started_) {
      host->stop([this] { host_drained(); });
    } else {
      net::post(host->context(), [this, h = host.get()] {
        h->stop([this] { net::post(ioc_, [this] { host_drained(); }); });
      });
    }
  }
}

void server::host_drained() {
  if (--hosts_running_ == 0 && on_drained_) std::exchange(on_drained_, nullptr)();
}

connection_host& server::next_host() {
  auto& host = *hosts_[next_host_];
  next_host_ = (next_host_ + 1) % hosts_.size();
  return host;
}

task<void> server::accept_loop() {
  beast::error_code ec;
  // Non-blocking for the synchronous accepts below; async_accept is unaffected.
  acceptor_.non_blocking(true, ec);
  for (;;) {
    auto& host = next_host();
    // Accepted into the host's context: its socket is registered with that reactor.
    tcp_socket socket = co_await acceptor_.async_accept(host.context(), redirect_error(use_task, ec));
    if (ec) {
      if (stopping_) co_return;
      // Out of descriptors, the next accept fails at once as long as none is freed:
      // retried at once, it would spin. Other failures (a connection reset while queued)
      // concern one connection.
      if (ec == net::error::no_descriptors || ec == boost::system::errc::too_many_files_open_in_system) {
        co_await pause_accepting(ec);
      } else {
        log_(fmt::format("accept failed: {}", ec.message()));
      }
      continue;
    }
    admit(std::move(socket), host);
    // In a rush, take the whole backlog now: one connection per turn of the loop
    // leaves new visitors queued behind every request of the connected ones.
    for (;;) {
      auto& next = next_host();
      tcp_socket more = acceptor_.accept(next.context(), ec);
      if (ec) break;
      admit(std::move(more), next);
    }
  }
}

task<void> server::pause_accepting(const beast::error_code& ec) {
  ++accept_failures_;
  auto now = coarse_now();
  if (now >= next_accept_report_) {
    log_(fmt::format("accept failed {} time(s) since the last report: {}; accepting pauses {} ms each time",
                     accept_failures_, ec.message(), accept_pause.count()));
    accept_failures_ = 0;
    next_accept_report_ = now + accept_report_period;
  }
  beast::error_code ignored;
  accept_pause_.expires_after(accept_pause);
  co_await accept_pause_.async_wait(redirect_error(use_task, ignored));
}

std::size_t connections_that_fit(std::size_t max_connections, std::size_t descriptors) {
  if (descriptors >= max_connections + descriptor_headroom) return max_connections;
  std::size_t left = descriptors > 2 * descriptor_headroom ? descriptors - descriptor_headroom : descriptors / 2;
  return std::max<std::size_t>(1, std::min(max_connections, left));
}

void server::admit(tcp_socket socket, connection_host& host) {
  // Counted here, where the limit is checked: a backlog handed to the hosts must not
  // overshoot it.
  bool admitted = open_.load() < limits_.max_connections;
  if (admitted) ++open_;
  if (&host.context() == &ioc_) return host.take(std::move(socket), admitted);
  // The socket is the host's from here: only its thread touches it.
  net::post(host.context(), [&host, socket = std::move(socket), admitted]() mutable {
    host.take(std::move(socket), admitted);
  });
}

connection_host::connection_host(net::io_context& ioc, net::io_context& owner, const server_limits& limits,
                                 const handler& h, const error_log& log, std::atomic<std::size_t>& open)
    : ioc_(ioc), owner_(owner), limits_(limits), handler_(h), log_(log), open_(open), sweeper_(ioc) {}

void connection_host::start() {
  net::co_spawn(ioc_, sweep_loop(), [this](std::exception_ptr e) { log_end(log_, e); });
}

void connection_host::stop(std::function<void()> on_drained) {
  stopping_ = true;
  on_drained_ = std::move(on_drained);
  beast::error_code ignored;
  for (auto& s : sessions_) {
    // A session not yet started has no socket here; it sees stopping_ and ends.
    if (s.now == phase::idle && s.socket) s.socket->close(ignored);
  }
  finish_if_drained();
}

void connection_host::take(tcp_socket socket, bool admitted) {
  beast::error_code ec;
  socket.non_blocking(true, ec);
  if (admitted) {
    socket.set_option(tcp::no_delay(true), ec);
    peer who{socket.remote_endpoint(ec).address()};
    return serve(std::move(socket), std::move(who));
  }
  auto res = problem(11, /*keep_alive=*/false, errc::too_many_connections,
                     "The server is at its connection limit; retry shortly.");
  std::string bytes;
  res.serialize(bytes);
  // Best effort and never waited for: one short answer into the socket's buffer.
  socket.write_some(net::buffer(bytes), ec);
  socket.close(ec);
}

task<response> connection_host::answer(request& req, const peer& who) {
  if (&ioc_ == &owner_) return handler_(req, who);
  // The rooms are the owner's alone: the handler runs there, and its answer comes back.
  return net::async_initiate<const net::use_awaitable_t<executor>, void(std::exception_ptr, response)>(
      [this, &req, &who](auto done) { hand_over({&req, &who, answered(std::move(done))}); }, use_task);
}

void connection_host::hand_over(handed h) {
  assert(ioc_.get_executor().running_in_this_thread() && "a request handed over off its host's thread");
  if (to_owner_.empty()) send_turn(ioc_, owner_, to_owner_, [this](handed& h) { run_at_owner(std::move(h)); });
  to_owner_.push_back(std::move(h));
}

void connection_host::run_at_owner(handed h) {
  assert(owner_.get_executor().running_in_this_thread() && "a handler runs off the owner's loop");
  net::co_spawn(
      owner_, [this, req = h.req, who = h.who] { return handler_(*req, *who); },
      [this, done = std::move(h.done)](std::exception_ptr failure, response res) mutable {
        hand_back({std::move(done), failure, std::move(res)});
      });
}

void connection_host::hand_back(handed_back a) {
  assert(owner_.get_executor().running_in_this_thread() && "an answer handed back off the owner's loop");
  // The answers of one turn of the owner (a group commit's joins) go back together.
  if (from_owner_.empty()) {
    send_turn(owner_, ioc_, from_owner_, [](handed_back& a) { std::move(a.done)(a.failure, std::move(a.res)); });
  }
  from_owner_.push_back(std::move(a));
}

task<void> connection_host::sweep_loop() {
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

void connection_host::enter(session_ref s, phase p) {
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

void connection_host::linger(session_ref s) {
  s->now = phase::writing;
  s->deadline = coarse_now() + lingering_time;
}

void connection_host::session_ended(session_ref it) {
  // A host's sessions are its own thread's: no lock guards them.
  assert(ioc_.get_executor().running_in_this_thread() && "a session touched off its host's thread");
  sessions_.erase(it);
  --open_;
  finish_if_drained();
}

void connection_host::finish_if_drained() {
  if (!stopping_ || !sessions_.empty()) return;
  sweeper_.cancel();
  if (on_drained_) std::exchange(on_drained_, nullptr)();
}

}  // namespace foyer::http
