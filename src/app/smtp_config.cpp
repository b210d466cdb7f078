#include "app/smtp_config.hpp"

#include <fstream>

#include "app/password_keys.hpp"
#include "app/table_reader.hpp"
#include "core/gate/network.hpp"
#include "core/notify/email_message.hpp"

namespace foyer::app {
namespace {

constexpr std::uint16_t submission_port = 587;  // RFC 6409
constexpr std::uint16_t implicit_tls_port = 465;  // RFC 8314

// Whether a relay's name or address can go to the resolver and the TLS check as it is.
bool plain_host(std::string_view host) {
  return !host.empty() && host.size() <= 253 &&
         host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:") ==
             std::string_view::npos;
}

}  // namespace

delivery::smtp_settings read_email_settings(const toml::table& table, std::string_view where) {
  table_reader t(table, std::string(where));
  delivery::smtp_settings s;
  t.string("host", s.host);
  if (!plain_host(s.host)) t.fail("host", "must name the relay, e.g. \"smtp.example.com\" or \"127.0.0.1\"");
  t.boolean("implicit_tls", s.implicit_tls);
  if (s.implicit_tls && table.contains("starttls")) {
    t.fail("starttls", "applies to a plain connection; leave it out with implicit_tls = true");
  }
  t.boolean("starttls", s.starttls);
  if (s.implicit_tls) s.starttls = false;
  if (!s.implicit_tls && !s.starttls && !loopback_or_private(s.host)) {
    t.fail("starttls", fmt::format("can be false only for a relay on loopback or a private address (got '{}'): "
                                   "mail and passwords would cross the network in the clear",
                                   s.host));
  }
  s.port = s.implicit_tls ? implicit_tls_port : submission_port;
  t.integer("port", s.port, 1, 65535);
  t.string("username", s.username);
  if (s.username.find_first_of(std::string_view("\0\r\n", 3)) != std::string::npos) {
    t.fail("username", "must not hold a NUL or a line break");
  }
  s.password = read_password(t, table);
  if (!s.username.empty() && s.password.empty()) {
    t.fail("username", "needs a password (password, password_file or password_env)");
  }
  if (s.username.empty() && !s.password.empty()) t.fail("username", "must be set with a password");
  t.string("from", s.from);
  if (!notify::valid_address(s.from)) t.fail("from", "must be a plain address, e.g. \"rooms@shop.example.com\"");
  std::int64_t timeout = s.timeout.count();
  t.integer("timeout_ms", timeout, 100, 600'000);
  s.timeout = std::chrono::milliseconds(timeout);
  t.string("ca_file", s.ca_file);
  if (!s.ca_file.empty() && !std::ifstream(s.ca_file)) t.fail("ca_file", fmt::format("cannot read {}", s.ca_file));
  t.refuse_unknown();
  return s;
}

}  // namespace foyer::app
