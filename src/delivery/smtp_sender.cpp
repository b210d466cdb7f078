#include "delivery/smtp_sender.hpp"

#include <array>
#include <chrono>
#include <optional>
#include <stdexcept>

#include <openssl/err.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <fmt/core.h>

#include "core/base/bytes.hpp"
#include "core/notify/email_message.hpp"
#include "core/notify/smtp_protocol.hpp"
#include "delivery/tls_client.hpp"

namespace foyer::delivery {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
using net::redirect_error;
using net::use_awaitable;
using notify::smtp_reply;

// One SMTP session: a plain connection, upgraded in place by STARTTLS.
class session {
 public:
  session(net::io_context& ioc, net::ssl::context& tls_context, const smtp_settings& settings)
      : ioc_(ioc),
        tls_context_(tls_context),
        settings_(settings),
        where_(fmt::format("relay {}:{}", settings.host, settings.port)),
        deadline_(std::chrono::steady_clock::now() + settings.timeout),
        plain_(ioc) {}

  net::awaitable<smtp_result> run(std::string_view to, std::string_view message) {
    if (!notify::valid_address(to)) co_return smtp_result{notify::outcome::refused, "the address is not valid"};
    if (!co_await open()) co_return fail();
    auto greeted = co_await greet();
    if (!greeted) co_return fail();
    // The relay's extensions: those said again over TLS replace those said in the clear.
    smtp_reply ehlo = std::move(*greeted);
    if (settings_.starttls && !settings_.implicit_tls) {
      if (!notify::offers(ehlo, "STARTTLS")) co_return fail("the relay does not offer STARTTLS");
      if (!co_await expect("STARTTLS", 2)) co_return fail();
      // Whatever came with the go-ahead was sent before TLS and could pose as the relay's
      // answers on the secure channel (CVE-2011-0411's pattern): refused.
      if (!buffer_.empty()) co_return fail("STARTTLS: the relay sent more than its reply");
      if (!co_await start_tls()) co_return fail();
      auto again = co_await command(ehlo_line());
      if (!accepted(again, "EHLO")) co_return fail();
      ehlo = std::move(*again);
    }
    if (!settings_.username.empty()) {
      bool plain = notify::offers_auth(ehlo, "PLAIN");
      if (!plain && !notify::offers_auth(ehlo, "LOGIN")) {
        co_return fail("the relay offers neither AUTH PLAIN nor AUTH LOGIN");
      }
      if (plain) {
        std::string initial = "AUTH PLAIN " + notify::auth_plain(settings_.username, settings_.password);
        bool authenticated = co_await expect(std::move(initial), 2, "AUTH PLAIN");
        if (!authenticated) co_return fail();
      } else {
        std::string user = base64_encode(as_bytes(settings_.username));
        std::string password = base64_encode(as_bytes(settings_.password));
        bool asked = co_await expect("AUTH LOGIN", 3);
        if (!asked) co_return fail();
        bool named = co_await expect(std::move(user), 3, "AUTH LOGIN username");
        if (!named) co_return fail();
        bool authenticated = co_await expect(std::move(password), 2, "AUTH LOGIN password");
        if (!authenticated) co_return fail();
      }
    }
    if (!co_await expect(fmt::format("MAIL FROM:<{}>", settings_.from), 2, "MAIL FROM")) co_return fail();
    auto rcpt = co_await command(fmt::format("RCPT TO:<{}>", to));
    if (!rcpt) co_return fail("RCPT TO");
    if (rcpt->kind() != 2) co_return fail("RCPT TO", *rcpt, notify::outcome::gone);
    if (!co_await expect("DATA", 3)) co_return fail();
    auto answer = co_await exchange(notify::data_of(message));
    if (!answer) co_return fail("the message");
    if (answer->kind() != 2) co_return fail("the message", *answer, notify::outcome::refused);
    // Delivered whatever the QUIT brings: the relay took the message.
    co_await command("QUIT");
    co_return smtp_result{notify::outcome::delivered, {}};
  }

 private:
  // Resolves, connects and, for implicit TLS, shakes hands.
  net::awaitable<bool> open() {
    net::ip::tcp::resolver resolver(ioc_);
    auto endpoints = co_await resolver.async_resolve(settings_.host, std::to_string(settings_.port),
                                                     redirect_error(use_awaitable, ec_));
    if (ec_) co_return failed_at("cannot resolve");
    plain_.expires_at(deadline_);
    co_await plain_.async_connect(endpoints, redirect_error(use_awaitable, ec_));
    if (ec_) co_return failed_at("cannot connect");
    // No co_await inside ||, && or ?: in this file: GCC 12 may evaluate it regardless.
    if (!settings_.implicit_tls) co_return true;
    co_return co_await start_tls();
  }

  // The greeting, then the EHLO reply; nullopt if either fails (why_ says how).
  net::awaitable<std::optional<smtp_reply>> greet() {
    auto greeting = co_await read_reply();
    if (!accepted(greeting, "greeting")) co_return std::nullopt;
    auto ehlo = co_await command(ehlo_line());
    if (!accepted(ehlo, "EHLO")) co_return std::nullopt;
    co_return ehlo;
  }

  // Whether `reply` came and is a 2xx; else records why not.
  bool accepted(const std::optional<smtp_reply>& reply, std::string_view step) {
    if (!reply) return failed_at(step);
    if (reply->kind() != 2) return fail_reply(step, *reply);
    return true;
  }

  net::awaitable<bool> start_tls() {
    tls_.emplace(std::move(plain_), tls_context_);
    if (!name_tls_peer(*tls_, settings_.host)) {
      ec_ = beast::error_code(static_cast<int>(::ERR_get_error()), net::error::get_ssl_category());
      co_return failed_at("TLS");
    }
    lowest().expires_at(deadline_);
    co_await tls_->async_handshake(net::ssl::stream_base::client, redirect_error(use_awaitable, ec_));
    if (ec_) co_return failed_at("TLS handshake");
    co_return true;
  }

