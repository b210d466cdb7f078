#pragma once
// What a visitor's poll answers: pure arithmetic on the room's counters.

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/rooms/room.hpp"

namespace foyer {

struct visitor_status {
  std::string_view state;  // lobby, drawing, waiting, admitted, paused, sold_out, closed
  std::optional<std::uint64_t> place;
  std::uint64_t served = 0;
  std::optional<std::uint64_t> position;  // place − served: how many are ahead
  std::optional<std::uint64_t> eta_seconds;
  std::uint32_t poll_after_ms = 0;
};

// `jitter` in [0, 1) spreads polls so that a crowd doesn't poll in step.
visitor_status status_of(const room& r, std::optional<std::uint64_t> place, std::int64_t now_ms,
                         double jitter);

}  // namespace foyer
