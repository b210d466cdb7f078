#include "core/rooms/room_front.hpp"

#include <algorithm>

#include "core/lanes/lane_place.hpp"
#include "core/rooms/journal.hpp"

namespace foyer {

room_front room_front_of(const room& r, std::int64_t now_ms) {
  room_front f;
  auto lanes = std::max<std::size_t>(r.lanes().size(), 1);
  for (std::size_t i = 0; i < lanes; ++i) {
    f.lanes.push_back(front_of(r, static_cast<std::uint8_t>(i), now_ms));
    // The room's config may change once published: the front keeps its own ids.
    f.lanes.back().lane.reset();
    if (r.lanes().size() > 1) f.lane_ids.emplace_back(r.lanes().at(i).config.id);
  }
  f.rate = r.rate();
  f.stock_left = r.stock_remaining();
  f.claim_ratio = r.claim_ratio();
  return f;
}

room_fronts fronts_of(const journal& rooms, std::int64_t now_ms, std::int64_t wall_ms) {
  room_fronts fronts;
  fronts.taken_ms = now_ms;
  fronts.taken_wall_ms = wall_ms;
  for (const auto& [id, r] : rooms.rooms()) fronts.rooms.emplace(id, room_front_of(r, now_ms));
  return fronts;
}

std::optional<visitor_status> far_status(const room_front& front, std::int64_t taken_ms, std::uint64_t place,
                                         double jitter, status_window window) {
  auto lane = lane_of(place);
  if (lane >= front.lanes.size()) return std::nullopt;
  auto f = front.lanes[lane];
  // A place the log never gave (a log restored from an older copy) is the owner's to refuse.
  if (place_in_lane(place) >= f.joined) return std::nullopt;
  if (lane < front.lane_ids.size()) f.lane = front.lane_ids[lane];
  auto s = status_at(f, place_in_lane(place), taken_ms, jitter, window);
  if (s.state != "waiting" || s.held || !s.frontier_above || *s.position <= *s.frontier_above) return std::nullopt;
  return s;
}

}  // namespace foyer
