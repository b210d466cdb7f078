#pragma once
// Every durable state change of a room. Events are applied in log order, on replay
// exactly as live, so anything derived from them (places, lobby indexes, the lobby
// tree) is the same after a restart.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/base/ids.hpp"
#include "core/fairness/drand.hpp"
#include "core/fairness/ledger.hpp"
#include "core/inventory/hold_events.hpp"
#include "core/lanes/access_codes.hpp"
#include "core/lanes/invite_token.hpp"
#include "core/rooms/room_spec.hpp"

namespace foyer {

enum class room_state : std::uint8_t { lobby, drawing, open, paused, sold_out, closed };

std::string_view to_string(room_state state);

struct room_created {
  std::string room;
  digest seed;
  std::int64_t at_ms = 0;
};

struct visitor_joined {
  std::string room;
  id16 visitor{};
  id16 entrant{};
  std::int64_t at_ms = 0;
  std::optional<id16> account;  // a keyed digest of the site's account id, if the site sent one
  std::uint8_t lane = 0;         // the lane's index in the room (lane_queues), 0 the general lane
  // The access code the visitor joined the lane with: the join redeems it, or is refused
  // if it may not (code_book::check), so that a code is redeemed exactly once.
  std::optional<digest> code{};
  // The invite the visitor joined with: single use, by its jti, in log order.
  std::optional<invite::invite_used> invite{};
};

// The admission ticker's durable step: the new frontier and the ticker clock it
// was computed at, so that a restart continues from exactly there.
struct visitors_admitted {
  std::string room;
  std::uint64_t served = 0;
  std::int64_t tick_ms = 0;
  std::uint64_t carry = 0;
};

struct lobby_closed {
  std::string room;
  std::int64_t at_ms = 0;
  // The deployment had witnesses then: the draw waits until they cosigned the ledger's
  // commit and close (draw_witnessed). Recorded so that replay draws at the same event
  // whatever the witnesses are configured as later.
  bool awaits_witnesses = false;
};

struct beacon_supplied {
  std::string room;
  std::string value;  // raw bytes of the public random value
  std::int64_t at_ms = 0;
  // What stands behind a drand round beside its shape: two relays that agreed, or nothing.
  drand::beacon_check check = drand::beacon_check::none;
  // two_relays: the origins of the two relays that agreed (url.hpp origin_of), so that anyone
  // can judge whether they are independent.
  std::vector<std::string> relays{};
};
// The most relays a beacon_supplied event names: the two that agreed.
inline constexpr std::size_t max_beacon_relays = 2;

// The quorum of witnesses cosigned a ledger checkpoint covering the room's commit or
// close: the ledger records it (ledger::witnessed_entry), and once both are, the draw may
// be revealed.
struct draw_witnessed {
  std::string room;
  ledger::stage stage = ledger::stage::commit;
  std::string cosigned_checkpoint;
  std::int64_t at_ms = 0;
};

// Operator transitions: pause, resume, sold out, closed.
struct state_changed {
  std::string room;
  room_state state = room_state::open;
  std::int64_t at_ms = 0;
};

// The configuration in force from `at_ms` on: replay applies each room's history with
// the settings it had at the time. The first one follows the room_created.
struct room_configured {
  std::string room;
  room_config config;
  room_owner source = room_owner::file;  // who made this change: the file, or the admin API
  // A change from the file: the file's declaration it applies, which the next reload
  // compares with the file (config can differ from it by the live changes it kept).
  std::optional<room_config> declared;
  std::int64_t at_ms = 0;
};

// The room is gone; its id is never used again, so nothing it gave out is ever valid
// for another room.
struct room_removed {
  std::string room;
  std::int64_t at_ms = 0;
};

// A status answer carried an admitted visitor's pass to them for the first time: from
// here the pass is live (counts toward max_active) until it expires or is reported done.
struct pass_claimed {
  std::string room;
  std::uint64_t place = 0;
  id16 pass{};  // the pass's jti, by which the site reports it done
  std::int64_t at_ms = 0;
};

// The site reports these visitors finished or abandoned checkout: their slots free.
struct passes_done {
  std::string room;
  std::vector<std::uint64_t> places;
  std::int64_t at_ms = 0;
};

enum class stock_change : std::uint8_t { consumed, released, remaining };
std::string_view to_string(stock_change kind);

// The site's report of its stock, with the Idempotency-Key it was sent with: a retry
// with the same key is answered from the first report and counts nothing twice.
struct stock_reported {
  std::string room;
  stock_change kind = stock_change::remaining;
  std::uint64_t amount = 0;
  std::string key;
  std::int64_t at_ms = 0;
};

// Why the room admits at the rate it does.
enum class rate_reason : std::uint8_t {
  configured,
  adaptive_increase,
  adaptive_decrease,
  adaptive_no_signal,
  no_show_compensation,
};
std::string_view to_string(rate_reason reason);

// The ticker moved the room's rate: the adaptive controller's base rate, and the rate
// admitted, which makes up for no-shows (core/rooms/rate_control).
struct rate_changed {
  std::string room;
  std::uint32_t base_rate_per_minute = 0;
  std::uint32_t rate_per_minute = 0;
  rate_reason reason = rate_reason::configured;
  std::int64_t at_ms = 0;
};

// A visitor's resume link ("Keep my place"): from here `link` is their live link, or
// they hold none (revoked). Bound to the room and the visitor's ticket; no personal data.
struct resume_link_changed {
  std::string room;
  id16 visitor{};
  std::optional<id16> link;
  std::int64_t at_ms = 0;
};

// The visitor at `place` was told "it's your turn" (the push service or the relay accepted it):
// their claim window runs from here (claim_book::notified). No personal data.
struct turn_notified {
  std::string room;
  std::uint64_t place = 0;
  std::int64_t at_ms = 0;
};

using event = std::variant<room_created, visitor_joined, visitors_admitted, lobby_closed, beacon_supplied,
                           state_changed, room_configured, room_removed, pass_claimed, passes_done, stock_reported,
                           rate_changed, hold_placed, hold_extended, hold_confirmed, hold_released, holds_expired,
                           seats_recounted, draw_witnessed, codes_added, codes_revoked, resume_link_changed,
                           turn_notified>;

std::string encode(const event& e);
// Whether `e` is a hold event, whose applying has a hold_outcome.
bool has_hold_outcome(const event& e);
std::optional<event> decode_event(std::string_view bytes);
const std::string& room_of(const event& e);

}  // namespace foyer
