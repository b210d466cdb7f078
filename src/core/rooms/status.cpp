#include "core/rooms/status.hpp"

#include <algorithm>

namespace foyer {
namespace {

constexpr std::int64_t min_poll_ms = 1'000;
constexpr std::int64_t max_poll_ms = 30'000;
constexpr std::int64_t drawing_poll_ms = 2'000;

// People far back poll rarely: about ten polls over their expected wait.
std::uint32_t poll_interval(std::int64_t until_ms, double jitter) {
  auto base = std::clamp<std::int64_t>(until_ms / 10, min_poll_ms, max_poll_ms);
  return static_cast<std::uint32_t>(static_cast<double>(base) * (0.8 + 0.4 * jitter));
}

}  // namespace

lane_front front_of(const room& r, std::uint8_t lane, std::int64_t now_ms) {
  lane_front f;
  f.state = r.state();
  if (r.lanes().size() > 1 && lane < r.lanes().size()) f.lane = r.lanes().at(lane).config.id;
  f.served = r.served_in_lane(lane, now_ms);
  if (lane < r.lanes().size()) f.joined = r.lanes().at(lane).joined;
  f.rate = r.lane_rate(lane);
  f.lobby_closes_at_ms = r.lobby_closes_at_ms();
  f.held = r.held_at(now_ms);
  return f;
}

visitor_status status_of(const room& r, std::optional<std::uint64_t> place, std::int64_t now_ms, double jitter,
                         status_window window, std::optional<std::uint64_t> lobby_index) {
  auto lane = place ? lane_of(*place) : lobby_index ? lane_of(*lobby_index) : std::uint8_t{0};
  if (place) place = place_in_lane(*place);
  return status_at(front_of(r, lane, now_ms), place, now_ms, jitter, window);
}

visitor_status status_at(const lane_front& f, std::optional<std::uint64_t> place, std::int64_t now_ms, double jitter,
                         status_window window) {
  visitor_status s;
  s.lane = f.lane;
  s.served = f.served;
  s.place = place;
  if (!place) {
    auto closes = f.lobby_closes_at_ms;
    if (f.state == room_state::sold_out || f.state == room_state::closed) {
      // Stopped before the draw: there will be no place to wait for.
      s.state = to_string(f.state);
      s.poll_after_ms = poll_interval(max_poll_ms * 10, jitter);
    } else if (f.state == room_state::lobby && closes) {
      s.state = "lobby";
      s.poll_after_ms = poll_interval((*closes - now_ms) * 4, jitter);
    } else {
      s.state = "drawing";
      s.poll_after_ms = poll_interval(drawing_poll_ms * 10, jitter);
    }
    return s;
  }
  if (*place < s.served) {
    s.state = "admitted";
    s.position = 0;
    s.eta_seconds = 0;
    s.poll_after_ms = poll_interval(max_poll_ms * 10, jitter);
    return s;
  }
  s.position = *place - s.served;
  std::uint64_t rate = std::max<std::uint32_t>(f.rate, 1);
  std::uint64_t wait_ms = (*s.position + 1) * 60'000 / rate;
  s.eta_seconds = (wait_ms + 999) / 1000;
  s.poll_after_ms = poll_interval(static_cast<std::int64_t>(std::min<std::uint64_t>(wait_ms, INT32_MAX)), jitter);
  s.frontier_above = std::max<std::uint64_t>(window.places, (rate * window.seconds + 59) / 60);
  switch (f.state) {
    case room_state::paused: s.state = "paused"; break;
    case room_state::sold_out: s.state = "sold_out"; break;
    case room_state::closed: s.state = "closed"; break;
    default: s.state = "waiting"; break;
  }
  if (s.state == "sold_out" || s.state == "closed") s.frontier_above.reset();
  if (s.state == "waiting") {
    s.held = f.held;
    if (s.held) s.eta_seconds.reset();
  }
  // A paused room has no end to its pause that it knows of, a stopped one admits nobody more:
  // no wait is made up.
  if (s.state != "waiting") s.eta_seconds.reset();
  return s;
}

}  // namespace foyer
