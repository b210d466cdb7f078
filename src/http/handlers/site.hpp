#pragma once
// The site's calls about one room, with "Authorization: Bearer <site token>" (or the
// admin token):
//   POST .../stock        {"consumed": n} | {"released": n} | {"remaining": n}, with an
//                         Idempotency-Key: the stock left and the room's state
//   POST .../passes/done  {"passes": ["<jti>", ...]}: those visitors' slots free at once
//   POST .../signals      {"p95_ms": x, "error_rate": y}: the adaptive rate's input

#include <optional>
#include <vector>

#include "core/rooms/rate_control.hpp"
#include "core/rooms/site_reports.hpp"
#include "http/handlers/context.hpp"

namespace foyer::http::handlers {

// The bodies, read as the handlers read them; nullopt for a body that is not one. Declared
// here for the fuzz target (tests/fuzz/bodies.cpp).
// {"consumed": n}, {"released": n} or {"remaining": n}: exactly one of them.
std::optional<stock_report> parse_stock(simdjson::ondemand::parser& parser, simdjson::padded_string_view text);
// {"passes": ["<32 hex>", ...]}: the pass ids.
std::optional<std::vector<id16>> parse_done(simdjson::ondemand::parser& parser, simdjson::padded_string_view text);
// {"p95_ms": x, "error_rate": y}, either field, in range; at_ms is left for the caller.
std::optional<site_signal> parse_signals(simdjson::ondemand::parser& parser, simdjson::padded_string_view text);

// The answer to give if the request does not carry the site's or the admin's token.
std::optional<response> site_check(const context& ctx, const request& req);

task<response> report_stock(context& ctx, const request& req, const room& r);
task<response> report_done(context& ctx, const request& req, const room& r);
response report_signals(context& ctx, const request& req, const room& r);

}  // namespace foyer::http::handlers
