#include "core/passes/pass_issuer.hpp"

#include "core/base/crypto.hpp"

namespace foyer::pass {

std::string issuer::pass_for(const signing_key& key, std::string_view room_id, const id16& visitor,
                             std::uint32_t ttl_seconds, std::int64_t now) {
  auto jti = to_hex(byte_view(sha256({as_bytes(room_id), visitor})).first(16));
  while (!reuse_order_.empty() && reuse_order_.front().first <= now) {
    auto it = issued_.find(reuse_order_.front().second);
    if (it != issued_.end() && it->second.reuse_until <= now) issued_.erase(it);
    reuse_order_.pop_front();
  }
  if (auto it = issued_.find(jti); it != issued_.end()) return it->second.token;
  claims c;
  c.issuer = iss_;
  c.audience = room_id;
  c.subject = to_hex(visitor);
  c.issued_at = now;
  c.not_before = now;
  c.expires_at = now + ttl_seconds;
  c.jti = jti;
  auto token = sign_pass(key, c);
  std::int64_t reuse_until = now + ttl_seconds / 2;
  issued_[jti] = {token, reuse_until};
  reuse_order_.emplace_back(reuse_until, std::move(jti));
  return token;
}

}  // namespace foyer::pass
