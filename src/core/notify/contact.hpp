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
#include <vector>

#include "core/base/field_problem.hpp"
#include "core/notify/web_push.hpp"

namespace foyer::notify {

enum class channel : std::uint8_t { push, email };
std::string_view to_string(channel c);

// The channels a server takes opt-ins on.
struct channel_set {
  bool push = false;
  bool email = false;
  bool has(channel c) const { return c == channel::push ? push : email; }
  bool any() const { return push || email; }
};

// An address, and the visitor's resume link the notices carry (core/gate/resume_link.hpp):
// the mail may be read on another device than the page's. With `confirm_link`, the address
// awaits its holder's confirmation ([notifications] confirm): it gets the confirmation mail
// with that link, and no notice until the holder confirms (contact_book::confirm).
struct email_contact {
  std::string address;
  std::string link;
  std::string confirm_link;  // empty: confirmed, or no confirmation asked

  bool operator==(const email_contact&) const = default;
};

using contact = std::variant<push_subscription, email_contact>;
channel channel_of(const contact& c);
// The service a notice to `c` goes through, for sharing the sends out fairly: a push
// endpoint's origin (push_origin; the endpoint as written if it is no URL), and "" for an
// address (every mail goes through the one relay).
std::string service_of(const contact& c);

// Why the subscription can't be used, or nullopt: an https:// endpoint of at most
// max_push_endpoint_bytes that names no loopback or private address unless its host is one
// of `private_hosts` (the push sender's rules, checked early so a visitor hears of it), and
// keys of the right lengths.
std::optional<field_problem> check_push(const push_subscription& s, const std::vector<std::string>& private_hosts);
// Why the address can't be used, or nullopt (valid_address: one plain ASCII address).
std::optional<field_problem> check_email(std::string_view address);

}  // namespace foyer::notify
