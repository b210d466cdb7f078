#include "core/gate/account_hint.hpp"

#include <algorithm>
#include <cstdint>

#include "core/base/crypto.hpp"

namespace foyer {
namespace {

digest keyed(byte_view secret, std::string_view label, std::string_view room_id, std::string_view account) {
  // Room ids are at most 64 bytes, so the length fits the one byte that frames it.
  auto room_size = static_cast<std::uint8_t>(room_id.size());
  return hmac_sha256(secret, {as_bytes(label), byte_view(&room_size, 1), as_bytes(room_id), as_bytes(account)});
}

}  // namespace

digest account_hint(byte_view secret, std::string_view room_id, std::string_view account) {
  return keyed(secret, "foyer/account/v1", room_id, account);
}

std::optional<id16> verify_account_hint(byte_view secret, std::string_view room_id, std::string_view account,
                                        std::string_view hint) {
  auto given = from_hex(hint);
  if (account.empty() || account.size() > max_account_size || !given ||
      !equal_constant_time(*given, account_hint(secret, room_id, account))) {
    return std::nullopt;
  }
  return account_digest(secret, room_id, account);
}

id16 account_digest(byte_view secret, std::string_view room_id, std::string_view account) {
  auto d = keyed(secret, "foyer/account-id/v1", room_id, account);
  id16 out;
  std::copy_n(d.begin(), out.size(), out.begin());
  return out;
}

}  // namespace foyer
