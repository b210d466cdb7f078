#pragma once
// A connection's loop, over any stream that reads and writes like a socket: server.cpp
// runs it on TCP sockets, the session's tests on beast::test::stream. A template in a
// header, so that the socket's calls stay direct: it is the server's hot path.

#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <fmt/core.h>

#include "http/problem.hpp"
#include "http/server.hpp"

namespace foyer::http {
namespace detail {

inline bool is_http_error(const beast::error_code& ec) {
  return ec.category() == beast::http::make_error_code(beast::http::error::end_of_stream).category();
}

// The end of the server's side of a connection. A socket shuts down its sending half:
// the peer reads every answer, then the end. Another stream closes.
inline void end_answers(tcp_socket& socket) {
  beast::error_code ignored;
  socket.shutdown(tcp_socket::shutdown_send, ignored);
}
template <typename Stream>
void end_answers(Stream& stream) {
  stream.close();
}

}  // namespace detail

template <typename Stream>
void server::serve(Stream stream, peer who) {
  ++open_;
  hosts_.front()->serve<Stream>(std::forward<Stream>(stream), std::move(who));
}

template <typename Stream>
void connection_host::serve(Stream stream, peer who) {
  auto self = sessions_.insert(sessions_.end(), session_state{});
  net::co_spawn(ioc_, session<Stream>(std::forward<Stream>(stream), self, std::move(who)),
                [this](std::exception_ptr e) { log_end(log_, e); });
}

template <typename Stream>
task<void> connection_host::session(Stream stream, session_ref self, peer who) {
  namespace bhttp = beast::http;
  using net::redirect_error;
  if constexpr (std::is_same_v<Stream, tcp_socket>) self->socket = &stream;
  struct guard {
    connection_host* s;
    session_ref it;
    ~guard() { s->session_ended(it); }
  } on_exit{this, self};

  beast::error_code ec;
  // Bounded, so that no path the parser leaves open can grow it: see read_buffer_limit.
  beast::flat_buffer buffer(read_buffer_limit(limits_));
  std::string out;
  bool answered = false;
  bool refused = false;
  while (!stopping_) {
    enter(self, phase::idle);
    request_reader reader(limits_);
    // Parse what has arrived; read more only when the parser needs it, so pipelined
    // requests are answered without waiting for the network.
    for (;;) {
      if (buffer.size() > 0) {
        if (self->now == phase::idle) enter(self, phase::reading);
        if (reader.parse(buffer, ec)) break;
      }
      // Right after an answer the client has rarely sent its next request yet, and a
      // read now would be a system call that finds nothing. Other ready work goes
      // first, which gives the request time to arrive.
      if (answered && self->now == phase::idle) co_await net::post(ioc_, use_task);
      std::size_t n =
          co_await stream.async_read_some(buffer.prepare(read_chunk), redirect_error(use_task, ec));
      if (ec) break;
      buffer.commit(n);
    }

    response res;
    auto refuse = [](errc e, std::string_view detail) { return problem(11, /*keep_alive=*/false, e, detail); };
    // The request first: the refusals below cost a comparison each.
    if (!ec) {
      enter(self, phase::handling);
      request req = reader.release();
      // Caught here: a coroutine of its own around the handler would cost a frame per request.
      try {
        // Not one conditional expression: GCC 12 miscompiles a co_await inside one.
        if (auto near = near_ ? near_->answer(req) : std::nullopt) {
          res = std::move(*near);
        } else if (&ioc_ != &owner_ && at_owner_ >= limits_.loop_queue) {
          // The loop is behind: this thread has as many requests waiting on it as it may.
          res = problem(req, errc::overloaded, "Many requests at once: ask again later.");
        } else {
          ++at_owner_;
          struct counted {
            std::size_t& n;
            ~counted() { --n; }
          } waiting{at_owner_};
          res = co_await answer(req, who);
        }
      } catch (const std::exception& e) {
        // A fault of this answer, not of the connection: the client hears so, and the
        // next request on the connection is served.
        log_(fmt::format("{} {} failed: {}", std::string_view(req.method_string()),
                         std::string_view(req.target()).substr(0, req.target().find('?')), e.what()));
        res = problem(req, errc::internal_error, "The server failed to answer this request.");
      }
      // A HEAD answer names the length of the body a GET would get, and sends none.
      if (req.method() == bhttp::verb::head && !res.body().empty()) {
        res.content_length(res.body().size());
        res.body().clear();
      }
      res.keep_alive(req.keep_alive() && !stopping_);
    } else if (ec == bhttp::error::header_limit) {
      res = refuse(errc::headers_too_large, fmt::format("Request headers must fit in {} bytes.", limits_.header_limit));
    } else if (ec == bhttp::error::body_limit) {
      res = refuse(errc::body_too_large, fmt::format("The request body must fit in {} bytes.", limits_.body_limit));
    } else if (ec == request_error::too_many_fields) {
      res = refuse(errc::headers_too_large,
                   fmt::format("A request may have at most {} header fields.", limits_.max_header_fields));
    } else if (ec == request_error::trailer_too_large) {
      res = refuse(errc::headers_too_large,
                   fmt::format("The last chunk and trailer must fit in {} bytes.", limits_.trailer_limit));
    } else if (ec == request_error::chunk_line_too_large) {
      res = refuse(errc::bad_request,
                   fmt::format("A chunk's size line must fit in {} bytes, extensions included.", limits_.chunk_line_limit));
    } else if (ec == request_error::bad_transfer_coding) {
      res = refuse(errc::bad_request, "Transfer-Encoding may only be chunked, alone; the body's end is otherwise unknown.");
    } else if (ec == request_error::bad_host) {
      res = refuse(errc::bad_request, "A request names its Host once, as a host and port; HTTP/1.1 must name it.");
    } else if (ec == net::error::operation_aborted && self->timed_out) {
      res = refuse(errc::request_timeout, "The request did not arrive in time.");
    } else if (detail::is_http_error(ec)) {
      res = refuse(errc::bad_request, fmt::format("The request is not valid HTTP/1.1: {}.", ec.message()));
    } else {
      co_return;  // closed by the peer, idle too long, or stopped
    }
    // A slow sender cut at its deadline is not waited for again.
    refused = ec.failed() && !self->timed_out;
    enter(self, phase::writing);
    res.serialize(out);
    // An answer almost always fits in the socket's buffer: write it now, and wait for
    // the socket only for what did not fit. That saves a turn of the loop per request.
    std::size_t sent = stream.write_some(net::buffer(out), ec);
    if (ec == net::error::would_block || ec == net::error::try_again) {
      ec = {};
      sent = 0;
    }
    if (!ec && sent < out.size()) {
      co_await net::async_write(stream, net::buffer(out) + sent, redirect_error(use_task, ec));
    }
    if (ec || !res.keep_alive()) break;
    // One large answer must not pin its buffer for the connection's life.
    if (out.capacity() > limits_.kept_answer_buffer) std::string().swap(out);
    answered = true;
  }
  detail::end_answers(stream);
  if constexpr (std::is_same_v<Stream, tcp_socket>) {
    // A refused request may still be arriving. Closed with its bytes unread, the socket
    // would be reset, and the reset can overtake the refusal on its way to the client:
    // what comes is read and dropped for a moment first, as nginx's lingering close does.
    if (refused && !stopping_) {
      linger(self);
      do {
        buffer.consume(buffer.size());
        co_await stream.async_read_some(buffer.prepare(read_chunk), redirect_error(use_task, ec));
      } while (!ec);
    }
  }
}

}  // namespace foyer::http
