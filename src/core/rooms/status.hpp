#pragma once
// What a visitor's poll answers: pure arithmetic on the room's counters.

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/rooms/room.hpp"

namespace foyer {

struct visitor_status {
  std::string_view state;  // lobby, drawing, waiting, admitted, paused, sold_out, closed
  // The visitor's lane, in a room with lanes; place and served are counted in it.
  std::optional<std::string_view> lane;
  std::optional<std::uint64_t> place;
  std::uint64_t served = 0;
  std::optional<std::uint64_t> position;  // place − served: how many are ahead
  // None while admission is held (then `held` says why): no time can be honest.
  std::optional<std::uint64_t> eta_seconds;
  // While waiting on a held queue: "held_by_seats" or "held_by_max_active" (room::held_at).
  std::optional<std::string_view> held;
  std::uint32_t poll_after_ms = 0;
  // While waiting more than this many places back, the visitor may poll the room's
  // cacheable frontier instead (a CDN answers it for everyone) and compute their
  // position from their own place; closer, they poll their status, which carries
  // the pass. None when there is nothing to wait for.
  std::optional<std::uint64_t> frontier_above;
};

// Where visitors switch from the frontier to their status: within `places` of the front,
// or within `seconds` of admission at the room's rate, whichever is farther back. The
// seconds should span a few of the longest polls, so nobody reaches the front between two.
struct status_window {
  std::uint64_t places = 200;   // Default: 200
  std::uint32_t seconds = 90;   // Default: 90, three of the longest polls (30 s)
};

// What a visitor's status reads of their lane at one moment: a room's own (front_of), or
// the copy the owner publishes for polls answered off its thread (room_front.hpp).
struct lane_front {
  room_state state = room_state::open;
  std::optional<std::string_view> lane;  // the lane's id, in a room with lanes
  std::uint64_t served = 0;
  std::uint64_t joined = 0;  // places the lane gave (room::gave)
  std::uint32_t rate = 0;  // admissions a minute
  std::optional<std::int64_t> lobby_closes_at_ms;
  std::optional<std::string_view> held;  // room::held_at
};

// The room's lane `lane` (lane_of) at `now_ms`.
lane_front front_of(const room& r, std::uint8_t lane, std::int64_t now_ms);

// The status of a visitor at `place` in the lane (place_in_lane; none before the draw)
// whose front is `f` at `now_ms`.
visitor_status status_at(const lane_front& f, std::optional<std::uint64_t> place, std::int64_t now_ms, double jitter,
                         status_window window = {});

// `place` is the room's (lane_queues). `jitter` in [0, 1) spreads polls so that a crowd
// doesn't poll in step. A visitor with no place yet is in the lane of their lobby index
// (room::place_of), if they entered a lobby.
visitor_status status_of(const room& r, std::optional<std::uint64_t> place, std::int64_t now_ms,
                         double jitter, status_window window = {},
                         std::optional<std::uint64_t> lobby_index = std::nullopt);

}  // namespace foyer
