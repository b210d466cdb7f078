#include "http/handlers/holds.hpp"

#include <boost/beast/http/field.hpp>
#include <fmt/format.h>
#include <foyer/pass_verifier.hpp>

#include "core/base/json.hpp"
#include "core/base/time_text.hpp"
#include "core/passes/pass_issuer.hpp"
#include "core/inventory/hold_desk.hpp"
#include "http/handlers/desk_runner.hpp"
#include "http/handlers/site.hpp"
#include "http/problem.hpp"
#include "http/request_fields.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

// Who calls: the site (no visitor), or a visitor by their pass.
struct caller {
  std::optional<id16> visitor;
};

// The visitor whose valid pass of this room the request carries, checked as the site
// would (with the keys this server publishes): its signature once, then from the cache.
// A pass the site reported done is refused as an expired one is.
std::optional<id16> pass_holder(context& ctx, const request& req, const room& r) {
  auto token = bearer(req);
  if (!token) return std::nullopt;
  auto visitor = ctx.passes.holder(*token, r.config().id, seconds(ctx.clock.now_ms()));
  if (visitor && pass_done(r, *visitor)) return std::nullopt;
  return visitor;
}

// A pass past its request budget on the holds endpoints is told when to ask again.
std::optional<response> over_budget(context& ctx, const request& req, const std::optional<id16>& visitor) {
  if (!visitor) return std::nullopt;
  auto wait_ms = ctx.hold_budget.spend(*visitor, ctx.clock.steady_ms());
  if (!wait_ms) return std::nullopt;
  auto res = problem(req, errc::too_many_requests,
                     fmt::format("This pass asked about holds more than {} times a minute; ask again later.",
                                 ctx.settings.hold_requests_per_minute));
  res.set(bhttp::field::retry_after, std::to_string((*wait_ms + 999) / 1000));
  return res;
}

// The site's token, or else the visitor's pass; nullopt if neither is valid.
std::optional<caller> site_or_visitor(context& ctx, const request& req, const room& r) {
  if (!site_check(ctx, req)) return caller{};
  if (auto visitor = pass_holder(ctx, req, r)) return caller{visitor};
  return std::nullopt;
}

response pass_required(const request& req) {
  return problem(req, errc::pass_required, "Send your pass of this room, while it is valid, as 'Authorization: Bearer <pass>'.");
}

response hold_refused(const request& req, const desk_refusal& why) {
  // Seats, not the room, are sold out here: a conflict the visitor may retry, not a 410.
  if (why.code == errc::sold_out) {
    return problem(req.version(), req.keep_alive(), 409, to_string(errc::sold_out), "No seats available", why.detail);
  }
  return refused(req, why);
}

// Times on the rooms' clock, which runs with the wall clock (foyer/clock.hpp): the same
// text for every answer about one hold.
response hold_response(const request& req, bhttp::status status, const id16& id, hold_state state,
                       std::uint32_t seats, std::int64_t expires_ms, refund_reason reason,
                       std::uint32_t waitlist_position = 0) {
  json_object body;
  body.hex("hold_id", id).str("state", to_string(state));
  switch (state) {
    case hold_state::waitlisted:
      body.num("seats", std::uint64_t{seats}).num("waitlist_position", std::uint64_t{waitlist_position});
      break;
    case hold_state::held: body.num("seats", std::uint64_t{seats}).str("expires_at", format_rfc3339_ms(expires_ms)); break;
    case hold_state::confirmed: body.hex("confirmation_id", confirmation_id(id)); break;
    case hold_state::refund_required: body.str("reason", to_string(reason)); break;
    case hold_state::released:
    case hold_state::expired: break;
  }
  return json_response(req, status, body.done());
}

response receipt_response(const request& req, const hold_receipt& receipt) {
  // In line, not holding: a conflict that says where the visitor stands, as it first did.
  if (receipt.state == hold_state::waitlisted) {
    auto position = std::to_string(receipt.waitlist_position);
    return problem(req, errc::waitlist_offered,
                   fmt::format("Too few seats are available now: you are number {} in line for seats that come back. "
                               "Ask about the hold to see when it holds seats.",
                               receipt.waitlist_position),
                   {{"waitlist_position", position}, {"hold_id", json_quote(to_hex(receipt.hold))}});
  }
  auto status = receipt.action == hold_action::place ? bhttp::status::created : bhttp::status::ok;
  return hold_response(req, status, receipt.hold, receipt.state, receipt.seats, receipt.expires_ms, receipt.reason);
}

// Decides on `r`, the room the route found, writes what is decided, and answers from the
// room as the log left it.
task<response> carry(context& ctx, const request& req, const room& r, std::string key, hold_request request) {
  // A retired room's holds answer through its late grace (journal::find_for_holds); found
  // again only after the write: its grace may end between two readings of the clock.
  auto find = [](const context& c, std::string_view id) { return c.rooms.find_for_holds(id, c.clock.steady_ms()); };
  auto decide = [&ctx, key, request](const room& now) {
    auto account_seats = request.visitor ? ctx.rooms.account_seats(now, *request.visitor) : std::nullopt;
    return decide_hold(now, key, request, ctx.clock.steady_ms(), account_seats);
  };
  // Built before the co_await: GCC 12 mishandles temporaries with destructors inside one.
  hold_decision first = decide(r);
  auto again = decide_again(ctx, r.config().id, decide, find);
  auto answer = [&req](const hold_receipt& receipt) { return receipt_response(req, receipt); };
  co_return co_await http::carry(ctx, req, std::move(first), std::move(again), answer, hold_refused);
}

