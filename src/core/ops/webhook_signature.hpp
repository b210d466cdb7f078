#pragma once
// Standard Webhooks signatures (https://www.standardwebhooks.com, spec/standard-webhooks.md):
// a receiver checks `webhook-signature` against HMAC-SHA256 over "id.timestamp.body" with the
// secret they share with the sender.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/bytes.hpp"

namespace foyer {

// The key of a "whsec_<base64>" secret; nullopt if it is not one, or its key is shorter
// than 24 bytes or longer than 64 (the spec's bounds).
std::optional<byte_vector> webhook_key(std::string_view secret);

// The `webhook-signature` header: "v1," and the base64 HMAC-SHA256 of "id.timestamp.body".
std::string webhook_signature(byte_view key, std::string_view id, std::int64_t timestamp_s, std::string_view body);

}  // namespace foyer
