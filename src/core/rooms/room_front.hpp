#pragma once
// The rooms' fronts as the owner's loop publishes them, so that the cacheable frontier,
// and a status poll from far back in a queue, are answered on the connection's own thread
// without waiting for the loop (http/poll_desk.hpp). Immutable once built: threads share
// it, never change it.
//
// A far-back visitor's answer is the one the loop would have given when it published
// (at most a publish period ago): their position moved by at most the rate times that,
// and they poll again in seconds. Nearer the front, admitted, held or anything but
// waiting is the loop's to answer, with the pass, the hold or the redrawn ticket.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/rooms/status.hpp"

namespace foyer {

class journal;

struct room_front {
  // By lane (lane_of): one for a room without lanes. The lanes' ids are in lane_ids.
  std::vector<lane_front> lanes;
  std::vector<std::string> lane_ids;
  std::uint32_t rate = 0;  // the room's, over its lanes
  std::optional<std::uint64_t> stock_left;  // room::stock_remaining
  std::optional<double> claim_ratio;        // room::claim_ratio
};

struct room_fronts {
  std::int64_t taken_ms = 0;       // on the rooms' steady clock
  std::int64_t taken_wall_ms = 0;  // the same moment on the wall clock
  std::map<std::string, room_front, std::less<>> rooms;
};

// The room's front at `now_ms`, and every room's at `now_ms` (`wall_ms` on the wall clock).
room_front room_front_of(const room& r, std::int64_t now_ms);
room_fronts fronts_of(const journal& rooms, std::int64_t now_ms, std::int64_t wall_ms);

// The status of the visitor at `place` (the room's, lane_queues) from the front taken at
// `taken_ms`, if they are waiting farther back than the room's frontier_above; none where
// the owner must answer.
std::optional<visitor_status> far_status(const room_front& front, std::int64_t taken_ms, std::uint64_t place,
                                         double jitter, status_window window);

}  // namespace foyer
