#include "core/passes/pass_issuer.hpp"

#include <algorithm>

#include "core/base/crypto.hpp"

namespace foyer::pass {

id16 pass_id(std::string_view room_id, const id16& visitor) {
  auto d = sha256({as_bytes(room_id), visitor});
  id16 id;
  std::copy_n(d.begin(), id.size(), id.begin());
  return id;
}

std::string issuer::pass_for(const signing_key& key, std::string_view room_id, const id16& visitor,
                             std::int64_t expires_at, std::int64_t now) {
  auto jti = to_hex(pass_id(room_id, visitor));
  while (!expiry_order_.empty() && expiry_order_.front().first <= now) {
    auto it = issued_.find(expiry_order_.front().second);
    if (it != issued_.end() && it->second.expires_at <= now) issued_.erase(it);
    expiry_order_.pop_front();
  }
  if (auto it = issued_.find(jti); it != issued_.end() && it->second.expires_at == expires_at) return it->second.token;
  claims c;
  c.issuer = iss_;
  c.audience = room_id;
  c.subject = to_hex(visitor);
  c.issued_at = now;
  c.not_before = now;
  c.expires_at = expires_at;
  c.jti = jti;
  auto token = sign_pass(key, c);
  issued_[jti] = {token, expires_at};
  expiry_order_.emplace_back(expires_at, std::move(jti));
  return token;
}

}  // namespace foyer::pass
