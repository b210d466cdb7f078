#pragma once
// A lottery opening set in the past, or so close to now that nobody could join its lobby,
// opens the room first come, first served without a word: such an opens_at is refused
// unless the operator says they mean it. Only a new opening is checked: a room whose
// opening has since passed loads and reloads unchanged.

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/rooms/room_spec.hpp"

namespace foyer {

// An opening must be at least this far ahead of now when it is set.
constexpr std::int64_t min_opening_lead_ms = 60'000;

// How the operator asks for an opening in the past: `opens_at_in_past = "accept"` in the
// room's [[rooms]] table, `?opens_at_in_past=accept` on the admin API.
constexpr std::string_view past_opening_key = "opens_at_in_past";
constexpr std::string_view past_opening_accept = "accept";

enum class past_opening { refuse, accept };

// Why `opens_at` (replacing `was`) may not be set at `now_ms`; the field is "opens_at".
std::optional<field_problem> check_opening(const std::optional<std::int64_t>& was,
                                           const std::optional<std::int64_t>& opens_at, std::int64_t now_ms,
                                           past_opening rule);

}  // namespace foyer
