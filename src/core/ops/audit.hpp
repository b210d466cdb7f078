#pragma once
// A room's audit trail as JSON lines: each event of the log with its seq, its time
// (RFC 3339, UTC) and its type. Nothing secret leaves: a room's seed is shown only as
// its commitment, an account only as whether there was one.

#include <cstdint>
#include <string>

#include "core/rooms/applied_effect.hpp"
#include "core/rooms/event.hpp"

namespace foyer {

// One JSON object, no newline. A hold event's line carries its `outcome` (what applying
// it did, journal::hold_outcome_key), null if that is not known. A join names its lane by
// its id in `r`, the room (lanes keep their numbers: core/rooms/lane_queues.hpp).
std::string audit_record(std::uint64_t seq, const event& e, std::optional<hold_outcome> outcome = std::nullopt,
                         const room* r = nullptr);

}  // namespace foyer
