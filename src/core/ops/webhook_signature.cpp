#include "core/ops/webhook_signature.hpp"

#include "core/base/crypto.hpp"

namespace foyer {

std::optional<byte_vector> webhook_key(std::string_view secret) {
  constexpr std::string_view prefix = "whsec_";
  if (!secret.starts_with(prefix)) return std::nullopt;
  auto key = base64_decode(secret.substr(prefix.size()));
  if (!key || key->size() < 24 || key->size() > 64) return std::nullopt;
  return key;
}

std::string webhook_signature(byte_view key, std::string_view id, std::int64_t timestamp_s, std::string_view body) {
  auto timestamp = std::to_string(timestamp_s);
  auto mac = hmac_sha256(key, {as_bytes(id), as_bytes("."), as_bytes(timestamp), as_bytes("."), as_bytes(body)});
  return "v1," + base64_encode(mac);
}

}  // namespace foyer
