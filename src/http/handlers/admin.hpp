#pragma once
// The operator's API; every path under /api/v1/admin needs the admin token (the router
// checks it first, see admin_check):
//   GET  /api/v1/admin/rooms                        every room with its counters
//   POST /api/v1/admin/rooms/{room}/pause|resume|sold-out|close    a state change
//   POST /api/v1/admin/rooms/{room}/close-lobby     closes the lobby now
//   POST /api/v1/admin/rooms/{room}/beacon          {"value": "<hex>"}: the public random value
// Changes answer {"state": ...} once durable.

#include <optional>

#include "http/handlers/context.hpp"

namespace foyer::http::handlers {

// nullopt if the request carries the admin token; else the answer: 404 while the admin
// API is off, 401 without the right token (compared in constant time).
std::optional<response> admin_check(const context& ctx, const request& req);

response admin_rooms(const context& ctx, const request& req);
// pause, resume, sold-out and close.
task<response> change_state(context& ctx, const request& req, const room& r, room_state target);
task<response> close_lobby(context& ctx, const request& req, const room& r);
task<response> supply_beacon(context& ctx, const request& req, const room& r);

}  // namespace foyer::http::handlers
