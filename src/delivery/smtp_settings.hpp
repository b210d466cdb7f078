#pragma once
// How Foyer reaches the operator's SMTP relay ([notifications.email] in the config; see
// app/smtp_config.hpp). A plain value, so the config can hold it without the network code.

#include <chrono>
#include <cstdint>
#include <string>

namespace foyer::delivery {

struct smtp_settings {
  std::string host;            // the relay's name or address
  std::uint16_t port = 587;    // Default: 587 (submission), 465 with implicit_tls
  // Upgrade the plain connection with STARTTLS before anything else is said, and give up if
  // the relay does not offer it. Default: true; false only for a relay on loopback or a
  // private address.
  bool starttls = true;
  bool implicit_tls = false;   // TLS from the first byte (port 465). Default: false
  std::string username;        // AUTH PLAIN (or LOGIN) when set. Default: none, no AUTH
  std::string password;
  std::string from;            // the envelope sender and the From header (notify::valid_address)
  std::chrono::milliseconds timeout{30'000};  // a whole send, connect to QUIT. Default: 30 s
  // A PEM file of certificates trusted for the relay, besides the system's roots.
  // Default: none, the system's roots only.
  std::string ca_file;
};

}  // namespace foyer::delivery
