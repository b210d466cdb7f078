#pragma once
// Web Push message encryption (RFC 8291, with the aes128gcm content coding of RFC 8188) and
// the VAPID authorization of the application server (RFC 8292), for messages sent to the push
// service a browser names (RFC 8030). Delivery itself is delivery/push_sender.
//
// Pure: no I/O (randomness aside, for the fresh key pair and salt of each message).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/bytes.hpp"
#include "core/base/p256.hpp"
#include "core/base/url.hpp"
#include "core/passes/pass.hpp"

namespace foyer::notify {

// A subscription as the browser's PushManager gives it.
struct push_subscription {
  std::string endpoint;  // the push resource, https://
  std::string p256dh;    // base64url: the user agent's P-256 public key, uncompressed (65 bytes)
  std::string auth;      // base64url: the 16-byte authentication secret

  bool operator==(const push_subscription&) const = default;
};

// Bounds on what a subscription and a message may hold.
inline constexpr std::size_t max_push_endpoint_bytes = 1024;
// One aes128gcm record of 4096 bytes: the 86-byte header of RFC 8291 §4 (salt, record size,
// key id length, the 65-byte key) leaves 4010 bytes, less the 16-byte tag and the padding
// delimiter. RFC 8030 §7.2: push services must accept 4096-byte bodies.
inline constexpr std::size_t push_record_size = 4096;
inline constexpr std::size_t max_push_payload_bytes = 3993;
using push_salt = std::array<std::uint8_t, 16>;

// The message body for `payload`: the aes128gcm header (the salt, record size 4096, the
// sender's public key as key id) and one record holding the payload and the delimiter 0x02,
// unpadded. The sender's key pair and the salt are fresh for each message. Throws
// std::invalid_argument naming the problem: p256dh not a point on P-256, auth not 16 bytes
// (base64url, padded or not), a payload over max_push_payload_bytes.
byte_vector encrypt(std::string_view p256dh, std::string_view auth, std::string_view payload);
// The same with the sender's private key and salt given (RFC 8291 Appendix A reproduces);
// throws std::out_of_range too, for a private key outside [1, n-1].
byte_vector encrypt(std::string_view p256dh, std::string_view auth, std::string_view payload,
                    const p256_scalar& sender_private, const push_salt& salt);

// The origin of a push endpoint, the audience of its VAPID token: "https://host", with
// ":port" unless it is 443; the host in lower case.
std::string push_origin(const http_url& endpoint);

// A VAPID subject: a mailto: or https:// URI of at most 256 bytes, no control characters.
bool valid_vapid_subject(std::string_view subject);

// RFC 8292's Authorization field: `vapid t=<JWT>, k=<public key>`. The JWT is ES256, signed by
// `key`, with claims aud = `origin`, exp = `expires_at` (unix seconds; RFC 8292 §2: at most
// 24 hours ahead, the caller's to keep) and sub = `subject`. Throws std::invalid_argument if
// the key is not ES256 or the subject is not valid_vapid_subject.
std::string vapid_authorization(std::string_view origin, std::string_view subject, std::int64_t expires_at,
                                const pass::signing_key& key);

// The key as the page's applicationServerKey wants it: base64url of 04 || x || y.
std::string vapid_public_key(const pass::signing_key& key);

}  // namespace foyer::notify
