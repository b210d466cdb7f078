#pragma once
// Email through the operator's SMTP relay (RFC 5321): one session per message, STARTTLS
// (RFC 3207) or implicit TLS with the relay's certificate checked as tls_client.hpp says
// (plus the operator's CA file), AUTH PLAIN or LOGIN when a username is set, and nothing
// else: no third-party service.
//
// A send is bounded: settings.timeout covers everything from the connection to the answer
// to the message (name resolution is bounded by the system's resolver), each reply line is
// at most notify::max_reply_line bytes and a reply notify::max_reply_lines lines. Neither the
// recipient's address nor the credentials appear in an outcome's detail: a relay's text may
// quote the address, so only its reply code and enhanced status are kept.
//
// Single-threaded: call on the event loop; sends may run at the same time, each on its own
// connection. The sender must outlive its sends.

#include <string>
#include <string_view>
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>

#include "core/notify/notice.hpp"
#include "delivery/smtp_settings.hpp"

namespace foyer::delivery {

struct smtp_result {
  notify::outcome outcome = notify::outcome::failed;
  // For the operator: what went wrong and where ("relay mail.example.com:587: RCPT TO:
  // 550 5.1.1"); empty when delivered.
  std::string detail;
};

class smtp_sender {
 public:
  // Throws std::runtime_error if settings.ca_file cannot be loaded.
  smtp_sender(boost::asio::io_context& ioc, smtp_settings settings);
  smtp_sender(const smtp_sender&) = delete;
  smtp_sender& operator=(const smtp_sender&) = delete;

  // Sends `message` (the whole RFC 5322 text, e.g. notify::build_email) to `to`: delivered
  // once the relay accepted it; gone if the relay refused the recipient (5xx on RCPT);
  // refused if `to` is not notify::valid_address or the relay refused the message (5xx
  // after DATA); failed on a 4xx, a connection, TLS or AUTH failure, a timeout, or a relay
  // without STARTTLS when it is required. `to` and `message` must outlive the send.
  boost::asio::awaitable<notify::outcome> send(std::string_view to, std::string_view message);
  // The same, with the detail for the operator.
  boost::asio::awaitable<smtp_result> deliver(std::string_view to, std::string_view message);
  // The sender's address (settings.from), for the messages' From.
  const std::string& from() const { return settings_.from; }

 private:
  boost::asio::io_context& ioc_;
  smtp_settings settings_;
  boost::asio::ssl::context tls_context_;
};

}  // namespace foyer::delivery
