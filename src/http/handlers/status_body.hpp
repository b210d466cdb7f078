#pragma once
// The fields of a status answer, written alike by the loop (visitor::status) and by the
// I/O threads' poll desks (http/poll_desk.hpp).

#include <cstdint>
#include <optional>

#include "core/base/json.hpp"
#include "core/rooms/status.hpp"

namespace foyer::http::handlers {

// The visitor's state, place and timing; `lobby_index` is the ticket's.
void status_fields(json_object& body, const visitor_status& st, std::optional<std::uint64_t> lobby_index);
// The room's stock left and its claim ratio, when it counts them.
void stock_fields(json_object& body, std::optional<std::uint64_t> stock_left, std::optional<double> claim_ratio);

}  // namespace foyer::http::handlers
