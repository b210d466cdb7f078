#include "http/handlers/ops.hpp"

#include <boost/beast/http/field.hpp>
#include <fmt/format.h>

namespace foyer::http::handlers {

namespace bhttp = beast::http;

response jwks(const context& ctx, const request& req) {
  auto res = json_response(req, bhttp::status::ok, ctx.keys.jwks_json());
  res.set(bhttp::field::cache_control, "public, max-age=300");
  return res;
}

response metrics(const context& ctx, const request& req) {
  std::string out =
      "# TYPE foyer_room_joined gauge\n# TYPE foyer_room_served gauge\n# TYPE foyer_room_seats_frozen gauge\n"
      "# TYPE foyer_proof_rejections_total counter\n";
  auto now = ctx.clock.steady_ms();
  for (const auto& [id, r] : ctx.rooms.rooms()) {
    out += fmt::format("foyer_room_joined{{room=\"{}\"}} {}\nfoyer_room_served{{room=\"{}\"}} {}\n", id, r.joined(), id,
                       r.served(now));
    // 1 while the room's seat ledger is frozen by a failed invariant: alert on it.
    if (r.seats().enabled()) out += fmt::format("foyer_room_seats_frozen{{room=\"{}\"}} {}\n", id, int{r.seats().frozen()});
  }
  for (const auto& [reason, count] : ctx.desk.proof_rejections()) {
    out += fmt::format("foyer_proof_rejections_total{{reason=\"{}\"}} {}\n", reason, count);
  }
  out += "# TYPE foyer_sink_queued gauge\n# TYPE foyer_sink_delivered_total counter\n"
         "# TYPE foyer_sink_dropped_total counter\n# TYPE foyer_sink_failed_total counter\n";
  for (const auto& s : ctx.sinks()) {
    out += fmt::format(
        "foyer_sink_queued{{sink=\"{0}\"}} {1}\nfoyer_sink_delivered_total{{sink=\"{0}\"}} {2}\n"
        "foyer_sink_dropped_total{{sink=\"{0}\"}} {3}\nfoyer_sink_failed_total{{sink=\"{0}\"}} {4}\n",
        s.name, s.queued, s.delivered_total, s.dropped_total, s.failed_total);
  }
  return private_text(req, "text/plain; version=0.0.4", std::move(out));
}

response healthz(const request& req) { return json_response(req, bhttp::status::ok, R"({"status":"ok"})"); }

}  // namespace foyer::http::handlers
