#pragma once
// Delivers envelopes to a webhook, one CloudEvent per POST (structured mode,
// `application/cloudevents+json`), signed per Standard Webhooks: `webhook-id` (the
// envelope's id, the same on every retry), `webhook-timestamp` (unix seconds of the
// attempt) and `webhook-signature` (core/ops/webhook_signature.hpp). Any 2xx answer
// delivers it; anything else, or no whole answer within the timeout, is retried.
//
// One keep-alive connection at a time. https:// checks the certificate against the
// system's CA store and the URL's host name (SNI sent), and refuses on failure.
//
// Single-threaded: every member runs on the event loop.

#include <memory>
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <foyer/clock.hpp>

#include "delivery/sink.hpp"

namespace foyer::delivery {

class webhook_sink final : public sink {
 public:
  webhook_sink(net::io_context& ioc, const clock& clock, const sink_config& c);
  void stop() override;

 private:
  std::size_t batch_size() const override { return 1; }
  void attempt(std::vector<envelope> entries, std::function<void(std::string problem)> done) override;

  // What one request came to: empty if delivered, else the problem; `stale` if a kept-alive
  // connection turned out closed before any answer.
  struct sent {
    std::string problem;
    bool stale = false;
  };
  net::awaitable<std::string> deliver(envelope e);
  net::awaitable<sent> send(const envelope& e);
  net::awaitable<boost::system::error_code> connect();
  bool connected() const { return plain_ || tls_; }
  // Drops the connection; only between operations on it.
  void close();

  net::io_context& ioc_;
  const clock& clock_;
  http_url url_;
  byte_vector key_;
  std::chrono::milliseconds timeout_;
  net::ssl::context tls_context_;
  net::ip::tcp::resolver resolver_;
  // The open connection, if any: plain_ for http://, tls_ for https://.
  std::unique_ptr<boost::beast::tcp_stream> plain_;
  std::unique_ptr<boost::beast::ssl_stream<boost::beast::tcp_stream>> tls_;
  boost::beast::flat_buffer buffer_;
};

}  // namespace foyer::delivery
