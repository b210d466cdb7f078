#pragma once
// Account hints: one entry per account and room. The site, sharing a secret with Foyer,
// signs the account id it knows the visitor by; Foyer checks the signature and keeps only
// a keyed digest of the id, never the id.
//
//   hint   = hex(HMAC-SHA256(secret, "foyer/account/v1"    ‖ u8 len(room) ‖ room ‖ account))
//   digest = HMAC-SHA256(secret, "foyer/account-id/v1" ‖ u8 len(room) ‖ room ‖ account)[0..16)
//
// Pure: no I/O.

#include <cstddef>
#include <optional>
#include <string_view>

#include "core/base/bytes.hpp"
#include "core/base/ids.hpp"

namespace foyer {

inline constexpr std::size_t max_account_size = 256;

// The hint a site sends for `account` in room `room_id`, as bytes (the wire form is hex).
digest account_hint(byte_view secret, std::string_view room_id, std::string_view account);

// The digest the account's entry is kept under, if `hint` (hex) is the site's hint for
// `account`; nullopt if it is not, or the account is empty or longer than max_account_size.
// The comparison takes the same time wherever the hint differs.
// The digest an account's entry is kept under.
id16 account_digest(byte_view secret, std::string_view room_id, std::string_view account);

std::optional<id16> verify_account_hint(byte_view secret, std::string_view room_id, std::string_view account,
                                        std::string_view hint);

}  // namespace foyer