struct placement_body {
  std::uint32_t seats = 0;
  std::optional<std::string> from;
  std::optional<std::string> to;
};

// {"seats": n}, with "from" and "to" if given; whether they make a route is the desk's.
std::optional<placement_body> parse_placement(context& ctx, const request& req) {
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  std::uint64_t seats = 0;
  if (ctx.json_parser.iterate(padded(ctx, req.body())).get(doc) || doc.get_object().get(object) ||
      object.find_field_unordered("seats").get_uint64().get(seats) || seats > 1000) {
    return std::nullopt;
  }
  placement_body body{static_cast<std::uint32_t>(seats), {}, {}};
  for (auto [name, station] : {std::pair{"from", &body.from}, std::pair{"to", &body.to}}) {
    auto field = object.find_field_unordered(name);
    if (field.error() == simdjson::NO_SUCH_FIELD) continue;
    std::string_view text;
    if (field.get_string().get(text)) return std::nullopt;
    *station = std::string(text);
  }
  return body;
}

}  // namespace

task<response> place_hold(context& ctx, const request& req, const room& r) {
  auto visitor = pass_holder(ctx, req, r);
  if (!visitor) co_return pass_required(req);
  if (auto busy = over_budget(ctx, req, visitor)) co_return std::move(*busy);
  auto key = idempotency_key(req);
  if (auto* bad = std::get_if<response>(&key)) co_return std::move(*bad);
  auto body = parse_placement(ctx, req);
  if (!body) {
    co_return problem(req, errc::bad_body,
                      "The body must be {\"seats\": n}, n a whole number, with \"from\" and \"to\" stations if the seats have legs.");
  }
  hold_request request{hold_action::place, random_array<16>(), visitor, r.place_of_pass(pass::pass_id(r.config().id, *visitor)),
                       body->seats, std::move(body->from), std::move(body->to)};
  co_return co_await carry(ctx, req, r, std::get<std::string>(std::move(key)), request);
}

task<response> act_on_hold(context& ctx, const request& req, const room& r, std::string_view hold_text,
                           hold_action action) {
  std::optional<caller> who;
  // Only the site speaks for payments; a visitor may give their own hold up.
  if (action == hold_action::release) {
    who = site_or_visitor(ctx, req, r);
    if (!who) co_return pass_required(req);
    if (auto busy = over_budget(ctx, req, who->visitor)) co_return std::move(*busy);
  } else {
    if (auto denied = site_check(ctx, req)) co_return std::move(*denied);
    who = caller{};
  }
  auto hold = from_hex_fixed<16>(hold_text);
  if (!hold) co_return problem(req, errc::unknown_hold, "There is no such hold.");
  auto key = idempotency_key(req);
  if (auto* bad = std::get_if<response>(&key)) co_return std::move(*bad);
  co_return co_await carry(ctx, req, r, std::get<std::string>(std::move(key)),
                           hold_request{action, *hold, who->visitor, std::nullopt, 0});
}

response get_hold(context& ctx, const request& req, const room& r, std::string_view hold_text) {
  auto who = site_or_visitor(ctx, req, r);
  if (!who) return pass_required(req);
  if (auto busy = over_budget(ctx, req, who->visitor)) return std::move(*busy);
  auto id = from_hex_fixed<16>(hold_text);
  if (!id) return problem(req, errc::unknown_hold, "There is no such hold.");
  auto found = hold_for(r, *id, who->visitor);
  if (const auto* why = std::get_if<desk_refusal>(&found)) return hold_refused(req, *why);
  const hold& h = *std::get<const hold*>(found);
  return hold_response(req, bhttp::status::ok, *id, h.state, h.seats, h.expires_ms, h.reason,
                       r.seats().waitlist_position(*id).value_or(0));
}

std::string inventory_json(const seat_ledger& s) {
  // Each leg by its stations, "A-B"; none without legs.
  json_object legs;
  const auto& settings = *s.settings();
  for (std::size_t i = 0; !settings.legs.empty() && i < s.legs().size(); ++i) {
    const auto& leg = s.legs()[i];
    legs.raw(settings.leg_name(i), json_object()
                                       .num("total", leg.total)
                                       .num("available", leg.available)
                                       .num("held", leg.held)
                                       .num("confirmed", leg.confirmed)
                                       .done());
  }
  return json_object()
      .num("total", s.total())
      .num("available", s.available())
      .num("held", s.held())
      .num("confirmed", s.confirmed())
      .boolean("frozen", s.frozen())
      .raw("legs", legs.done())
      .done();
}

response inventory(const request& req, const room& r) {
  if (!r.seats().enabled()) return problem(req, errc::no_inventory, "This room has no seats to hold.");
  auto res = json_response(req, bhttp::status::ok, inventory_json(r.seats()));
  // The availability band a CDN may serve: a second old at most.
  res.set(bhttp::field::cache_control, "public, max-age=1");
  return res;
}

}  // namespace foyer::http::handlers
