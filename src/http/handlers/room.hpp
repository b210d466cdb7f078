#pragma once
// What anyone may read of the rooms:
//   GET /api/v1/rooms                           every listed room: id, name, state
//   GET /api/v1/rooms/{room}                    its counters, admission, schedule and branding
//   GET /api/v1/rooms/{room}/frontier           served, state, rate, at: tiny and cacheable
//   GET /api/v1/rooms/{room}/lottery            the commitment, and after the draw the
//                                               lobby root, beacon and seed (FAIRNESS.md)
//   GET /api/v1/rooms/{room}/lottery/proof?index=N   entrant N's inclusion proof

#include "core/base/json.hpp"
#include "http/handlers/context.hpp"

namespace foyer::http::handlers {

// The admission figures at `now`: the rate and why it has that value, the passes live,
// claimed and never claimed, and the stock the site reported.
void add_admission(json_object& body, const room& r, std::int64_t now_ms);
// The channels a visitor may opt into for "your turn" notices, and with `counts` (the
// operators' view) the room's opt-ins, contacts held, notices sent and delivered by
// channel: a JSON object. nullopt when no channel is configured.
std::optional<std::string> notifications_of(const context& ctx, const room& r, bool counts);
// The rooms a sold-out room offers instead, with their live state: a JSON array.
std::string alternatives_of(const context& ctx, const room& r);

response rooms_list(const context& ctx, const request& req);
response room_info(const context& ctx, const request& req, const room& r);
response frontier(const context& ctx, const request& req, const room& r);
response lottery(const context& ctx, const request& req, const room& r);
task<response> lottery_proof(context& ctx, const request& req, const room& r);

}  // namespace foyer::http::handlers
