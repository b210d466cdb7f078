#include "core/gate/ticket.hpp"

#include <algorithm>

#include "core/base/codec.hpp"
#include "core/lanes/lane_place.hpp"

namespace foyer {
namespace {

constexpr std::uint8_t ticket_version = 1;
constexpr std::size_t ticket_mac_size = 16;
constexpr std::uint64_t none = ~std::uint64_t{0};
constexpr std::size_t max_room_id = 64;
// The largest ticket is well under this; anything longer is refused unread.
constexpr std::size_t max_ticket_text = 256;
constexpr std::string_view ticket_mac_label = "foyer/ticket/v1";
constexpr std::string_view key_label = "foyer/ticket-key/v1";

bool mac_matches(const hmac_key& key, std::string_view payload, std::string_view mac) {
  auto expected = key.mac({as_bytes(ticket_mac_label), as_bytes(payload)});
  return equal_constant_time(byte_view(expected).first(ticket_mac_size), as_bytes(mac));
}

// Whether the restored log holds what an earlier incarnation's ticket names.
bool within(const std::map<std::string, ticket_cut, std::less<>>& rooms, const ticket& t) {
  auto cut = rooms.find(t.room);
  if (cut == rooms.end()) return false;
  // Places and lobby indexes name their lane in their top byte (lane_queues).
  auto lane = lane_of(t.lobby_index ? *t.lobby_index : t.place.value_or(0));
  ticket_cut::counts counts{cut->second.places, cut->second.lobby};
  if (lane > 0) {
    if (lane > cut->second.lanes.size()) return false;
    counts = cut->second.lanes[lane - 1];
  }
  if (t.lobby_index) return place_in_lane(*t.lobby_index) < counts.lobby;
  return t.place && place_in_lane(*t.place) < counts.places;
}

}  // namespace

digest ticket_key(byte_view secret, std::string_view incarnation) {
  std::string label(key_label);
  if (!incarnation.empty()) label.append("/").append(incarnation);
  return hmac_sha256(secret, {as_bytes(label)});
}

ticket_codec::ticket_codec(byte_view key, std::vector<earlier_tickets> earlier) : key_(key) {
  for (auto& e : earlier) earlier_.push_back({hmac_key(e.key), std::move(e.rooms)});
}

std::string ticket_codec::encode(const ticket& t) const {
  std::string text;
  encode_into(text, t);
  return text;
}

void ticket_codec::encode_into(std::string& out, const ticket& t) const {
  // Laid out on the stack, room ids being at most 255 bytes: a join's answer then
  // allocates the ticket's text alone.
  std::array<std::uint8_t, 2 + 255 + 2 * 16 + 3 * 8 + ticket_mac_size> payload;
  std::size_t n = 0;
  auto put = [&](byte_view b) {
    std::copy(b.begin(), b.end(), payload.begin() + static_cast<std::ptrdiff_t>(n));
    n += b.size();
  };
  auto put_u64 = [&](std::uint64_t v) {
    put_be64(payload.data() + n, v);
    n += 8;
  };
  // A longer id (none passes the config's check) is cut, so it never matches its room.
  auto room_id = as_bytes(t.room).first(std::min<std::size_t>(t.room.size(), 255));
  payload[n++] = ticket_version;
  payload[n++] = static_cast<std::uint8_t>(room_id.size());
  put(room_id);
  put(t.visitor);
  put_u64(t.place.value_or(none));
  put_u64(t.lobby_index.value_or(none));
  put(t.entrant);
  put_u64(static_cast<std::uint64_t>(t.issued_ms));
  auto mac = key_.mac({as_bytes(ticket_mac_label), byte_view(payload).first(n)});
  put(byte_view(mac).first(ticket_mac_size));
  append_base64url(out, byte_view(payload).first(n));
}

std::optional<ticket> ticket_codec::decode(std::string_view text, ticket_error* why) const {
  auto fail = [&](ticket_error e) -> std::optional<ticket> {
    if (why) *why = e;
    return std::nullopt;
  };
  if (text.size() > max_ticket_text) return fail(ticket_error::malformed);
  std::array<std::uint8_t, max_ticket_text * 3 / 4> buffer;
  auto raw = std::span(buffer).first(text.size() * 3 / 4);
  if (!base64url_decode_into(text, raw) || raw.size() < 2 + ticket_mac_size || raw[0] != ticket_version) {
    return fail(ticket_error::malformed);
  }
  std::string_view all = as_chars(raw);
  std::string_view payload = all.substr(0, all.size() - ticket_mac_size);
  std::string_view mac = all.substr(payload.size());
  const earlier_key* issuer = nullptr;
  if (!mac_matches(key_, payload, mac)) {
    auto it = std::find_if(earlier_.begin(), earlier_.end(), [&](const auto& e) { return mac_matches(e.key, payload, mac); });
    if (it == earlier_.end()) return fail(ticket_error::forged);
    issuer = &*it;
  }
  std::size_t room_size = static_cast<std::uint8_t>(payload[1]);
  ticket t;
  if (room_size == 0 || room_size > max_room_id || payload.size() < 2 + room_size) {
    return fail(ticket_error::malformed);
  }
  t.room = std::string(payload.substr(2, room_size));
  reader rest(payload.substr(2 + room_size));
  t.visitor = rest.raw<16>();
  auto place = rest.u64();
  auto lobby_index = rest.u64();
  t.entrant = rest.raw<16>();
  t.issued_ms = rest.i64();
  if (!rest.done()) return fail(ticket_error::malformed);
  if (place != none) t.place = place;
  if (lobby_index != none) t.lobby_index = lobby_index;
  if (issuer) {
    if (!within(issuer->rooms, t)) return fail(ticket_error::lost_in_restore);
    // The old server's draw may have counted a lobby larger than the restored one.
    if (t.lobby_index) t.place.reset();
  }
  return t;
}

}  // namespace foyer
