#pragma once
// SHA-256 and HMAC-SHA256 (OpenSSL), shaped for the few fixed-size messages the domain hashes.

#include <initializer_list>
#include <memory>

#include "core/base/bytes.hpp"

namespace foyer {

// SHA-256 over the concatenation of parts.
digest sha256(std::initializer_list<byte_view> parts);
inline digest sha256(byte_view bytes) { return sha256({bytes}); }
// SHA-256 of a message of at most 55 bytes: one compression of a block padded here.
// The same digest as sha256(), at a fraction of its bookkeeping, for the proof of work's
// many tiny hashes.
digest sha256_short(byte_view message);

// SHA-256 over a message too long to hold at once, fed in pieces.
class sha256_stream {
 public:
  sha256_stream();
  void update(byte_view part);
  digest finish();

 private:
  alignas(8) std::array<std::uint8_t, 112> state_;  // OpenSSL's SHA256_CTX (checked in crypto.cpp)
};

// HMAC-SHA256 over the concatenation of parts.
digest hmac_sha256(byte_view key, std::initializer_list<byte_view> parts);

// An HMAC-SHA256 key prepared once, for keys that sign many messages (tickets,
// challenges, the lottery's round function): each MAC costs two compressions
// more than the message, with no key schedule.
class hmac_key {
 public:
  explicit hmac_key(byte_view key);
  hmac_key(const hmac_key& other);
  hmac_key& operator=(const hmac_key& other);
  hmac_key(hmac_key&&) noexcept;
  hmac_key& operator=(hmac_key&&) noexcept;
  ~hmac_key();

  digest mac(std::initializer_list<byte_view> parts) const;

 private:
  struct state;
  std::unique_ptr<state> state_;
};

// Comparison whose time does not depend on where the inputs differ.
bool equal_constant_time(byte_view a, byte_view b);

}  // namespace foyer
