#include "http/handlers/admin.hpp"

#include <fmt/core.h>

#include "core/base/crypto.hpp"
#include "core/base/json.hpp"
#include "http/problem.hpp"
#include "http/request_fields.hpp"

namespace foyer::http::handlers {
namespace {

namespace bhttp = beast::http;

// Makes the operator's change durable; answers the room's state then. Callers build the
// event before the co_await: made within the co_await's expression, a temporary event
// corrupted the heap under GCC 12.
task<response> apply(context& ctx, const request& req, std::string room_id, event e) {
  auto [ec, outcome] = co_await commit(ctx, std::move(e));
  if (ec) co_return unavailable(req);
  const room* now = ctx.rooms.find(room_id);
  if (!now) co_return unknown_room(req, room_id);
  co_return json_response(req, bhttp::status::ok, json_object().str("state", to_string(now->state())).done());
}

}  // namespace

std::optional<response> admin_check(const context& ctx, const request& req) {
  const auto& expected = ctx.settings.admin_token;
  if (expected.empty()) {
    return problem(req, errc::admin_disabled, "The admin API is off: set server.admin_token to enable it.");
  }
  auto token = bearer(req);
  if (!token || !equal_constant_time(as_bytes(*token), as_bytes(expected))) {
    return problem(req, errc::admin_token_required, "Send the admin token as 'Authorization: Bearer <token>'.");
  }
  return std::nullopt;
}

response admin_rooms(const context& ctx, const request& req) {
  std::string list = "[";
  auto now = ctx.clock.now_ms();
  for (const auto& [id, r] : ctx.rooms.rooms()) {
    if (list.size() > 1) list += ',';
    auto served = r.served(ctx.clock.steady_ms());
    list += json_object()
                .str("id", id)
                .str("name", r.config().name)
                .str("state", to_string(r.state()))
                .num("joined", r.joined())
                .num("served", served)
                .num("waiting", r.joined() - served)
                .num("lobby_size", r.lobby_size())
                .num("rate_per_minute", r.config().rate_per_minute)
                .opt_num("stock", r.config().stock)
                .boolean("needs_beacon", r.needs_beacon())
                .done();
  }
  list += ']';
  return json_response(req, bhttp::status::ok, json_object().raw("rooms", list).num("at", now).done());
}

task<response> change_state(context& ctx, const request& req, const room& r, room_state target) {
  if (!r.allows(target)) {
    co_return problem(req, errc::not_allowed,
                      fmt::format("A room that is {} cannot become {}.", to_string(r.state()), to_string(target)));
  }
  std::string id = r.config().id;
  event e = state_changed{id, target, ctx.clock.steady_ms()};
  co_return co_await apply(ctx, req, std::move(id), std::move(e));
}

task<response> close_lobby(context& ctx, const request& req, const room& r) {
  if (r.state() != room_state::lobby) co_return problem(req, errc::not_in_lobby, "The lobby is not open.");
  std::string id = r.config().id;
  event e = lobby_closed{id, ctx.clock.steady_ms()};
  co_return co_await apply(ctx, req, std::move(id), std::move(e));
}

task<response> supply_beacon(context& ctx, const request& req, const room& r) {
  if (r.state() != room_state::drawing) {
    co_return problem(req, errc::not_drawing, "A beacon is taken only after the lobby closed and before the draw.");
  }
  std::string_view hex;
  auto doc = ctx.json_parser.iterate(padded(ctx, req.body()));
  if (doc.error() || doc["value"].get_string().get(hex) || !from_hex(hex) || hex.empty() || hex.size() > 1024) {
    co_return problem(req, errc::bad_beacon, "Send {\"value\": \"<hex bytes of the public random value>\"}.");
  }
  auto bytes = *from_hex(hex);
  std::string id = r.config().id;
  event e = beacon_supplied{id, std::string(as_chars(bytes)), ctx.clock.steady_ms()};
  co_return co_await apply(ctx, req, std::move(id), std::move(e));
}

}  // namespace foyer::http::handlers
