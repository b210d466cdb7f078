#pragma once
// A visitor's ticket: self-contained and MACed, so that a status poll checks it with
// one HMAC and reads no storage. Format: base64url(payload ‖ first 16 bytes of
// HMAC-SHA256(ticket key, "foyer/ticket/v1" ‖ payload)), payload =
//   u8 version (1) ‖ u8 room id length ‖ room id ‖ 16-byte visitor id ‖
//   u64be place ‖ u64be lobby index ‖ 16-byte entrant id ‖ u64be issued at (unix ms)
// with all-ones for an unknown place or no lobby index.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/crypto.hpp"
#include "core/base/ids.hpp"

namespace foyer {

struct ticket {
  std::string room;
  id16 visitor{};
  std::optional<std::uint64_t> place;
  std::optional<std::uint64_t> lobby_index;
  id16 entrant{};
  std::int64_t issued_ms = 0;
};

enum class ticket_error { malformed, forged };

class ticket_codec {
 public:
  explicit ticket_codec(byte_view secret);

  std::string encode(const ticket& t) const;
  // The ticket if its MAC is good; which room it is for is the caller's check.
  std::optional<ticket> decode(std::string_view text, ticket_error* why = nullptr) const;

 private:
  hmac_key key_;
};

}  // namespace foyer
