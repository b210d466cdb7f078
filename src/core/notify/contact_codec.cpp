#include "core/notify/contact_codec.hpp"

#include <algorithm>
#include <tuple>

#include "core/base/codec.hpp"
#include "core/notify/email_message.hpp"
#include "core/notify/web_push.hpp"
#include "core/rooms/room_spec.hpp"

namespace foyer::notify {
namespace {

constexpr std::uint8_t record_version = 1;
constexpr std::uint8_t has_place = 1;
constexpr std::uint8_t has_lobby_index = 2;
constexpr std::uint8_t has_push = 4;
constexpr std::uint8_t has_email = 8;
constexpr std::uint8_t soon_sent = 16;
constexpr std::uint8_t awaiting_confirmation = 32;
constexpr std::uint8_t known_flags = 63;
// A base64url P-256 key is 87 characters, 88 padded: room to spare, no more.
constexpr std::size_t max_push_key_bytes = 128;

// A string of at most `limit` bytes, else `ok` is cleared.
std::string bounded(reader& in, std::size_t limit, bool& ok) {
  auto s = in.str();
  if (s.size() > limit) ok = false;
  return s;
}

}  // namespace

std::string encode_contact_key(std::string_view room, const id16& visitor) {
  std::string key(room);
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(visitor.data()), visitor.size());
  return key;
}

std::optional<std::pair<std::string, id16>> decode_contact_key(std::string_view key) {
  if (key.size() < 1 + std::tuple_size_v<id16>) return std::nullopt;
  auto room = key.substr(0, key.size() - 1 - std::tuple_size_v<id16>);
  if (!is_room_id(room) || key[room.size()] != '\0') {
    return std::nullopt;
  }
  id16 visitor{};
  std::copy_n(key.data() + room.size() + 1, visitor.size(), reinterpret_cast<char*>(visitor.data()));
  return std::pair{std::string(room), visitor};
}

std::string encode_contact_record(const contact_record& r) {
  writer out;
  out.u8(record_version);
  out.u8((r.place ? has_place : 0) | (r.lobby_index ? has_lobby_index : 0) | (r.push ? has_push : 0) |
         (r.email ? has_email : 0) | (r.soon_sent ? soon_sent : 0) |
         (r.email && !r.email->confirm_link.empty() ? awaiting_confirmation : 0));
  if (r.place) out.u64(*r.place);
  if (r.lobby_index) out.u64(*r.lobby_index);
  if (r.push) {
    out.str(r.push->endpoint);
    out.str(r.push->p256dh);
    out.str(r.push->auth);
  }
  if (r.email) {
    out.str(r.email->address);
    out.str(r.email->link);
    if (!r.email->confirm_link.empty()) out.str(r.email->confirm_link);
  }
  return out.take();
}

std::optional<contact_record> decode_contact_record(std::string_view value) {
  reader in(value);
  if (in.u8() != record_version) return std::nullopt;
  auto flags = in.u8();
  if ((flags & ~known_flags) != 0 || (flags & (has_push | has_email)) == 0) return std::nullopt;
  if ((flags & awaiting_confirmation) && !(flags & has_email)) return std::nullopt;
  contact_record r;
  bool ok = true;
  if (flags & has_place) r.place = in.u64();
  if (flags & has_lobby_index) r.lobby_index = in.u64();
  if (flags & has_push) {
    push_subscription s;
    s.endpoint = bounded(in, max_push_endpoint_bytes, ok);
    s.p256dh = bounded(in, max_push_key_bytes, ok);
    s.auth = bounded(in, max_push_key_bytes, ok);
    r.push = std::move(s);
  }
  if (flags & has_email) {
    email_contact e;
    e.address = bounded(in, max_address_bytes, ok);
    e.link = bounded(in, max_contact_link_bytes, ok);
    if (flags & awaiting_confirmation) {
      e.confirm_link = bounded(in, max_contact_link_bytes, ok);
      ok = ok && !e.confirm_link.empty();
    }
    r.email = std::move(e);
  }
  r.soon_sent = (flags & soon_sent) != 0;
  if (!ok || !in.done()) return std::nullopt;
  return r;
}

}  // namespace foyer::notify
