#include "core/notify/contact.hpp"

#include <algorithm>

#include "core/base/url.hpp"
#include "core/gate/network.hpp"
#include "core/notify/email_message.hpp"

namespace foyer::notify {
namespace {

bool base64url(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// Unpadded base64url of n bytes has ceil(4n / 3) characters; browsers may pad it.
bool key_of(std::string_view s, std::size_t bytes) {
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  return s.size() == (4 * bytes + 2) / 3 && base64url(s);
}

}  // namespace

std::string_view to_string(channel c) { return c == channel::push ? "push" : "email"; }

channel channel_of(const contact& c) { return std::holds_alternative<push_subscription>(c) ? channel::push : channel::email; }

std::string service_of(const contact& c) {
  const auto* push = std::get_if<push_subscription>(&c);
  if (!push) return {};
  auto url = parse_url(push->endpoint);
  return url ? push_origin(*url) : push->endpoint;
}

std::optional<field_problem> check_push(const push_subscription& s, const std::vector<std::string>& private_hosts) {
  if (s.endpoint.size() > max_push_endpoint_bytes) return field_problem{"push.endpoint", "is longer than 1024 bytes"};
  auto url = parse_url(s.endpoint);
  if (!url || !url->tls) return field_problem{"push.endpoint", "must be an https:// URL"};
  bool allowed = std::find(private_hosts.begin(), private_hosts.end(), url->host) != private_hosts.end();
  if (!allowed && loopback_or_private(url->host)) {
    return field_problem{"push.endpoint", "must not name a loopback or private address"};
  }
  if (!key_of(s.p256dh, 65)) return field_problem{"push.keys.p256dh", "must be a P-256 public key (65 bytes) in base64url"};
  if (!key_of(s.auth, 16)) return field_problem{"push.keys.auth", "must be 16 bytes in base64url"};
  return std::nullopt;
}

std::optional<field_problem> check_email(std::string_view address) {
  if (address.size() > max_address_bytes) return field_problem{"email", "is longer than 254 bytes"};
  if (!valid_address(address)) return field_problem{"email", "must be one plain address, as name@example.com"};
  return std::nullopt;
}

}  // namespace foyer::notify
