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
      "# TYPE foyer_room_joined gauge\n# TYPE foyer_room_served gauge\n# TYPE foyer_proof_rejections_total counter\n";
  auto now = ctx.clock.steady_ms();
  for (const auto& [id, r] : ctx.rooms.rooms()) {
    out += fmt::format("foyer_room_joined{{room=\"{}\"}} {}\nfoyer_room_served{{room=\"{}\"}} {}\n", id, r.joined(), id,
                       r.served(now));
  }
  for (const auto& [reason, count] : ctx.desk.proof_rejections()) {
    out += fmt::format("foyer_proof_rejections_total{{reason=\"{}\"}} {}\n", reason, count);
  }
  response res{bhttp::status::ok, req.version()};
  res.set(bhttp::field::content_type, "text/plain; version=0.0.4");
  res.set(bhttp::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.body() = std::move(out);
  return res;
}

response healthz(const request& req) { return json_response(req, bhttp::status::ok, R"({"status":"ok"})"); }

}  // namespace foyer::http::handlers
