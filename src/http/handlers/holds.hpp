#pragma once
// Holds on a room's seats (core/inventory/hold_desk decides):
//   POST .../holds                       the visitor, "Authorization: Bearer <pass>", {"seats": n}:
//                                        201 {"hold_id","state":"held","seats","expires_at"}
//   GET  .../holds/{hold}                the visitor's pass or the site token: the hold
//   POST .../holds/{hold}/payment-pending  site: extends once, from held only
//   POST .../holds/{hold}/confirm        site: {"state":"confirmed","confirmation_id"} or
//                                        {"state":"refund_required","reason"}
//   POST .../holds/{hold}/release        site, or the visitor's own: {"state":"released"}
//   GET  .../inventory                   anyone: the seats, cacheable for a second
// A room removed with seats still answers GET and the POSTs on its holds (confirm gets
// refund_required, reason room_removed, for a hold held then) for its late grace.
// Every POST takes an Idempotency-Key: a retry gets the first answer, the same key with
// another request a 422.

#include "http/handlers/context.hpp"

namespace foyer::http::handlers {

task<response> place_hold(context& ctx, const request& req, const room& r);
task<response> act_on_hold(context& ctx, const request& req, const room& r, std::string_view hold_id,
                           hold_action action);
response get_hold(context& ctx, const request& req, const room& r, std::string_view hold_id);
response inventory(const request& req, const room& r);
// The seats as GET .../inventory shows them, for the admin's recount too.
std::string inventory_json(const seat_ledger& s);

}  // namespace foyer::http::handlers
