#include "delivery/webhook_sink.hpp"

#include <boost/asio/co_spawn.hpp>
#include <fmt/core.h>

#include "core/ops/webhook_signature.hpp"
#include "delivery/http_exchange.hpp"

namespace foyer::delivery {
namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
using net::redirect_error;
using net::use_awaitable;

// A receiver's answer is read only for its status: a larger body is its fault.
constexpr std::size_t webhook_answer_limit = 64 * 1024;

}  // namespace

webhook_sink::webhook_sink(net::io_context& ioc, const clock& clock, const sink_config& c)
    : sink(ioc, c),
      ioc_(ioc),
      clock_(clock),
      url_(c.url),
      key_(c.key),
      timeout_(c.timeout),
      tls_context_(verifying_client_context()),
      resolver_(ioc) {}

void webhook_sink::stop() {
  sink::stop();
  resolver_.cancel();
  // Closing the socket ends whatever waits on it; the attempt then drops the stream
  // itself, once nothing is pending on it.
  if (plain_) plain_->close();
  if (tls_) beast::get_lowest_layer(*tls_).close();
}

void webhook_sink::close() {
  plain_.reset();
  tls_.reset();
  buffer_.clear();
}

void webhook_sink::attempt(std::vector<envelope> entries, std::function<void(std::string problem)> done) {
  net::co_spawn(ioc_, deliver(std::move(entries.front())),
                [done = std::move(done)](std::exception_ptr failure, std::string problem) {
                  done(failure ? "delivery failed unexpectedly" : std::move(problem));
                });
}

net::awaitable<std::string> webhook_sink::deliver(envelope e) {
  auto first = co_await send(e);
  // A kept-alive connection the receiver has closed meanwhile fails at once: one more
  // try on a new connection, before it counts as a failure.
  if (!first.stale || stopped()) co_return std::move(first.problem);
  auto second = co_await send(e);
  co_return std::move(second.problem);
}

net::awaitable<webhook_sink::sent> webhook_sink::send(const envelope& e) {
  bool reused = connected();
  auto where = fmt::format("{}://{}{}", url_.tls ? "https" : "http", url_.authority, url_.target);
  if (!connected()) {
    auto ec = co_await connect();
    if (ec) {
      close();
      co_return sent{fmt::format("{}: cannot connect: {}", where, ec.message())};
    }
  }
  auto timestamp = clock_.now_ms() / 1000;
  http_request req{bhttp::verb::post, url_.target, 11};
  req.set(bhttp::field::host, url_.authority);
  req.set(bhttp::field::user_agent, "foyer");
  req.set(bhttp::field::content_type, "application/cloudevents+json");
  req.set("webhook-id", e.id);
  req.set("webhook-timestamp", std::to_string(timestamp));
  req.set("webhook-signature", webhook_signature(key_, e.id, timestamp, e.json));
  req.keep_alive(true);
  req.body() = e.json;
  req.prepare_payload();

  std::optional<answer_parser> parser;
  beast::error_code ec;
  if (tls_) {
    ec = co_await exchange(*tls_, buffer_, req, parser, webhook_answer_limit, timeout_);
  } else {
    ec = co_await exchange(*plain_, buffer_, req, parser, webhook_answer_limit, timeout_);
  }
  if (ec) {
    close();
    bool closed = ec == bhttp::error::end_of_stream || ec == net::error::eof || ec == net::error::connection_reset ||
                  ec == net::error::broken_pipe;
    co_return sent{fmt::format("{}: no answer: {}", where, ec.message()), reused && closed};
  }
  const auto& answer = parser->get();
  if (!answer.keep_alive()) close();
  if (answer.result_int() / 100 != 2) co_return sent{fmt::format("{}: answered {}", where, answer.result_int())};
  co_return sent{};
}

net::awaitable<boost::system::error_code> webhook_sink::connect() {
  beast::error_code ec;
  auto endpoints = co_await resolver_.async_resolve(url_.host, url_.port, redirect_error(use_awaitable, ec));
  if (!ec && stopped()) ec = net::error::operation_aborted;  // a stop raced the answer
  if (ec) co_return ec;
  if (!url_.tls) {
    plain_ = std::make_unique<beast::tcp_stream>(ioc_);
    co_return co_await delivery::connect(*plain_, endpoints, timeout_);
  }
  tls_ = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(ioc_, tls_context_);
  co_return co_await delivery::connect(*tls_, url_.host, endpoints, timeout_);
}

}  // namespace foyer::delivery