  // Sends `line` and requires a reply of `kind` (2 or 3); `what` names the step in the
  // detail, instead of the line when the line holds something secret.
  net::awaitable<bool> expect(std::string line, int kind, std::string_view what = {}) {
    auto reply = co_await command(line);
    auto step = what.empty() ? std::string_view(line) : what;
    if (!reply) co_return failed_at(step);
    if (reply->kind() != kind) co_return fail_reply(step, *reply);
    co_return true;
  }

  net::awaitable<std::optional<smtp_reply>> command(std::string line) {
    co_return co_await exchange(line + "\r\n");
  }

  // Writes `bytes` and reads the reply; nullopt if the connection failed (ec_ says how).
  net::awaitable<std::optional<smtp_reply>> exchange(std::string bytes) {
    lowest().expires_at(deadline_);
    if (tls_) {
      co_await net::async_write(*tls_, net::buffer(bytes), redirect_error(use_awaitable, ec_));
    } else {
      co_await net::async_write(plain_, net::buffer(bytes), redirect_error(use_awaitable, ec_));
    }
    if (ec_) co_return std::nullopt;
    co_return co_await read_reply();
  }

  net::awaitable<std::optional<smtp_reply>> read_reply() {
    std::array<char, 1024> chunk;
    for (;;) {
      smtp_reply reply;
      auto status = notify::take_reply(buffer_, reply);
      if (status == notify::reply_status::complete) co_return reply;
      if (status == notify::reply_status::malformed) {
        malformed_ = true;
        co_return std::nullopt;
      }
      lowest().expires_at(deadline_);
      std::size_t n = 0;
      if (tls_) {
        n = co_await tls_->async_read_some(net::buffer(chunk), redirect_error(use_awaitable, ec_));
      } else {
        n = co_await plain_.async_read_some(net::buffer(chunk), redirect_error(use_awaitable, ec_));
      }
      if (ec_) co_return std::nullopt;
      buffer_.append(chunk.data(), n);
    }
  }

  beast::tcp_stream& lowest() { return tls_ ? beast::get_lowest_layer(*tls_) : plain_; }

  // "EHLO [192.0.2.1]": this end's address, which needs no name of its own in the config.
  std::string ehlo_line() {
    beast::error_code ec;
    auto address = lowest().socket().local_endpoint(ec).address();
    if (ec) return "EHLO [127.0.0.1]";
    return address.is_v6() ? fmt::format("EHLO [IPv6:{}]", address.to_string())
                           : fmt::format("EHLO [{}]", address.to_string());
  }

  // Records why the session ended without a usable reply; false, for `co_return`.
  bool failed_at(std::string_view step) {
    if (why_.empty()) {
      why_ = malformed_ ? fmt::format("{}: the reply is not SMTP or too long", step)
             : ec_      ? fmt::format("{}: {}", step, ec_ == beast::error::timeout ? "timed out" : ec_.message())
                        : std::string(step);
    }
    return false;
  }

  // Records a reply that ends the session: its code and enhanced status (RFC 3463), never
  // its text, which may quote the address.
  bool fail_reply(std::string_view step, const smtp_reply& reply) {
    std::string_view text = reply.lines.empty() ? std::string_view() : std::string_view(reply.lines.front());
    auto status = text.substr(0, text.find(' '));
    bool enhanced = status.size() >= 5 && status.size() <= 11 && status[1] == '.' &&
                    status.find_first_not_of("0123456789.") == std::string_view::npos;
    why_ = enhanced ? fmt::format("{}: {} {}", step, reply.code, status) : fmt::format("{}: {}", step, reply.code);
    return false;
  }

  smtp_result fail(std::string_view step = {}) {
    if (!step.empty()) failed_at(step);
    return smtp_result{notify::outcome::failed, fmt::format("{}: {}", where_, why_)};
  }

  // A refusal by reply: a 4xx is for later, a 5xx is `permanent`.
  smtp_result fail(std::string_view step, const smtp_reply& reply, notify::outcome permanent) {
    fail_reply(step, reply);
    return smtp_result{reply.kind() == 5 ? permanent : notify::outcome::failed, fmt::format("{}: {}", where_, why_)};
  }

  net::io_context& ioc_;
  net::ssl::context& tls_context_;
  const smtp_settings& settings_;
  std::string where_;
  std::chrono::steady_clock::time_point deadline_;
  beast::tcp_stream plain_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
  std::string buffer_;  // received and not yet taken as a reply
  beast::error_code ec_;
  bool malformed_ = false;
  std::string why_;
};

net::ssl::context context_for(const smtp_settings& settings) {
  auto context = verifying_client_context();
  if (!settings.ca_file.empty()) {
    beast::error_code ec;
    context.load_verify_file(settings.ca_file, ec);
    if (ec) throw std::runtime_error(fmt::format("email: ca_file {}: {}", settings.ca_file, ec.message()));
  }
  return context;
}

}  // namespace

smtp_sender::smtp_sender(net::io_context& ioc, smtp_settings settings)
    : ioc_(ioc), settings_(std::move(settings)), tls_context_(context_for(settings_)) {}

net::awaitable<smtp_result> smtp_sender::deliver(std::string_view to, std::string_view message) {
  session s(ioc_, tls_context_, settings_);
  co_return co_await s.run(to, message);
}

net::awaitable<notify::outcome> smtp_sender::send(std::string_view to, std::string_view message) {
  auto result = co_await deliver(to, message);
  co_return result.outcome;
}

}  // namespace foyer::delivery
