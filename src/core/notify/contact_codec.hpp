#pragma once
// One visitor's contacts as the store keeps them (event_store::write_contacts), beside the
// log and never in it:
//   key    room id ‖ 0x00 ‖ the visitor's 16 bytes
//   value  u8 version (1) ‖ u8 flags (1 place, 2 lobby index, 4 push, 8 email, 16 soon sent,
//          32 the address awaits confirmation) ‖ be64 place? ‖ be64 lobby index?
//          ‖ str endpoint, p256dh, auth? ‖ str address, link, confirmation link (with 32)?
// (str: be32 length ‖ bytes). Each field has a bound, checked when read back: a record that
// breaks one is refused, never trusted.
//
// Pure: bytes in, bytes out.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/base/ids.hpp"
#include "core/notify/contact.hpp"

namespace foyer::notify {

// What the book holds of one visitor of one room.
struct contact_record {
  std::optional<std::uint64_t> place;
  std::optional<std::uint64_t> lobby_index;
  std::optional<push_subscription> push;
  std::optional<email_contact> email;
  bool soon_sent = false;

  bool operator==(const contact_record&) const = default;
};

// A mailed resume link: the public address and the link's path, well under 8 KiB.
inline constexpr std::size_t max_contact_link_bytes = 8 * 1024;

std::string encode_contact_key(std::string_view room, const id16& visitor);
// The room and visitor of a key, or nullopt if it is not one encode_contact_key makes.
std::optional<std::pair<std::string, id16>> decode_contact_key(std::string_view key);

std::string encode_contact_record(const contact_record& r);
// Nullopt if the bytes are not a record encode_contact_record makes, within the bounds, with
// at least one contact.
std::optional<contact_record> decode_contact_record(std::string_view value);

}  // namespace foyer::notify
