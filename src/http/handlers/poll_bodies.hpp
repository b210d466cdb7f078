#pragma once
// What the polls answer, written alike by the loop (visitor::status, handlers::frontier) and
// by the I/O threads' poll desks (http/poll_desk.hpp).

#include <cstdint>
#include <optional>
#include <string>

#include "core/base/json.hpp"
#include "core/rooms/room_front.hpp"
#include "core/rooms/status.hpp"
#include "http/server.hpp"

namespace foyer::http::handlers {

// The visitor's state, place and timing; `lobby_index` is the ticket's.
void status_fields(json_object& body, const visitor_status& st, std::optional<std::uint64_t> lobby_index);
// The room's stock left and its claim ratio, when it counts them.
void stock_fields(json_object& body, std::optional<std::uint64_t> stock_left, std::optional<double> claim_ratio);

// The room's frontier as its front says, at `at_ms` on the wall clock: served, state and
// rate, by lane in a room with lanes.
std::string frontier_body(const room_front& f, std::int64_t at_ms);
// An answer a CDN or the browser may keep for a second: tiny and the same for everyone, so
// that any HTTP cache can absorb the polling.
response cacheable(const request& req, std::string body);

}  // namespace foyer::http::handlers
