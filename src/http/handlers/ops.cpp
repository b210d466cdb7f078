#include "http/handlers/ops.hpp"

#include <boost/beast/http/field.hpp>

#include "core/base/json.hpp"
#include "http/problem.hpp"

namespace foyer::http::handlers {

namespace bhttp = beast::http;

response jwks(const context& ctx, const request& req) {
  auto res = json_response(req, bhttp::status::ok, ctx.keys.jwks_json());
  res.set(bhttp::field::cache_control, "public, max-age=300");
  return res;
}

response discovery(const context& ctx, const request& req) {
  constexpr std::string_view jwks_path = "/.well-known/jwks.json";
  constexpr std::string_view ledger_path = "/api/v1/ledger";
  // The keys and the ledger are named at the server's public address, never at the Host
  // the request named; without one, as paths (the guard resolves them against --foyer).
  auto named = [&ctx](std::string_view path) {
    return ctx.settings.public_url_named ? ctx.settings.public_url.link(path) : std::string(path);
  };
  std::string rooms = "[";
  for (const auto& [id, r] : ctx.rooms.rooms()) {
    if (rooms.size() > 1) rooms += ',';
    rooms += json_quote(id);
  }
  rooms += ']';
  auto body = json_object()
                  .str("issuer", ctx.settings.issuer)
                  .str("jwks_uri", named(jwks_path))
                  .raw("rooms", rooms)
                  .raw("ledger", json_object()
                                     .str("uri", named(ledger_path))
                                     .str("origin", ctx.ledger.origin())
                                     .str("vkey", ctx.ledger.vkey())
                                     .done())
                  .done();
  auto res = json_response(req, bhttp::status::ok, std::move(body));
  res.set(bhttp::field::cache_control, "public, max-age=60");
  return res;
}

response metrics(const ops::metrics_registry& registry, const request& req) {
  return private_text(req, "text/plain; version=0.0.4", registry.scrape());
}

void collect_rooms(const context& ctx, ops::metrics_writer& w) {
  // Read from the rooms at each scrape: a room created or removed at runtime appears or
  // goes with it.
  const auto now = ctx.clock.steady_ms();
  const auto& rooms = ctx.rooms.rooms();
  w.family("foyer_room_joined_total", "counter", "Visitors who joined the room.");
  for (const auto& [id, r] : rooms) w.sample("foyer_room_joined_total", {{"room", id}}, r.joined());
  w.family("foyer_room_served", "gauge", "The room's frontier: places admitted so far.");
  for (const auto& [id, r] : rooms) w.sample("foyer_room_served", {{"room", id}}, r.served(now));
  w.family("foyer_room_waiting", "gauge", "Visitors joined and not admitted yet.");
  for (const auto& [id, r] : rooms) w.sample("foyer_room_waiting", {{"room", id}}, r.joined() - r.served(now));
  w.family("foyer_room_rate_per_minute", "gauge", "Visitors the room admits per minute now.");
  for (const auto& [id, r] : rooms) w.sample("foyer_room_rate_per_minute", {{"room", id}}, std::uint64_t{r.rate()});
  w.family("foyer_room_active_passes", "gauge", "Passes claimed and live: not expired, not reported done.");
  for (const auto& [id, r] : rooms) w.sample("foyer_room_active_passes", {{"room", id}}, r.active(now));
  w.family("foyer_room_no_shows_total", "counter", "Admitted visitors who never claimed their pass in time.");
  for (const auto& [id, r] : rooms) w.sample("foyer_room_no_shows_total", {{"room", id}}, r.no_shows());
  w.family("foyer_room_seats_frozen", "gauge", "1 while the room's seat ledger is frozen by a failed invariant.");
  for (const auto& [id, r] : rooms) {
    if (r.seats().enabled()) w.sample("foyer_room_seats_frozen", {{"room", id}}, std::uint64_t{r.seats().frozen()});
  }
  w.family("foyer_proofs_refused_total", "counter", "Joins whose proof of work was refused, by reason.");
  for (const auto& [reason, count] : ctx.desk.proof_rejections()) {
    w.sample("foyer_proofs_refused_total", {{"reason", reason}}, count);
  }
}

response healthz(const request& req) { return json_response(req, bhttp::status::ok, R"({"status":"ok"})"); }

response readyz(const context& ctx, const request& req) {
  auto reason = ctx.overload.not_ready(ctx.clock.steady_ms());
  if (reason.empty()) return json_response(req, bhttp::status::ok, R"({"status":"ready"})");
  auto detail = reason == "shedding" ? "Overloaded: new visitors are refused."
                                     : "The storage has not completed a write lately.";
  auto reason_json = json_quote(reason);
  return problem(req, errc::not_ready, detail, {{"reason", reason_json}});
}

response ops_status(const context& ctx, const request& req) {
  const auto now = ctx.clock.steady_ms();
  std::uint64_t joined = 0, served = 0;
  for (const auto& [id, r] : ctx.rooms.rooms()) {
    joined += r.joined();
    served += r.served(now);
  }
  const auto level = ctx.overload.level();
  return json_response(req, bhttp::status::ok,
                       json_object()
                           .num("joined", joined)
                           .num("served", served)
                           .num("overload_level", std::uint64_t{static_cast<std::uint8_t>(level)})
                           .str("overload", ops::to_string(level))
                           .num("at", ctx.clock.now_ms())
                           .done());
}

}  // namespace foyer::http::handlers
