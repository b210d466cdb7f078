#pragma once
// How a waiting visitor asked to be told of their turn: a Web Push subscription (RFC 8030
// endpoint, RFC 8291 keys) or an email address, and the checks each passes before it is kept.
//
// Pure: no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "core/base/field_problem.hpp"

namespace foyer::notify {

enum class channel : std::uint8_t { push, email };
std::string_view to_string(channel c);

// What a push service returned for a subscription as the browser's PushManager gives it.
struct push_subscription {
  std::string endpoint;  // https only
  std::string p256dh;    // base64url, the browser's P-256 public key (65 bytes)
  std::string auth;      // base64url, the 16-byte authentication secret
};

// The channels a server takes opt-ins on ([notifications] channels).
struct channel_set {
  bool push = false;
  bool email = false;
  bool has(channel c) const { return c == channel::push ? push : email; }
  bool any() const { return push || email; }
};

using contact = std::variant<push_subscription, std::string>;  // a subscription or an address
channel channel_of(const contact& c);

// Every byte a visitor can make the server hold is bounded.
inline constexpr std::size_t max_endpoint_bytes = 1024;
inline constexpr std::size_t max_email_bytes = 254;  // RFC 5321's path limit, less the brackets

// Why the subscription can't be used, or nullopt. The endpoint must be https, a name or a
// public address (the SSRF rules of the webhook sinks: no loopback, private or link-local
// literal unless `allow_private` is set, for a push service on loopback in tests).
std::optional<field_problem> check_push(const push_subscription& s, bool allow_private);
// Why the address can't be used, or nullopt: one '@', a dot in the domain, no space,
// control character, or anything a mail header would read as syntax.
std::optional<field_problem> check_email(std::string_view address);

}  // namespace foyer::notify
