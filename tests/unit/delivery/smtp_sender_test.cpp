// The SMTP client (delivery/smtp_sender.cpp) against a relay scripted in the test, on
// loopback: what a real relay would not do (endless replies, bytes slipped in after
// STARTTLS's go-ahead) and the outcome of each kind of refusal. A real relay, with TLS and
// AUTH, is tests/integration/email.test.js.
#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <functional>
#include <string>
#include <vector>

#include "delivery/smtp_sender.hpp"

using namespace foyer;
namespace net = boost::asio;
using net::ip::tcp;

namespace {

// One connection's worth of a relay: `greeting` first, then `answer(command)` to each
// command line (DATA's message, up to its dot line, counts as one). What it heard is kept.
struct scripted_relay {
  std::string greeting = "220 relay.test\r\n";
  std::function<std::string(const std::string&)> answer;
  std::vector<std::string> heard;

  net::awaitable<void> serve(tcp::acceptor& acceptor) {
    boost::system::error_code ec;
    auto socket = co_await acceptor.async_accept(net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return;
    co_await net::async_write(socket, net::buffer(greeting), net::redirect_error(net::use_awaitable, ec));
    std::string buffer;
    bool data = false;
    while (!ec) {
      auto end = data ? "\r\n.\r\n" : "\r\n";
      auto n = co_await net::async_read_until(socket, net::dynamic_buffer(buffer), end,
                                              net::redirect_error(net::use_awaitable, ec));
      if (ec) break;
      heard.push_back(buffer.substr(0, n - std::string_view(end).size()));
      buffer.erase(0, n);
      auto reply = answer(heard.back());
      data = reply.starts_with("354");
      co_await net::async_write(socket, net::buffer(reply), net::redirect_error(net::use_awaitable, ec));
    }
  }
};

// A relay that accepts everything, as a plain one on loopback does.
std::string accept_all(const std::string& command) {
  if (command.starts_with("EHLO")) return "250-relay.test\r\n250 8BITMIME\r\n";
  if (command == "DATA") return "354 go on\r\n";
  if (command == "QUIT") return "221 bye\r\n";
  return "250 ok\r\n";
}

delivery::smtp_result send(scripted_relay& relay, std::string_view to, std::string_view message,
                           bool starttls = false) {
  net::io_context ioc;
  tcp::acceptor acceptor(ioc, {net::ip::make_address("127.0.0.1"), 0});
  net::co_spawn(ioc, relay.serve(acceptor), net::detached);
  delivery::smtp_settings settings;
  settings.host = "127.0.0.1";
  settings.port = acceptor.local_endpoint().port();
  settings.starttls = starttls;
  settings.from = "rooms@shop.example.com";
  settings.timeout = std::chrono::seconds(5);
  delivery::smtp_sender sender(ioc, settings);
  delivery::smtp_result result;
  net::co_spawn(ioc, sender.deliver(to, message), [&](std::exception_ptr failure, delivery::smtp_result r) {
    REQUIRE_FALSE(failure);
    result = std::move(r);
    acceptor.close();
  });
  ioc.run();
  return result;
}

}  // namespace

TEST_CASE("smtp: the commands in order, the message dot-stuffed, and delivered") {
  scripted_relay relay;
  relay.answer = accept_all;
  auto r = send(relay, "visitor@example.org", "Subject: x\r\n\r\n.leading dot\r\nend\r\n");
  CHECK(r.outcome == notify::outcome::delivered);
  CHECK(r.detail.empty());
  REQUIRE(relay.heard.size() == 6);
  CHECK(relay.heard[0] == "EHLO [127.0.0.1]");
  CHECK(relay.heard[1] == "MAIL FROM:<rooms@shop.example.com>");
  CHECK(relay.heard[2] == "RCPT TO:<visitor@example.org>");
  CHECK(relay.heard[3] == "DATA");
  CHECK(relay.heard[4] == "Subject: x\r\n\r\n..leading dot\r\nend");
  CHECK(relay.heard[5] == "QUIT");
}

TEST_CASE("smtp: a refused recipient is gone, a busy one failed, a refused message refused") {
  scripted_relay gone;
  gone.answer = [](const std::string& c) {
    return c.starts_with("RCPT") ? "550 5.1.1 <visitor@example.org>: no such user\r\n" : accept_all(c);
  };
  auto r = send(gone, "visitor@example.org", "x\r\n");
  CHECK(r.outcome == notify::outcome::gone);
  CHECK(r.detail.ends_with(": RCPT TO: 550 5.1.1"));
  CHECK(r.detail.find("visitor") == std::string::npos);

  scripted_relay busy;
  busy.answer = [](const std::string& c) { return c.starts_with("RCPT") ? "451 try later\r\n" : accept_all(c); };
  r = send(busy, "visitor@example.org", "x\r\n");
  CHECK(r.outcome == notify::outcome::failed);
  CHECK(r.detail.ends_with(": RCPT TO: 451"));

  scripted_relay spam;
  spam.answer = [](const std::string& c) { return c == "x" ? "554 5.7.1 rejected\r\n" : accept_all(c); };
  r = send(spam, "visitor@example.org", "x\r\n");
  CHECK(r.outcome == notify::outcome::refused);
  CHECK(r.detail.ends_with(": the message: 554 5.7.1"));
}

TEST_CASE("smtp: an address that is not plain is refused before any connection") {
  net::io_context ioc;
  delivery::smtp_settings settings;
  settings.host = "127.0.0.1";
  settings.port = 1;  // nothing listens there: a connection would fail, not be refused
  delivery::smtp_sender sender(ioc, settings);
  delivery::smtp_result result;
  net::co_spawn(ioc, sender.deliver("visitor@example.org>\r\nRCPT TO:<x@example.org", "x"),
                [&](std::exception_ptr, delivery::smtp_result r) { result = std::move(r); });
  ioc.run();
  CHECK(result.outcome == notify::outcome::refused);
}

TEST_CASE("smtp: a reply past the limits ends the session") {
  scripted_relay endless_line;
  endless_line.greeting = "220 " + std::string(4096, 'x');
  auto r = send(endless_line, "visitor@example.org", "x\r\n");
  CHECK(r.outcome == notify::outcome::failed);
  CHECK_THAT(r.detail, Catch::Contains("greeting: the reply is not SMTP or too long"));

  scripted_relay endless_reply;
  endless_reply.answer = [](const std::string& c) {
    std::string lines;
    for (int i = 0; i < 100; ++i) lines += "250-relay.test\r\n";
    return c.starts_with("EHLO") ? lines + "250 end\r\n" : accept_all(c);
  };
  r = send(endless_reply, "visitor@example.org", "x\r\n");
  CHECK(r.outcome == notify::outcome::failed);
  CHECK_THAT(r.detail, Catch::Contains("EHLO: the reply is not SMTP or too long"));
}

TEST_CASE("smtp: STARTTLS required: no offer, or bytes slipped in after the go-ahead, and nothing is sent") {
  scripted_relay no_offer;
  no_offer.answer = accept_all;
  auto r = send(no_offer, "visitor@example.org", "x\r\n", /*starttls=*/true);
  CHECK(r.outcome == notify::outcome::failed);
  CHECK_THAT(r.detail, Catch::Contains("the relay does not offer STARTTLS"));
  CHECK(no_offer.heard.size() == 1);  // EHLO only

  scripted_relay injected;
  injected.answer = [](const std::string& c) {
    if (c.starts_with("EHLO")) return std::string("250-relay.test\r\n250 STARTTLS\r\n");
    if (c == "STARTTLS") return std::string("220 go ahead\r\n250 injected\r\n");
    return accept_all(c);
  };
  r = send(injected, "visitor@example.org", "x\r\n", /*starttls=*/true);
  CHECK(r.outcome == notify::outcome::failed);
  CHECK_THAT(r.detail, Catch::Contains("STARTTLS: the relay sent more than its reply"));
  CHECK(injected.heard.back() == "STARTTLS");
}
