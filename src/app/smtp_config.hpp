#pragma once
// [notifications.email]: the operator's SMTP relay, read into delivery::smtp_settings.
//
//   host          the relay (required)
//   port          Default: 587, or 465 with implicit_tls
//   starttls      Default: true; false only for a relay on loopback or a private address
//   implicit_tls  TLS from the first byte (port 465). Default: false
//   username      AUTH when set, with exactly one of:
//   password      the password itself,
//   password_file a file holding it (one line; a trailing newline is dropped), or
//   password_env  the name of an environment variable holding it
//   from          the sender's address (required)
//   timeout_ms    a whole send, 100 to 600000. Default: 30000
//   ca_file       PEM certificates trusted for the relay besides the system's roots
//
// The password is read once, at start.

#include <string_view>

#include <toml++/toml.h>

#include "delivery/smtp_settings.hpp"

namespace foyer::app {

// Throws config_error naming the key and the problem; `where` names the table in errors.
delivery::smtp_settings read_email_settings(const toml::table& table, std::string_view where = "notifications.email");

}  // namespace foyer::app
