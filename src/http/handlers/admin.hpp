#pragma once
// The operator's API; every path under /api/v1/admin needs the admin token (the router
// checks it first, see admin_check), and every change is an event in the log:
//   GET    /api/v1/admin/rooms                      every room with its counters and settings
//   POST   /api/v1/admin/rooms                      a room from the settings in the body
//   GET    /api/v1/admin/rooms/{room}               one room
//   PATCH  /api/v1/admin/rooms/{room}               some settings; null removes opens_at or stock
//   DELETE /api/v1/admin/rooms/{room}[?force=true]  removes it (forced: closed first)
//   GET    /api/v1/admin/rooms/{room}/audit[?after_seq=N&limit=M]  its events as NDJSON
//   POST /api/v1/admin/rooms/{room}/pause|resume|sold-out|close    a state change
//   POST /api/v1/admin/rooms/{room}/close-lobby     closes the lobby now
//   POST /api/v1/admin/rooms/{room}/beacon          {"value": "<hex>"}: the public random value
//   POST /api/v1/admin/rooms/{room}/inventory/recount  a frozen seat ledger recounted and unfrozen
// Changes answer {"state": ...} once durable.

#include <optional>

#include "http/handlers/context.hpp"

namespace foyer::http::handlers {

// The settings of a JSON body over `config`, each through the validator the file uses:
// nullopt when every one applies; else the refusal, naming the setting, or with an empty
// field when the body is no JSON object of settings. Declared here for the fuzz target
// (tests/fuzz/bodies.cpp).
std::optional<field_problem> apply_settings(simdjson::ondemand::parser& parser, simdjson::padded_string_view text,
                                           room_config& config);

// nullopt if the request carries the admin token; else the answer: 404 while the admin
// API is off, 401 without the right token (compared in constant time).
std::optional<response> admin_check(const context& ctx, const request& req);

response admin_rooms(const context& ctx, const request& req);
response admin_room(const context& ctx, const request& req, const room& r);
task<response> create_room(context& ctx, const request& req);
task<response> patch_room(context& ctx, const request& req, const room& r);
task<response> delete_room(context& ctx, const request& req, const room& r);
// Also for a room that was removed: its history stays.
task<response> audit(context& ctx, const request& req, std::string_view room_id);
// Access codes: generate or upload a batch, list the batches, export one as CSV with its
// redemptions, revoke a batch or one code.
task<response> add_codes(context& ctx, const request& req, const room& r);
response code_batches(const request& req, const room& r);
response export_codes(const context& ctx, const request& req, const room& r, std::string_view batch);
task<response> revoke_codes(context& ctx, const request& req, const room& r, std::string_view batch);
// pause, resume, sold-out and close.
task<response> change_state(context& ctx, const request& req, const room& r, room_state target);
// Answers the seats as GET .../inventory does; nothing written if the counts are right.
task<response> recount_seats(context& ctx, const request& req, const room& r);
task<response> close_lobby(context& ctx, const request& req, const room& r);
task<response> supply_beacon(context& ctx, const request& req, const room& r);

}  // namespace foyer::http::handlers
