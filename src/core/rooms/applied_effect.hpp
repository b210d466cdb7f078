#pragma once
// What applying an event did, for what leaves the process (event sinks): figures taken
// from the room as the event left it, never from the event's own proposal.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rooms/event.hpp"

namespace foyer {

class room;

struct applied_effect {
  std::optional<hold_outcome> hold;     // a hold event's outcome (room::apply)
  std::vector<std::uint64_t> admitted;  // visitors_admitted: the visitors it admitted, per lane in lane order
  const room* after = nullptr;          // the event's room as applying it left it, if it has one
};

// A lane's id in `r`, for what names lanes outside (events, the audit trail): its number
// where the room is gone ("general" for lane 0).
std::string lane_id(const room* r, std::uint8_t lane);

}  // namespace foyer
